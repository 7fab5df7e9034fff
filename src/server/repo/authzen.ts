import type { Queryable } from '../store/db.js';
import { parseJson } from './common.js';
import { checkAllows } from './decision-lists.js';
import { authorizedUsers } from './authorized-users.js';
import type { Actions } from './resources.js';

type Dialected = Queryable & { dialect?: 'sqlite' | 'postgres' };
type Properties = Record<string, unknown> | null | undefined;

/** AuthZEN 1.0's nouns, as Permit's PDP reads them (pdp-server `api/authzen/schema.rs`). */
export interface Subject {
  type: string;
  id: string;
  properties?: Properties;
}
export interface AuthzenResource {
  type: string;
  id?: string | null;
  properties?: Properties;
}
export interface Evaluation {
  subject: Subject;
  action: { name: string; properties?: Properties };
  resource: AuthzenResource;
  context?: Properties;
}

/**
 * The /allowed check an evaluation is: the subject's id is the user's key and its properties the user's
 * attributes; the resource's id is the instance's key, its `properties.tenant` the tenant, and the rest
 * of its properties the resource's attributes.
 */
export function checkOf(e: Evaluation) {
  const { tenant, ...attributes } = e.resource.properties ?? {};
  return {
    user: { key: e.subject.id, attributes: e.subject.properties ?? undefined },
    action: e.action.name,
    resource: {
      type: e.resource.type,
      key: e.resource.id ?? undefined,
      tenant: typeof tenant === 'string' ? tenant : undefined,
      attributes,
    },
    context: e.context ?? undefined,
  };
}

export async function evaluate(q: Dialected, envId: string, e: Evaluation): Promise<boolean> {
  return checkAllows(q, envId, checkOf(e));
}

/** `search/subject`: the users /authorized_users lists for the check, ABAC holders included. */
export async function searchSubjects(q: Dialected, envId: string, e: Omit<Evaluation, 'subject'>) {
  const c = checkOf({ ...e, subject: { type: 'user', id: '' } });
  const found = await authorizedUsers(q, envId, {
    action: c.action,
    resource: c.resource,
    context: { ...(c.context ?? {}), enable_abac_authorized_users: true },
  });
  return Object.keys(found.users).map((id) => ({ type: 'user', id }));
}

/** `search/resource`: the instances of the type (every one stored) on which the check allows the action. */
export async function searchResources(
  q: Dialected,
  envId: string,
  e: Omit<Evaluation, 'resource'> & { resource: { type: string } },
) {
  const rows = await q.all<{ key: string; tenant: string; attributes: string }>(
    `SELECT ri.key, t.key AS tenant, ri.attributes FROM resource_instances ri JOIN resources r ON r.id = ri.resource_id
       JOIN tenants t ON t.id = ri.tenant_id WHERE ri.env_id = ? AND r.env_id = ? AND r.key = ? ORDER BY ri.key`,
    [envId, envId, e.resource.type],
  );
  const results = [];
  for (const i of rows) {
    const resource = { type: e.resource.type, id: i.key, properties: { tenant: i.tenant } };
    if (await evaluate(q, envId, { ...e, resource })) {
      const attributes = parseJson<Record<string, unknown>>(i.attributes, {});
      results.push({
        type: e.resource.type,
        id: i.key,
        ...(Object.keys(attributes).length ? { properties: attributes } : {}),
      });
    }
  }
  return results;
}

/** `search/action`: the type's actions the check allows, each named `type:action` (as Permit's PDP names them). */
export async function searchActions(q: Dialected, envId: string, e: Omit<Evaluation, 'action'>) {
  const row = await q.get<{ actions: string }>(`SELECT actions FROM resources WHERE env_id = ? AND key = ?`, [
    envId,
    e.resource.type,
  ]);
  const results = [];
  for (const name of Object.keys(parseJson<Actions>(row?.actions, {})).sort())
    if (await evaluate(q, envId, { ...e, action: { name } })) results.push({ name: `${e.resource.type}:${name}` });
  return results;
}
