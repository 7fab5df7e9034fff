import { newId } from '../new-id.js';
import type { Queryable } from './db.js';

/**
 * Migration 9's data (docs/server.md, "Groups: membership and links"):
 *
 * 1. Group membership moves from the top-level role `member` to the group type's resource role `member`
 *    (`team#member`), as on the public service. For each environment that has a top-level `member` and
 *    each type that has groups: the type's `member` resource role is created when missing (with the
 *    top-level role's permissions on that type, `team:read` becoming `read`, so a member may still do on
 *    the group's instance what it could), then every record naming the top-level `member` on that type's
 *    group instances, or as that type's role in a derivation, names the resource role instead:
 *    memberships (role assignments on a group's instance), groups given `member` on a group, the group
 *    machinery's derivations (`<resource>#<role> <- <type>#member`, `<type>#member <- <type>#member via
 *    group`) and any other derivation from or onto `<type>#member`. Ids of the moved rows are kept. The
 *    top-level `member` is deleted when the server made it (its description, no permissions, no
 *    `extends`) and nothing names it any more; otherwise it stays as an ordinary top-level role.
 * 2. `when` of a derived role (`PUT .../implicit_grants/conditions`) was kept on the role row, so a
 *    top-level role's condition applied on every resource it is derived onto: it is copied to each
 *    (resource, role) that has derivations (the same decisions as before), a resource role's to its own
 *    resource.
 */
export async function migrateMembership(tx: Queryable): Promise<void> {
  await tx.run(
    `INSERT INTO derivation_conditions (resource_id, role_id, no_direct_roles)
     SELECT resource_id, id, 1 FROM roles WHERE derivation_no_direct_roles = 1 AND resource_id IS NOT NULL`,
  );
  await tx.run(
    `INSERT INTO derivation_conditions (resource_id, role_id, no_direct_roles)
     SELECT DISTINCT ig.resource_id, r.id, 1 FROM roles r JOIN implicit_grants ig ON ig.role_id = r.id
     WHERE r.derivation_no_direct_roles = 1 AND r.resource_id IS NULL
     ON CONFLICT (resource_id, role_id) DO NOTHING`,
  );

  const tops = await tx.all<{
    id: string;
    env_id: string;
    permissions: string;
    extends: string;
    description: string | null;
  }>(`SELECT id, env_id, permissions, extends, description FROM roles WHERE key = 'member' AND resource_id IS NULL`);
  const at = new Date().toISOString();
  for (const top of tops) {
    const types = await tx.all<{ id: string; key: string; actions: string }>(
      `SELECT DISTINCT res.id, res.key, res.actions FROM access_groups g JOIN resource_instances ri ON ri.id = g.instance_id
       JOIN resources res ON res.id = ri.resource_id WHERE g.env_id = ?`,
      [top.env_id],
    );
    for (const type of types) {
      const member = await typeMemberRole(tx, top, type, at);
      const groupInstances = `SELECT g.instance_id FROM access_groups g JOIN resource_instances gi ON gi.id = g.instance_id WHERE gi.resource_id = ?`;
      // Memberships, then groups given `member` on a group: moved unless the same row exists with the
      // resource role (then the old one goes).
      await tx.run(
        `UPDATE role_assignments SET role_id = ? WHERE role_id = ? AND resource_instance_id IN (${groupInstances})
         AND NOT EXISTS (SELECT 1 FROM role_assignments o WHERE o.user_id = role_assignments.user_id AND o.role_id = ?
           AND o.tenant_id = role_assignments.tenant_id AND o.resource_instance_id = role_assignments.resource_instance_id)`,
        [member, top.id, type.id, member],
      );
      await tx.run(`DELETE FROM role_assignments WHERE role_id = ? AND resource_instance_id IN (${groupInstances})`, [
        top.id,
        type.id,
      ]);
      await tx.run(
        `UPDATE group_grants SET role_id = ? WHERE role_id = ? AND resource_instance_id IN (${groupInstances})
         AND NOT EXISTS (SELECT 1 FROM group_grants o WHERE o.group_id = group_grants.group_id AND o.role_id = ? AND o.resource_instance_id = group_grants.resource_instance_id)`,
        [member, top.id, type.id, member],
      );
      await tx.run(`DELETE FROM group_grants WHERE role_id = ? AND resource_instance_id IN (${groupInstances})`, [
        top.id,
        type.id,
      ]);
      // Derivations from `<type>#member`, and onto it (the link's `<type>#member <- <type>#member via group`).
      for (const [column, resourceColumn] of [
        ['linked_role_id', 'on_resource_id'],
        ['role_id', 'resource_id'],
      ]) {
        const others = ['resource_id', 'role_id', 'on_resource_id', 'linked_role_id', 'relation_id'].filter(
          (c) => c !== column,
        );
        await tx.run(
          `UPDATE implicit_grants SET ${column} = ? WHERE ${column} = ? AND ${resourceColumn} = ?
           AND NOT EXISTS (SELECT 1 FROM implicit_grants o WHERE o.${column} = ? AND ${others.map((c) => `o.${c} = implicit_grants.${c}`).join(' AND ')})`,
          [member, top.id, type.id, member],
        );
        await tx.run(`DELETE FROM implicit_grants WHERE ${column} = ? AND ${resourceColumn} = ?`, [top.id, type.id]);
      }
    }
    await dropIfUnused(tx, top);
  }
}

/** The type's `member` resource role: the one there, or a new one with the top-level role's permissions on the type. */
async function typeMemberRole(
  tx: Queryable,
  top: { env_id: string; permissions: string },
  type: { id: string; key: string; actions: string },
  at: string,
): Promise<string> {
  const there = await tx.get<{ id: string }>(`SELECT id FROM roles WHERE resource_id = ? AND key = 'member'`, [
    type.id,
  ]);
  if (there) return there.id;
  const actions = JSON.parse(type.actions || '{}') as Record<string, unknown>;
  const permissions = (JSON.parse(top.permissions || '[]') as string[])
    .filter((p) => p.startsWith(`${type.key}:`) && Object.hasOwn(actions, p.slice(type.key.length + 1)))
    .map((p) => p.slice(type.key.length + 1))
    .sort();
  const id = newId();
  await tx.run(
    `INSERT INTO roles (id, env_id, resource_id, key, name, description, permissions, extends, created_at, updated_at)
     VALUES (?, ?, ?, 'member', 'Member', 'Membership of a group', ?, '[]', ?, ?)`,
    [id, top.env_id, type.id, JSON.stringify([...new Set(permissions)]), at, at],
  );
  return id;
}

async function dropIfUnused(
  tx: Queryable,
  top: { id: string; env_id: string; permissions: string; extends: string; description: string | null },
): Promise<void> {
  const madeByServer = top.description === 'Membership of a group' && top.permissions === '[]' && top.extends === '[]';
  if (!madeByServer) return;
  const used = await tx.get(
    `SELECT 1 AS x FROM role_assignments WHERE role_id = ?
     UNION ALL SELECT 1 FROM group_grants WHERE role_id = ?
     UNION ALL SELECT 1 FROM implicit_grants WHERE role_id = ? OR linked_role_id = ?
     UNION ALL SELECT 1 FROM roles WHERE env_id = ? AND resource_id IS NULL AND extends LIKE '%"member"%'
     UNION ALL SELECT 1 FROM elements_configs WHERE env_id = ? AND (roles_to_levels LIKE ? OR roles_to_levels LIKE '%"member"%')`,
    [top.id, top.id, top.id, top.id, top.env_id, top.env_id, `%${top.id}%`],
  );
  if (!used) await tx.run(`DELETE FROM roles WHERE id = ?`, [top.id]);
}
