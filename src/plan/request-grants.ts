/**
 * Grants of approved access requests in the plan (docs/plan.md, "Grants of approved access requests").
 * A role assignment that an approved request made (a group membership, when the role was `member` on a
 * group), and that the configuration does not declare, is *held*: no plan removes it, nor the user,
 * tenant, role or instance it hangs on, with or without --prune; the plan lists it instead. Once older
 * than its configuration's `grant_for` it has *expired*: the plan deletes it, marked as such. A declared
 * grant is the configuration's, whatever requests say. Pure: the clock is an input.
 */
import type { DesiredState } from '../types/desired.js';
import { parseDuration } from '../types/duration.js';
import { MEMBER_ROLE } from '../types/names.js';
import { typeOf } from '../types/refs.js';
import type { GrantRequest, LiveState, RequestGrant } from '../types/live.js';
import { ids } from './identity.js';
import type { Change, ChangeFields, DeleteChange, ExpiredGrant } from './change.js';

/** A live grant kept because of an approved request. */
export interface HeldGrant {
  /** The change identity that would delete it: `assignment:mindy:maintainer@repo:web-app`, or `member:mindy@team:eng`. */
  id: string;
  /** A user's role, or a group membership (the `member` role on the group, which the service makes a membership). */
  kind: 'assignment' | 'member';
  user: string;
  role: string;
  tenant: string;
  on?: string;
  /** The newest approval that keeps it. */
  request: GrantRequest;
  /** When it expires (its configuration's `grant_for` after that approval); absent: never. */
  expiresAt?: string;
}

export interface PlanHeld {
  /** Sorted by identity. */
  grants: HeldGrant[];
  /** Deletions this plan would otherwise make, withheld because they would remove held grants (`because`). */
  kept: { id: string; because: string[] }[];
}

export interface ClassifiedGrants {
  held: HeldGrant[];
  /** By change identity: the deletion to plan (kind and fields) and why. */
  expired: Map<string, { kind: HeldGrant['kind']; before: ChangeFields[HeldGrant['kind']]; expired: ExpiredGrant }>;
}

const roleKey = (user: string, r: { role: string; tenant: string; on?: string }) =>
  ids.assignment(user, r.role, r.on ?? r.tenant);

/** A live grant a request could have made, with the identity of the change that would delete it. */
interface LiveGrant extends Omit<HeldGrant, 'request' | 'expiresAt'> {
  declared: boolean;
  before: ChangeFields[HeldGrant['kind']];
}

/**
 * Users' roles, and group memberships: approving a request for the `member` role on a group makes the
 * requester a member, which the live state keeps on the group (read-live.ts), not among the user's roles.
 */
function liveGrants(desired: DesiredState, live: LiveState): LiveGrant[] {
  const declaredRoles = new Set<string>();
  if (desired.sections.has('users'))
    for (const u of desired.users.values()) for (const r of u.roles) declaredRoles.add(roleKey(u.key, r));
  const out: LiveGrant[] = [];
  for (const user of live.users.values()) {
    for (const r of user.roles) {
      const id = roleKey(user.key, r);
      const grant = { user: user.key, role: r.role, tenant: r.tenant, ...(r.on ? { on: r.on } : {}) };
      out.push({ id, kind: 'assignment', ...grant, declared: declaredRoles.has(id), before: grant });
    }
  }
  for (const [ref, g] of live.groups) {
    const declaredMembers = desired.sections.has('groups') ? (desired.groups.get(ref)?.members ?? []) : [];
    for (const member of g.members) {
      out.push({
        id: ids.member(member, ref),
        kind: 'member',
        user: member,
        role: MEMBER_ROLE,
        tenant: g.tenant,
        on: ref,
        declared: declaredMembers.includes(member),
        before: { user: member, group: ref, tenant: g.tenant },
      });
    }
  }
  return out;
}

/**
 * The live role assignments that approved requests made and the configuration does not declare,
 * held or expired at `now`. A grant matches a request by user, role, tenant and instance; the role is
 * the one the request carries after approval (a reviewer's choice included). Several approvals of one
 * grant: it is held while any of them has not expired, and shows the newest.
 */
export function classifyRequestGrants(
  desired: DesiredState,
  live: LiveState,
  grants: readonly RequestGrant[],
  now: Date,
): ClassifiedGrants {
  const approvals = new Map<string, RequestGrant[]>();
  for (const g of grants) {
    const key = roleKey(g.user, g);
    (approvals.get(key) ?? approvals.set(key, []).get(key)!).push(g);
  }
  const out: ClassifiedGrants = { held: [], expired: new Map() };
  if (approvals.size === 0) return out;

  for (const { declared, before, ...grant } of liveGrants(desired, live)) {
    const matching = approvals.get(roleKey(grant.user, grant));
    if (!matching || declared) continue;
    const lives = matching.map((g) => ({ g, ...lifetime(desired, g) }));
    const newest = (xs: typeof lives) => xs.reduce((a, b) => (b.g.request.approvedAt > a.g.request.approvedAt ? b : a));
    const alive = lives.filter((l) => l.expiresAt === undefined || Date.parse(l.expiresAt) > now.getTime());
    if (alive.length > 0) {
      const lasts = alive.some((l) => l.expiresAt === undefined)
        ? undefined
        : alive
            .map((l) => l.expiresAt!)
            .sort()
            .at(-1);
      out.held.push({ ...grant, request: newest(alive).g.request, ...(lasts ? { expiresAt: lasts } : {}) });
    } else {
      const last = newest(lives);
      out.expired.set(grant.id, {
        kind: grant.kind,
        before,
        expired: { request: last.g.request, grantFor: last.grantFor!, expiredAt: last.expiresAt! },
      });
    }
  }
  out.held.sort((a, b) => cmp(a.id, b.id));
  return out;
}

/** The grant's expiry under its configuration's `grant_for` (as the configuration declares it now). */
function lifetime(desired: DesiredState, g: RequestGrant): { grantFor?: string; expiresAt?: string } {
  const grantFor = desired.accessRequests.get(g.request.config)?.grantFor;
  if (grantFor === undefined) return {};
  const parsed = parseDuration(grantFor);
  // The rule grantForDuration refused a bad duration before any plan; a grant is never expired by one.
  if (!parsed.ok) return {};
  return { grantFor, expiresAt: new Date(Date.parse(g.request.approvedAt) + parsed.ms).toISOString() };
}

/**
 * The plan's changes with held grants left alone: deletions of a held grant, and of what it hangs on
 * (its user, the user's place in the tenant, the role, the tenant, the instance or group and its
 * resource: the service's cascades would remove the grant with them), are withheld and listed as
 * `kept`. Deletions of expired grants carry why (`expired`). Order is unchanged.
 */
export function holdRequestGrants(
  changes: Change[],
  classified: ClassifiedGrants,
): { changes: Change[]; held: PlanHeld | undefined } {
  const protects = new Map<string, string[]>();
  for (const g of classified.held) {
    const on = g.on ? [ids.instance(g.on), ids.group(g.on), ids.resource(typeOf(g.on))] : [];
    for (const id of [
      g.id,
      ids.user(g.user),
      ids.tenantUser(g.user, g.tenant),
      ids.role(g.role),
      ids.tenant(g.tenant),
      ...on,
    ]) {
      (protects.get(id) ?? protects.set(id, []).get(id)!).push(g.id);
    }
  }
  const heldIds = new Set(classified.held.map((g) => g.id));
  const kept: PlanHeld['kept'] = [];
  const out: Change[] = [];
  for (const c of changes) {
    if (c.action !== 'delete') out.push(c);
    else if (protects.has(c.id)) {
      if (!heldIds.has(c.id)) kept.push({ id: c.id, because: [...new Set(protects.get(c.id))].sort(cmp) });
    } else {
      const expired = classified.expired.get(c.id);
      out.push(expired ? ({ ...c, expired: expired.expired } satisfies DeleteChange) : c);
    }
  }
  const held =
    classified.held.length > 0 || kept.length > 0
      ? { grants: classified.held, kept: kept.sort((a, b) => cmp(a.id, b.id)) }
      : undefined;
  return { changes: out, held };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
