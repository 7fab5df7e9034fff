/**
 * Reading both dialects: the specification's (our server) and the public service's. See "Client
 * tolerance" in api-notes.md. Everything here is pure.
 */

export type RequestStatus = 'pending' | 'approved' | 'denied' | 'canceled';

const STATUSES: Record<string, RequestStatus> = {
  pending: 'pending',
  approved: 'approved',
  deny: 'denied',
  denied: 'denied',
  cancel: 'canceled',
  canceled: 'canceled',
  cancelled: 'canceled',
};

/**
 * An access request's status in one spelling. The specification says `null`, `deny`, `cancel`; the
 * public API `pending`, `denied`, `canceled`. A missing status is pending too. Unknown values give
 * `undefined`, so the caller decides how loud to be.
 */
export function normalizeStatus(status: string | null | undefined): RequestStatus | undefined {
  if (status === null || status === undefined) return 'pending';
  return STATUSES[status.trim().toLowerCase()];
}

export type IdField = 'organization_id' | 'org_id' | 'environment_id' | 'env_id' | 'project_id' | 'proj_id';

const ALIASES: Record<IdField, IdField> = {
  organization_id: 'org_id',
  org_id: 'organization_id',
  environment_id: 'env_id',
  env_id: 'environment_id',
  project_id: 'proj_id',
  proj_id: 'project_id',
};

/** An id field under either spelling (`org_id`/`organization_id`, `env_id`/`environment_id`, `project_id`). */
export function pickId(obj: unknown, field: IdField): string | undefined {
  if (typeof obj !== 'object' || obj === null) return undefined;
  const record = obj as Record<string, unknown>;
  for (const name of [field, ALIASES[field]]) {
    const value = record[name];
    if (typeof value === 'string' && value !== '') return value;
    if (typeof value === 'number') return String(value);
  }
  return undefined;
}

/** A create answered: the public API says 200, others 201. */
export function isCreated(status: number): boolean {
  return status === 200 || status === 201;
}
