import type { ApiClient } from '../api/index.js';
import { ASSIGNMENT_ITEM } from '../api/shapes.js';
import { ApiError, ConfigError } from '../errors.js';
import type { AccessRequest } from './request.js';
import type { ReviewSource } from './source.js';

/** The role assignment an approved request made, as `DELETE /v2/facts/{p}/{e}/role_assignments` takes it (`RoleAssignmentRemove`). */
export interface RequestGrantBody {
  user: string;
  role: string;
  tenant: string;
  /** `type:key`; absent when the request was tenant-wide. */
  resource_instance?: string;
}

export interface Revoked {
  request: AccessRequest;
  config: string;
  grant: RequestGrantBody;
}

/** The assignment approving `r` made: the (possibly overridden) role, to the requester, on its instance or tenant-wide. Pure. */
export function grantOf(r: AccessRequest): RequestGrantBody {
  const on = r.resource && r.instance ? `${r.resource}:${r.instance}` : undefined;
  return { user: r.requester, role: r.role, tenant: r.tenant, ...(on ? { resource_instance: on } : {}) };
}

/** "mindy's maintainer on repo:api" or "mindy's admin in acme (tenant-wide)". */
export function describeGrant(g: RequestGrantBody): string {
  return `${g.user}'s ${g.role} ${g.resource_instance ? `on ${g.resource_instance} (tenant ${g.tenant})` : `in ${g.tenant} (tenant-wide)`}`;
}

/**
 * `roster requests revoke`: removes the role assignment an approved request made. The service has no
 * operation for it on the request (an approved request stays approved), so it is the public
 * role-assignment removal (`DELETE .../role_assignments`), after reading that the assignment is there
 * (`GET .../role_assignments?user=&role=&tenant=`): a request that is not approved, or whose grant is
 * gone already (revoked, expired, removed by an apply), is the user's to know about, not a silent no-op.
 */
export async function revokeRequestGrant(
  client: ApiClient,
  source: ReviewSource,
  id: string,
  config: string,
): Promise<Revoked> {
  const request = await source.get(id);
  if (request.status !== 'approved') {
    const next =
      request.status === 'pending'
        ? `; deny it (roster requests deny ${id.slice(0, 8)}) or let the requester cancel it`
        : '';
    throw new ConfigError(
      `access request ${request.id} is ${request.status}, not approved: it granted nothing, so there is nothing to revoke${next}`,
    );
  }
  const grant = grantOf(request);
  const gone = () =>
    new ConfigError(
      `the grant of access request ${request.id} is already gone: ${describeGrant(grant)} is not a role assignment any more (revoked, expired or removed by an apply); nothing was changed`,
    );
  const rows = await client.listAll<Record<string, unknown>>(`${client.paths.facts}/role_assignments`, {
    perPage: 100,
    query: { user: grant.user, role: grant.role, tenant: grant.tenant },
    item: ASSIGNMENT_ITEM,
  });
  const at = (a: Record<string, unknown>) =>
    typeof a.resource_instance === 'string' && a.resource_instance !== '' ? a.resource_instance : undefined;
  if (!rows.some((a) => at(a) === grant.resource_instance)) throw gone();
  try {
    await client.delete(`${client.paths.facts}/role_assignments`, { body: grant });
  } catch (err) {
    // Removed between the read and the delete.
    if (err instanceof ApiError && err.info.status === 404) throw gone();
    throw err;
  }
  return { request, config, grant };
}

/**
 * What `revoke` prints. The grant is named once, in the first line; the second says where it came from
 * (the approval), not what it was again ("approved … for approver on tenant-wide" read as if revoking
 * approved something).
 */
export function renderRevokedText(r: Revoked): string {
  const when = r.request.reviewedAt ? ` at ${r.request.reviewedAt}` : '';
  return (
    `revoked the grant of access request ${r.request.id}: ${describeGrant(r.grant)} is removed\n` +
    `  granted when ${r.request.reviewer ?? 'an API key'} approved the request${when} (configuration ${r.config})\n` +
    `  the request stays approved (the service records no revocation); a group or another role may still give ${r.grant.user} the same access\n`
  );
}
