import { DEFAULT_TENANT } from '../../rules/names.js';
import { newId } from '../new-id.js';
import type { Queryable } from '../store/db.js';
import type { EnvContext } from '../context.js';
import { duplicate, httpError, notFound } from '../errors.js';
import { findKeyed, splitRef } from './common.js';
import { userIdsByKey } from './users.js';
import { findRoleNamed } from './role-scope.js';

export interface AssignmentInput {
  user: string;
  role: string;
  tenant?: string;
  /** `type:key` (or an instance id). */
  resource_instance?: string;
}

export interface AssignmentRow {
  id: string;
  user_id: string;
  role_id: string;
  tenant_id: string;
  resource_instance_id: string | null;
  created_at: string;
  user_key: string;
  role_key: string;
  tenant_key: string;
  instance_key: string | null;
  resource_key: string | null;
}

/** The joined select every assignment read uses. */
export const ASSIGNMENT_SELECT = `ra.id, ra.user_id, ra.role_id, ra.tenant_id, ra.resource_instance_id, ra.created_at,
  u.key AS user_key, r.key AS role_key, t.key AS tenant_key, ri.key AS instance_key, res.key AS resource_key`;
export const ASSIGNMENT_FROM = `role_assignments ra JOIN users u ON u.id = ra.user_id JOIN roles r ON r.id = ra.role_id
  JOIN tenants t ON t.id = ra.tenant_id LEFT JOIN resource_instances ri ON ri.id = ra.resource_instance_id
  LEFT JOIN resources res ON res.id = ri.resource_id`;

export function assignmentRead(row: AssignmentRow, env: EnvContext) {
  // Written out rather than spread (a page holds up to 1,000): the same fields in the same order either way.
  // A tenant-wide assignment has no instance: the fields are absent (the public read model has no nulls).
  if (row.instance_key === null) {
    return {
      id: row.id,
      user: row.user_key,
      role: row.role_key,
      tenant: row.tenant_key,
      user_id: row.user_id,
      role_id: row.role_id,
      tenant_id: row.tenant_id,
      organization_id: env.orgId,
      project_id: env.projectId,
      environment_id: env.envId,
      created_at: row.created_at,
    };
  }
  return {
    id: row.id,
    user: row.user_key,
    role: row.role_key,
    tenant: row.tenant_key,
    resource_instance: `${row.resource_key}:${row.instance_key}`,
    resource_instance_id: row.resource_instance_id!,
    user_id: row.user_id,
    role_id: row.role_id,
    tenant_id: row.tenant_id,
    organization_id: env.orgId,
    project_id: env.projectId,
    environment_id: env.envId,
    created_at: row.created_at,
  };
}

/** One assignment by id, in the joined read shape (the answer of a create, read after it commits). */
export async function readAssignment(q: Queryable, id: string): Promise<AssignmentRow | undefined> {
  return q.get<AssignmentRow>(`SELECT ${ASSIGNMENT_SELECT} FROM ${ASSIGNMENT_FROM} WHERE ra.id = ?`, [id]);
}

export interface InstanceRef {
  id: string;
  key: string;
  resource_id: string;
  resource_key: string;
  tenant_id: string;
  tenant_key: string;
}

/** A resource instance by `type:key` or id, or 404. */
export async function findInstance(
  q: Queryable,
  envId: string,
  ref: string,
  defaultType?: string,
): Promise<InstanceRef> {
  const found = await findInstanceOrNull(q, envId, ref, defaultType);
  if (!found) throw notFound('resource instance', ref);
  return found;
}

export async function findInstanceOrNull(
  q: Queryable,
  envId: string,
  ref: string,
  defaultType?: string,
): Promise<InstanceRef | undefined> {
  const select = `SELECT ri.id, ri.key, ri.resource_id, res.key AS resource_key, ri.tenant_id, t.key AS tenant_key FROM resource_instances ri
    JOIN resources res ON res.id = ri.resource_id JOIN tenants t ON t.id = ri.tenant_id`;
  const parts = splitRef(ref, defaultType);
  if (parts) {
    const row = await q.get<InstanceRef>(`${select} WHERE ri.env_id = ? AND res.key = ? AND ri.key = ?`, [
      envId,
      parts[0],
      parts[1],
    ]);
    if (row) return row;
  }
  return q.get<InstanceRef>(`${select} WHERE ri.env_id = ? AND ri.id = ?`, [envId, ref]);
}

/**
 * An instance by `type:key` (or id); when it does not exist and `tenant` is given, it is created there
 * (the public API: the instance "will be implicitly created if the tenant parameter is specified").
 * Its type must exist (404 otherwise), and the key must be a key.
 */
export async function findOrCreateInstance(
  q: Queryable,
  envId: string,
  ref: string,
  tenant: string | undefined,
  at: string,
): Promise<InstanceRef> {
  const found = await findInstanceOrNull(q, envId, ref);
  if (found || !tenant) return found ?? (await findInstance(q, envId, ref));
  const parts = splitRef(ref);
  if (!parts || !KEY_PATTERN.test(parts[0]) || !KEY_PATTERN.test(parts[1])) throw notFound('resource instance', ref);
  const res = await findKeyed<{ id: string }>(q, 'resources', envId, parts[0], 'resource');
  const t = await findKeyed<{ id: string }>(q, 'tenants', envId, tenant, 'tenant');
  // ON CONFLICT: a concurrent request may create the same instance; then it is that one.
  await q.run(
    `INSERT INTO resource_instances (id, env_id, resource_id, key, tenant_id, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, '{}', ?, ?)
     ON CONFLICT DO NOTHING`,
    [newId(), envId, res.id, parts[1], t.id, at, at],
  );
  return findInstance(q, envId, ref);
}

const KEY_PATTERN = /^[A-Za-z0-9\-_]{1,256}$/;

/**
 * What one bulk call has already resolved, by the reference as given (key or id): a call of 1,000
 * assignments names a few roles, tenants and instances many times over. Valid within one transaction
 * (nothing it holds is deleted by an assignment).
 */
export class AssignmentLookups {
  readonly users = new Map<string, string>();
  readonly tenants = new Map<string, string>();
  readonly instances = new Map<string, InstanceRef>();
  /** By the instance type's id and the role as named; '' for top-level roles. */
  readonly roles = new Map<string, { id: string }>();

  /** A bulk call's users and instances, read up front; roles and tenants are remembered as they are met. */
  static async of(q: Queryable, envId: string, items: readonly AssignmentInput[]): Promise<AssignmentLookups> {
    const memo = new AssignmentLookups();
    await memo.loadUsers(
      q,
      envId,
      items.map((a) => a.user),
    );
    await memo.loadInstances(
      q,
      envId,
      items.flatMap((a) => (a.resource_instance ? [a.resource_instance] : [])),
    );
    return memo;
  }

  /** The call's users by key, a few statements for all of them (one each cost most of a bulk call's reads). */
  private async loadUsers(q: Queryable, envId: string, keys: Iterable<string>): Promise<void> {
    for (const [key, id] of await userIdsByKey(q, envId, [...new Set(keys)])) this.users.set(key, id);
  }

  /** The call's instances named `type:key`, a few statements per type (memberships name thousands of groups). */
  private async loadInstances(q: Queryable, envId: string, refs: Iterable<string>): Promise<void> {
    const byType = new Map<string, Set<string>>();
    for (const ref of refs) {
      const parts = splitRef(ref);
      if (parts) (byType.get(parts[0]) ?? byType.set(parts[0], new Set()).get(parts[0])!).add(parts[1]);
    }
    for (const [type, keys] of byType) {
      const resource = await q.get<{ id: string }>(`SELECT id FROM resources WHERE env_id = ? AND key = ?`, [
        envId,
        type,
      ]);
      if (!resource) continue;
      const wanted = [...keys];
      for (let i = 0; i < wanted.length; i += KEYS_PER_READ) {
        const chunk = wanted.slice(i, i + KEYS_PER_READ);
        const rows = await q.all<InstanceRef>(
          `SELECT ri.id, ri.key, ri.resource_id, ? AS resource_key, ri.tenant_id, t.key AS tenant_key FROM resource_instances ri JOIN tenants t ON t.id = ri.tenant_id
           WHERE ri.resource_id = ? AND ri.key IN (${chunk.map(() => '?').join(', ')})`,
          [type, resource.id, ...chunk],
        );
        for (const r of rows) this.instances.set(`${type}:${r.key}`, r);
      }
    }
  }
}

/** Instance keys bound in one read: well under both stores' limits on bound parameters. */
const KEYS_PER_READ = 500;

async function remembered<T>(map: Map<string, T> | undefined, key: string, find: () => Promise<T>): Promise<T> {
  const known = map?.get(key);
  if (known !== undefined) return known;
  const found = await find();
  map?.set(key, found);
  return found;
}

/**
 * Resolves an assignment's references (404 naming what is missing) and its tenant. The role named on an
 * instance is the instance type's resource role of that key, else the top-level one (repo/role-scope.ts);
 * a tenant-wide assignment names a top-level role. `createAt`: a missing instance is created in the
 * assignment's tenant (assigning; never when unassigning). `memo`: a bulk call's lookups.
 */
export async function resolveAssignment(
  q: Queryable,
  envId: string,
  a: AssignmentInput,
  createAt?: string,
  memo?: AssignmentLookups,
) {
  const userId = await remembered(
    memo?.users,
    a.user,
    async () => (await findKeyed<{ id: string }>(q, 'users', envId, a.user, 'user')).id,
  );
  const tenantIdOf = (ref: string) =>
    remembered(
      memo?.tenants,
      ref,
      async () => (await findKeyed<{ id: string }>(q, 'tenants', envId, ref, 'tenant')).id,
    );
  let tenantId: string;
  let instanceId: string | null = null;
  let role: { id: string };
  if (a.resource_instance) {
    const ref = a.resource_instance;
    const inst = await remembered(memo?.instances, ref, () =>
      createAt ? findOrCreateInstance(q, envId, ref, a.tenant, createAt) : findInstance(q, envId, ref),
    );
    role = await remembered(memo?.roles, `${inst.resource_id}\n${a.role}`, () =>
      findRoleNamed(q, envId, { id: inst.resource_id, key: inst.resource_key }, a.role),
    );
    // The tenant may be named by key or id: compare ids (an unknown one is 404, not a mismatch).
    if (a.tenant && (await tenantIdOf(a.tenant)) !== inst.tenant_id) {
      throw httpError(
        'MISMATCH_RESOURCE_INSTANCES_TENANTS',
        `resource instance '${a.resource_instance}' is in tenant '${inst.tenant_key}', not '${a.tenant}'`,
      );
    }
    tenantId = inst.tenant_id;
    instanceId = inst.id;
  } else {
    role = await remembered(memo?.roles, `\n${a.role}`, () => findRoleNamed(q, envId, undefined, a.role));
    // Without a tenant, an assignment is in the tenant 'default', as on the public service.
    tenantId = await tenantIdOf(a.tenant ?? DEFAULT_TENANT);
  }
  return { userId, roleId: role.id, tenantId, instanceId };
}

/**
 * Creates one assignment; `ignoreDuplicate` makes an existing one a no-op (bulk calls converge).
 * `createInstance`: a missing instance named with a tenant is created (the public role-assignment
 * operations); an access request's approval never recreates an instance deleted since the request.
 */
export async function assignRole(
  q: Queryable,
  envId: string,
  a: AssignmentInput,
  at: string,
  options: { ignoreDuplicate?: boolean; createInstance?: boolean; memo?: AssignmentLookups } = {},
): Promise<{ id: string; created: boolean }> {
  const r = await resolveAssignment(q, envId, a, options.createInstance ? at : undefined, options.memo);
  return writeAssignment(q, envId, r, at, { ...options, what: () => describe(a) });
}

/** An assignment's rows, resolved (resolveAssignment, or a group's membership: repo/group-writes.ts). */
export interface ResolvedAssignment {
  userId: string;
  roleId: string;
  tenantId: string;
  instanceId: string | null;
}

/**
 * The one insert of a role assignment: every assignment, a group's membership included, is written here.
 * `what` names it in the 409. `memo` (a bulk call) skips the read first: the insert says whether it created.
 */
export async function writeAssignment(
  q: Queryable,
  envId: string,
  r: ResolvedAssignment,
  at: string,
  options: { ignoreDuplicate?: boolean; memo?: AssignmentLookups; what: () => string },
): Promise<{ id: string; created: boolean }> {
  // A bulk call needs only whether each was created: the insert below says so, without reading first.
  if (!options.memo) {
    const existing = await q.get<{ id: string }>(
      `SELECT id FROM role_assignments WHERE user_id = ? AND role_id = ? AND tenant_id = ? AND COALESCE(resource_instance_id, '') = ?`,
      [r.userId, r.roleId, r.tenantId, r.instanceId ?? ''],
    );
    if (existing) {
      if (options.ignoreDuplicate) return { id: existing.id, created: false };
      throw duplicate('role assignment', options.what());
    }
  }
  const id = newId();
  // A concurrent request (another process, on PostgreSQL) may insert the same assignment between the
  // check above and this insert: the unique index decides. `ON CONFLICT DO NOTHING` rather than catching
  // the violation, because in PostgreSQL a failed statement aborts the whole transaction, so a caught
  // error could not be ignored (the approval of an access request goes on after this call).
  const { changes } = await q.run(
    `INSERT INTO role_assignments (id, env_id, user_id, role_id, tenant_id, resource_instance_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT DO NOTHING`,
    [id, envId, r.userId, r.roleId, r.tenantId, r.instanceId, at],
  );
  if (changes === 0) {
    if (options.ignoreDuplicate) return { id, created: false };
    throw duplicate('role assignment', options.what());
  }
  return { id, created: true };
}

/** Removes one assignment; `ignoreMissing` makes a missing one a no-op. */
export async function unassignRole(
  q: Queryable,
  envId: string,
  a: AssignmentInput,
  options: { ignoreMissing?: boolean; memo?: AssignmentLookups } = {},
): Promise<boolean> {
  const r = await resolveAssignment(q, envId, a, undefined, options.memo);
  const removed = await deleteAssignment(q, r);
  if (!removed && !options.ignoreMissing) throw notFound('role assignment', describe(a));
  return removed;
}

/** The one delete of a role assignment (the counterpart of writeAssignment); whether there was one. */
export async function deleteAssignment(q: Queryable, r: ResolvedAssignment): Promise<boolean> {
  const { changes } = await q.run(
    `DELETE FROM role_assignments WHERE user_id = ? AND role_id = ? AND tenant_id = ? AND COALESCE(resource_instance_id, '') = ?`,
    [r.userId, r.roleId, r.tenantId, r.instanceId ?? ''],
  );
  return changes > 0;
}

/** Deletes every assignment of the user in the tenant (the user leaves it); how many. */
export async function deleteAssignmentsInTenant(q: Queryable, tenantId: string, userId: string): Promise<number> {
  const { changes } = await q.run(`DELETE FROM role_assignments WHERE tenant_id = ? AND user_id = ?`, [
    tenantId,
    userId,
  ]);
  return changes;
}

function describe(a: AssignmentInput): string {
  return `${a.user} ${a.role} in ${a.resource_instance ?? a.tenant ?? DEFAULT_TENANT}`;
}
