import type { Queryable } from '../store/db.js';
import type { EnvContext } from '../context.js';
import { envFields, stableUuid } from './common.js';
import { resourceRead, type ResourceRow } from './resources.js';
import type { RoleRow } from './roles.js';
import { resourceRoleRead } from './role-scope.js';

interface DerivationRow {
  resource_id: string;
  resource_key: string;
  role_id: string;
  role_key: string;
  role_name: string;
  role_description: string | null;
  role_created_at: string;
  role_updated_at: string;
  linked_role_id: string;
  linked_role: string;
  on_resource_id: string;
  on_resource: string;
  relation_id: string;
  relation: string;
  no_direct: number | string;
  role_no_direct: number | string;
}

/**
 * The public `ResourceRead` of each row, with `roles` keyed by role key, each the public
 * `ResourceRoleRead`: the resource's own roles (resource roles, with `permissions` and `extends`), and
 * the top-level roles derived onto it through relations (`granted_to.users_with_role`; the
 * specification's `<group_type>#member` derivations among them). Two queries for the whole page.
 */
export async function resourceReads(q: Queryable, rows: ResourceRow[], env: EnvContext) {
  if (rows.length === 0) return [];
  const derivations = await q.all<DerivationRow>(
    `SELECT g.resource_id, res.key AS resource_key, r.id AS role_id, r.key AS role_key, r.name AS role_name, r.description AS role_description,
       r.created_at AS role_created_at, r.updated_at AS role_updated_at, lr.id AS linked_role_id, lr.key AS linked_role,
       onr.id AS on_resource_id, onr.key AS on_resource, rel.id AS relation_id, rel.key AS relation,
       g.no_direct_roles AS no_direct, COALESCE(dc.no_direct_roles, 0) AS role_no_direct
     FROM implicit_grants g JOIN resources res ON res.id = g.resource_id JOIN roles r ON r.id = g.role_id JOIN roles lr ON lr.id = g.linked_role_id
       JOIN resources onr ON onr.id = g.on_resource_id JOIN relations rel ON rel.id = g.relation_id
       LEFT JOIN derivation_conditions dc ON dc.resource_id = g.resource_id AND dc.role_id = g.role_id
     WHERE g.resource_id IN (${rows.map(() => '?').join(', ')}) ORDER BY g.created_at, g.id`,
    rows.map((r) => r.id),
  );
  const marks = rows.map(() => '?').join(', ');
  const own = await q.all<RoleRow & { resource_id: string }>(
    `SELECT * FROM roles WHERE resource_id IN (${marks}) ORDER BY created_at, id`,
    rows.map((r) => r.id),
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const byResource = new Map<string, Record<string, Record<string, unknown> & { granted_to?: GrantedTo }>>();
  const rolesOf = (resourceId: string) => byResource.get(resourceId) ?? byResource.set(resourceId, {}).get(resourceId)!;
  for (const r of own) rolesOf(r.resource_id)[r.key] = resourceRoleRead(r, byId.get(r.resource_id)!, env);
  for (const d of derivations) {
    const roles = rolesOf(d.resource_id);
    const role = (roles[d.role_key] ??= roleRead(d, env));
    // `when`: the derived role's (PUT .../implicit_grants/conditions) on the block, each rule's on the rule.
    role.granted_to ??= {
      id: stableUuid(`${d.resource_id}:${d.role_id}:granted_to`),
      when: { no_direct_roles_on_object: Number(d.role_no_direct) > 0 },
      users_with_role: [],
    };
    role.granted_to.users_with_role.push({
      role_id: d.linked_role_id,
      resource_id: d.on_resource_id,
      relation_id: d.relation_id,
      role: d.linked_role,
      on_resource: d.on_resource,
      linked_by_relation: d.relation,
      when: { no_direct_roles_on_object: Number(d.no_direct) > 0 },
    });
  }
  const relations = await relationBlocks(
    q,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    ...resourceRead(r, env),
    roles: byResource.get(r.id) ?? {},
    relations: relations.get(r.id) ?? {},
  }));
}

type GrantedTo = {
  id: string;
  when: { no_direct_roles_on_object: boolean };
  users_with_role: Record<string, unknown>[];
};

/**
 * The public `ResourceRead.relations`: relation key -> `RelationBlockRead`, the subject resource by id
 * (`resource_id`) and key (`resource`), with the relation's name and description.
 */
async function relationBlocks(q: Queryable, resourceIds: string[]) {
  const rows = await q.all<{
    object_resource_id: string;
    key: string;
    name: string;
    description: string | null;
    subject_id: string;
    subject_key: string;
  }>(
    `SELECT rel.object_resource_id, rel.key, rel.name, rel.description, s.id AS subject_id, s.key AS subject_key
     FROM relations rel JOIN resources s ON s.id = rel.subject_resource_id
     WHERE rel.object_resource_id IN (${resourceIds.map(() => '?').join(', ')}) ORDER BY rel.created_at, rel.id`,
    resourceIds,
  );
  const blocks = new Map<string, Record<string, Record<string, string>>>();
  for (const r of rows) {
    const of = blocks.get(r.object_resource_id) ?? blocks.set(r.object_resource_id, {}).get(r.object_resource_id)!;
    of[r.key] = {
      resource_id: r.subject_id,
      resource: r.subject_key,
      relation_name: r.name,
      ...(r.description !== null ? { description: r.description } : {}),
    };
  }
  return blocks;
}

/** A top-level role derived onto the resource: its entry in `roles` (no permissions of this resource of its own). */
function roleRead(d: DerivationRow, env: EnvContext): Record<string, unknown> & { granted_to?: GrantedTo } {
  return {
    id: d.role_id,
    key: d.role_key,
    name: d.role_name,
    ...(d.role_description !== null ? { description: d.role_description } : {}),
    resource_id: d.resource_id,
    resource: d.resource_key,
    ...envFields(env),
    created_at: d.role_created_at,
    updated_at: d.role_updated_at,
  };
}
