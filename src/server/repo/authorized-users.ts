import { DEFAULT_TENANT } from '../../rules/names.js';
import type { Queryable } from '../store/db.js';
import { deriveHeld, type InstanceFacts } from '../../rules/derivations.js';
import { rolesAllowing } from './allowed.js';
import { abacDecision } from './abac-allowed.js';
import { readRules, walkUp } from './derivations.js';
import { holdersOnInstancesSql } from './holders.js';

/** The PDP's `/authorized_users` body ([PDP] `AuthorizedUsersAuthorizationQuery`). */
export interface AuthorizedUsersQuery {
  action: string;
  resource: { type: string; key?: string | null; tenant?: string | null; attributes?: unknown };
  context?: Record<string, unknown> | null;
}

/** One way a user holds the action: the role and where it was assigned (the root of a derivation). */
export interface AuthorizedAssignment {
  user: string;
  tenant: string;
  resource: string;
  role: string;
}

export interface AuthorizedUsers {
  resource: string;
  tenant: string;
  users: Record<string, AuthorizedAssignment[]>;
}

type Dialected = Queryable & { dialect?: 'sqlite' | 'postgres' };
type Instance = { id: string; resource_id: string; tenant_id: string; tenant: string };

/**
 * Who may do `action` on the resource, each with the assignments that allow it, decided by the rules
 * /allowed uses (repo/allowed.ts), walked in reverse: which roles allow the action (`rolesAllowing`),
 * then who holds them: tenant-wide in the tenant (the instance's own when a key is named, as /allowed
 * decides), and with a key on the instance or, through derivations over tuples, on an instance above it
 * (`walkUp`, `deriveHeld`: one root at a time, so each assignment listed allows on its own). ABAC
 * holders only with `context.enable_abac_authorized_users: true`: each user of the environment is
 * checked as /allowed would (expensive, as the PDP documents). An unknown type or instance lists nobody.
 */
export async function authorizedUsers(
  q: Dialected,
  envId: string,
  query: AuthorizedUsersQuery,
): Promise<AuthorizedUsers> {
  const { type, key } = query.resource;
  const tenant = query.resource.tenant || DEFAULT_TENANT;
  const out: AuthorizedUsers = { resource: `${type}:${key ?? '*'}`, tenant, users: {} };
  const add = (a: AuthorizedAssignment) => (out.users[a.user] ??= []).push(a);
  const instance = key ? await instanceOf(q, envId, type, key) : undefined;
  if (!key || instance) {
    const { allowing, byId } = await rolesAllowing(q, envId, {
      resource: instance?.resource_id ?? null,
      type,
      action: query.action,
    });
    const tenantWide = await tenantHolders(q, envId, instance ? { id: instance.tenant_id } : { key: tenant });
    for (const h of tenantWide)
      if (allowing.has(h.role_id))
        add({ user: h.user_key, tenant: h.tenant, resource: `__tenant:${h.tenant}`, role: byId.get(h.role_id)!.key });
    if (instance) {
      for (const { type: rootType, ...a } of await instanceHolders(q, envId, instance, allowing)) {
        const role = byId.get(a.role)!;
        add({ ...a, role: role.resource_id ? `${rootType}#${role.key}` : role.key });
      }
    }
  }
  if (query.context?.enable_abac_authorized_users === true) await addAbacHolders(q, envId, query, out, add);
  for (const list of Object.values(out.users))
    list.sort((a, b) => (a.resource + a.role < b.resource + b.role ? -1 : 1));
  out.users = Object.fromEntries(Object.entries(out.users).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return out;
}

async function instanceOf(q: Queryable, envId: string, type: string, key: string): Promise<Instance | undefined> {
  return q.get<Instance>(
    `SELECT ri.id, ri.resource_id, ri.tenant_id, t.key AS tenant FROM resource_instances ri
       JOIN resources r ON r.id = ri.resource_id JOIN tenants t ON t.id = ri.tenant_id
     WHERE ri.env_id = ? AND r.env_id = ? AND r.key = ? AND ri.key = ?`,
    [envId, envId, type, key],
  );
}

/** Every tenant-wide assignment in the tenant (by id, or by key). */
async function tenantHolders(q: Queryable, envId: string, t: { id: string } | { key: string }) {
  return q.all<{ user_key: string; role_id: string; tenant: string }>(
    `SELECT u.key AS user_key, ra.role_id, t.key AS tenant FROM role_assignments ra
       JOIN users u ON u.id = ra.user_id JOIN tenants t ON t.id = ra.tenant_id
     WHERE t.env_id = ? AND ${'id' in t ? 't.id' : 't.key'} = ? AND ra.resource_instance_id IS NULL`,
    [envId, 'id' in t ? t.id : t.key],
  );
}

type Label = { id: string; type: string; key: string; tenant: string };

async function instanceLabels(q: Queryable, ids: string[]): Promise<Map<string, Label>> {
  if (ids.length === 0) return new Map();
  const rows = await q.all<Label>(
    `SELECT ri.id, r.key AS type, ri.key, t.key AS tenant FROM resource_instances ri
       JOIN resources r ON r.id = ri.resource_id JOIN tenants t ON t.id = ri.tenant_id
     WHERE ri.id IN (${ids.map(() => '?').join(', ')})`,
    ids,
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * The holders on the instance or above it: every user's roles on the instances the derivation walk
 * reaches (none but the instance when no derivation gives a role on its type), then, a user at a time
 * and one root role at a time, the roles derived onto the instance; a root is listed when one of those
 * allows. The user's direct assignments are kept in every try (`no_direct_roles_on_object` reads them).
 */
async function instanceHolders(
  q: Dialected,
  envId: string,
  instance: Instance,
  allowing: Set<string>,
): Promise<{ user: string; tenant: string; resource: string; role: string; type: string }[]> {
  const rules = await readRules(q, envId);
  const start = { id: instance.id, resource: instance.resource_id };
  const walk = rules.targets.has(instance.resource_id)
    ? await walkUp(q, rules, start)
    : { resources: new Map([[start.id, start.resource]]), tuples: [] };
  const ids = [...walk.resources.keys()];
  const rows = await q.all<{ user_id: string; user_key: string; instance_id: string; role_id: string; direct: number }>(
    holdersOnInstancesSql(ids.length),
    [envId, ...ids, ...ids, ...ids],
  );
  const byUser = new Map<string, { key: string; roots: Set<string>; direct: Set<string> }>();
  for (const r of rows) {
    const u =
      byUser.get(r.user_id) ??
      byUser.set(r.user_id, { key: r.user_key, roots: new Set(), direct: new Set() }).get(r.user_id)!;
    u.roots.add(`${r.instance_id} ${r.role_id}`);
    if (Number(r.direct) > 0) u.direct.add(r.instance_id);
  }
  const memo = new Map<string, boolean>();
  const rootAllows = (instanceId: string, role: string, direct: Set<string>): boolean => {
    if (walk.tuples.length === 0) return instanceId === instance.id && allowing.has(role);
    const memoKey = `${instanceId} ${role} ${[...direct].sort().join(',')}`;
    let allows = memo.get(memoKey);
    if (allows === undefined) {
      const facts = new Map<string, InstanceFacts>(
        ids.map((id) => [id, { resource: walk.resources.get(id)!, roles: new Set<string>(), direct: direct.has(id) }]),
      );
      facts.get(instanceId)!.roles.add(role);
      const held = deriveHeld(facts, walk.tuples, rules.index).get(instance.id)!;
      memo.set(memoKey, (allows = [...held].some((r) => allowing.has(r))));
    }
    return allows;
  };
  const found: { user: string; instance: string; role: string }[] = [];
  for (const u of byUser.values())
    for (const root of u.roots) {
      const [instanceId, role] = root.split(' ');
      if (rootAllows(instanceId, role, u.direct)) found.push({ user: u.key, instance: instanceId, role });
    }
  const named = await instanceLabels(q, [...new Set(found.map((f) => f.instance))]);
  return found.map((f) => {
    const l = named.get(f.instance)!;
    return { user: f.user, tenant: l.tenant, resource: `${l.type}:${l.key}`, role: f.role, type: l.type };
  });
}

/** ABAC holders: every user of the environment the check allows (and not already listed), through the rule's user set. */
async function addAbacHolders(
  q: Queryable,
  envId: string,
  query: AuthorizedUsersQuery,
  out: AuthorizedUsers,
  add: (a: AuthorizedAssignment) => void,
): Promise<void> {
  const users = await q.all<{ key: string }>(`SELECT key FROM users WHERE env_id = ? ORDER BY key`, [envId]);
  for (const u of users) {
    if (out.users[u.key]) continue;
    const d = await abacDecision(q, envId, {
      user: { key: u.key },
      action: query.action,
      resource: query.resource,
      context: query.context ?? undefined,
    });
    if (d.allow) add({ user: u.key, tenant: out.tenant, resource: out.resource, role: d.rule!.userSet });
  }
}
