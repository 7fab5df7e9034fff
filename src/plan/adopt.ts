/**
 * `roster requests adopt`: which held grants (request-grants.ts) can be declared as roles of their users
 * in the configuration, and which cannot (and why). Pure. Nothing is invented: a grant whose user,
 * role, tenant or instance the configuration does not declare is reported, not adopted, since
 * declaring a role of an undeclared user would mean declaring the user (and the configuration would
 * then own, and may delete, things nobody wrote down).
 */
import type { DesiredState } from '../config/desired.js';
import { targetTenant } from '../config/normalise.js';
import type { ClassifiedGrants, GrantRequest, HeldGrant } from './request-grants.js';
import { reviewerOf } from './render-held.js';

export interface SkippedGrant {
  /** The assignment identity. */
  id: string;
  request: GrantRequest;
  reason: string;
}

export interface Adoption {
  /** Sorted by identity. */
  adopt: HeldGrant[];
  skipped: SkippedGrant[];
}

export function planAdoption(desired: DesiredState, classified: ClassifiedGrants): Adoption {
  const adopt: HeldGrant[] = [];
  const skipped: SkippedGrant[] = [];
  for (const g of classified.held) {
    const reason = whyNot(desired, g);
    if (reason) skipped.push({ id: g.id, request: g.request, reason });
    else adopt.push(g);
  }
  for (const [id, { expired }] of classified.expired) {
    skipped.push({ id, request: expired.request, reason: `expired at ${expired.expiredAt} (grant_for ${expired.grantFor} of ${expired.request.config}): roster apply revokes it` });
  }
  skipped.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { adopt, skipped };
}

function whyNot(desired: DesiredState, g: HeldGrant): string | undefined {
  // A membership is declared in the group's `members`, which adopt does not edit (it writes users' roles).
  if (g.kind === 'member') return `a group membership: add "${g.user}" to the members of group "${g.on}" by hand`;
  if (!desired.sections.has('users')) return 'the configuration has no users section';
  if (!desired.users.has(g.user)) return `user "${g.user}" is not declared in the configuration`;
  if (!desired.roles.has(g.role)) return `role "${g.role}" is not declared in the configuration`;
  if (!desired.tenants.has(g.tenant)) return `tenant "${g.tenant}" is not declared in the configuration`;
  if (g.on !== undefined) {
    const tenant = targetTenant(desired, g.on);
    if (tenant === undefined) return `resource instance "${g.on}" is not declared in the configuration`;
    if (tenant !== g.tenant) return `resource instance "${g.on}" is in tenant "${tenant}" in the configuration, not "${g.tenant}"`;
  }
  return undefined;
}

/** The comment written above an adopted role: the request, its reviewer and date. */
export function adoptComment(r: GrantRequest): string {
  return `adopted from access request ${r.id}: approved ${r.approvedAt} by ${reviewerOf(r)}`;
}
