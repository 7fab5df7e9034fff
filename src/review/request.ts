import { normalizeStatus, pickId, type RequestStatus } from '../api/index.js';

/**
 * An access request as the review queue sees it: one spelling of every field, whichever dialect the
 * service speaks (api-notes.md, "Client tolerance"). `raw` keeps the read model as received, so the
 * detail pane can show every field and `--format json` can print it unchanged.
 */
export interface AccessRequest {
  id: string;
  requester: string;
  tenant: string;
  role: string;
  resource: string | null;
  /** The instance key without its type. */
  instance: string | null;
  reason: string | null;
  status: RequestStatus;
  createdAt: string;
  updatedAt: string;
  reviewer: string | null;
  reviewedAt: string | null;
  reviewerComment: string | null;
  /** The keys to approve, deny or update are offered: not on one's own request (the public read model does not say who moderates; the service refuses a non-moderator). */
  canReview: boolean;
  /** The acting user asked for it. */
  own: boolean;
  /** The element configuration it was read through (set by the source; absent in pure tests). */
  config?: string;
  raw: Record<string, unknown>;
}

export type { RequestStatus };

const str = (v: unknown): string | null =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null;

/**
 * Pure: a read model from the wire → `AccessRequest`, for the acting user `actor` (a key). The public read
 * model names users by id (`requesting_user_id`, `reviewer_user_id`); `keyOf` turns an id into the user's
 * key where the source has looked it up, and an unknown id is shown as it is.
 */
export function readAccessRequest(
  raw: unknown,
  actor: string,
  keyOf: (id: string) => string | undefined = () => undefined,
): AccessRequest {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const d = (
    typeof r.access_request_details === 'object' && r.access_request_details !== null ? r.access_request_details : {}
  ) as Record<string, unknown>;
  const user = (v: unknown) => {
    const id = str(v);
    return id === null ? null : (keyOf(id) ?? id);
  };
  const requester = user(r.requesting_user_id) ?? '?';
  let resource = str(d.resource);
  let instance = str(d.resource_instance);
  // The public API may send the instance as `type:key`.
  if (instance && instance.includes(':')) {
    const i = instance.indexOf(':');
    resource ??= instance.slice(0, i);
    instance = instance.slice(i + 1);
  }
  const status = normalizeStatus(r.status as string | null | undefined) ?? 'pending';
  const own = requester === actor;
  return {
    id: str(r.id) ?? '?',
    requester,
    tenant: str(d.tenant) ?? '',
    role: str(d.role) ?? '?',
    resource,
    instance,
    reason: str(r.reason),
    status,
    createdAt: str(r.created_at) ?? '',
    updatedAt: str(r.updated_at) ?? str(r.created_at) ?? '',
    reviewer: user(r.reviewer_user_id),
    reviewedAt: str(r.reviewed_at),
    reviewerComment: str(r.reviewer_comment),
    // The public read model does not say who may review: the service decides when asked, so the keys are
    // offered on every request but one's own.
    canReview: !own,
    own,
    raw: r,
  };
}

/** `document:readme`, `document` (any instance) or `tenant-wide`. */
export function targetOf(r: Pick<AccessRequest, 'resource' | 'instance'>): string {
  if (r.resource && r.instance) return `${r.resource}:${r.instance}`;
  if (r.resource) return r.resource;
  return 'tenant-wide';
}

/**
 * Where a request asks for its role, as a sentence reads it: `on document:readme`, `on document`, or
 * `in acme (tenant-wide)` (never `on tenant-wide`).
 */
export function placeOf(r: Pick<AccessRequest, 'resource' | 'instance' | 'tenant'>): string {
  return r.resource ? `on ${targetOf(r)}` : `in ${r.tenant} (tenant-wide)`;
}

/** The organisation/environment ids under either spelling, for the detail pane. */
export function idsOf(r: AccessRequest): { org?: string; project?: string; env?: string } {
  return {
    org: pickId(r.raw, 'organization_id'),
    project: pickId(r.raw, 'project_id'),
    env: pickId(r.raw, 'environment_id'),
  };
}

/** Newest first, then id descending: the server's order, so merged lists keep it. */
export function compareNewestFirst(a: AccessRequest, b: AccessRequest): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id === b.id ? 0 : a.id < b.id ? 1 : -1;
}

export const STATUS_LABEL: Record<RequestStatus, string> = {
  pending: 'pending',
  approved: 'approved',
  denied: 'denied',
  canceled: 'canceled',
};
