/** Stable identities of changes: `kind:...`, readable and unique within a plan. */
export const ids = {
  resource: (key: string) => `resource:${key}`,
  role: (key: string) => `role:${key}`,
  tenant: (key: string) => `tenant:${key}`,
  user: (key: string) => `user:${key}`,
  tenantUser: (user: string, tenant: string) => `tenant_user:${user}@${tenant}`,
  instance: (ref: string) => `instance:${ref}`,
  group: (ref: string) => `group:${ref}`,
  /** A role held by a user, on an instance or tenant-wide in a tenant. */
  assignment: (user: string, role: string, where: string) => `assignment:${user}:${role}@${where}`,
  member: (user: string, group: string) => `member:${user}@${group}`,
  link: (child: string, parent: string) => `link:${child}@${parent}`,
  grant: (group: string, role: string, on: string) => `grant:${group}:${role}@${on}`,
  accessRequests: (key: string) => `access_requests:${key}`,
  /** An access request (not a change: it goes with its element configuration, cascade.ts). */
  accessRequest: (id: string) => `access_request:${id}`,
};
