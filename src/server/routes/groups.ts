import { newId } from '../new-id.js';
import { findRoleOn } from '../repo/role-scope.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerDeps } from '../context.js';
import { duplicate, httpError, notFound } from '../errors.js';
import { INSTANCE_REF, KEY, USER_KEY, strictObject } from '../schemas.js';
import type { Queryable } from '../store/db.js';
import { findKeyed } from '../repo/common.js';
import { ensureResource } from '../repo/resources.js';
import { findInstance } from '../repo/assignments.js';
import { ensureMemberRole, findGroup, findMemberRole, groupReads, type GroupRow } from '../repo/groups.js';
import { ensureImplicitGrant, ensureRelation, ensureTuple, removeTuple } from '../repo/relations.js';
import { findCycle } from '../domain/groups.js';

// `[type:]key` (a group, or a group grant's instance), each part a key of at most 256 characters (a
// longer one would create a group, or its type, that no key-checked endpoint could name).
const TYPED_KEY = {
  type: 'string',
  pattern: '^([A-Za-z0-9\\-_]{1,256}:)?[A-Za-z0-9\\-_]{1,256}$',
  maxLength: 513,
} as const;
const CREATE = strictObject({ group_instance_key: TYPED_KEY, group_tenant: KEY, group_resource_type_key: KEY }, [
  'group_instance_key',
  'group_tenant',
]);
const GRANT = strictObject({ role: KEY, resource: KEY, resource_instance: TYPED_KEY, tenant: KEY }, [
  'role',
  'resource',
  'resource_instance',
  'tenant',
]);
const MEMBERSHIP = strictObject({ tenant: KEY }, ['tenant']);
const LINK = strictObject({ group_instance_key: INSTANCE_REF }, ['group_instance_key']);

/**
 * Group writes under `/v2/schema/{p}/{e}`: create, delete, role on group (plural path and the
 * specification's singular `/group/...`), membership, and group of groups. Each write creates the
 * specification's automatic records (relation, role derivation, relationship tuple) in the same
 * transaction.
 */
export default async function groupRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  // A write's answer is read in its own transaction: it is ready when the transaction commits.
  // The group's row is the one the write found (or made): its own fields do not change with a write.
  const read = async (tx: Queryable, row: GroupRow) => (await groupReads(tx, [row]))[0];

  app.post('/groups', { schema: { body: CREATE } }, async (req) => {
    const b = req.body as { group_instance_key: string; group_tenant: string; group_resource_type_key?: string };
    const [type, key] = splitKey(b.group_instance_key, b.group_resource_type_key);
    const at = now().toISOString();
    const envId = req.env.envId;
    return db.transaction(async (tx) => {
      const tenant = await findKeyed<{ id: string; key: string }>(tx, 'tenants', envId, b.group_tenant, 'tenant');
      const typeId = await ensureResource(tx, envId, type, at);
      await ensureMemberRole(tx, envId, typeId, at);
      let instance = await tx.get<{ id: string; tenant_id: string }>(
        `SELECT id, tenant_id FROM resource_instances WHERE resource_id = ? AND key = ?`,
        [typeId, key],
      );
      if (instance) {
        if (await tx.get(`SELECT 1 AS x FROM access_groups WHERE instance_id = ?`, [instance.id]))
          throw duplicate('group', `${type}:${key}`);
        if (instance.tenant_id !== tenant.id)
          throw httpError(
            'MISMATCH_RESOURCE_INSTANCES_TENANTS',
            `resource instance '${type}:${key}' exists in another tenant`,
          );
      } else {
        instance = { id: newId(), tenant_id: tenant.id };
        await tx.run(
          `INSERT INTO resource_instances (id, env_id, resource_id, key, tenant_id, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, '{}', ?, ?)`,
          [instance.id, envId, typeId, key, tenant.id, at, at],
        );
      }
      const id = newId();
      await tx.run(`INSERT INTO access_groups (id, env_id, instance_id, created_at) VALUES (?, ?, ?, ?)`, [
        id,
        envId,
        instance.id,
        at,
      ]);
      return read(tx, {
        id,
        instance_id: instance.id,
        key,
        type,
        type_resource_id: typeId,
        tenant_id: tenant.id,
        tenant_key: tenant.key,
        created_at: at,
      });
    });
  });

  // Deleting the group's instance removes the group, its memberships, grants, links and tuples (cascade).
  app.delete('/groups/:group', async (req, reply) => {
    const { group } = req.params as { group: string };
    await db.transaction(async (tx) => {
      const g = await findGroup(tx, req.env.envId, group);
      await tx.run(`DELETE FROM resource_instances WHERE id = ?`, [g.instance_id]);
    });
    return reply.status(204).send();
  });

  const grant = (remove: boolean) => async (req: FastifyRequest, reply: import('fastify').FastifyReply) => {
    const { group } = req.params as { group: string };
    const b = req.body as { role: string; resource: string; resource_instance: string; tenant: string };
    const envId = req.env.envId;
    const at = now().toISOString();
    const answer = await db.transaction(async (tx) => {
      const g = await findGroup(tx, envId, group);
      const ref = b.resource_instance.includes(':') ? b.resource_instance : `${b.resource}:${b.resource_instance}`;
      if (!ref.startsWith(`${b.resource}:`))
        throw httpError(
          'INVALID_INPUT',
          `resource_instance '${b.resource_instance}' is not of resource '${b.resource}'`,
        );
      await findKeyed(tx, 'resources', envId, b.resource, 'resource');
      const inst = await findInstance(tx, envId, ref);
      // The instance type's resource role of that key, else the top-level one (repo/role-scope.ts).
      const role = await findRoleOn(tx, envId, { id: inst.resource_id, key: inst.resource_key }, b.role);
      // By key or id: compare ids.
      const tenant = await findKeyed<{ id: string }>(tx, 'tenants', envId, b.tenant, 'tenant');
      if (inst.tenant_id !== tenant.id || g.tenant_id !== tenant.id) {
        throw httpError(
          'MISMATCH_RESOURCE_INSTANCES_TENANTS',
          `group ${g.type}:${g.key} (tenant '${g.tenant_key}') and ${ref} (tenant '${inst.tenant_key}') must both be in tenant '${b.tenant}'`,
        );
      }
      const relation = `${g.type}_group`;
      if (remove) {
        const { changes } = await tx.run(
          `DELETE FROM group_grants WHERE group_id = ? AND role_id = ? AND resource_instance_id = ?`,
          [g.id, role.id, inst.id],
        );
        if (!changes) throw notFound('group role', `${b.role} on ${ref} for ${g.type}:${g.key}`);
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
      const objectResourceId = inst.resource_id;
      const relationId = await ensureRelation(tx, envId, objectResourceId, relation, g.type_resource_id, at);
      const memberId = await ensureMemberRole(tx, envId, g.type_resource_id, at);
      await ensureImplicitGrant(
        tx,
        envId,
        {
          resourceId: objectResourceId,
          roleId: role.id,
          onResourceId: g.type_resource_id,
          linkedRoleId: memberId,
          relationId,
        },
        at,
      );
      await ensureTuple(tx, envId, g.instance_id, relation, inst.id, inst.tenant_id, at);
      return read(tx, g);
    });
    return answer ?? reply.status(204).send();
  };
  for (const prefix of ['/groups', '/group']) {
    app.post(`${prefix}/:group/roles`, { schema: { body: GRANT } }, grant(false));
    app.delete(`${prefix}/:group/roles`, { schema: { body: GRANT } }, grant(true));
  }

  const membership = (remove: boolean) => async (req: FastifyRequest, reply: import('fastify').FastifyReply) => {
    const { group, user } = req.params as { group: string; user: string };
    const { tenant } = req.body as { tenant: string };
    const envId = req.env.envId;
    const at = now().toISOString();
    const answer = await db.transaction(async (tx) => {
      const g = await findGroup(tx, envId, group);
      const u = await findKeyed<{ id: string }>(tx, 'users', envId, user, 'user');
      // By key or id: compare ids.
      if ((await findKeyed<{ id: string }>(tx, 'tenants', envId, tenant, 'tenant')).id !== g.tenant_id)
        throw httpError(
          'MISMATCH_RESOURCE_INSTANCES_TENANTS',
          `group ${g.type}:${g.key} is in tenant '${g.tenant_key}', not '${tenant}'`,
        );
      // Membership is the group type's resource role `member` (repo/groups.ts). Adding recreates it if
      // someone deleted it (which ended every membership); removing needs it to exist.
      const member = remove ? await findMemberRole(tx, g) : await ensureMemberRole(tx, envId, g.type_resource_id, at);
      if (remove) {
        const { changes } = await tx.run(
          `DELETE FROM role_assignments WHERE user_id = ? AND role_id = ? AND resource_instance_id = ?`,
          [u.id, member, g.instance_id],
        );
        if (!changes) throw notFound('member', `${user} in ${g.type}:${g.key}`);
      } else {
        await tx.run(
          `INSERT INTO role_assignments (id, env_id, user_id, role_id, tenant_id, resource_instance_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT DO NOTHING`,
          [newId(), envId, u.id, member, g.tenant_id, g.instance_id, at],
        );
      }
      return remove ? undefined : read(tx, g);
    });
    return answer ?? reply.status(204).send();
  };
  app.put(
    '/groups/:group/users/:user',
    { schema: { body: MEMBERSHIP, params: { type: 'object', properties: { user: USER_KEY } } } },
    membership(false),
  );
  app.delete('/groups/:group/users/:user', { schema: { body: MEMBERSHIP } }, membership(true));

  const link = (remove: boolean) => async (req: FastifyRequest, reply: import('fastify').FastifyReply) => {
    const { group } = req.params as { group: string };
    const { group_instance_key: parentRef } = req.body as { group_instance_key: string };
    const envId = req.env.envId;
    const at = now().toISOString();
    const answer = await db.transaction(async (tx) => {
      const child = await findGroup(tx, envId, group);
      const parent = await findGroup(tx, envId, parentRef);
      const name = (g: GroupRow) => `${g.type}:${g.key}`;
      if (remove) {
        const { changes } = await tx.run(`DELETE FROM group_links WHERE child_id = ? AND parent_id = ?`, [
          child.id,
          parent.id,
        ]);
        if (!changes) throw notFound('group link', `${name(child)} in ${name(parent)}`);
        await removeTuple(tx, child.instance_id, 'group', parent.instance_id);
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
      const relationId = await ensureRelation(tx, envId, child.type_resource_id, 'group', child.type_resource_id, at);
      const memberId = await ensureMemberRole(tx, envId, child.type_resource_id, at);
      await ensureImplicitGrant(
        tx,
        envId,
        {
          resourceId: child.type_resource_id,
          roleId: memberId,
          onResourceId: child.type_resource_id,
          linkedRoleId: memberId,
          relationId,
        },
        at,
      );
      await ensureTuple(tx, envId, child.instance_id, 'group', parent.instance_id, child.tenant_id, at);
      return read(tx, child);
    });
    return answer ?? reply.status(204).send();
  };
  app.put('/groups/:group/assign_group', { schema: { body: LINK } }, link(false));
  app.delete('/groups/:group/assign_group', { schema: { body: LINK } }, link(true));
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

function splitKey(groupKey: string, type?: string): [string, string] {
  const i = groupKey.indexOf(':');
  if (i >= 0) {
    const [t, k] = [groupKey.slice(0, i), groupKey.slice(i + 1)];
    if (type && type !== t)
      throw httpError(
        'INVALID_INPUT',
        `group_instance_key '${groupKey}' names type '${t}' but group_resource_type_key is '${type}'`,
      );
    return [t, k];
  }
  return [type ?? 'group', groupKey];
}
