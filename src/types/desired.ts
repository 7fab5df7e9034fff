/**
 * The desired state: what the configuration declares, after parse, schema, normalisation and rules.
 * The planner diffs it against the live state. Every key is final (defaults applied, short forms
 * expanded, group keys written `type:key`) and every list is sorted, so two configurations that mean
 * the same thing give equal values whatever their file split or ordering.
 */

import type { DesiredAttribute, DesiredConditionSet, DesiredSetRule } from './abac.js';

export type Section =
  | 'resources'
  | 'roles'
  | 'tenants'
  | 'users'
  | 'resource_instances'
  | 'groups'
  | 'access_requests'
  | 'user_attributes'
  | 'tenant_attributes'
  | 'user_sets'
  | 'resource_sets'
  | 'set_rules';

export const SECTIONS: readonly Section[] = [
  'resources',
  'roles',
  'tenants',
  'users',
  'resource_instances',
  'groups',
  'access_requests',
  'user_attributes',
  'tenant_attributes',
  'user_sets',
  'resource_sets',
  'set_rules',
];

export interface DesiredResource {
  key: string;
  /** Defaults to the key. */
  name: string;
  description?: string;
  /** Action keys, sorted. */
  actions: string[];
  /**
   * Resource roles (`document#editor`), sorted by key. Absent when the configuration does not write
   * `roles` on the resource: then the live resource roles are left alone (opt-in, like a section).
   */
  roles?: DesiredResourceRole[];
  /**
   * Relations whose object is this resource, sorted by key. Absent when the configuration does not write
   * `relations` on the resource: then the live relations are left alone.
   */
  relations?: DesiredRelation[];
  /**
   * Attribute definitions of the resource (ABAC), sorted by key. Absent when the configuration does not
   * write `attributes` on the resource: then the live definitions are left alone.
   */
  attributes?: DesiredAttribute[];
}

/** A relation of an object resource: instances of `subject` can be related to its instances by `key`. */
export interface DesiredRelation {
  key: string;
  name: string;
  description?: string;
  subject: string;
}

/** A role derivation: users holding `role` on an `on` instance related by `via` hold the resource role. */
export interface DesiredDerivation {
  role: string;
  on: string;
  via: string;
  /** `when.no_direct_roles_on_object`: only for users with no role assigned directly on the object. */
  noDirectRolesOnObject?: boolean;
}

/** A role defined on a resource type: what a role held on one of its instances is (api-notes, "Roles on instances"). */
export interface DesiredResourceRole {
  key: string;
  name: string;
  description?: string;
  /** Actions of its own resource (`read`, not `document:read`), sorted. */
  permissions: string[];
  /** Other roles of the same resource whose permissions it includes, sorted. */
  extends: string[];
  /** Where else the role comes from (`granted_to`), sorted by on, role, via. */
  grantedTo: DesiredDerivation[];
}

export interface DesiredRole {
  key: string;
  name: string;
  description?: string;
  /** `resource:action`, sorted. */
  permissions: string[];
  /**
   * Top-level roles whose permissions this one includes (transitively), sorted. Live: absent when none.
   * Desired: absent when the configuration does not write `extends` on the role, which leaves the live
   * `extends` as it is (opt-in per role, like a resource's `roles`); written, exactly these (`[]`: none).
   */
  extends?: string[];
}

export interface DesiredTenant {
  key: string;
  name: string;
  description?: string;
  attributes?: Record<string, unknown>;
}

export interface DesiredUserRole {
  role: string;
  tenant: string;
  /** `type:key` of the resource instance (or group) the role is given on; absent when tenant-wide. */
  on?: string;
}

export interface DesiredUser {
  key: string;
  email?: string;
  first_name?: string;
  last_name?: string;
  attributes?: Record<string, unknown>;
  /** Tenants the user is in: those listed plus those of the user's roles, sorted. */
  tenants: string[];
  /** Sorted by tenant, role, then instance. */
  roles: DesiredUserRole[];
}

export interface DesiredResourceInstance {
  resource: string;
  key: string;
  tenant: string;
  attributes?: Record<string, unknown>;
  /**
   * Relationship tuples with this instance as object (`folder:finance parent document:budget`), sorted
   * by relation then subject. Absent when the configuration does not write `relations` on the instance.
   */
  relations?: DesiredTuple[];
}

export interface DesiredTuple {
  relation: string;
  /** `type:key` of the subject instance. */
  subject: string;
}

export interface DesiredGroupRole {
  role: string;
  /** `type:key` of a resource instance (or group) in the group's tenant. */
  on: string;
}

export interface DesiredGroup {
  /** Group type: the resource type the group is an instance of (`group` when not written). */
  type: string;
  key: string;
  tenant: string;
  /** User keys of the direct members, sorted. */
  members: string[];
  /** Sorted by role, then instance. */
  roles: DesiredGroupRole[];
  /** `type:key` of the groups this group is linked into (its parents), sorted. */
  memberOf: string[];
}

export interface DesiredAccessRequestConfig {
  key: string;
  name: string;
  /** Roles mapped to LEVEL_1 or LEVEL_2 of the element configuration (both review; src/api/levels.ts), sorted. */
  reviewerRoles: string[];
  /**
   * `grant_for` as written (`12h`; src/config/duration.ts): the lifetime of grants of requests approved
   * through this configuration. Not sent to the service: the planner reads it (src/plan/request-grants.ts).
   */
  grantFor?: string;
}

/**
 * An assertion (docs/check.md): `user` (or every member of the group `usersIn`) can / cannot do
 * `subject` (an action), or has the role `subject`, on the instance `on`. Assertions keep the order
 * written (files in path order) and where they were written, so failures point at file:line.
 */
export interface DesiredAssertion {
  user?: string;
  /** `type:key` of a group: the assertion holds for each member, direct or through nested groups. */
  usersIn?: string;
  /**
   * `who_can` and `what_can` assert exact sets (`exactly`): the users who may do `subject` on `on`, or
   * the instances of the resource `on` that `user` may do `subject` on.
   */
  check: 'can' | 'cannot' | 'has_role' | 'who_can' | 'what_can';
  /** The action as written (`write` or `document:write`), or the role key for `has_role`. */
  subject: string;
  /** `type:key` of a resource instance or group; for `what_can`, the resource (`on_type`). */
  on: string;
  /** `who_can`: user keys; `what_can`: instance keys of `on`, as written (`roster check --update` rewrites them). */
  exactly?: string[];
  /** `item`: the assertion's index in its file's `assertions:` list (where `--update` writes). */
  source: { file: string; path: string; line?: number; column?: number; item?: number };
  /**
   * Attributes the check passes at decision time (ABAC): the user's and the resource's (merged over the
   * stored ones, later winning) and the `context`. Absent: the check passes none.
   */
  passed?: { user?: Record<string, unknown>; resource?: Record<string, unknown>; context?: Record<string, unknown> };
}

export interface DesiredState {
  project?: string;
  environment?: string;
  /** Sections the configuration manages (present in at least one file, even empty). */
  sections: Set<Section>;
  /**
   * `authoritative:` as written (docs/config.md#authoritative): `true` for every managed section, or the
   * sections listed (sorted). Under it plan and apply delete the undeclared live objects of those
   * sections without --prune. Absent (or `false`): only --prune deletes them.
   */
  authoritative?: boolean | Section[];
  resources: Map<string, DesiredResource>;
  roles: Map<string, DesiredRole>;
  tenants: Map<string, DesiredTenant>;
  users: Map<string, DesiredUser>;
  /** By `type:key`. */
  resourceInstances: Map<string, DesiredResourceInstance>;
  /** By `type:key`. */
  groups: Map<string, DesiredGroup>;
  accessRequests: Map<string, DesiredAccessRequestConfig>;
  /** User attribute definitions (`user_attributes`), by key; built-in attributes are never listed. */
  userAttributes: Map<string, DesiredAttribute>;
  /** Tenant attribute definitions (`tenant_attributes`), by key. */
  tenantAttributes: Map<string, DesiredAttribute>;
  /**
   * User sets and resource sets (`user_sets`, `resource_sets`), by key; keys are unique across both, as
   * on the service. The service's autogenerated sets are never here.
   */
  conditionSets: Map<string, DesiredConditionSet>;
  /** Set rules (`set_rules`), by `setRuleKey`. */
  setRules: Map<string, DesiredSetRule>;
  /** Not a section: nothing of it is sent to the service. */
  assertions: DesiredAssertion[];
}

export function emptyDesiredState(): DesiredState {
  return {
    sections: new Set(),
    resources: new Map(),
    roles: new Map(),
    tenants: new Map(),
    users: new Map(),
    resourceInstances: new Map(),
    groups: new Map(),
    accessRequests: new Map(),
    userAttributes: new Map(),
    tenantAttributes: new Map(),
    conditionSets: new Map(),
    setRules: new Map(),
    assertions: [],
  };
}

/** The tenant of a role's target: a resource instance, or a group (groups are instances of their type). */
export function targetTenant(desired: DesiredState, ref: string): string | undefined {
  return desired.resourceInstances.get(ref)?.tenant ?? desired.groups.get(ref)?.tenant;
}

/** `on#role@via`: a derivation's identity within its role. */
export const derivationKey = (d: DesiredDerivation) => `${d.on}#${d.role}@${d.via}`;

/** The sections whose undeclared live objects the configuration itself deletes (`authoritative:`). */
export function authoritativeSections(d: Pick<DesiredState, 'sections' | 'authoritative'>): Set<Section> {
  if (d.authoritative === true) return new Set(d.sections);
  if (Array.isArray(d.authoritative))
    return new Set(SECTIONS.filter((s) => (d.authoritative as Section[]).includes(s) && d.sections.has(s)));
  return new Set();
}
