import { newId } from '../new-id.js';
import { attributeClause } from './attribute-filter.js';
import type { Queryable } from '../store/db.js';
import { isUniqueViolation } from '../store/db.js';
import type { EnvContext } from '../context.js';
import { duplicate } from '../errors.js';
import type { Paging } from '../paging.js';
import { envFields, findKeyed, pageOf, parseJson, searchClause } from './common.js';

export interface TenantRow {
  id: string;
  key: string;
  name: string;
  description: string | null;
  attributes: string;
  created_at: string;
  updated_at: string;
}

export const tenantRead = (r: TenantRow, env: EnvContext) => ({
  id: r.id,
  key: r.key,
  name: r.name,
  ...(r.description !== null ? { description: r.description } : {}),
  attributes: parseJson(r.attributes, {}),
  ...envFields(env),
  created_at: r.created_at,
  updated_at: r.updated_at,
  // The public service's "last permission check in the tenant"; the server records no checks, so this
  // is the tenant's last change (docs/server.md).
  last_action_at: r.updated_at,
});

export interface TenantFields {
  name?: string;
  description?: string | null;
  attributes?: Record<string, unknown>;
}

/** One page of the environment's tenants, `search` matching key or name. */
export async function listTenants(
  q: Queryable,
  envId: string,
  search: unknown,
  paging: Paging,
  filters: [string, string][] = [],
) {
  const s = searchClause(search);
  const a = await attributeClause(q, 'tenants', 'env_id = ?', [envId], filters);
  return pageOf<TenantRow>(q, 'tenants', `env_id = ?${s.where}${a.where}`, [envId, ...s.params, ...a.params], paging);
}

const readTenant = async (q: Queryable, id: string) =>
  (await q.get<TenantRow>(`SELECT * FROM tenants WHERE id = ?`, [id]))!;

/** A new tenant (409 when the key is taken). */
export async function createTenant(
  q: Queryable,
  envId: string,
  b: TenantFields & { key: string; name: string },
  at: string,
): Promise<TenantRow> {
  const id = newId();
  try {
    await q.run(
      `INSERT INTO tenants (id, env_id, key, name, description, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, envId, b.key, b.name, b.description ?? null, JSON.stringify(b.attributes ?? {}), at, at],
    );
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate('tenant', b.key);
    throw err;
  }
  return readTenant(q, id);
}

/** The tenant `key` with the fields given replaced (the others stay). */
export async function updateTenant(
  q: Queryable,
  envId: string,
  key: string,
  b: TenantFields,
  at: string,
): Promise<TenantRow> {
  const row = await findKeyed<TenantRow>(q, 'tenants', envId, key, 'tenant');
  await q.run(`UPDATE tenants SET name = ?, description = ?, attributes = ?, updated_at = ? WHERE id = ?`, [
    b.name ?? row.name,
    b.description !== undefined ? b.description : row.description,
    JSON.stringify(b.attributes ?? parseJson(row.attributes, {})),
    at,
    row.id,
  ]);
  return readTenant(q, row.id);
}

/** Deletes the tenant `key`: its instances, groups and assignments go with it (cascade). */
export async function deleteTenant(q: Queryable, envId: string, key: string): Promise<void> {
  const row = await findKeyed<TenantRow>(q, 'tenants', envId, key, 'tenant');
  await q.run(`DELETE FROM tenants WHERE id = ?`, [row.id]);
}
