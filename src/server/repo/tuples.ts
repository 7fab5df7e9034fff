import type { EnvContext } from '../context.js';
import { httpError, notFound } from '../errors.js';
import type { Paging } from '../paging.js';
import type { Queryable } from '../store/db.js';
import { envFields, findKeyed, pageOf, parseJson, splitRef, whereOf } from './common.js';
import { findInstance, findOrCreateInstance } from './assignments.js';
import { ensureTuple, removeTuple } from './relations.js';

/** Relationship tuples: their reads (plain and detailed), their list with filters, and their writes. */

export interface TupleRow {
  id: string;
  relation: string;
  created_at: string;
  subject_id: string;
  object_id: string;
  tenant_id: string;
  s_type: string;
  s_key: string;
  o_type: string;
  o_key: string;
  tenant_key: string;
  relation_id: string;
  relation_name: string;
  s_attributes: string;
  o_attributes: string;
  s_tenant: string;
  o_tenant: string;
  tenant_name: string;
  tenant_attributes: string;
}
const SELECT = `tp.id, tp.relation, tp.created_at, tp.subject_id, tp.object_id, tp.tenant_id, sr.key AS s_type, si.key AS s_key,
  orr.key AS o_type, oi.key AS o_key, t.key AS tenant_key, rel.id AS relation_id, rel.name AS relation_name,
  si.attributes AS s_attributes, oi.attributes AS o_attributes, st.key AS s_tenant, ot.key AS o_tenant, t.name AS tenant_name,
  t.attributes AS tenant_attributes`;
// A tuple names its relation by key on the object's type; deleting a relation deletes its tuples.
const LEAN_FROM = `relationship_tuples tp JOIN resource_instances si ON si.id = tp.subject_id JOIN resources sr ON sr.id = si.resource_id
  JOIN resource_instances oi ON oi.id = tp.object_id JOIN resources orr ON orr.id = oi.resource_id JOIN tenants t ON t.id = tp.tenant_id
  JOIN relations rel ON rel.object_resource_id = oi.resource_id AND rel.key = tp.relation`;
const FROM = `${LEAN_FROM} JOIN tenants st ON st.id = si.tenant_id JOIN tenants ot ON ot.id = oi.tenant_id`;
/**
 * The FROM that counts a list: the joins its filters name, and the relation's, which can drop a row (it
 * is no foreign key). The others join NOT NULL foreign keys to primary keys: each matches exactly one
 * row, so leaving them out counts the same rows. Counting the 2,300 tuples of a plan's read (three
 * relation filters) joined all of them: ~10 ms, once per data version.
 */
function countFrom(where: string): string {
  const names = (alias: string) => new RegExp(`\\b${alias}\\.`).test(where);
  return [
    'relationship_tuples tp JOIN resource_instances oi ON oi.id = tp.object_id',
    'JOIN relations rel ON rel.object_resource_id = oi.resource_id AND rel.key = tp.relation',
    names('si') || names('sr') ? 'JOIN resource_instances si ON si.id = tp.subject_id' : '',
    names('sr') ? 'JOIN resources sr ON sr.id = si.resource_id' : '',
    names('orr') ? 'JOIN resources orr ON orr.id = oi.resource_id' : '',
    names('t') ? 'JOIN tenants t ON t.id = tp.tenant_id' : '',
  ]
    .filter((join) => join !== '')
    .join(' ');
}
/**
 * What `tupleRead` reads (from LEAN_FROM), without the details: the instances' tenants (st, ot), attributes and names.
 * The same rows: st and ot are the tenants of the instances' NOT NULL foreign keys, so joining them drops
 * none. ~21 -> ~14 ms of SQL for the 2,300 tuples of a plan's read.
 */
const LEAN_SELECT = `tp.id, tp.relation, tp.created_at, tp.subject_id, tp.object_id, tp.tenant_id, sr.key AS s_type, si.key AS s_key,
  orr.key AS o_type, oi.key AS o_key, t.key AS tenant_key, rel.id AS relation_id`;

/** The public `RelationshipTupleRead`. Tuples never change: `updated_at` is their creation time. */
export const tupleRead = (r: TupleRow, env: EnvContext) => ({
  id: r.id,
  subject: `${r.s_type}:${r.s_key}`,
  relation: r.relation,
  object: `${r.o_type}:${r.o_key}`,
  tenant: r.tenant_key,
  subject_id: r.subject_id,
  relation_id: r.relation_id,
  object_id: r.object_id,
  tenant_id: r.tenant_id,
  ...envFields(env),
  created_at: r.created_at,
  updated_at: r.created_at,
});

/** The public `RelationshipTupleDetailedRead`: the read, with the instances, relation and tenant described. */
export const tupleDetailedRead = (r: TupleRow, env: EnvContext) => ({
  ...tupleRead(r, env),
  subject_details: { key: r.s_key, tenant: r.s_tenant, resource: r.s_type, attributes: parseJson(r.s_attributes, {}) },
  relation_details: { key: r.relation, name: r.relation_name },
  object_details: { key: r.o_key, tenant: r.o_tenant, resource: r.o_type, attributes: parseJson(r.o_attributes, {}) },
  tenant_details: { key: r.tenant_key, name: r.tenant_name, attributes: parseJson(r.tenant_attributes, {}) },
});

export type TupleInput = { subject: string; relation: string; object: string; tenant?: string };

/**
 * A tuple's instances exist, share its tenant, and its relation is declared on the object's type for the
 * subject's type. With a `tenant`, a missing subject or object is created in it (the public description:
 * the tenant is there to create them); the transaction undoes that if the tuple is refused.
 */
async function resolveTuple(q: Queryable, envId: string, t: TupleInput, at: string) {
  const subject = await findOrCreateInstance(q, envId, t.subject, t.tenant, at);
  const object = await findOrCreateInstance(q, envId, t.object, t.tenant, at);
  const rel = await q.get<{ subject_key: string }>(
    `SELECT s.key AS subject_key FROM relations rel JOIN resources o ON o.id = rel.object_resource_id JOIN resources s ON s.id = rel.subject_resource_id
     WHERE rel.env_id = ? AND o.key = ? AND rel.key = ?`,
    [envId, object.resource_key, t.relation],
  );
  if (!rel) throw notFound('relation', `${object.resource_key}#${t.relation}`);
  if (rel.subject_key !== subject.resource_key) {
    throw httpError(
      'MISMATCH_RELATION_TYPE',
      `relation ${object.resource_key}#${t.relation} takes subjects of type '${rel.subject_key}', not '${subject.resource_key}'`,
    );
  }
  // A tuple lives in one tenant, the one both of its instances are in: a tuple recorded under a tenant
  // neither instance belongs to (or across tenants) would relate objects no tenant-scoped read can see.
  // The tenant may be named by key or id: compare ids.
  const tenantId = t.tenant
    ? (await findKeyed<{ id: string }>(q, 'tenants', envId, t.tenant, 'tenant')).id
    : object.tenant_id;
  if (subject.tenant_id !== tenantId || object.tenant_id !== tenantId) {
    throw httpError(
      'MISMATCH_RESOURCE_INSTANCES_TENANTS',
      `${t.subject} (tenant '${subject.tenant_key}') and ${t.object} (tenant '${object.tenant_key}') must both be in tenant '${t.tenant ?? object.tenant_key}'`,
    );
  }
  return { subject, object, tenantId: object.tenant_id };
}

/** The list's filters: `subject` and `object` as `type:key` (or their types alone), `relation`, `tenant` key. */
export interface TupleFilters {
  subject?: string;
  relation?: string;
  object?: string;
  subject_type?: string;
  object_type?: string;
  tenant?: string;
}

/** One page of tuples (`detailed`: with what tupleDetailedRead needs), oldest first. */
export function listTuples(q: Queryable, envId: string, f: TupleFilters, paging: Paging, detailed: boolean) {
  const subject = f.subject ? splitRef(f.subject) : undefined;
  const object = f.object ? splitRef(f.object) : undefined;
  const { where, params } = whereOf(
    [
      ['sr.key = ?', subject?.[0] ?? f.subject_type],
      ['si.key = ?', subject?.[1]],
      ['tp.relation = ?', f.relation],
      ['orr.key = ?', object?.[0] ?? f.object_type],
      ['oi.key = ?', object?.[1]],
      ['t.key = ?', f.tenant],
    ],
    ['tp.env_id = ?'],
    [envId],
  );
  return pageOf<TupleRow>(
    q,
    detailed ? FROM : LEAN_FROM,
    where,
    params,
    paging,
    detailed ? SELECT : LEAN_SELECT,
    'tp.created_at, tp.id',
    { byCursor: true, countFrom: countFrom(where) },
  );
}

/** Writes the tuple (resolveTuple checks it; an existing one is kept); returns it as read. */
export async function writeTuple(tx: Queryable, envId: string, t: TupleInput, at: string) {
  const r = await resolveTuple(tx, envId, t, at);
  await ensureTuple(tx, envId, r.subject.id, t.relation, r.object.id, r.tenantId, at);
  return r;
}

/** A tuple by its subject, relation and object ids, in the detailed shape. */
export async function readTuple(q: Queryable, subjectId: string, relation: string, objectId: string) {
  return (await q.get<TupleRow>(
    `SELECT ${SELECT} FROM ${FROM} WHERE tp.subject_id = ? AND tp.relation = ? AND tp.object_id = ?`,
    [subjectId, relation, objectId],
  ))!;
}

/** Deletes the tuple its instances (404 when missing) and relation name; whether there was one. */
export async function deleteTuple(tx: Queryable, envId: string, t: Omit<TupleInput, 'tenant'>): Promise<boolean> {
  const subject = await findInstance(tx, envId, t.subject);
  const object = await findInstance(tx, envId, t.object);
  return removeTuple(tx, subject.id, t.relation, object.id);
}
