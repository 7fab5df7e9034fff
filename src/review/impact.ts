import { buildAccessGraph, diffAccess, type AccessFacts, type AccessGraph } from '../access/index.js';
import { factsFromState, type AccessSource } from '../access/from-state.js';
import { typeOf } from '../types/refs.js';
import { MEMBER_ROLE } from '../types/names.js';
import type { DesiredResource, DesiredResourceInstance, DesiredTuple, DesiredUserRole } from '../types/desired.js';
import { targetOf, type AccessRequest } from './request.js';
import { abacFromState } from '../access/abac/model.js';
import { abacOnRoleGrant, formatRoleGrantChange } from '../access/abac/impact.js';
import type { DesiredConditionSet, DesiredSetRule } from '../types/abac.js';
import { setRuleKey } from '../types/abac.js';

/** The environment's condition sets and set rules as the review reads them (`GET condition_sets`, `GET set_rules`). */
export interface SetRulesRead {
  sets: Omit<DesiredConditionSet, 'name'>[];
  rules: DesiredSetRule[];
}

/**
 * A role as the service defines it: a top-level role (`GET /v2/schema/{p}/{e}/roles`, permissions
 * `resource:action`), or a resource role (`roles` of `GET .../resources`, `resource` set, permissions
 * and `extends` within the resource, `grantedTo` its derivations).
 */
export interface RoleInfo {
  key: string;
  name?: string;
  permissions: string[];
  extends: string[];
  /** The resource a resource role belongs to (`document` for `document#editor`); absent for a top-level role. */
  resource?: string;
  /** A resource role's derivations (`granted_to.users_with_role`): holders of `role` on an `on` instance linked by `via`. */
  grantedTo?: { role: string; on: string; via: string; noDirectRolesOnObject?: boolean }[];
}

/** The role's identity in the access graph: `document#editor` for a resource role, the key otherwise. */
export const roleIdOf = (r: Pick<RoleInfo, 'key' | 'resource'>): string =>
  r.resource ? `${r.resource}#${r.key}` : r.key;

/** The key a role identity is named by on the wire (`editor` for `document#editor`): the service resolves it on the instance. */
export const roleKeyOf = (id: string): string => id.slice(id.indexOf('#') + 1);

/**
 * The roles a reviewer may grant instead of the one asked (`r`), as identities, sorted: those that grant
 * some permission on the request's resource type (tenant-wide: any permission), through `extends` too.
 * On an instance: the resource roles of its type, and the top-level roles the service would resolve a
 * key to there (one the type's own role of that key hides is not offered). Never `member`.
 */
export function rolesFor(request: Pick<AccessRequest, 'resource' | 'instance'>, roles: readonly RoleInfo[]): string[] {
  const graph = buildAccessGraph(factsOf(roles, stateOf(roles, [], [])));
  const type = request.resource ?? undefined;
  const instance = type && request.instance ? `${type}:${request.instance}` : undefined;
  return roles
    .filter((r) => r.key !== MEMBER_ROLE && (instance ? graph.roleOn(r.key, instance) === roleIdOf(r) : !r.resource))
    .map(roleIdOf)
    .filter((id) => graph.permissionsOf(id).some((p) => !type || typeOf(p) === type))
    .sort();
}

/** The identity the role `key` (as a request or reviewer names it) resolves to on the request's target. */
export function roleOnRequest(
  request: Pick<AccessRequest, 'resource' | 'instance'>,
  roles: readonly RoleInfo[],
  key: string,
): string {
  const instance = request.resource && request.instance ? `${request.resource}:${request.instance}` : undefined;
  return instance ? buildAccessGraph(factsOf(roles, stateOf(roles, [], []))).roleOn(key, instance) : key;
}

/** What was read about the requester: their role assignments, as the API lists them. */
export interface RequesterFacts {
  user: string;
  /** `resource_instance` is `type:key`, or null for a tenant-wide role. */
  assignments: { role: string; tenant: string; resource_instance: string | null }[];
}

/** Relationship tuples between instances, for the derivations the impact follows (`folder:finance parent document:budget`). */
export interface Tuple {
  subject: string;
  relation: string;
  object: string;
}

export interface Impact {
  /** One line per effect, e.g. "+ document#editor: document:write on document:readme". */
  lines: string[];
  /** Permissions gained on the request's instance (instance requests only). */
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
 * The partial view of "If approved", shown until the whole environment is read (impact-live.ts, the full
 * view) or when it cannot be: what approving `request` (as `role`, a key as the service takes it) would
 * change for the requester, computed with the shared access graph (src/access: the same resolution of a role on an instance, the
 * same derivations, as the service) from facts that are cheap to read: the requester's own role
 * assignments, the role definitions, and the tuples when given. Pure.
 */
export function buildImpact(
  request: AccessRequest,
  roles: RoleInfo[],
  facts: RequesterFacts,
  role = request.role,
  tuples: readonly Tuple[] = [],
  setRules?: SetRulesRead | null,
): Impact {
  const impact = roleImpact(request, roles, facts, role, tuples);
  if (setRules === undefined) return impact;
  if (setRules === null)
    return {
      ...impact,
      note: `${impact.note}; the set rules could not be read, so what attribute-based access adds is not shown`,
    };
  return { ...impact, lines: [...impact.lines, ...abacImpact(request, facts, role, setRules)] };
}

/**
 * What a tenant-wide top-level role adds through set rules: the role joins `user.roles` in the tenant,
 * so rules on its autogenerated user set, and user sets conditioned on `user.roles`, may take the
 * requester in (src/access/abac/impact.ts). A role on an instance does not change `user.roles`: nothing.
 */
function abacImpact(request: AccessRequest, facts: RequesterFacts, role: string, read: SetRulesRead): string[] {
  if (request.resource && request.instance) return [];
  if (read.rules.length === 0) return [];
  const view = abacFromState({
    resources: new Map(),
    userAttributes: new Map(),
    tenantAttributes: new Map(),
    conditionSets: new Map(read.sets.map((s) => [s.key, { ...s, name: s.key }])),
    setRules: new Map(read.rules.map((r) => [setRuleKey(r), r])),
  });
  const held = facts.assignments
    .filter((a) => a.tenant === request.tenant && a.resource_instance === null)
    .map((a) => a.role);
  const tenants = [...new Set(facts.assignments.map((a) => a.tenant))];
  return abacOnRoleGrant(view, request.requester, request.tenant, held, role, tenants).map(formatRoleGrantChange);
}

function roleImpact(
  request: AccessRequest,
  roles: RoleInfo[],
  facts: RequesterFacts,
  role: string,
  tuples: readonly Tuple[],
): Impact {
  const user = request.requester;
  const { instance, mine, instances, g0 } = requesterGraph(request, roles, facts, tuples);
  const asked: DesiredUserRole = { role, tenant: request.tenant, ...(instance ? { on: instance } : {}) };
  const g1 = buildAccessGraph(factsOf(roles, stateOf(roles, [{ user, roles: [...mine, asked] }], instances, tuples)));
  const note = `partial view: from ${user}'s own role assignments and the role definitions; groups are not read, so ${user} may hold some of this already through a group (roster explain ${user} ROLE ${instance ?? 'INSTANCE'} --live shows every path)`;
  const id = instance ? g1.roleOn(role, instance) : role;
  if (!g1.facts.roles.some((r) => r.key === id) || (!instance && id.includes('#'))) {
    const where = instance
      ? `neither a role of ${request.resource} nor a top-level role`
      : 'not a top-level role of this environment';
    return { lines: [`? ${role} is ${where} (the service will refuse it)`], gained: [], note };
  }
  const type = request.resource ?? undefined;
  const perms = g1.permissionsOf(id).filter((p) => !type || typeOf(p) === type);
  const grants = perms.length > 0 ? ` (grants ${perms.join(', ')})` : ' (grants no permission on this type)';

  if (!instance) {
    const where = `tenant-wide in ${request.tenant}`;
    if (holdsRequested(request, roles, facts, role)) {
      return { lines: [`= ${user} already holds ${role} ${where}: approving changes nothing`], gained: [], note };
    }
    return {
      lines: [`+ ${role} ${where}${grants}`, `  on every ${type ? `${type} ` : ''}instance of ${request.tenant}`],
      gained: perms,
      note,
    };
  }

  if (holdsRequested(request, roles, facts, role)) {
    return { lines: [`= ${user} already holds ${id} on ${instance}: approving changes nothing`], gained: [], note };
  }
  if (perms.length === 0) return { lines: [`+ ${id} on ${targetOf(request)}${grants}`], gained: [], note };
  return instanceImpact(g0, g1, user, instance, id, perms, note);
}

/** The requester's own assignments as a graph, with the request's instance listed in its tenant. */
function requesterGraph(
  request: AccessRequest,
  roles: readonly RoleInfo[],
  facts: RequesterFacts,
  tuples: readonly Tuple[] = [],
) {
  const instance = request.resource && request.instance ? `${request.resource}:${request.instance}` : undefined;
  const mine: DesiredUserRole[] = facts.assignments.map((a) => ({
    role: a.role,
    tenant: a.tenant,
    ...(a.resource_instance ? { on: a.resource_instance } : {}),
  }));
  const instances = [
    ...(instance ? [{ id: instance, tenant: request.tenant }] : []),
    ...mine.flatMap((a) => (a.on ? [{ id: a.on, tenant: a.tenant }] : [])),
  ];
  const g0 = buildAccessGraph(
    factsOf(roles, stateOf(roles, [{ user: request.requester, roles: mine }], instances, tuples)),
  );
  return { instance, mine, instances, g0 };
}

/**
 * Whether the requester's own assignments hold the requested role (`role`, a key) where the request asks
 * for it: on its instance (directly or tenant-wide), resolved as the service resolves it there; or
 * tenant-wide, for a tenant-wide request. Holdings through groups are not read.
 */
export function holdsRequested(
  request: AccessRequest,
  roles: readonly RoleInfo[],
  facts: RequesterFacts,
  role = request.role,
): boolean {
  const { instance, mine, g0 } = requesterGraph(request, roles, facts);
  if (!instance) return mine.some((a) => a.role === role && a.tenant === request.tenant && a.on === undefined);
  return g0.rolesOn(request.requester, instance).some((h) => h.role === g0.roleOn(role, instance));
}

/** Per instance, the permissions the grant adds (the request's instance first, then those derived from it). */
function instanceImpact(
  g0: AccessGraph,
  g1: AccessGraph,
  user: string,
  instance: string,
  id: string,
  perms: string[],
  note: string,
): Impact {
  const diff = diffAccess(g0, g1, { permissions: true });
  const byInstance = new Map<string, { role: string; perms: string[]; from?: string }>();
  for (const c of diff.changes) {
    if (c.sign !== '+' || c.user !== user) continue;
    const best = c.via[0];
    const entry = byInstance.get(c.instance) ?? {
      role: best.role,
      perms: [],
      ...(best.path.kind === 'derived'
        ? { from: `from ${best.path.role} on ${best.path.subject} via ${best.path.relation}` }
        : {}),
    };
    entry.perms.push(c.subject);
    byInstance.set(c.instance, entry);
  }
  const gained = byInstance.get(instance)?.perms ?? [];
  const lines: string[] = [];
  if (gained.length > 0) lines.push(`+ ${id}: ${gained.join(', ')} on ${instance}`);
  const kept = perms.filter((p) => !gained.includes(p));
  if (kept.length > 0) {
    const via = g0.rolesOn(user, instance).map((h) => h.role);
    const through = via.length ? ` (through ${via.join(', ')})` : '';
    lines.push(
      gained.length > 0
        ? `  already held there: ${kept.join(', ')}${through}`
        : `= ${user} gains nothing on ${instance}: ${id} grants ${kept.join(', ')}, held already${through}`,
    );
  }
  for (const [other, e] of [...byInstance].filter(([i]) => i !== instance))
    lines.push(`+ ${e.role}: ${e.perms.join(', ')} on ${other}${e.from ? ` (${e.from})` : ''}`);
  return { lines, gained, note };
}

/**
 * The facts of `state`, through the one adapter; top-level roles keep the `extends` the service gives
 * them (the configuration has none, so its state does not carry them).
 */
function factsOf(roles: readonly RoleInfo[], state: AccessSource): AccessFacts {
  const facts = factsFromState(state);
  const extendsOf = new Map(roles.filter((r) => !r.resource && r.extends.length > 0).map((r) => [r.key, r.extends]));
  if (extendsOf.size > 0)
    facts.roles = facts.roles.map((r) => (extendsOf.has(r.key) ? { ...r, extends: extendsOf.get(r.key) } : r));
  return facts;
}

/**
 * The review's reads in the shapes the access graph's one adapter (`factsFromState`) takes, so that a
 * role named on an instance, `extends` and derivations mean here what they mean everywhere else.
 */
function stateOf(
  roles: readonly RoleInfo[],
  users: readonly { user: string; roles: DesiredUserRole[] }[],
  instances: readonly { id: string; tenant: string }[],
  tuples: readonly Tuple[] = [],
): AccessSource {
  const resources = new Map<string, DesiredResource>();
  for (const r of roles) {
    if (!r.resource) continue;
    const res = resources.get(r.resource) ?? { key: r.resource, name: r.resource, actions: [], roles: [] };
    res.roles!.push({
      key: r.key,
      name: r.name ?? r.key,
      permissions: r.permissions,
      extends: r.extends,
      grantedTo: r.grantedTo ?? [],
    });
    resources.set(r.resource, res);
  }
  const relations = new Map<string, DesiredTuple[]>();
  for (const t of tuples)
    relations.set(t.object, [...(relations.get(t.object) ?? []), { relation: t.relation, subject: t.subject }]);
  const resourceInstances = new Map<string, DesiredResourceInstance>();
  // Tuples reach instances the requester holds nothing on: listed too, of no known tenant.
  for (const { id, tenant } of [
    ...instances,
    ...tuples.flatMap((t) => [t.subject, t.object]).map((id) => ({ id, tenant: '' })),
  ]) {
    if (resourceInstances.has(id)) continue;
    const type = typeOf(id);
    resourceInstances.set(id, {
      resource: type,
      key: id.slice(type.length + 1),
      tenant,
      ...(relations.has(id) ? { relations: relations.get(id) } : {}),
    });
  }
  return {
    roles: new Map(
      roles
        .filter((r) => !r.resource)
        .map((r) => [r.key, { key: r.key, name: r.name ?? r.key, permissions: r.permissions }]),
    ),
    resources,
    users: new Map(users.map((u) => [u.user, { key: u.user, tenants: [], roles: u.roles }])),
    resourceInstances,
    groups: new Map(),
  };
}
