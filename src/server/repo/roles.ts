import type { Queryable } from '../store/db.js';
import type { EnvContext } from '../context.js';
import { httpError, notFound } from '../errors.js';
import { envFields, parseJson } from './common.js';
import type { Actions } from './resources.js';

export interface RoleRow {
  id: string;
  key: string;
  name: string;
  description: string | null;
  permissions: string;
  extends: string;
  /** JSON; null when never given. */
  attributes?: string | null;
  created_at: string;
  updated_at: string;
}

export function roleRead(row: RoleRow, env: EnvContext) {
  return {
    id: row.id,
    key: row.key,
    name: row.name,
    ...(row.description !== null ? { description: row.description } : {}),
    permissions: parseJson<string[]>(row.permissions, []),
    extends: parseJson<string[]>(row.extends, []),
    ...(row.attributes ? { attributes: parseJson<Record<string, unknown>>(row.attributes, {}) } : {}),
    ...envFields(env),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Every permission names an existing resource and one of its actions (404 naming what is missing). */
export async function checkPermissions(q: Queryable, envId: string, permissions: string[]): Promise<string[]> {
  const byResource = new Map<string, Actions | null>();
  for (const p of permissions) {
    const [res, action] = p.split(':');
    if (!byResource.has(res)) {
      const row = await q.get<{ actions: string }>(`SELECT actions FROM resources WHERE env_id = ? AND key = ?`, [
        envId,
        res,
      ]);
      byResource.set(res, row ? parseJson<Actions>(row.actions, {}) : null);
    }
    const actions = byResource.get(res);
    if (!actions) throw notFound('resource', res);
    // Own keys only: `in` would also find `toString`, `constructor`... on the prototype.
    if (!Object.hasOwn(actions, action))
      throw httpError('NOT_FOUND', `action '${action}' of resource '${res}' not found`);
  }
  return [...new Set(permissions)].sort();
}

/** Extended roles exist, and extending does not loop back to the role itself. */
export async function checkExtends(
  q: Queryable,
  envId: string,
  roleKey: string,
  extendsKeys: string[],
): Promise<string[]> {
  return (await checkExtendsAll(q, envId, new Map([[roleKey, extendsKeys]]))).get(roleKey)!;
}

/**
 * The same for several roles' new `extends` lists taken together (a bulk write): every extended role
 * exists, and with all of them applied no role extends itself. Returns each list deduplicated, sorted.
 */
export async function checkExtendsAll(
  q: Queryable,
  envId: string,
  changes: Map<string, string[]>,
): Promise<Map<string, string[]>> {
  const rows = await q.all<{ key: string; extends: string }>(
    `SELECT key, extends FROM roles WHERE env_id = ? AND resource_id IS NULL`,
    [envId],
  );
  const graph = new Map(rows.map((r) => [r.key, parseJson<string[]>(r.extends, [])]));
  for (const ext of changes.values())
    for (const k of ext) if (!graph.has(k) && !changes.has(k)) throw notFound('role', k);
  for (const [roleKey, ext] of changes) graph.set(roleKey, ext);
  for (const [roleKey, ext] of changes) {
    const seen = new Set<string>();
    const stack = [...ext];
    while (stack.length) {
      const k = stack.pop()!;
      if (k === roleKey)
        throw httpError('INVALID_INPUT', `role '${roleKey}' would extend itself through '${ext.join(', ')}'`);
      if (seen.has(k)) continue;
      seen.add(k);
      stack.push(...(graph.get(k) ?? []));
    }
  }
  return new Map([...changes].map(([k, ext]) => [k, [...new Set(ext)].sort()]));
}
