import { GROUP_GRANT_SUFFIX, isGroupRelation, isReservedRelation, MEMBER_ROLE, sqlText } from '../../rules/names.js';
import { newId } from '../new-id.js';
import type { Queryable } from '../store/db.js';
import { duplicate, httpError, invalid } from '../errors.js';
import { isUniqueViolation } from '../store/db.js';
import { findKeyed } from './common.js';

/**
 * Relations, role derivations (implicit grants) and relationship tuples: written through their public
 * operations, and by group operations (the records the specification says they create). /allowed
 * evaluates derivations over tuples (repo/derivations.ts), except the group machinery's: access through
 * groups is decided from the group records themselves, never from those type-level derivations.
 */
/**
 * The group machinery's relation `key` (`<type>_group`, `group`) on the object resource, created when
 * missing. One of that name relating another subject was made through the public routes before those
 * names were refused there (refuseGroupRelationKey): using it would evaluate the group's derivation over
 * every tuple of it and over-grant, so the group write is refused until it is deleted.
 */
export async function ensureRelation(
  q: Queryable,
  envId: string,
  objectResourceId: string,
  key: string,
  subjectResourceId: string,
  at: string,
): Promise<string> {
  const find = () =>
    q.get<{ id: string; subject_resource_id: string; object_key: string; subject_key: string }>(
      `SELECT rel.id, rel.subject_resource_id, o.key AS object_key, s.key AS subject_key
       FROM relations rel JOIN resources o ON o.id = rel.object_resource_id JOIN resources s ON s.id = rel.subject_resource_id
       WHERE rel.object_resource_id = ? AND rel.key = ?`,
      [objectResourceId, key],
    );
  // Read first: every group write after the first of its pair of types finds the relation there.
  let there = await find();
  if (!there) {
    await q.run(
      `INSERT INTO relations (id, env_id, object_resource_id, key, name, description, subject_resource_id, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?) ON CONFLICT (object_resource_id, key) DO NOTHING`,
      [newId(), envId, objectResourceId, key, key, subjectResourceId, at, at],
    );
    there = (await find())!;
  }
  if (there.subject_resource_id !== subjectResourceId) {
    throw httpError(
      'MISMATCH_RELATION_TYPE',
      `relation ${there.object_key}#${key} relates '${there.subject_key}' instances: the name is the group machinery's, but this relation was made through the relation routes; delete it (DELETE .../resources/${there.object_key}/relations/${key}, with its tuples) so that groups can use the name here`,
    );
  }
  return there.id;
}

/** "A user with `linkedRole` on an `onResource` instance related by `relation` gets `role` on the `resource` instance." */
export async function ensureImplicitGrant(
  q: Queryable,
  envId: string,
  g: { resourceId: string; roleId: string; onResourceId: string; linkedRoleId: string; relationId: string },
  at: string,
): Promise<void> {
  const there = await q.get(
    `SELECT 1 AS x FROM implicit_grants WHERE resource_id = ? AND role_id = ? AND on_resource_id = ? AND linked_role_id = ? AND relation_id = ?`,
    [g.resourceId, g.roleId, g.onResourceId, g.linkedRoleId, g.relationId],
  );
  if (there) return;
  await q.run(
    `INSERT INTO implicit_grants (id, env_id, resource_id, role_id, on_resource_id, linked_role_id, relation_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (resource_id, role_id, on_resource_id, linked_role_id, relation_id) DO NOTHING`,
    [newId(), envId, g.resourceId, g.roleId, g.onResourceId, g.linkedRoleId, g.relationId, at],
  );
}

/** A derivation written through the public API: created, or its `when` updated when it is there. */
export async function writeImplicitGrant(
  q: Queryable,
  envId: string,
  g: {
    resourceId: string;
    roleId: string;
    onResourceId: string;
    linkedRoleId: string;
    relationId: string;
    noDirect: boolean;
  },
  at: string,
): Promise<void> {
  await q.run(
    `INSERT INTO implicit_grants (id, env_id, resource_id, role_id, on_resource_id, linked_role_id, relation_id, created_at, no_direct_roles)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (resource_id, role_id, on_resource_id, linked_role_id, relation_id)
     DO UPDATE SET no_direct_roles = excluded.no_direct_roles`,
    [newId(), envId, g.resourceId, g.roleId, g.onResourceId, g.linkedRoleId, g.relationId, at, g.noDirect ? 1 : 0],
  );
}

/**
 * The derived role's `when` (the public `DerivedRoleBlock.when`, `PUT .../implicit_grants/conditions`),
 * kept per (resource, role): a top-level role derived onto two resources has a block on each, and the
 * role named on a resource that has no resource role of that key is the top-level one (role-scope.ts),
 * so a condition kept on the role would reach its derivations on every resource.
 */
export async function writeConditions(
  q: Queryable,
  resourceId: string,
  roleId: string,
  noDirect: boolean,
): Promise<void> {
  await q.run(
    `INSERT INTO derivation_conditions (resource_id, role_id, no_direct_roles) VALUES (?, ?, ?)
     ON CONFLICT (resource_id, role_id) DO UPDATE SET no_direct_roles = excluded.no_direct_roles`,
    [resourceId, roleId, noDirect ? 1 : 0],
  );
}

export async function ensureTuple(
  q: Queryable,
  envId: string,
  subjectId: string,
  relation: string,
  objectId: string,
  tenantId: string,
  at: string,
) {
  await q.run(
    `INSERT INTO relationship_tuples (id, env_id, subject_id, relation, object_id, tenant_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (subject_id, relation, object_id) DO NOTHING`,
    [newId(), envId, subjectId, relation, objectId, tenantId, at],
  );
}

/**
 * Removes a tuple if it is there; says whether it was. A group's roles on an instance rest on their
 * `<group_type>_group` tuple (and the derivations, see `dropUnderivedGroupGrants`): removing the tuple
 * removes them too, so the group records never say more than the specification's records grant, and a
 * client may infer a group's roles from tuples and derivations (docs/performance.md).
 */
export async function removeTuple(
  q: Queryable,
  subjectId: string,
  relation: string,
  objectId: string,
): Promise<boolean> {
  const { changes } = await q.run(
    `DELETE FROM relationship_tuples WHERE subject_id = ? AND relation = ? AND object_id = ?`,
    [subjectId, relation, objectId],
  );
  await q.run(
    `DELETE FROM group_grants WHERE resource_instance_id = ? AND group_id IN (
       SELECT g.id FROM access_groups g JOIN resource_instances gi ON gi.id = g.instance_id JOIN resources gt ON gt.id = gi.resource_id
       WHERE g.instance_id = ? AND gt.key || ${sqlText(GROUP_GRANT_SUFFIX)} = ?)`,
    [objectId, subjectId, relation],
  );
  return changes > 0;
}

/**
 * After a role derivation is deleted: the group roles it carried (role `roleId` on instances of
 * `resourceId`, held by groups of type `onResourceId`, through `<type>#member` and `<type>_group`) no
 * longer follow from the records, so they go; a group's tuple to an instance goes with its last role there.
 */
export async function dropUnderivedGroupGrants(
  q: Queryable,
  g: { resourceId: string; roleId: string; onResourceId: string },
): Promise<void> {
  const stale = await q.all<{ id: string; group_instance_id: string; resource_instance_id: string; relation: string }>(
    `SELECT gg.id, g.instance_id AS group_instance_id, gg.resource_instance_id, gt.key || ${sqlText(GROUP_GRANT_SUFFIX)} AS relation
     FROM group_grants gg JOIN access_groups g ON g.id = gg.group_id JOIN resource_instances gi ON gi.id = g.instance_id
       JOIN resources gt ON gt.id = gi.resource_id JOIN resource_instances oi ON oi.id = gg.resource_instance_id
     WHERE gg.role_id = ? AND oi.resource_id = ? AND gi.resource_id = ?
       AND NOT EXISTS (SELECT 1 FROM implicit_grants ig JOIN relations rel ON rel.id = ig.relation_id JOIN roles lr ON lr.id = ig.linked_role_id
         WHERE ig.resource_id = oi.resource_id AND ig.role_id = gg.role_id AND ig.on_resource_id = gi.resource_id
           AND lr.key = ${sqlText(MEMBER_ROLE)} AND rel.key = gt.key || ${sqlText(GROUP_GRANT_SUFFIX)})`,
    [g.roleId, g.resourceId, g.onResourceId],
  );
  for (const s of stale) {
    await q.run(`DELETE FROM group_grants WHERE id = ?`, [s.id]);
    const other = await q.get(
      `SELECT 1 AS x FROM group_grants gg JOIN access_groups g ON g.id = gg.group_id WHERE g.instance_id = ? AND gg.resource_instance_id = ?`,
      [s.group_instance_id, s.resource_instance_id],
    );
    if (!other)
      await q.run(`DELETE FROM relationship_tuples WHERE subject_id = ? AND relation = ? AND object_id = ?`, [
        s.group_instance_id,
        s.relation,
        s.resource_instance_id,
      ]);
  }
}

/**
 * Refuses, at `loc`, a relation key the group machinery writes: `<type>_group` (on any resource, for any
 * type: every resource may become a group type) and `group`. A relation of such a name made through the
 * public routes would be taken for the machinery's (its derivations never evaluated, repo/derivations.ts),
 * or be reused by the machinery for a group type's grants (ensureRelation keeps the one there, whatever its
 * subject) and then evaluated over the groups' tuples, which over-grants. Roster's configuration refuses
 * the same names (src/config/rules/relations.ts).
 */
export function refuseGroupRelationKey(key: string, loc: (string | number)[]): void {
  if (!isReservedRelation(key)) return;
  throw invalid(
    loc,
    `relation key '${key}' is kept for groups: the service writes '<type>_group' (a group type's roles on a resource) and 'group' (groups inside groups) itself and decides access through them from the group records; choose another key`,
  );
}

/** The public `RelationCreate` on the resource `object`; 409 when the resource has a relation of that key. */
export async function createRelation(
  q: Queryable,
  envId: string,
  object: { id: string; key: string },
  b: { key: string; name: string; description?: string | null; subject_resource: string },
  at: string,
): Promise<string> {
  const subject = await findKeyed<{ id: string }>(q, 'resources', envId, b.subject_resource, 'resource');
  const id = newId();
  try {
    await q.run(
      `INSERT INTO relations (id, env_id, object_resource_id, key, name, description, subject_resource_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, envId, object.id, b.key, b.name, b.description ?? null, subject.id, at, at],
    );
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate('relation', `${object.key}#${b.key}`);
    throw err;
  }
  return id;
}

/** Deletes a relation with its tuples (a tuple names its relation by key; its derivations cascade). */
export async function deleteRelation(q: Queryable, object: { id: string }, key: string): Promise<boolean> {
  const { changes } = await q.run(`DELETE FROM relations WHERE object_resource_id = ? AND key = ?`, [object.id, key]);
  if (changes)
    await q.run(
      `DELETE FROM relationship_tuples WHERE relation = ? AND object_id IN (SELECT id FROM resource_instances WHERE resource_id = ?)`,
      [key, object.id],
    );
  return changes > 0;
}

/**
 * `relations` inside `ResourceCreate` / `ResourceUpdate` / `ResourceReplace` (relation key -> subject
 * resource key or id): each created when missing (named by its key), kept when it is there with that
 * subject. One there with another subject is refused: re-pointing it would strand its tuples and
 * derivations (delete it first). A name the group machinery writes is kept when it is there (a resource
 * read written back) and refused when it is not. A replace also deletes the resource's relations it does
 * not list, except the group machinery's, which group operations own.
 */
export async function writeResourceRelations(
  q: Queryable,
  envId: string,
  object: { id: string; key: string },
  relations: Record<string, string>,
  o: { at: string; replace: boolean },
): Promise<void> {
  const live = await q.all<{ key: string; subject_resource_id: string; subject_key: string }>(
    `SELECT rel.key, rel.subject_resource_id, s.key AS subject_key FROM relations rel JOIN resources s ON s.id = rel.subject_resource_id WHERE rel.object_resource_id = ?`,
    [object.id],
  );
  const byKey = new Map(live.map((r) => [r.key, r]));
  for (const [key, subjectRef] of Object.entries(relations)) {
    const subject = await findKeyed<{ id: string; key: string }>(q, 'resources', envId, subjectRef, 'resource');
    const there = byKey.get(key);
    if (!there) {
      refuseGroupRelationKey(key, ['body', 'relations', key]);
      await createRelation(q, envId, object, { key, name: key, subject_resource: subject.id }, o.at);
    } else if (there.subject_resource_id !== subject.id) {
      throw httpError(
        'MISMATCH_RELATION_TYPE',
        `relation ${object.key}#${key} relates '${there.subject_key}' instances, not '${subject.key}': delete the relation (and its tuples) first to re-point it`,
      );
    }
  }
  if (!o.replace) return;
  for (const r of live) {
    if (!Object.hasOwn(relations, r.key) && !isGroupRelation(r.key, r.subject_key, r.subject_resource_id === object.id))
      await deleteRelation(q, object, r.key);
  }
}
