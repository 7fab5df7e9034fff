import type { Queryable, SqlValue } from '../store/db.js';
import type { EnvContext } from '../context.js';
import type { StoredStatus } from '../domain/access-requests.js';
import type { Paging } from '../paging.js';
import { countOf } from './common.js';

export interface AccessRequestRow {
  id: string;
  elements_config_id: string;
  requesting_user_id: string;
  requester_key: string;
  tenant_id: string;
  tenant_key: string;
  role_key: string;
  resource_key: string | null;
  instance_key: string | null;
  reason: string | null;
  cancel_reason: string | null;
  status: StoredStatus;
  reviewer_user_id: string | null;
  reviewer_key: string | null;
  reviewed_at: string | null;
  reviewer_comment: string | null;
  created_at: string;
  updated_at: string;
  is_moderator: number;
}

/** `is_moderator` is computed for the acting user (the first parameter). */
export const REQUEST_SELECT = `ar.*, u.key AS requester_key, t.key AS tenant_key, rv.key AS reviewer_key,
  CASE WHEN EXISTS (SELECT 1 FROM access_request_moderators m WHERE m.request_id = ar.id AND m.user_id = ?) THEN 1 ELSE 0 END AS is_moderator`;
export const REQUEST_FROM = `access_requests ar JOIN users u ON u.id = ar.requesting_user_id JOIN tenants t ON t.id = ar.tenant_id
  LEFT JOIN users rv ON rv.id = ar.reviewer_user_id`;

/**
 * The public `AccessRequestRead`, with the specification's differences (docs/server.md): its statuses
 * (`null`, `approved`, `deny`, `cancel`), reviewer fields `null` until set, and `org_id`/`env_id` beside
 * `organization_id`/`environment_id`. Details name no resource or instance the request is not on; a
 * request without a reason has none.
 */
export function accessRequestRead(r: AccessRequestRow, env: EnvContext) {
  return {
    id: r.id,
    requesting_user_id: r.requesting_user_id,
    access_request_details: {
      tenant: r.tenant_key,
      ...(r.resource_key !== null ? { resource: r.resource_key } : {}),
      ...(r.instance_key !== null ? { resource_instance: r.instance_key } : {}),
      role: r.role_key,
    },
    ...(r.reason !== null ? { reason: r.reason } : {}),
    org_id: env.orgId,
    organization_id: env.orgId,
    project_id: env.projectId,
    env_id: env.envId,
    environment_id: env.envId,
    created_at: r.created_at,
    updated_at: r.updated_at,
    status: r.status,
    reviewer_user_id: r.reviewer_user_id,
    reviewed_at: r.reviewed_at,
    reviewer_comment: r.reviewer_comment,
  };
}

export async function getRequest(
  q: Queryable,
  envId: string,
  actorId: string,
  id: string,
): Promise<AccessRequestRow | undefined> {
  return q.get<AccessRequestRow>(`SELECT ${REQUEST_SELECT} FROM ${REQUEST_FROM} WHERE ar.env_id = ? AND ar.id = ?`, [
    actorId,
    envId,
    id,
  ]);
}

/** Users who hold, tenant-wide in `tenantId`, one of `roleKeys`: the moderators recorded on a request. */
export async function findModerators(q: Queryable, tenantId: string, roleKeys: string[]): Promise<string[]> {
  if (roleKeys.length === 0) return [];
  const rows = await q.all<{ user_id: string }>(
    `SELECT DISTINCT ra.user_id FROM role_assignments ra JOIN roles r ON r.id = ra.role_id
     WHERE ra.tenant_id = ? AND ra.resource_instance_id IS NULL AND r.key IN (${roleKeys.map(() => '?').join(', ')})`,
    [tenantId, ...roleKeys],
  );
  return rows.map((r) => r.user_id);
}

export interface RequestFilters {
  status?: StoredStatus | 'any';
  tenant?: string;
  role?: string;
  resource?: string;
  /** `key` or `type:key`. */
  resourceInstance?: string;
  /** The requester: a user key, or (`byId`) a key or an id, the key first. */
  requester?: { user: string; byId: boolean };
}

/**
 * The requests an actor may see (own, or moderated), filtered, newest first then id. The count and the
 * page's ids come from access_requests alone (its list index, and the moderators' primary key per row);
 * only the page's rows are joined. Joining first made page 100 of 10,000 requests join 3,000 rows and
 * the count 5,000 (p99 41-65 ms in the bench).
 */
export async function listRequests(
  q: Queryable,
  envId: string,
  configId: string,
  actorId: string | null,
  f: RequestFilters,
  paging: Paging,
) {
  const where = [`ar.env_id = ?`, `ar.elements_config_id = ?`];
  const params: SqlValue[] = [envId, configId];
  // `actorId` null: the environment's administrator (access-request-decide.ts), who sees every request.
  if (actorId !== null) {
    where.push(
      `(ar.requesting_user_id = ? OR EXISTS (SELECT 1 FROM access_request_moderators m WHERE m.request_id = ar.id AND m.user_id = ?))`,
    );
    params.push(actorId, actorId);
  }
  if (f.status === null) where.push('ar.status IS NULL');
  else if (f.status !== undefined && f.status !== 'any') (where.push('ar.status = ?'), params.push(f.status));
  if (f.tenant !== undefined)
    (where.push('ar.tenant_id IN (SELECT id FROM tenants WHERE env_id = ? AND key = ?)'), params.push(envId, f.tenant));
  if (f.role !== undefined) (where.push('ar.role_key = ?'), params.push(f.role));
  if (f.resource !== undefined) (where.push('ar.resource_key = ?'), params.push(f.resource));
  if (f.resourceInstance !== undefined) {
    const i = f.resourceInstance.indexOf(':');
    if (i >= 0) {
      where.push('ar.resource_key = ? AND ar.instance_key = ?');
      params.push(f.resourceInstance.slice(0, i), f.resourceInstance.slice(i + 1));
    } else {
      where.push('ar.instance_key = ?');
      params.push(f.resourceInstance);
    }
  }
  if (f.requester !== undefined) {
    // A condition on access_requests' own column (its requester index), so the count and the page's ids
    // still come from access_requests alone; the visibility condition above still applies.
    if (f.requester.byId) {
      where.push(
        'ar.requesting_user_id = COALESCE((SELECT id FROM users WHERE env_id = ? AND key = ?), (SELECT id FROM users WHERE env_id = ? AND id = ?))',
      );
      params.push(envId, f.requester.user, envId, f.requester.user);
    } else {
      where.push('ar.requesting_user_id IN (SELECT id FROM users WHERE env_id = ? AND key = ?)');
      params.push(envId, f.requester.user);
    }
  }
  const clause = where.join(' AND ');
  const total = await countOf(q, `SELECT COUNT(*) AS n FROM access_requests ar WHERE ${clause}`, params);
  const ids = await q.all<{ id: string }>(
    `SELECT ar.id FROM access_requests ar WHERE ${clause} ORDER BY ar.created_at DESC, ar.id DESC LIMIT ? OFFSET ?`,
    [...params, paging.perPage, paging.offset],
  );
  const rows =
    ids.length === 0
      ? []
      : await q.all<AccessRequestRow>(
          `SELECT ${REQUEST_SELECT} FROM ${REQUEST_FROM} WHERE ar.id IN (${ids.map(() => '?').join(', ')}) ORDER BY ar.created_at DESC, ar.id DESC`,
          [actorId ?? '', ...ids.map((r) => r.id)],
        );
  return { rows, total };
}
