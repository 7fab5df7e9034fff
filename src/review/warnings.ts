import type { AccessRequest } from './request.js';
import { placeOf, targetOf } from './request.js';
import { holdsRequested, type RequesterFacts, type RoleInfo } from './impact.js';

/**
 * Warnings for `roster requests` (pure): duplicate pending requests, requests for a role the requester
 * holds already (directly: role assignments; a role through a group is not read), and a tenant where
 * nobody holds a reviewer role, so that its requests wait forever.
 */

/** Pending requests by one requester for one role on one target, more than once. */
export function duplicateWarnings(items: readonly AccessRequest[]): string[] {
  const groups = new Map<string, AccessRequest[]>();
  for (const r of items) {
    if (r.status !== 'pending') continue;
    const k = `${r.requester}\u0000${r.role}\u0000${targetOf(r)}`;
    (groups.get(k) ?? groups.set(k, []).get(k)!).push(r);
  }
  const out: string[] = [];
  for (const rs of groups.values()) {
    if (rs.length < 2) continue;
    const r = rs[0];
    out.push(
      `${rs.length} pending requests by ${r.requester} for ${r.role} on ${targetOf(r)} (${rs
        .slice(0, 3)
        .map((x) => x.id.slice(0, 8))
        .join(', ')}${rs.length > 3 ? ', …' : ''}): duplicates; deny or cancel all but one`,
    );
  }
  return out;
}

/**
 * Requests for a role the requester holds already where it is asked for: on its instance (directly or
 * tenant-wide) or tenant-wide, the role resolved as the service resolves it (impact.ts, the shared graph).
 */
export function heldWarnings(
  items: readonly AccessRequest[],
  people: ReadonlyMap<string, RequesterFacts>,
  roles: readonly RoleInfo[],
): string[] {
  const out: string[] = [];
  for (const r of items) {
    const facts = people.get(r.requester);
    if (r.status === 'pending' && facts && holdsRequested(r, roles, facts))
      out.push(
        `${r.requester} already holds ${r.role} ${r.instance ? `on ${targetOf(r)}` : `in ${r.tenant}`} (request ${r.id.slice(0, 8)}): approving changes nothing`,
      );
  }
  return out;
}

export function unreviewableWarning(
  tenant: string,
  config: string,
  reviewerRoles: readonly string[],
  reviewers: number,
): string | undefined {
  if (reviewers > 0) return undefined;
  const roles =
    reviewerRoles.length > 0
      ? `a reviewer role of configuration ${config} (${reviewerRoles.join(', ')})`
      : `a reviewer role: configuration ${config} names none (roles_to_levels LEVEL_1, LEVEL_2)`;
  return `nobody can review requests in tenant ${tenant}: no user holds ${roles} tenant-wide there; they stay pending`;
}

/**
 * Pending requests whose requester is the only user holding a reviewer role tenant-wide in the tenant:
 * a requester may not review their own request, so nobody can decide it. `holders` are the holders read
 * (at most two are looked for: source.ts `readReviewers`).
 */
export function onlyReviewerWarnings(
  items: readonly AccessRequest[],
  config: string,
  reviewerRoles: readonly string[],
  holders: readonly string[],
): string[] {
  if (holders.length !== 1) return [];
  const [only] = holders;
  return items
    .filter((r) => r.status === 'pending' && r.requester === only)
    .map(
      (r) =>
        `nobody can decide request ${r.id.slice(0, 8)} (${r.role} ${placeOf(r)}): ${only} asked for it and is the only user holding a reviewer role of configuration ${config} (${reviewerRoles.join(', ')}) tenant-wide in ${r.tenant}, and nobody may review their own request; it stays pending until someone else reviews there`,
    );
}
