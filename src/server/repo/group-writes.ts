import { GROUP_IN_GROUP_RELATION, groupGrantRelation } from '../../rules/names.js';
import { newId } from '../new-id.js';
import type { Queryable } from '../store/db.js';
import { duplicate, httpError, notFound } from '../errors.js';
import { findCycle } from '../../rules/groups.js';
import { findKeyed } from './common.js';
import { ensureResource } from './resources.js';
import { deleteAssignment, findInstance, writeAssignment } from './assignments.js';
import { findRoleOn } from './role-scope.js';
import { ensureMemberRole, findGroup, findMemberRole, type GroupRow } from './groups.js';
import { ensureImplicitGrant, ensureRelation, ensureTuple, removeTuple } from './relations.js';

/**
 * The group writes, each inside the caller's transaction: create, delete, grant, membership and link. Each
 * write creates the specification's automatic records (relation, role derivation, relationship tuple)
 * in the same transaction. They return the group row the answer is read from (repo/groups.ts groupReads).
 */

const name = (g: GroupRow) => `${g.type}:${g.key}`;

/** A new group `type:key` in `tenant`, on its instance (created, or an existing one of that tenant). */
export async function createGroup(
  tx: Queryable,
  envId: string,
  g: { type: string; key: string; tenant: string },
  at: string,
): Promise<GroupRow> {
  const tenant = await findKeyed<{ id: string; key: string }>(tx, 'tenants', envId, g.tenant, 'tenant');
  const typeId = await ensureResource(tx, envId, g.type, at);
  await ensureMemberRole(tx, envId, typeId, at);
  let instance = await tx.get<{ id: string; tenant_id: string }>(
    `SELECT id, tenant_id FROM resource_instances WHERE resource_id = ? AND key = ?`,
    [typeId, g.key],
  );
  if (instance) {
    if (await tx.get(`SELECT 1 AS x FROM access_groups WHERE instance_id = ?`, [instance.id]))
      throw duplicate('group', `${g.type}:${g.key}`);
    if (instance.tenant_id !== tenant.id)
      throw httpError(
        'MISMATCH_RESOURCE_INSTANCES_TENANTS',
        `resource instance '${g.type}:${g.key}' exists in another tenant`,
      );
  } else {
    instance = { id: newId(), tenant_id: tenant.id };
    await tx.run(
      `INSERT INTO resource_instances (id, env_id, resource_id, key, tenant_id, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, '{}', ?, ?)`,
      [instance.id, envId, typeId, g.key, tenant.id, at, at],
    );
  }
  const id = newId();
  await tx.run(`INSERT INTO access_groups (id, env_id, instance_id, created_at) VALUES (?, ?, ?, ?)`, [
    id,
    envId,
    instance.id,
    at,
  ]);
  return {
    id,
    instance_id: instance.id,
    key: g.key,
    type: g.type,
    type_resource_id: typeId,
    tenant_id: tenant.id,
    tenant_key: tenant.key,
    created_at: at,
  };
}

/** Deleting the group's instance removes the group, its memberships, grants, links and tuples (cascade). */
export async function deleteGroup(tx: Queryable, envId: string, ref: string): Promise<void> {
  const g = await findGroup(tx, envId, ref);
  await tx.run(`DELETE FROM resource_instances WHERE id = ?`, [g.instance_id]);
}

/** A role on an instance given to a group (`remove`: taken back). */
export interface GroupGrant {
  role: string;
  resource: string;
  resource_instance: string;
  tenant: string;
}

/**
 * Gives the group `grant` (or, `remove`, takes it back: 404 when it had none). Giving also makes the
 * relation `<type>_group`, the derivation from `<type>#member` and the tuple group → instance; taking
 * back the last grant on the instance removes the tuple. Returns the group, or undefined when removed.
 */
export async function writeGroupGrant(
  tx: Queryable,
  envId: string,
  groupRef: string,
  grant: GroupGrant,
  at: string,
  remove: boolean,
): Promise<GroupRow | undefined> {
  const g = await findGroup(tx, envId, groupRef);
  const b = grant;
  const ref = b.resource_instance.includes(':') ? b.resource_instance : `${b.resource}:${b.resource_instance}`;
  if (!ref.startsWith(`${b.resource}:`))
    throw httpError('INVALID_INPUT', `resource_instance '${b.resource_instance}' is not of resource '${b.resource}'`);
  await findKeyed(tx, 'resources', envId, b.resource, 'resource');
  const inst = await findInstance(tx, envId, ref);
  // The instance type's resource role of that key, else the top-level one (repo/role-scope.ts).
  const role = await findRoleOn(tx, envId, { id: inst.resource_id, key: inst.resource_key }, b.role);
  // By key or id: compare ids.
  const tenant = await findKeyed<{ id: string }>(tx, 'tenants', envId, b.tenant, 'tenant');
  if (inst.tenant_id !== tenant.id || g.tenant_id !== tenant.id) {
    throw httpError(
      'MISMATCH_RESOURCE_INSTANCES_TENANTS',
      `group ${name(g)} (tenant '${g.tenant_key}') and ${ref} (tenant '${inst.tenant_key}') must both be in tenant '${b.tenant}'`,
    );
  }
  const relation = groupGrantRelation(g.type);
  if (remove) {
    const { changes } = await tx.run(
      `DELETE FROM group_grants WHERE group_id = ? AND role_id = ? AND resource_instance_id = ?`,
      [g.id, role.id, inst.id],
    );
    if (!changes) throw notFound('group role', `${b.role} on ${ref} for ${name(g)}`);
    const other = await tx.get(`SELECT 1 AS x FROM group_grants WHERE group_id = ? AND resource_instance_id = ?`, [
      g.id,
      inst.id,
    ]);
    if (!other) await removeTuple(tx, g.instance_id, relation, inst.id);
    return undefined;
  }
  await tx.run(
    `INSERT INTO group_grants (id, env_id, group_id, role_id, resource_instance_id, created_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (group_id, role_id, resource_instance_id) DO NOTHING`,
    [newId(), envId, g.id, role.id, inst.id, at],
  );
  const relationId = await ensureRelation(tx, envId, inst.resource_id, relation, g.type_resource_id, at);
  const memberId = await ensureMemberRole(tx, envId, g.type_resource_id, at);
  await ensureImplicitGrant(
    tx,
    envId,
    {
      resourceId: inst.resource_id,
      roleId: role.id,
      onResourceId: g.type_resource_id,
      linkedRoleId: memberId,
      relationId,
    },
    at,
  );
  await ensureTuple(tx, envId, g.instance_id, relation, inst.id, inst.tenant_id, at);
  return g;
}

/**
 * Adds `user` to the group (or, `remove`, takes them out: 404 when not a member). Membership is the
 * group type's resource role `member` on the group's instance (repo/groups.ts), written through the one
 * assignment path (writeAssignment, repo/assignments.ts). Adding recreates the role if someone deleted
 * it (which ended every membership); removing needs it to exist.
 */
export async function writeMembership(
  tx: Queryable,
  envId: string,
  m: { group: string; user: string; tenant: string },
  at: string,
  remove: boolean,
): Promise<GroupRow | undefined> {
  const g = await findGroup(tx, envId, m.group);
  const u = await findKeyed<{ id: string }>(tx, 'users', envId, m.user, 'user');
  // By key or id: compare ids.
  if ((await findKeyed<{ id: string }>(tx, 'tenants', envId, m.tenant, 'tenant')).id !== g.tenant_id)
    throw httpError(
      'MISMATCH_RESOURCE_INSTANCES_TENANTS',
      `group ${name(g)} is in tenant '${g.tenant_key}', not '${m.tenant}'`,
    );
  const roleId = remove ? await findMemberRole(tx, g) : await ensureMemberRole(tx, envId, g.type_resource_id, at);
  const assignment = { userId: u.id, roleId, tenantId: g.tenant_id, instanceId: g.instance_id };
  if (remove) {
    if (!(await deleteAssignment(tx, assignment))) throw notFound('member', `${m.user} in ${name(g)}`);
    return undefined;
  }
  await writeAssignment(tx, envId, assignment, at, { ignoreDuplicate: true, what: () => `${m.user} in ${name(g)}` });
  return g;
}

/**
 * Links the group `childRef` into `parentRef` (or, `remove`, unlinks: 404 when not linked). Both of one
 * type and tenant, and no cycle (checkNoCycle). Linking also makes the relation `group`, the derivation
 * member → member and the tuple child → parent.
 */
export async function writeGroupLink(
  tx: Queryable,
  envId: string,
  childRef: string,
  parentRef: string,
  at: string,
  remove: boolean,
): Promise<GroupRow | undefined> {
  const child = await findGroup(tx, envId, childRef);
  const parent = await findGroup(tx, envId, parentRef);
  if (remove) {
    const { changes } = await tx.run(`DELETE FROM group_links WHERE child_id = ? AND parent_id = ?`, [
      child.id,
      parent.id,
    ]);
    if (!changes) throw notFound('group link', `${name(child)} in ${name(parent)}`);
    await removeTuple(tx, child.instance_id, GROUP_IN_GROUP_RELATION, parent.instance_id);
    return undefined;
  }
  if (child.type !== parent.type) {
    throw httpError(
      'MISMATCH_GROUP_TYPE',
      `groups of different types cannot be linked: ${name(child)} is a '${child.type}', ${name(parent)} a '${parent.type}'`,
    );
  }
  if (child.tenant_id !== parent.tenant_id) {
    throw httpError(
      'MISMATCH_RESOURCE_INSTANCES_TENANTS',
      `groups of different tenants cannot be linked: ${name(child)} is in '${child.tenant_key}', ${name(parent)} in '${parent.tenant_key}'`,
    );
  }
  await checkNoCycle(tx, child, parent);
  await tx.run(
    `INSERT INTO group_links (child_id, parent_id, created_at) VALUES (?, ?, ?) ON CONFLICT (child_id, parent_id) DO NOTHING`,
    [child.id, parent.id, at],
  );
  const typeId = child.type_resource_id;
  const relationId = await ensureRelation(tx, envId, typeId, GROUP_IN_GROUP_RELATION, typeId, at);
  const memberId = await ensureMemberRole(tx, envId, typeId, at);
  await ensureImplicitGrant(
    tx,
    envId,
    { resourceId: typeId, roleId: memberId, onResourceId: typeId, linkedRoleId: memberId, relationId },
    at,
  );
  await ensureTuple(tx, envId, child.instance_id, GROUP_IN_GROUP_RELATION, parent.instance_id, child.tenant_id, at);
  return child;
}

/**
 * Rejects a link that would close a cycle, naming it: `team:a → team:b → team:a`.
 *
 * The check reads links and the caller then inserts one: two transactions linking A→B and B→A at once
 * (two processes on one PostgreSQL) would each read no path back and both commit a cycle, under READ
 * COMMITTED and even under REPEATABLE READ (write skew; no row is written by both). So the check first
 * takes a transaction-level lock on the groups' type and tenant (PostgreSQL: `pg_advisory_xact_lock`),
 * the only scope a cycle can span, since links join groups of one type and tenant only. The lock is
 * held until COMMIT, so the next linker in that scope waits and, its statements reading what is
 * committed, sees the new link. SQLite has no such method: BEGIN IMMEDIATE already serialises writers.
 */
async function checkNoCycle(tx: Queryable, child: GroupRow, parent: GroupRow): Promise<void> {
  await tx.lock?.(`group_links:${child.type_resource_id}:${child.tenant_id}`);
  const cycle = await findCycle(child.id, parent.id, (ids) =>
    tx.all(`SELECT child_id, parent_id FROM group_links WHERE child_id IN (${ids.map(() => '?').join(', ')})`, ids),
  );
  if (!cycle) return;
  const names = new Map<string, string>();
  const rows = await tx.all<{ id: string; name: string }>(
    `SELECT g.id, res.key || ':' || ri.key AS name FROM access_groups g JOIN resource_instances ri ON ri.id = g.instance_id
     JOIN resources res ON res.id = ri.resource_id WHERE g.id IN (${cycle.map(() => '?').join(', ')})`,
    cycle,
  );
  for (const r of rows) names.set(r.id, r.name);
  const text = cycle.map((id) => names.get(id)).join(' → ');
  throw httpError(
    'GROUP_CYCLE',
    `linking ${names.get(child.id)} into ${names.get(parent.id)} would create a cycle: ${text}`,
    { cycle: cycle.map((id) => names.get(id)) },
  );
}
