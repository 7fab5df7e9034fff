/**
 * The access graph's input and output, as plain data. Independent of the config and API layers:
 * adapters from `DesiredState` / `LiveState` produce `AccessFacts`.
 */
import type { AbacModel, JsonObject } from './conditions/index.js';

export interface RoleFact {
  /**
   * The role's identity: the key of a top-level role (`editor`), or `type#key` for a resource role
   * (`document#editor`). Facts name roles by identity everywhere: a role held on an instance is resolved
   * by whoever builds the facts (`resolveRoleKey`), a tenant-wide role is always top-level.
   */
  key: string;
  /** `resource:action`, e.g. `document:write` (a resource role's actions qualified with its resource). */
  permissions: string[];
  /** Role identities whose permissions this role inherits, transitively (cycles are tolerated). */
  extends?: string[];
}

/** The identity of a role held on an instance: the rulebook's rule (rules/roles.ts). */
export { resolveRoleKey } from '../rules/roles.js';

export interface AccessFacts {
  roles: RoleFact[];
  /** `id` is `type:key`. The first entry wins when an id is listed twice. */
  instances: { id: string; tenant: string }[];
  /** Tenant-wide: applies to every listed instance of that tenant. */
  tenantRoles: { user: string; role: string; tenant: string }[];
  /** A direct role on one instance. */
  instanceRoles: { user: string; role: string; instance: string }[];
  /** `group` is `type:key`. */
  memberships: { user: string; group: string }[];
  /** Every member of `child` is a member of `parent` (transitively). */
  links: { child: string; parent: string }[];
  /** The group's members (transitive) hold `role` on `instance`. */
  groupGrants: { group: string; role: string; instance: string }[];
  /** Relationship tuples between instances (`folder:finance parent document:budget`), not the group machinery's. */
  relationships?: { subject: string; relation: string; object: string }[];
  /**
   * Role derivations: whoever holds `from` (`folder#editor`) on a subject related by `relation` to an
   * object holds `role` (`document#editor`) on the object; with `noDirect`, only when they hold no role
   * assigned directly on the object.
   */
  derivations?: { role: string; from: string; relation: string; noDirect?: boolean }[];
  /** Attribute-based access (set rules); absent when the state has no set rule (ABAC then grants nothing). */
  abac?: AbacFacts;
}

/**
 * What ABAC decides on, as plain data (api-notes "Decision point"): the model (sets and rules, conditions
 * parsed), which attribute keys have a definition, and the stored facts a check sees. `user.roles` in a
 * tenant are the facts' tenant-wide roles there (`tenantRoles`), so they are not repeated here.
 */
export interface AbacFacts {
  model: AbacModel;
  /** Set rule keys (`setRuleKey`), parallel to `model.rules`. */
  ruleKeys: readonly string[];
  defined: {
    user: ReadonlySet<string>;
    tenant: ReadonlySet<string>;
    byResource: ReadonlyMap<string, ReadonlySet<string>>;
  };
  /** Stored users: their fields and attributes. A user not listed is checked with no stored facts. */
  users: ReadonlyMap<string, { email?: string; first_name?: string; last_name?: string; attributes: JsonObject }>;
  /** `user.tenants`: the tenants where the user holds a role assignment, group memberships included. */
  userTenants: ReadonlyMap<string, readonly string[]>;
  /** Stored tenant attributes, by tenant key. */
  tenants: ReadonlyMap<string, JsonObject>;
  /** Stored attributes of every instance (groups included, with none), by `type:key`. */
  instances: ReadonlyMap<string, JsonObject>;
}

/** A set rule through which ABAC allows: `permission` (`expense:approve`) for `userSet` on `resourceSet`. */
export interface AbacVia {
  /** The rule's key, `{user_set}_can_{resource}_{action}_{resource_set}`. */
  rule: string;
  userSet: string;
  resourceSet: string;
  permission: string;
}

/** Why a user holds a role on an instance. */
export type AccessPath =
  | { readonly kind: 'direct' }
  | { readonly kind: 'tenant'; readonly tenant: string }
  /** From the user's direct group up to the group that was given the role (both included). */
  | { readonly kind: 'group'; readonly chain: readonly string[] }
  /**
   * Derived: the user holds `role` on `subject` (as `path` says), and `subject` is related to the
   * instance by `relation`, through which the held role derives this one.
   */
  | {
      readonly kind: 'derived';
      readonly relation: string;
      readonly subject: string;
      readonly role: string;
      readonly path: AccessPath;
    };

export interface RoleHolding {
  role: string;
  /** Sorted: direct, then tenant-wide, then group chains shortest first. Never empty. */
  paths: readonly AccessPath[];
}

/** One reason for a decision: the role held and how. */
export interface Via {
  role: string;
  path: AccessPath;
}

export interface Decision {
  /** Through a role (`via`) or a set rule (`rules`). */
  allowed: boolean;
  /** Sorted by path (direct first, shortest chain first), then role. */
  via: Via[];
  /**
   * The set rules that allow it (ABAC), in the model's order, decided as `/allowed` decides a check on the
   * instance in its tenant that passes no attributes and no context. Absent when the facts have no rules.
   */
  rules?: AbacVia[];
}

export interface EffectiveGrant {
  user: string;
  instance: string;
  role: string;
  paths: readonly AccessPath[];
}

export interface Explanation {
  user: string;
  instance: string;
  /** What was asked, as given. */
  subject: string;
  /** `role` when `subject` names a known role, otherwise a permission (`document:write`). */
  kind: 'role' | 'permission';
  /** The permission checked, type-qualified; absent for `kind: 'role'`. */
  permission?: string;
  allowed: boolean;
  via: Via[];
  /** Only when denied: what would grant it. */
  missing?: Missing;
}

/**
 * One way to be granted what was asked: hold `role` on `instance` (`by`: a direct assignment, the role
 * tenant-wide in the instance's tenant, or membership of a group given the role there). `steps` is empty
 * when `instance` is the one asked about; otherwise the derivations that carry the role there, in order:
 * each step derives `role` on `object` from the role before it, through the tuple `relation`.
 */
export interface Way {
  role: string;
  instance: string;
  by:
    | { readonly kind: 'direct' }
    | { readonly kind: 'tenant'; readonly tenant: string }
    | { readonly kind: 'group'; readonly group: string };
  steps: { relation: string; object: string; role: string }[];
}

export interface Missing {
  /** Roles that would grant the subject on the instance (sorted). Empty when no role does. */
  roles: string[];
  /** Groups already given one of those roles on the instance: joining one grants it. */
  groups: { group: string; role: string }[];
  /**
   * Every way in, as data (the message says the same): holding one of `roles` on the instance directly,
   * tenant-wide, or through a group given it; and holding a role on a related instance from which a
   * derivation reaches it, directly or through a group given that role there. Sorted: on the instance
   * first, then by derivation depth.
   */
  ways: Way[];
  /** The instance's tenant, for a tenant-wide grant; null when the instance is not listed. */
  tenant: string | null;
  /** One human sentence. */
  message: string;
}
