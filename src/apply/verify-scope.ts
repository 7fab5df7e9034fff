import type { Plan } from '../plan/types.js';
import { fieldsOf } from '../plan/change.js';
import type { LiveState } from '../types/live.js';
import { USERS_PER_READ, type ReadModes, type ReadScope } from '../api/read-scoped.js';

/**
 * What an apply reads again to verify its writes (verify.ts): the objects its changes wrote, and the
 * parts of them a concurrent writer could have changed. Pure: derived from the plan alone.
 */
export type VerifyScope = ReadScope;

/** The facets the plan's changes touch. */
export function scopeOf(plan: Pick<Plan, 'changes'>): VerifyScope {
  const scope: VerifyScope = {
    schema: false,
    configs: false,
    abac: false,
    tenants: new Set(),
    users: new Set(),
    assignmentsOf: new Set(),
    groups: new Set(),
    instances: new Set(),
    tuplesOf: new Set(),
  };
  for (const c of plan.changes) {
    const { kind, fields: f } = fieldsOf(c);
    // What the service deletes with a resource, a role or an action: its sets and the rules on them.
    if (c.action !== 'create' && c.cascade?.some((id) => id.startsWith('set_rule:') || id.startsWith('condition_set:')))
      scope.abac = true;
    switch (kind) {
      case 'user_attribute':
      case 'tenant_attribute':
      case 'condition_set':
      case 'set_rule':
        scope.abac = true;
        break;
      case 'resource_attribute':
        scope.schema = true;
        break;
      case 'resource':
      case 'relation':
      case 'resource_role':
      case 'derivation':
      case 'role':
        scope.schema = true;
        break;
      case 'access_requests':
        scope.configs = true;
        break;
      case 'tenant':
        scope.tenants.add(f.key);
        break;
      // A user's tenants are those they were added to and those their roles and memberships are in:
      // their record is read again with their assignments (40 users a request).
      case 'user':
        scope.users.add(f.key);
        scope.assignmentsOf.add(f.key);
        break;
      case 'tenant_user':
        scope.users.add(f.user);
        scope.assignmentsOf.add(f.user);
        break;
      case 'assignment':
      case 'member':
        scope.assignmentsOf.add(f.user);
        break;
      case 'group':
        scope.groups.add(`${f.type}:${f.key}`);
        break;
      case 'grant':
      case 'link':
        scope.groups.add(f.group);
        break;
      case 'instance':
        scope.instances.add(`${f.resource}:${f.key}`);
        break;
      case 'tuple':
        scope.tuplesOf.add(f.object);
        break;
    }
  }
  return scope;
}

/** Page sizes of the lists a verification may read whole: the public maxima. */
const PAGE = 100;
const ASSIGNMENT_PAGE = 1000;

/** How the verification reads: per facet (`scoped`), or the whole environment when that costs less (`full`). */
export type VerifyReads = { full: true; requests: number } | { full: false; modes: ReadModes; requests: number };

/**
 * Chooses, per facet, the cheaper of the targeted reads and the facet's whole list, from the sizes of
 * the environment (the larger of the desired and the live state's, facet by facet). Targeted reads cost
 * one request per object (three per group: the group, its roles, its links; one per object whose tuples
 * are read), and one per USERS_PER_READ users for role assignments; a list costs its pages. When the
 * scoped reads would cost more than reading the whole environment (an apply from empty), the whole
 * environment is read instead. Request counts are estimates: a list longer than its page counts more.
 */
export function chooseReads(scope: VerifyScope, sizes: StateSizes): VerifyReads {
  const pages = (n: number, per = PAGE) => Math.max(1, Math.ceil(n / per));
  let requests = 0;
  const pick = <E extends string>(targeted: number, whole: number, each: E): E | 'list' => {
    if (targeted === 0) return each;
    requests += Math.min(targeted, whole);
    return whole < targeted ? 'list' : each;
  };
  if (scope.schema) requests += pages(sizes.resources) + pages(sizes.roles);
  if (scope.configs) requests += 1;
  if (scope.abac)
    requests +=
      pages(sizes.userAttributes) + pages(sizes.tenantAttributes) + pages(sizes.conditionSets) + pages(sizes.setRules);
  const modes: ReadModes = {
    tenants: pick(scope.tenants.size, pages(sizes.tenants), 'each'),
    users: pick(scope.users.size, pages(sizes.users), 'each'),
    assignments: pick(
      Math.ceil(scope.assignmentsOf.size / USERS_PER_READ),
      pages(sizes.assignments, ASSIGNMENT_PAGE),
      'filtered',
    ),
    instances: pick(scope.instances.size, pages(sizes.instances), 'each'),
  };
  requests += scope.groups.size * 3 + scope.tuplesOf.size;
  const whole = fullReadRequests(sizes);
  return requests >= whole ? { full: true, requests: whole } : { full: false, modes, requests };
}

/** The requests of a whole read of the environment (`readLiveState`), estimated from its sizes. */
export function fullReadRequests(sizes: StateSizes): number {
  const pages = (n: number, per = PAGE) => Math.max(1, Math.ceil(n / per));
  return (
    pages(sizes.resources) +
    pages(sizes.roles) +
    pages(sizes.tenants) +
    pages(sizes.users) +
    pages(sizes.assignments, ASSIGNMENT_PAGE) +
    pages(sizes.instances) +
    pages(sizes.groups) +
    pages(sizes.links) +
    pages(sizes.tuples) +
    1 +
    pages(sizes.userAttributes) +
    pages(sizes.tenantAttributes) +
    pages(sizes.conditionSets) +
    pages(sizes.setRules)
  );
}

export interface StateSizes {
  resources: number;
  roles: number;
  tenants: number;
  users: number;
  /** Role assignments, group memberships included. */
  assignments: number;
  groups: number;
  links: number;
  instances: number;
  tuples: number;
  userAttributes: number;
  tenantAttributes: number;
  conditionSets: number;
  setRules: number;
}

/** The sizes of a state (desired or live), for `chooseReads`. */
export function sizesOf(state: LiveState): StateSizes {
  let assignments = 0;
  let links = 0;
  let tuples = 0;
  for (const u of state.users.values()) assignments += u.roles.length;
  for (const g of state.groups.values()) {
    assignments += g.members.length;
    links += g.memberOf.length;
  }
  for (const i of state.resourceInstances.values()) tuples += i.relations?.length ?? 0;
  return {
    resources: state.resources.size,
    roles: state.roles.size,
    tenants: state.tenants.size,
    users: state.users.size,
    assignments,
    groups: state.groups.size,
    links,
    instances: state.resourceInstances.size,
    tuples,
    userAttributes: state.userAttributes.size,
    tenantAttributes: state.tenantAttributes.size,
    conditionSets: state.conditionSets.size,
    setRules: state.setRules.size,
  };
}

/** The larger of two states' sizes, facet by facet: what the environment holds after the apply is at most that. */
export function largerSizes(a: StateSizes, b: StateSizes): StateSizes {
  return Object.fromEntries(
    Object.keys(a).map((k) => [k, Math.max(a[k as keyof StateSizes], b[k as keyof StateSizes])]),
  ) as unknown as StateSizes;
}

/** The reads an apply of `plan` sends to verify its writes by default (`--verify=changes`). */
export function estimateVerify(plan: Pick<Plan, 'changes'>, desired: LiveState, live: LiveState): number {
  return chooseReads(scopeOf(plan), largerSizes(sizesOf(desired), sizesOf(live))).requests;
}
