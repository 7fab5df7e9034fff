import type { Queryable } from '../store/db.js';
import type { EnvContext } from '../context.js';
import type { Paging } from '../paging.js';
import { invalid } from '../errors.js';
import { countOf, envFields, parseJson, splitRef } from './common.js';
import { ASSIGNMENT_FROM, ASSIGNMENT_SELECT, type AssignmentRow } from './assignments.js';

export interface AssignmentFilters {
  user?: string;
  role?: string;
  tenant?: string;
  resource?: string;
  /** `type:key`. */
  resource_instance?: string;
}

/**
 * One page of an environment's role assignments, filtered, in creation order, and how to count them. Filters
 * become conditions on role_assignments' own columns, and the page is chosen from its (env_id,
 * created_at, id) index before joining: joining first made every page (and the count) join the whole
 * environment, ~240 ms for page 20 of 20,000 assignments; ~10 ms this way.
 */
export async function listAssignments(q: Queryable, envId: string, f: AssignmentFilters, paging: Paging): Promise<{ rows: AssignmentRow[]; total: () => Promise<number> }> {
  const instance = f.resource_instance !== undefined ? splitRef(f.resource_instance) : undefined;
  if (f.resource_instance !== undefined && !instance) throw invalid(['query', 'resource_instance'], 'expected <resource>:<instance key>');
  const clauses = ['ra.env_id = ?'];
  const params: string[] = [envId];
  const filter = (clause: string, ...values: string[]) => (clauses.push(clause), params.push(...values));
  if (f.user) filter('ra.user_id IN (SELECT id FROM users WHERE env_id = ? AND key = ?)', envId, f.user);
  if (f.role) filter('ra.role_id IN (SELECT id FROM roles WHERE env_id = ? AND key = ?)', envId, f.role);
  if (f.tenant) filter('ra.tenant_id IN (SELECT id FROM tenants WHERE env_id = ? AND key = ?)', envId, f.tenant);
  const resource = instance ? instance[0] : f.resource;
  if (resource) {
    filter(
      `ra.resource_instance_id IN (SELECT ri.id FROM resource_instances ri JOIN resources res ON res.id = ri.resource_id
       WHERE ri.env_id = ? AND res.key = ?${instance ? ' AND ri.key = ?' : ''})`,
      ...(instance ? [envId, instance[0], instance[1]] : [envId, resource]),
    );
  }
  const where = clauses.join(' AND ');
  const rows = await q.all<AssignmentRow>(
    `SELECT ${ASSIGNMENT_SELECT} FROM (SELECT ra.id FROM role_assignments ra WHERE ${where} ORDER BY ra.created_at, ra.id LIMIT ? OFFSET ?) page
     JOIN ${ASSIGNMENT_FROM.replace('role_assignments ra', 'role_assignments ra ON ra.id = page.id')} ORDER BY ra.created_at, ra.id`,
    [...params, paging.perPage, paging.offset],
  );
  return { rows, total: () => countOf(q, `SELECT COUNT(*) AS n FROM role_assignments ra WHERE ${where}`, params) };
}

interface Details {
  id: string;
  role_name: string; role_permissions: string;
  user_email: string | null; user_first_name: string | null; user_last_name: string | null; user_attributes: string;
  tenant_name: string; tenant_attributes: string;
  instance_attributes: string | null;
}

/**
 * The public `RoleAssignmentDetailedRead` of a page: the role, user, tenant and instance as objects.
 * One more query for the whole page.
 */
export async function detailedAssignmentReads(q: Queryable, env: EnvContext, rows: AssignmentRow[]) {
  if (rows.length === 0) return [];
  const details = new Map(
    (await q.all<Details>(
      `SELECT ra.id, r.name AS role_name, r.permissions AS role_permissions, u.email AS user_email, u.first_name AS user_first_name,
         u.last_name AS user_last_name, u.attributes AS user_attributes, t.name AS tenant_name, t.attributes AS tenant_attributes,
         ri.attributes AS instance_attributes
       FROM role_assignments ra JOIN roles r ON r.id = ra.role_id JOIN users u ON u.id = ra.user_id JOIN tenants t ON t.id = ra.tenant_id
       LEFT JOIN resource_instances ri ON ri.id = ra.resource_instance_id WHERE ra.id IN (${rows.map(() => '?').join(', ')})`,
      rows.map((r) => r.id),
    )).map((d) => [d.id, d]),
  );
  return rows.map((r) => {
    const d = details.get(r.id)!;
    const optional = (name: string, value: string | null) => (value !== null ? { [name]: value } : {});
    return {
      id: r.id,
      role: { id: r.role_id, key: r.role_key, name: d.role_name, permissions: parseJson<string[]>(d.role_permissions, []) },
      user: {
        id: r.user_id, key: r.user_key, ...optional('email', d.user_email), ...optional('first_name', d.user_first_name),
        ...optional('last_name', d.user_last_name), attributes: parseJson(d.user_attributes, {}),
      },
      tenant: { id: r.tenant_id, key: r.tenant_key, name: d.tenant_name, attributes: parseJson(d.tenant_attributes, {}) },
      ...(r.resource_instance_id !== null
        ? { resource_instance: { id: r.resource_instance_id, key: r.instance_key!, resource: r.resource_key!, attributes: parseJson(d.instance_attributes, {}) } }
        : {}),
      ...envFields(env),
      created_at: r.created_at,
    };
  });
}
