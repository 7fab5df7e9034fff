/**
 * `roster requests adopt`: which held grants (request-grants.ts) can be declared as roles of their users
 * in the configuration, and which cannot (and why). Pure. Nothing is invented: a grant whose user,
 * role, tenant or instance the configuration does not declare is reported, not adopted, since
 * declaring a role of an undeclared user would mean declaring the user (and the configuration would
 * then own, and may delete, things nobody wrote down).
 */
import type { DesiredState } from '../types/desired.js';
import { targetTenant } from '../types/desired.js';
import type { ClassifiedGrants, HeldGrant } from './request-grants.js';
import type { GrantRequest } from '../types/live.js';
import { reviewerOf } from './render-held.js';
import { resolveRoleKey } from '../access/facts.js';
import { typeOf } from '../types/refs.js';

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
  /** Held grants the selection (`requests`, `configs`) left out: counted, not listed. */
  unselected: number;
}

export interface AdoptionOptions {
  /** Only grants of these requests: ids, or unique prefixes of them. */
  requests?: readonly string[];
  /** Only grants approved through these element configurations (`access_requests` keys). */
  configs?: readonly string[];
  /** Adopt grants that have a lifetime (`grant_for`) too, making them permanent. */
  withLifetime?: boolean;
}

/**
 * Which held grants to declare. A grant with a lifetime is left out unless `withLifetime`: adopting it
 * would turn access given for hours into access for good, the opposite of what its configuration says.
 */
export function planAdoption(desired: DesiredState, classified: ClassifiedGrants, o: AdoptionOptions = {}): Adoption {
  const adopt: HeldGrant[] = [];
  const skipped: SkippedGrant[] = [];
  const selected = selection(o);
  let unselected = 0;
  for (const g of classified.held) {
    if (!selected(g.request)) {
      unselected++;
      continue;
    }
    // A lifetime comes first: it is why the grant is not in the configuration, whatever else it lacks.
    const reasons = [
      g.expiresAt && !o.withLifetime ? lifetimeReason(desired, g) : undefined,
      whyNot(desired, g),
    ].filter((r) => r !== undefined);
    const reason = reasons.length > 0 ? reasons.join('; besides, ') : undefined;
    if (reason) skipped.push({ id: g.id, request: g.request, reason });
    else adopt.push(g);
  }
  for (const [id, { expired }] of classified.expired) {
    if (!selected(expired.request)) continue;
    skipped.push({
      id,
      request: expired.request,
      reason: `expired at ${expired.expiredAt} (grant_for ${expired.grantFor} of ${expired.request.config}): roster requests expire (or roster apply) revokes it`,
    });
  }
  skipped.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { adopt, skipped, unselected };
}

function lifetimeReason(desired: DesiredState, g: HeldGrant): string {
  const grantFor = desired.accessRequests.get(g.request.config)?.grantFor;
  return `has a lifetime: expires at ${g.expiresAt} (grant_for ${grantFor} of ${g.request.config}); adopting it would make it permanent (--with-lifetime adopts it anyway)`;
}

/** The `--request` and `--config` selection as a predicate; a request matches an id or a prefix of it. */
function selection(o: AdoptionOptions): (r: GrantRequest) => boolean {
  const requests = o.requests?.map((x) => x.toLowerCase()) ?? [];
  const configs = o.configs ?? [];
  return (r) =>
    (requests.length === 0 || requests.some((x) => r.id.toLowerCase().startsWith(x))) &&
    (configs.length === 0 || configs.includes(r.config));
}

function whyNot(desired: DesiredState, g: HeldGrant): string | undefined {
  // A membership is declared in the group's `members`, which adopt does not edit (it writes users' roles).
  if (g.kind === 'member') return `a group membership: add "${g.user}" to the members of group "${g.on}" by hand`;
  if (!desired.sections.has('users')) return 'the configuration has no users section';
  if (!desired.users.has(g.user)) return `user "${g.user}" is not declared in the configuration`;
  const role = roleNamed(desired, g);
  if (role === undefined) {
    return `role "${g.role}" is not declared in the configuration${g.on === undefined ? '' : ` (neither as a role of ${typeOf(g.on)} nor as a top-level role)`}`;
  }
  if (!desired.tenants.has(g.tenant)) return `tenant "${g.tenant}" is not declared in the configuration`;
  if (g.on !== undefined) {
    const tenant = targetTenant(desired, g.on);
    if (tenant === undefined) return `resource instance "${g.on}" is not declared in the configuration`;
    if (tenant !== g.tenant)
      return `resource instance "${g.on}" is in tenant "${tenant}" in the configuration, not "${g.tenant}"`;
  }
  return undefined;
}

/**
 * The role a grant names, as the configuration declares it: on an instance, the resource role of its type
 * when the type declares one (`document#editor`, written `{ role: editor, on: document:readme }`), else
 * the top-level role (src/access/facts.ts, `resolveRoleKey`: the service's rule); tenant-wide, a
 * top-level role. Undefined when the configuration declares neither.
 */
function roleNamed(desired: DesiredState, g: HeldGrant): string | undefined {
  const isResourceRole = (id: string) => {
    const [type, key] = [id.slice(0, id.indexOf('#')), id.slice(id.indexOf('#') + 1)];
    return desired.resources.get(type)?.roles?.some((r) => r.key === key) === true;
  };
  const id = g.on === undefined ? g.role : resolveRoleKey(g.role, g.on, isResourceRole);
  return id.includes('#') || desired.roles.has(id) ? id : undefined;
}

/** The comment written above an adopted role: the request, its reviewer and date. */
export function adoptComment(r: GrantRequest): string {
  return `adopted from access request ${r.id}: approved ${r.approvedAt} by ${reviewerOf(r)}`;
}
