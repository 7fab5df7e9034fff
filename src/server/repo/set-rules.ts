import { newId } from '../new-id.js';
import type { Queryable, SqlValue } from '../store/db.js';
import type { EnvContext } from '../context.js';
import { httpError, notFound } from '../errors.js';
import type { Paging } from '../paging.js';
import { AUTOGEN_PREFIX } from '../../access/conditions/index.js';
import { envFields, findKeyedOrNull, pageOf, parseJson } from './common.js';
import { findSet } from './condition-sets.js';
import type { Actions } from './resources.js';

/** The public `ConditionSetRuleCreate` / `ConditionSetRuleRemove`. */
export interface SetRuleBody {
  user_set: string;
  permission: string;
  resource_set: string;
  is_role?: boolean;
  is_resource?: boolean;
}

/** A rule's sides and permission, resolved to rows. */
interface ResolvedRule {
  userSetId: string | null;
  userRoleId: string | null;
  resourceSetId: string | null;
  setResourceId: string | null;
  resourceId: string;
  action: string;
}

/**
 * The rule's user set (a user set, or with `is_role` / a `__autogen_` key a top-level role), its resource
 * set (a resource set, or with `is_resource` / `__autogen_` a resource) and its permission
 * (`resource:action`, an action id, or a bare action of the resource set's base resource). Unknown
 * names: 404. A set of the wrong type, or a permission on another resource than the resource set's
 * base (it could never apply): 422.
 */
export async function resolveRule(q: Queryable, envId: string, b: SetRuleBody): Promise<ResolvedRule> {
  let userSetId: string | null = null;
  let userRoleId: string | null = null;
  if (b.is_role) {
    const role = await q.get<{ id: string }>(
      `SELECT id FROM roles WHERE env_id = ? AND (key = ? OR id = ?) AND resource_id IS NULL`,
      [envId, b.user_set, b.user_set],
    );
    if (!role) throw notFound('role', b.user_set);
    userRoleId = role.id;
  } else {
    const set = await findSet(q, envId, b.user_set);
    if (set.row.type !== 'userset') throw httpError('INVALID_INPUT', `user_set '${b.user_set}' is a resource set`);
    if (set.kind === 'autogen') userRoleId = set.roleId!;
    else userSetId = set.row.id;
  }
  let resourceSetId: string | null = null;
  let setResourceId: string | null = null;
  let baseId: string;
  if (b.is_resource) {
    const resource = await findKeyedOrNull<{ id: string }>(q, 'resources', envId, b.resource_set);
    if (!resource) throw notFound('resource', b.resource_set);
    setResourceId = baseId = resource.id;
  } else {
    const set = await findSet(q, envId, b.resource_set);
    if (set.row.type !== 'resourceset')
      throw httpError('INVALID_INPUT', `resource_set '${b.resource_set}' is a user set`);
    if (set.kind === 'autogen') setResourceId = set.resourceId!;
    else resourceSetId = set.row.id;
    baseId = set.row.resource_id!;
  }
  const { resourceId, action } = await resolvePermission(q, envId, b.permission, baseId);
  if (resourceId !== baseId) {
    throw httpError(
      'INVALID_INPUT',
      `permission '${b.permission}' is not on the resource set's resource: a resource set holds only instances of its own resource, so the rule could never apply`,
    );
  }
  return { userSetId, userRoleId, resourceSetId, setResourceId, resourceId, action };
}

async function resolvePermission(
  q: Queryable,
  envId: string,
  permission: string,
  baseId: string,
): Promise<{ resourceId: string; action: string }> {
  const i = permission.indexOf(':');
  if (i >= 0) {
    const [res, action] = [permission.slice(0, i), permission.slice(i + 1)];
    const row = await q.get<{ id: string; actions: string }>(
      `SELECT id, actions FROM resources WHERE env_id = ? AND key = ?`,
      [envId, res],
    );
    if (!row) throw notFound('resource', res);
    if (!Object.hasOwn(parseJson<Actions>(row.actions, {}), action))
      throw httpError('NOT_FOUND', `action '${action}' of resource '${res}' not found`);
    return { resourceId: row.id, action };
  }
  // An action id (any resource's), else an action key of the base resource.
  const rows = await q.all<{ id: string; actions: string }>(`SELECT id, actions FROM resources WHERE env_id = ?`, [
    envId,
  ]);
  for (const r of rows) {
    const hit = Object.entries(parseJson<Actions>(r.actions, {})).find(([, a]) => a.id === permission);
    if (hit) return { resourceId: r.id, action: hit[0] };
  }
  const base = rows.find((r) => r.id === baseId);
  if (base && Object.hasOwn(parseJson<Actions>(base.actions, {}), permission))
    return { resourceId: base.id, action: permission };
  throw httpError('NOT_FOUND', `permission '${permission}' not found: give 'resource:action' or an action id`);
}

/** Rules as read, with their sides' keys: a role's or a resource's side is its `__autogen_` set. */
const RULES = `(SELECT sr.id, sr.env_id, sr.created_at, sr.updated_at, sr.action, sr.resource_id, r.key AS resource_key,
    COALESCE(us.key, '${AUTOGEN_PREFIX}' || ur.key) AS user_set, COALESCE(rs.key, '${AUTOGEN_PREFIX}' || sres.key) AS resource_set
  FROM set_rules sr JOIN resources r ON r.id = sr.resource_id
    LEFT JOIN condition_sets us ON us.id = sr.user_set_id LEFT JOIN roles ur ON ur.id = sr.user_role_id
    LEFT JOIN condition_sets rs ON rs.id = sr.resource_set_id LEFT JOIN resources sres ON sres.id = sr.set_resource_id) x`;

export interface RuleRow {
  id: string;
  created_at: string;
  updated_at: string;
  action: string;
  resource_id: string;
  resource_key: string;
  user_set: string;
  resource_set: string;
}

/** The public `ConditionSetRuleRead`: permission spelt `resource:action`, key `{user_set}_can_{resource}_{action}_{resource_set}`. */
export function ruleRead(r: RuleRow, env: EnvContext) {
  return {
    id: r.id,
    key: `${r.user_set}_can_${r.resource_key}_${r.action}_${r.resource_set}`,
    user_set: r.user_set,
    permission: `${r.resource_key}:${r.action}`,
    resource_set: r.resource_set,
    ...envFields(env),
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** Grants the rule; an existing one is skipped, not an error. Answers the rule (made or found). */
export async function createRule(tx: Queryable, envId: string, r: ResolvedRule, at: string): Promise<RuleRow> {
  await tx.run(
    `INSERT INTO set_rules (id, env_id, user_set_id, user_role_id, resource_set_id, set_resource_id, resource_id, action, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    [newId(), envId, r.userSetId, r.userRoleId, r.resourceSetId, r.setResourceId, r.resourceId, r.action, at, at],
  );
  const id = await ruleId(tx, envId, r);
  return (await tx.get<RuleRow>(`SELECT * FROM ${RULES} WHERE id = ?`, [id!]))!;
}

/** Revokes the rule; an absent one is skipped. */
export async function deleteRule(tx: Queryable, envId: string, r: ResolvedRule): Promise<void> {
  const id = await ruleId(tx, envId, r);
  if (id) await tx.run(`DELETE FROM set_rules WHERE id = ?`, [id]);
}

async function ruleId(q: Queryable, envId: string, r: ResolvedRule): Promise<string | undefined> {
  const row = await q.get<{ id: string }>(
    `SELECT id FROM set_rules WHERE env_id = ? AND COALESCE(user_set_id, user_role_id) = ? AND COALESCE(resource_set_id, set_resource_id) = ? AND resource_id = ? AND action = ?`,
    [envId, (r.userSetId ?? r.userRoleId)!, (r.resourceSetId ?? r.setResourceId)!, r.resourceId, r.action],
  );
  return row?.id;
}

/**
 * One page of rules, filtered by `user_set` and `resource_set` (keys, `__autogen_` ones included) and
 * `permission`: the action key, the action id or `resource:action` (the public service matches the first
 * two only; api-notes).
 */
export async function listRules(
  q: Queryable,
  envId: string,
  filters: { user_set?: string; permission?: string; resource_set?: string },
  paging: Paging,
) {
  const where: string[] = ['env_id = ?'];
  const params: SqlValue[] = [envId];
  if (filters.user_set) (where.push('user_set = ?'), params.push(filters.user_set));
  if (filters.resource_set) (where.push('resource_set = ?'), params.push(filters.resource_set));
  if (filters.permission) {
    const p = filters.permission;
    const byId = await actionById(q, envId, p);
    if (byId) (where.push('(resource_id = ? AND action = ?)'), params.push(byId.resourceId, byId.action));
    else if (p.includes(':')) (where.push(`resource_key || ':' || action = ?`), params.push(p));
    else (where.push('action = ?'), params.push(p));
  }
  return pageOf<RuleRow>(q, RULES, where.join(' AND '), params, paging);
}

async function actionById(q: Queryable, envId: string, id: string) {
  const rows = await q.all<{ id: string; actions: string }>(`SELECT id, actions FROM resources WHERE env_id = ?`, [
    envId,
  ]);
  for (const r of rows) {
    const hit = Object.entries(parseJson<Actions>(r.actions, {})).find(([, a]) => a.id === id);
    if (hit) return { resourceId: r.id, action: hit[0] };
  }
  return undefined;
}

/** Deletes the rules on `resourceId` whose action the resource no longer has (an update removed it). */
export async function pruneSetRules(q: Queryable, resourceId: string, actions: string[]): Promise<void> {
  const rules = await q.all<{ id: string; action: string }>(`SELECT id, action FROM set_rules WHERE resource_id = ?`, [
    resourceId,
  ]);
  for (const r of rules) if (!actions.includes(r.action)) await q.run(`DELETE FROM set_rules WHERE id = ?`, [r.id]);
}
