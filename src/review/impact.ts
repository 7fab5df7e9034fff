import { buildAccessGraph, diffAccess, type AccessFacts } from '../access/index.js';
import { targetOf, type AccessRequest } from './request.js';

/** A role as the service defines it (`GET /v2/schema/{p}/{e}/roles`). */
export interface RoleInfo {
  key: string;
  name?: string;
  permissions: string[];
  extends: string[];
}

/**
 * The roles a reviewer may grant instead of the one asked (`r`): those that grant some permission on the
 * request's resource (tenant-wide: any permission), through `extends` too. Never `member`, the
 * service's group-membership role, which grants nothing by itself.
 */
export function rolesFor(request: Pick<AccessRequest, 'resource'>, roles: readonly RoleInfo[]): RoleInfo[] {
  const graph = buildAccessGraph({ roles: roles.map((r) => ({ key: r.key, permissions: r.permissions, extends: r.extends })), instances: [], tenantRoles: [], instanceRoles: [], memberships: [], links: [], groupGrants: [] });
  const type = request.resource;
  return roles.filter((r) => r.key !== 'member' && graph.permissionsOf(r.key).some((p) => !type || p.startsWith(`${type}:`)));
}

/** What was read about the requester: their role assignments, as the API lists them. */
export interface RequesterFacts {
  user: string;
  /** `resource_instance` is `type:key`, or null for a tenant-wide role. */
  assignments: { role: string; tenant: string; resource_instance: string | null }[];
}

export interface Impact {
  /** One line per effect, e.g. "+ editor on document:readme (grants document:read, document:write)". */
  lines: string[];
  /** Permissions gained on the instance (instance requests only). */
  gained: string[];
  /** Says what the view leaves out. */
  note: string;
}

/** The requester's roles in the request's tenant: tenant-wide first, then per instance. */
export function rolesInTenant(facts: RequesterFacts, tenant: string): string[] {
  const mine = facts.assignments.filter((a) => a.tenant === tenant);
  return [
    ...mine.filter((a) => a.resource_instance === null).map((a) => `${a.role} (tenant-wide)`),
    ...mine.filter((a) => a.resource_instance !== null).map((a) => `${a.role} on ${a.resource_instance}`),
  ];
}

/**
 * What approving `request` (as `role`) would change for the requester, computed with the shared access
 * graph from facts that are cheap to read: the requester's own role assignments and the role
 * definitions. Pure.
 */
export function buildImpact(request: AccessRequest, roles: RoleInfo[], facts: RequesterFacts, role = request.role): Impact {
  const user = request.requester;
  const instance = request.resource && request.instance ? `${request.resource}:${request.instance}` : undefined;
  const before: AccessFacts = {
    roles: roles.map((r) => ({ key: r.key, permissions: r.permissions, extends: r.extends })),
    instances: [
      ...(instance ? [{ id: instance, tenant: request.tenant }] : []),
      ...facts.assignments.filter((a) => a.resource_instance).map((a) => ({ id: a.resource_instance!, tenant: a.tenant })),
    ],
    tenantRoles: facts.assignments.filter((a) => !a.resource_instance).map((a) => ({ user, role: a.role, tenant: a.tenant })),
    instanceRoles: facts.assignments.filter((a) => a.resource_instance).map((a) => ({ user, role: a.role, instance: a.resource_instance! })),
    memberships: [],
    links: [],
    groupGrants: [],
  };
  const after: AccessFacts = instance
    ? { ...before, instanceRoles: [...before.instanceRoles, { user, role, instance }] }
    : { ...before, tenantRoles: [...before.tenantRoles, { user, role, tenant: request.tenant }] };
  const note = `partial view: from ${user}'s own role assignments and the role definitions; groups are not read, so ${user} may hold some of this already through a group (roster explain ${user} ROLE ${instance ?? 'INSTANCE'} --live shows every path)`;
  const g0 = buildAccessGraph(before);
  const g1 = buildAccessGraph(after);
  const known = roles.some((r) => r.key === role);
  if (!known) return { lines: [`? ${role} is not a role of this environment (the service will refuse it)`], gained: [], note };
  const type = request.resource ?? undefined;
  const ofType = (perms: string[]) => (type ? perms.filter((p) => p.startsWith(`${type}:`)) : perms);
  const perms = ofType(g1.permissionsOf(role));
  const grants = perms.length > 0 ? ` (grants ${perms.join(', ')})` : ' (grants no permission on this type)';

  if (!instance) {
    const where = `tenant-wide in ${request.tenant}`;
    if (before.tenantRoles.some((t) => t.role === role && t.tenant === request.tenant)) {
      return { lines: [`= ${user} already holds ${role} ${where}: approving changes nothing`], gained: [], note };
    }
    return { lines: [`+ ${role} ${where}${grants}`, `  on every ${type ? `${type} ` : ''}instance of ${request.tenant}`], gained: perms, note };
  }

  if (g0.rolesOn(user, instance).some((h) => h.role === role)) {
    return { lines: [`= ${user} already holds ${role} on ${instance}: approving changes nothing`], gained: [], note };
  }
  const diff = diffAccess(g0, g1, { permissions: true });
  const gained = diff.changes.filter((c) => c.sign === '+' && c.user === user && c.instance === instance).map((c) => c.subject);
  const lines = [`+ ${role} on ${targetOf(request)}${grants}`];
  const kept = perms.filter((p) => !gained.includes(p));
  if (kept.length > 0) {
    const via = g0.rolesOn(user, instance).map((h) => h.role);
    lines.push(`  already held there: ${kept.join(', ')}${via.length ? ` (through ${via.join(', ')})` : ''}`);
  }
  lines.push(gained.length > 0 ? `  new for ${user}: ${gained.join(', ')}` : `  no new permission for ${user}`);
  return { lines, gained, note };
}
