/**
 * Reading one request and deciding it, shared by the two access-request route families: the
 * specification's `/v2/facts/.../access_requests/{config}/user/{user}/tenant/{tenant}` (a user acts) and
 * the public `/v2/elements/.../config/{config}/access_requests` (the API key acts as the environment's
 * administrator). The rules are those of domain/access-requests.ts; here they meet the store.
 */
import { findRoleNamed } from './role-scope.js';
import type { Queryable } from '../store/db.js';
import { httpError, notFound } from '../errors.js';
import { findKeyed } from './common.js';
import { assignRole } from './assignments.js';
import { getRequest, type AccessRequestRow } from './access-requests.js';
import { checkTransition, NEXT_STATUS, type Actor, type Transition } from '../domain/access-requests.js';

/** Who acts: a user (by id), or the environment's administrator (an API key naming no user). */
export type RequestActor = { kind: 'user'; id: string } | { kind: 'administrator' };

/**
 * The id the read queries compute `is_moderator` for. No user has the empty id, so the administrator is
 * nobody's moderator there: its rights come from `isAdministrator`, not from that column.
 */
export const actorIdOf = (actor: RequestActor): string => (actor.kind === 'user' ? actor.id : '');

export interface RequestBody {
  reviewer_comment?: string | null;
  role?: string;
  reason?: string | null;
}

/**
 * The request `id` of configuration `configId` as `actor` sees it. A request that does not exist, that
 * the actor may not see, or that belongs to another configuration answers the same 404, so a request's
 * existence does not leak.
 */
export async function loadVisibleRequest(
  q: Queryable,
  envId: string,
  configId: string,
  actor: RequestActor,
  id: string,
): Promise<{ row: AccessRequestRow; actor: Actor }> {
  const row = await getRequest(q, envId, actorIdOf(actor), id);
  if (!row || row.elements_config_id !== configId) throw notFound('access request', id);
  const who: Actor =
    actor.kind === 'administrator'
      ? { userId: null, isRequester: false, isModerator: false, isAdministrator: true }
      : { userId: actor.id, isRequester: row.requesting_user_id === actor.id, isModerator: row.is_moderator === 1 };
  if (!(who.isAdministrator || who.isRequester || who.isModerator)) throw notFound('access request', id);
  return { row, actor: who };
}

/**
 * One transition, inside the caller's transaction. The update is conditional on the request still being
 * pending, so of any number of concurrent decisions exactly one succeeds (and at most one role is
 * granted); the others answer 409 with the winning status. An approval grants the role (the reviewer's
 * override, else the requested one) to the requester, on the instance or tenant-wide. The administrator
 * decides without being a user: `reviewer_user_id` stays null.
 */
export async function decideAccessRequest(
  tx: Queryable,
  input: {
    envId: string;
    configId: string;
    actor: RequestActor;
    id: string;
    kind: Transition;
    body: RequestBody;
    at: string;
  },
): Promise<AccessRequestRow> {
  const { envId, actor, kind, body, at } = input;
  const { row, actor: who } = await loadVisibleRequest(tx, envId, input.configId, actor, input.id);
  const verdict = checkTransition(row.status, kind, who);
  if (!verdict.ok)
    throw httpError(verdict.code, verdict.message, verdict.code === 'CONFLICT' ? { status: row.status } : {});
  // A reviewer override may name the role by key or id; the request records its key.
  const role = body.role !== undefined ? await reviewerRole(tx, envId, row, body.role) : row.role_key;
  const comment = body.reviewer_comment !== undefined ? body.reviewer_comment : row.reviewer_comment;
  let changes: number;
  if (kind === 'update') {
    // Nothing sent, nothing changed: `updated_at` moves only on a real change (the pending check above still applies).
    if (body.reviewer_comment === undefined && body.role === undefined) return row;
    ({ changes } = await tx.run(
      `UPDATE access_requests SET reviewer_comment = ?, role_key = ?, updated_at = ? WHERE id = ? AND status IS NULL`,
      [comment, role, at, row.id],
    ));
  } else if (kind === 'cancel') {
    ({ changes } = await tx.run(
      `UPDATE access_requests SET status = 'cancel', cancel_reason = ?, updated_at = ? WHERE id = ? AND status IS NULL`,
      [body.reason ?? null, at, row.id],
    ));
  } else {
    ({ changes } = await tx.run(
      `UPDATE access_requests SET status = ?, reviewer_user_id = ?, reviewed_at = ?, reviewer_comment = ?, role_key = ?, updated_at = ? WHERE id = ? AND status IS NULL`,
      [NEXT_STATUS[kind], who.userId, at, comment, role, at, row.id],
    ));
  }
  // The update is conditional on `status IS NULL`: a concurrent decision that won first leaves 0 rows.
  if (changes !== 1) {
    const now = await getRequest(tx, envId, actorIdOf(actor), row.id);
    throw httpError('CONFLICT', `access request is no longer pending (status: ${now?.status})`, {
      status: now?.status ?? null,
    });
  }
  if (kind === 'approve') {
    const instance = row.instance_key !== null ? `${row.resource_key}:${row.instance_key}` : undefined;
    await assignRole(
      tx,
      envId,
      { user: row.requester_key, role, tenant: row.tenant_key, resource_instance: instance },
      at,
      { ignoreDuplicate: true },
    );
  }
  return (await getRequest(tx, envId, actorIdOf(actor), row.id))!;
}

/**
 * The role a reviewer names instead of the requested one, by key or id: on an instance, its type's
 * resource role of that key, else the top-level one (repo/role-scope.ts); the request records its key.
 */
async function reviewerRole(tx: Queryable, envId: string, row: AccessRequestRow, given: string): Promise<string> {
  const onInstance = row.instance_key !== null && row.resource_key !== null;
  const resource = onInstance
    ? await findKeyed<{ id: string; key: string }>(tx, 'resources', envId, row.resource_key!, 'resource')
    : undefined;
  return (await findRoleNamed(tx, envId, resource, given)).key;
}
