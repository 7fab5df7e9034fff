import { newId } from '../new-id.js';
import type { EnvContext } from '../context.js';
import { duplicate } from '../errors.js';
import type { Paging } from '../paging.js';
import { isUniqueViolation, type Queryable } from '../store/db.js';
import { envFields, findKeyed, pageOf, parseJson, whereOf } from './common.js';
import { findInstance } from './assignments.js';

/**
 * Resource instances: their reads (plain and detailed, with the tuples that name them), lists and
 * writes (`/resource_instances`). An instance is named as `type:key` or by id (findInstance).
 */

const SELECT = `ri.id, ri.key, ri.attributes, ri.created_at, ri.updated_at, ri.resource_id, ri.tenant_id, res.key AS resource_key, t.key AS tenant_key`;
const FROM = `resource_instances ri JOIN resources res ON res.id = ri.resource_id JOIN tenants t ON t.id = ri.tenant_id`;

export interface InstanceRow {
  id: string;
  key: string;
  attributes: string;
  created_at: string;
  updated_at: string;
  resource_id: string;
  tenant_id: string;
  resource_key: string;
  tenant_key: string;
}

export const instanceRead = (r: InstanceRow, env: EnvContext) => ({
  id: r.id,
  key: r.key,
  resource: r.resource_key,
  tenant: r.tenant_key,
  resource_id: r.resource_id,
  tenant_id: r.tenant_id,
  attributes: parseJson(r.attributes, {}),
  ...envFields(env),
  created_at: r.created_at,
  updated_at: r.updated_at,
});

/** The public `ResourceInstanceDetailedRead`: the read, with every relationship tuple that names the instance. */
export async function detailedInstanceReads(q: Queryable, env: EnvContext, rows: InstanceRow[]) {
  if (rows.length === 0) return [];
  const marks = rows.map(() => '?').join(', ');
  const ids = rows.map((r) => r.id);
  const tuples = await q.all<{
    subject_id: string;
    object_id: string;
    subject: string;
    relation: string;
    object: string;
  }>(
    `SELECT tp.subject_id, tp.object_id, sr.key || ':' || si.key AS subject, tp.relation, orr.key || ':' || oi.key AS object
     FROM relationship_tuples tp JOIN resource_instances si ON si.id = tp.subject_id JOIN resources sr ON sr.id = si.resource_id
     JOIN resource_instances oi ON oi.id = tp.object_id JOIN resources orr ON orr.id = oi.resource_id
     WHERE tp.subject_id IN (${marks}) OR tp.object_id IN (${marks}) ORDER BY tp.created_at, tp.id`,
    [...ids, ...ids],
  );
  return rows.map((r) => ({
    ...instanceRead(r, env),
    relationships: tuples
      .filter((t) => t.subject_id === r.id || t.object_id === r.id)
      .map((t) => ({ subject: t.subject, relation: t.relation, object: t.object })),
  }));
}

export const readInstance = async (q: Queryable, id: string) =>
  (await q.get<InstanceRow>(`SELECT ${SELECT} FROM ${FROM} WHERE ri.id = ?`, [id]))!;

/** One page of the environment's instances, by `tenant` and `resource` key. */
export function listInstances(q: Queryable, envId: string, f: { tenant?: string; resource?: string }, paging: Paging) {
  const { where, params } = whereOf(
    [
      ['t.key = ?', f.tenant],
      ['res.key = ?', f.resource],
    ],
    ['ri.env_id = ?'],
    [envId],
  );
  return pageOf<InstanceRow>(q, FROM, where, params, paging, SELECT, 'ri.created_at, ri.id', { byCursor: true });
}

/** The detailed list: `tenant` and `resource` by key or id, `search` one or more instance keys or ids. */
export function listInstancesDetailed(
  q: Queryable,
  envId: string,
  f: { tenant?: string; resource?: string; search?: string | string[] },
  paging: Paging,
) {
  const search = f.search === undefined ? [] : [f.search].flat();
  const base = ['ri.env_id = ?'];
  const baseParams: string[] = [envId];
  if (search.length > 0) {
    const marks = search.map(() => '?').join(', ');
    base.push(`(ri.key IN (${marks}) OR ri.id IN (${marks}))`);
    baseParams.push(...search, ...search);
  }
  const { where, params } = whereOf(
    [
      ['(t.key = ? OR t.id = ?)', f.tenant],
      ['(res.key = ? OR res.id = ?)', f.resource],
    ],
    base,
    baseParams,
  );
  return pageOf<InstanceRow>(q, FROM, where, params, paging, SELECT, 'ri.created_at, ri.id', { byCursor: true });
}

/** A new instance of `resource` in `tenant` (409 when the key is taken there). */
export async function createInstance(
  tx: Queryable,
  envId: string,
  b: { key: string; tenant: string; resource: string; attributes?: Record<string, unknown> },
  at: string,
): Promise<InstanceRow> {
  const id = newId();
  const res = await findKeyed<{ id: string }>(tx, 'resources', envId, b.resource, 'resource');
  const t = await findKeyed<{ id: string }>(tx, 'tenants', envId, b.tenant, 'tenant');
  try {
    await tx.run(
      `INSERT INTO resource_instances (id, env_id, resource_id, key, tenant_id, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, envId, res.id, b.key, t.id, JSON.stringify(b.attributes ?? {}), at, at],
    );
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate('resource instance', `${b.resource}:${b.key}`);
    throw err;
  }
  return readInstance(tx, id);
}

/** The instance's attributes replaced, when given; returns it. */
export async function updateInstance(
  q: Queryable,
  envId: string,
  ref: string,
  attributes: Record<string, unknown> | undefined,
  at: string,
): Promise<InstanceRow> {
  const inst = await findInstance(q, envId, ref);
  if (attributes !== undefined)
    await q.run(`UPDATE resource_instances SET attributes = ?, updated_at = ? WHERE id = ?`, [
      JSON.stringify(attributes),
      at,
      inst.id,
    ]);
  return readInstance(q, inst.id);
}

/** Deletes the instance: its role assignments, tuples and group grants go, and the group if it is one (cascade). */
export async function deleteInstance(q: Queryable, envId: string, ref: string): Promise<void> {
  const inst = await findInstance(q, envId, ref);
  await q.run(`DELETE FROM resource_instances WHERE id = ?`, [inst.id]);
}
