import type { Queryable } from '../store/db.js';
import type { EnvContext } from '../context.js';
import { httpError, notFound } from '../errors.js';
import { findKeyed, parseJson } from './common.js';
import type { Actions } from './resources.js';
import { roleRead, type RoleRow } from './roles.js';

/**
 * Resource roles: roles that belong to a resource (`document#editor`, `roles.resource_id`), beside the
 * environment's top-level roles (`resource_id` NULL). What a role named on an instance means:
 *
 *   a role named on an instance of type T is T's resource role of that key when T has one, otherwise
 *   the top-level role of that key (the specification's group example creates `editor` with
 *   `POST /roles` and grants it on an instance). A tenant-wide assignment names a top-level role only.
 *
 * Every write that names a role on an instance (role assignments, group roles, access requests,
 * derivations) resolves it here, so that they all agree with /allowed.
 */
export interface ScopedRoleRow extends RoleRow {
  resource_id: string | null;
}

/** A resource's own role by key or id, or undefined. */
export async function findResourceRoleOrNull(
  q: Queryable,
  resourceId: string,
  keyOrId: string,
): Promise<ScopedRoleRow | undefined> {
  return (
    (await q.get<ScopedRoleRow>(`SELECT * FROM roles WHERE resource_id = ? AND key = ?`, [resourceId, keyOrId])) ??
    (await q.get<ScopedRoleRow>(`SELECT * FROM roles WHERE resource_id = ? AND id = ?`, [resourceId, keyOrId]))
  );
}

/** A resource's own role (`{resource}#{key}`), or 404. */
export async function findResourceRole(
  q: Queryable,
  resource: { id: string; key: string },
  keyOrId: string,
): Promise<ScopedRoleRow> {
  const row = await findResourceRoleOrNull(q, resource.id, keyOrId);
  if (!row) throw notFound('resource role', `${resource.key}#${keyOrId}`);
  return row;
}

/**
 * The role `keyOrId` names on an instance of the resource `resourceId` (the rule above): the resource's
 * own role, else the top-level one; 404 names both places looked in.
 */
export async function findRoleOn(
  q: Queryable,
  envId: string,
  resource: { id: string; key: string },
  keyOrId: string,
): Promise<ScopedRoleRow> {
  // One statement (a round trip on PostgreSQL; bulk assignments resolve a role per item), in the order
  // of precedence: the resource's role by key, by id, then the top-level role by key, by id.
  const row = await q.get<ScopedRoleRow>(
    `SELECT * FROM (
       SELECT r.*, 0 AS precedence FROM roles r WHERE r.resource_id = ? AND r.key = ?
       UNION ALL SELECT r.*, 1 FROM roles r WHERE r.resource_id = ? AND r.id = ?
       UNION ALL SELECT r.*, 2 FROM roles r WHERE r.env_id = ? AND r.resource_id IS NULL AND r.key = ?
       UNION ALL SELECT r.*, 3 FROM roles r WHERE r.env_id = ? AND r.resource_id IS NULL AND r.id = ?
     ) found ORDER BY precedence LIMIT 1`,
    [resource.id, keyOrId, resource.id, keyOrId, envId, keyOrId, envId, keyOrId],
  );
  if (!row)
    throw httpError(
      'NOT_FOUND',
      `role '${keyOrId}' not found: neither a role of resource '${resource.key}' nor a top-level role`,
    );
  return row;
}

/**
 * The role a write names, with or without an instance: on an instance of `resource`, the rule above
 * (findRoleOn); with none (tenant-wide), a top-level role only. The one place role assignments, access
 * requests and a reviewer's role change resolve a role key.
 */
export async function findRoleNamed(
  q: Queryable,
  envId: string,
  resource: { id: string; key: string } | undefined,
  keyOrId: string,
): Promise<ScopedRoleRow> {
  return resource
    ? findRoleOn(q, envId, resource, keyOrId)
    : findKeyed<ScopedRoleRow>(q, 'roles', envId, keyOrId, 'role');
}

/** The public `ResourceRoleRead` of a resource's own role (`granted_to` is added where it carries derivations: repo/resource-roles.ts). */
export function resourceRoleRead(
  row: RoleRow,
  resource: { id: string; key: string },
  env: EnvContext,
): Record<string, unknown> {
  return { ...roleRead(row, env), resource_id: resource.id, resource: resource.key };
}

/**
 * A resource role's permissions in the one stored form, the bare action key (`read`), as the public
 * `ResourceRoleRead` answers them. Accepted: the action key, `{resource}:{action}` of this resource,
 * and (`byId`) an action's id. Another resource's permission is refused (422): a resource role grants
 * on its own resource's instances only. An unknown action is 404, as for top-level roles.
 */
export function resourceRolePermissions(
  resource: { key: string; actions: string },
  given: string[],
  { byId = false } = {},
): string[] {
  const actions = parseJson<Actions>(resource.actions, {});
  const ids = new Map(Object.entries(actions).flatMap(([k, a]) => (a.id ? [[a.id, k] as const] : [])));
  const out = given.map((p) => {
    const i = p.indexOf(':');
    if (i >= 0 && p.slice(0, i) !== resource.key) {
      throw httpError(
        'INVALID_INPUT',
        `permission '${p}' is not of resource '${resource.key}': a role of resource '${resource.key}' lists that resource's actions ('read' or '${resource.key}:read')`,
      );
    }
    const action = i >= 0 ? p.slice(i + 1) : p;
    if (Object.hasOwn(actions, action)) return action;
    if (byId && ids.has(p)) return ids.get(p)!;
    throw httpError('NOT_FOUND', `action '${action}' of resource '${resource.key}' not found`);
  });
  return [...new Set(out)].sort();
}

/**
 * A resource role's `extends` (other roles of the same resource): every one exists, and with
 * `changes` applied no role of the resource extends itself. Returns each list deduplicated, sorted.
 */
export async function checkResourceExtends(
  q: Queryable,
  resource: { id: string; key: string },
  changes: Map<string, string[]>,
): Promise<Map<string, string[]>> {
  const rows = await q.all<{ key: string; extends: string }>(`SELECT key, extends FROM roles WHERE resource_id = ?`, [
    resource.id,
  ]);
  const graph = new Map(rows.map((r) => [r.key, parseJson<string[]>(r.extends, [])]));
  for (const ext of changes.values()) {
    for (const k of ext) if (!graph.has(k) && !changes.has(k)) throw notFound('resource role', `${resource.key}#${k}`);
  }
  for (const [roleKey, ext] of changes) graph.set(roleKey, ext);
  for (const [roleKey, ext] of changes) {
    const path = cycleThrough(graph, roleKey);
    if (path)
      throw httpError(
        'INVALID_INPUT',
        `role '${resource.key}#${roleKey}' would extend itself: ${path.map((k) => `${resource.key}#${k}`).join(' -> ')} (extends ${ext.join(', ')})`,
      );
  }
  return new Map([...changes].map(([k, ext]) => [k, [...new Set(ext)].sort()]));
}

/** A path `start -> ... -> start` through `extends`, if there is one. */
function cycleThrough(graph: Map<string, string[]>, start: string): string[] | undefined {
  const seen = new Set<string>();
  const walk = (k: string, path: string[]): string[] | undefined => {
    for (const next of graph.get(k) ?? []) {
      if (next === start) return [...path, next];
      if (seen.has(next)) continue;
      seen.add(next);
      const found = walk(next, [...path, next]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(start, [start]);
}

/** The roles of a resource that (transitively) extend `key` (descendants) or that `key` extends (ancestors). */
export async function relatedResourceRoles(
  q: Queryable,
  resourceId: string,
  key: string,
  direction: 'ancestors' | 'descendants',
): Promise<RoleRow[]> {
  const rows = await q.all<RoleRow>(`SELECT * FROM roles WHERE resource_id = ? ORDER BY created_at, id`, [resourceId]);
  const extendsOf = new Map(rows.map((r) => [r.key, parseJson<string[]>(r.extends, [])]));
  const step = (k: string) =>
    direction === 'ancestors'
      ? (extendsOf.get(k) ?? [])
      : rows.filter((r) => extendsOf.get(r.key)!.includes(k)).map((r) => r.key);
  const found = new Set<string>();
  const stack = step(key);
  while (stack.length) {
    const k = stack.pop()!;
    if (found.has(k) || k === key) continue;
    found.add(k);
    stack.push(...step(k));
  }
  return rows.filter((r) => found.has(r.key));
}
