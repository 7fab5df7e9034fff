/** Stable identities of changes: `kind:...`, readable and unique within a plan. */
export const ids = {
  resource: (key: string) => `resource:${key}`,
  /** A role defined on a resource type: `resource_role:document#editor`. */
  resourceRole: (resource: string, key: string) => `resource_role:${resource}#${key}`,
  /** A relation of an object resource: `relation:document#parent`. */
  relation: (object: string, key: string) => `relation:${object}#${key}`,
  /** A role derivation: `derivation:document#editor<folder#editor@parent`. */
  derivation: (resource: string, role: string, on: string, from: string, via: string) =>
    `derivation:${resource}#${role}<${on}#${from}@${via}`,
  /** A relationship tuple: `tuple:folder:finance#parent@document:budget`. */
  tuple: (subject: string, relation: string, object: string) => `tuple:${subject}#${relation}@${object}`,
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
  /** An attribute definition of a resource: `resource_attribute:expense.amount`. */
  resourceAttribute: (resource: string, key: string) => `resource_attribute:${resource}.${key}`,
  userAttribute: (key: string) => `user_attribute:${key}`,
  tenantAttribute: (key: string) => `tenant_attribute:${key}`,
  /** A user set or a resource set (keys are unique across both on the service). */
  conditionSet: (key: string) => `condition_set:${key}`,
  /** A set rule: `set_rule:seniors:expense:approve@small`. */
  setRule: (userSet: string, permission: string, resourceSet: string) =>
    `set_rule:${userSet}:${permission}@${resourceSet}`,
  /** An access request (not a change: it goes with its element configuration, cascade.ts). */
  accessRequest: (id: string) => `access_request:${id}`,
};
