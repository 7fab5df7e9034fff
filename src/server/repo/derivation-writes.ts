import type { Queryable } from '../store/db.js';
import { httpError, notFound } from '../errors.js';
import { findKeyed, stableUuid } from './common.js';
import { findRoleOn } from './role-scope.js';
import { dropUnderivedGroupGrants, writeConditions, writeImplicitGrant } from './relations.js';
import { GROUP_RELATION_SQL } from './derivations.js';

/**
 * Role derivations as the public role bodies write them: a rule (`DerivedRoleRuleCreate`, the body of
 * `.../implicit_grants`) and a role's whole block (`granted_to` of `RoleCreate`, `RoleUpdate`,
 * `ResourceRoleCreate`, `ResourceRoleUpdate`: `{users_with_role: [rule], when?}`). One resolution for
 * all of them, so a rule refused on one route is refused, with the same error, on the others.
 */
export interface RuleInput {
  role: string;
  on_resource: string;
  linked_by_relation: string;
  when?: { no_direct_roles_on_object?: boolean };
}
export interface GrantedToInput {
  users_with_role?: RuleInput[];
  when?: { no_direct_roles_on_object?: boolean };
}
export interface ResolvedRule {
  resourceId: string;
  roleId: string;
  onResourceId: string;
  linkedRoleId: string;
  relationId: string;
  noDirect: boolean;
  keys: { on_resource: string; relation: string; role: string };
}

type Named = { id: string; key: string };

/**
 * A rule deriving `role` on `res`: the linked role is named on `on_resource` (its resource role of that
 * key, else the top-level one: role-scope.ts); the relation must be one of `res` whose subjects are
 * `on_resource` instances, otherwise no tuple could carry the rule (MISMATCH_RELATION_TYPE, as for a
 * tuple). Unknown resource, role or relation: 404.
 */
export async function resolveRule(
  q: Queryable,
  envId: string,
  res: Named,
  role: { id: string },
  b: RuleInput,
): Promise<ResolvedRule> {
  const onRes = await findKeyed<Named>(q, 'resources', envId, b.on_resource, 'resource');
  const linked = await findRoleOn(q, envId, onRes, b.role);
  const rel = await q.get<{ id: string; subject_resource_id: string; subject_key: string }>(
    `SELECT rel.id, rel.subject_resource_id, s.key AS subject_key FROM relations rel JOIN resources s ON s.id = rel.subject_resource_id
     WHERE rel.object_resource_id = ? AND rel.key = ?`,
    [res.id, b.linked_by_relation],
  );
  if (!rel) throw notFound('relation', `${res.key}#${b.linked_by_relation}`);
  if (rel.subject_resource_id !== onRes.id) {
    throw httpError(
      'MISMATCH_RELATION_TYPE',
      `relation ${res.key}#${b.linked_by_relation} links '${rel.subject_key}' instances to '${res.key}' instances, not '${onRes.key}': a derivation from ${onRes.key}#${b.role} needs a relation of '${res.key}' whose subject resource is '${onRes.key}'`,
    );
  }
  return {
    resourceId: res.id,
    roleId: role.id,
    onResourceId: onRes.id,
    linkedRoleId: linked.id,
    relationId: rel.id,
    noDirect: b.when?.no_direct_roles_on_object === true,
    keys: { on_resource: onRes.key, relation: b.linked_by_relation, role: b.role },
  };
}

/**
 * The resources a top-level role's rule derives onto: a top-level role belongs to no resource, so a
 * rule names its objects through its relation: every resource with a relation `linked_by_relation`
 * whose subjects are `on_resource` instances. None with that key: 404; only with other subjects: 422
 * MISMATCH_RELATION_TYPE (the errors `.../implicit_grants` gives for one resource).
 */
async function targetsOf(q: Queryable, envId: string, b: RuleInput): Promise<Named[]> {
  const onRes = await findKeyed<Named>(q, 'resources', envId, b.on_resource, 'resource');
  const rows = await q.all<{ id: string; key: string; subject_resource_id: string }>(
    `SELECT o.id, o.key, rel.subject_resource_id FROM relations rel JOIN resources o ON o.id = rel.object_resource_id
     WHERE rel.env_id = ? AND rel.key = ? ORDER BY o.key`,
    [envId, b.linked_by_relation],
  );
  if (rows.length === 0) throw notFound('relation', `${b.linked_by_relation} (on any resource)`);
  const targets = rows.filter((r) => r.subject_resource_id === onRes.id);
  if (targets.length === 0) {
    throw httpError(
      'MISMATCH_RELATION_TYPE',
      `no relation '${b.linked_by_relation}' relates '${onRes.key}' instances to another resource's (${rows.map((r) => `${r.key}#${b.linked_by_relation}`).join(', ')} relate other subjects)`,
    );
  }
  return targets.map((r) => ({ id: r.id, key: r.key }));
}

/**
 * Writes a role's `granted_to` (docs/server.md, "granted_to on roles"): the role's derivations become
 * exactly the block's rules, except the group machinery's (through `<type>_group` and `group`), which are
 * the groups' records and stay; the block's `when` (false when left out) becomes the derived role's
 * condition on each resource it is derived onto. `res`: the resource of a resource role; undefined for a
 * top-level role (each rule then derives onto the resources its relation names: targetsOf). Everything is
 * checked before anything is written; the caller's transaction makes a refusal write nothing.
 */
export async function replaceGrantedTo(
  q: Queryable,
  envId: string,
  role: { id: string },
  res: Named | undefined,
  block: GrantedToInput,
  at: string,
): Promise<void> {
  const rules: ResolvedRule[] = [];
  for (const rule of block.users_with_role ?? []) {
    for (const target of res ? [res] : await targetsOf(q, envId, rule))
      rules.push(await resolveRule(q, envId, target, role, rule));
  }
  const generic = await q.all<{
    id: string;
    resource_id: string;
    on_resource_id: string;
    linked_role_id: string;
    relation_id: string;
  }>(
    `SELECT ig.id, ig.resource_id, ig.on_resource_id, ig.linked_role_id, ig.relation_id
     FROM implicit_grants ig JOIN relations rel ON rel.id = ig.relation_id JOIN resources s ON s.id = rel.subject_resource_id
     WHERE ig.role_id = ? AND NOT ${GROUP_RELATION_SQL}${res ? ' AND ig.resource_id = ?' : ''}`,
    res ? [role.id, res.id] : [role.id],
  );
  const sameRule = (g: (typeof generic)[number], r: ResolvedRule) =>
    g.resource_id === r.resourceId &&
    g.on_resource_id === r.onResourceId &&
    g.linked_role_id === r.linkedRoleId &&
    g.relation_id === r.relationId;
  for (const g of generic)
    if (!rules.some((r) => sameRule(g, r))) await q.run(`DELETE FROM implicit_grants WHERE id = ?`, [g.id]);
  for (const r of rules) await writeImplicitGrant(q, envId, r, at);
  const noDirect = block.when?.no_direct_roles_on_object === true;
  const resources = new Set([
    ...(res ? [res.id] : []),
    ...rules.map((r) => r.resourceId),
    ...generic.map((g) => g.resource_id),
  ]);
  for (const resourceId of resources) await writeConditions(q, resourceId, role.id, noDirect);
}

interface RuleRow {
  role_id: string;
  resource_id: string;
  linked_role_id: string;
  on_resource_id: string;
  relation_id: string;
  linked_role: string;
  on_resource: string;
  relation: string;
  no_direct: number | string;
  block_no_direct: number | string;
}

/**
 * The public `DerivedRoleBlockRead` of each role that carries derivations (on `resourceId` for resource
 * roles; on every resource for top-level roles, each rule once), keyed by role id: the roles without
 * any have none (the read leaves `granted_to` out). One query.
 */
export async function grantedToReads(
  q: Queryable,
  roleIds: string[],
  resourceId?: string,
): Promise<Map<string, Record<string, unknown>>> {
  const out = new Map<string, Record<string, unknown>>();
  if (roleIds.length === 0) return out;
  const rows = await q.all<RuleRow>(
    `SELECT ig.role_id, ig.resource_id, lr.id AS linked_role_id, onr.id AS on_resource_id, rel.id AS relation_id, lr.key AS linked_role,
       onr.key AS on_resource, rel.key AS relation, ig.no_direct_roles AS no_direct, COALESCE(dc.no_direct_roles, 0) AS block_no_direct
     FROM implicit_grants ig JOIN roles lr ON lr.id = ig.linked_role_id JOIN resources onr ON onr.id = ig.on_resource_id
       JOIN relations rel ON rel.id = ig.relation_id
       LEFT JOIN derivation_conditions dc ON dc.resource_id = ig.resource_id AND dc.role_id = ig.role_id
     WHERE ig.role_id IN (${roleIds.map(() => '?').join(', ')})${resourceId ? ' AND ig.resource_id = ?' : ''} ORDER BY ig.created_at, ig.id`,
    resourceId ? [...roleIds, resourceId] : roleIds,
  );
  const byRole = new Map<string, RuleRow[]>();
  for (const r of rows) (byRole.get(r.role_id) ?? byRole.set(r.role_id, []).get(r.role_id)!).push(r);
  for (const [roleId, list] of byRole) {
    const seen = new Set<string>();
    const users_with_role = list.flatMap((r) => {
      const k = `${r.linked_role_id}\0${r.on_resource_id}\0${r.relation}`;
      if (seen.has(k)) return [];
      seen.add(k);
      return [
        {
          role_id: r.linked_role_id,
          resource_id: r.on_resource_id,
          relation_id: r.relation_id,
          role: r.linked_role,
          on_resource: r.on_resource,
          linked_by_relation: r.relation,
          when: { no_direct_roles_on_object: Number(r.no_direct) > 0 },
        },
      ];
    });
    out.set(roleId, {
      // The same id as the block in ResourceRead.roles (repo/resource-roles.ts) for a resource role.
      id: stableUuid(resourceId ? `${resourceId}:${roleId}:granted_to` : `${roleId}:granted_to`),
      when: { no_direct_roles_on_object: list.every((r) => Number(r.block_no_direct) > 0) },
      users_with_role,
    });
  }
  return out;
}

/** The rules deriving `roleId` on `resourceId`, oldest first, each with its roles, resource and relation. */
export async function listImplicitGrants(q: Queryable, resourceId: string, roleId: string) {
  const rows = await q.all<{
    role_id: string;
    resource_id: string;
    relation_id: string;
    role: string;
    on_resource: string;
    linked_by_relation: string;
    no_direct: number;
  }>(
    `SELECT lr.id AS role_id, onr.id AS resource_id, rel.id AS relation_id, lr.key AS role, onr.key AS on_resource, rel.key AS linked_by_relation,
       g.no_direct_roles AS no_direct
     FROM implicit_grants g JOIN roles lr ON lr.id = g.linked_role_id JOIN resources onr ON onr.id = g.on_resource_id JOIN relations rel ON rel.id = g.relation_id
     WHERE g.resource_id = ? AND g.role_id = ? ORDER BY g.created_at, g.id`,
    [resourceId, roleId],
  );
  return rows.map(({ no_direct, ...r }) => ({ ...r, when: { no_direct_roles_on_object: Number(no_direct) > 0 } }));
}

/** Deletes one resolved rule (404 when there is none), and the group roles it alone carried. */
export async function deleteImplicitGrant(tx: Queryable, g: ResolvedRule): Promise<void> {
  const { changes } = await tx.run(
    `DELETE FROM implicit_grants WHERE resource_id = ? AND role_id = ? AND on_resource_id = ? AND linked_role_id = ? AND relation_id = ?`,
    [g.resourceId, g.roleId, g.onResourceId, g.linkedRoleId, g.relationId],
  );
  if (!changes) throw notFound('role derivation', `${g.keys.role} on ${g.keys.on_resource} by ${g.keys.relation}`);
  await dropUnderivedGroupGrants(tx, g);
}
