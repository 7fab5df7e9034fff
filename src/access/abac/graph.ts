/**
 * Attribute-based access in the access graph: who may do `type:action` on which stored instance through
 * which set rule, decided as `/allowed` decides a check on the instance, in the instance's tenant, passing
 * no attributes and no context (api-notes "Decision point"). Pure.
 *
 * Scale: a set is evaluated once per distinct set of attributes it can read, not once per (user,
 * instance). Each set is classified by what its conditions (its ancestors' included, references too) read:
 * - a user set reading only `user.*` (not `user.roles`) is decided once per user;
 * - one reading `user.roles`, `role.*` or `tenant.*` once per (user, tenant where the user has a role),
 *   plus once per user for every other tenant (where the user has no role, so none of them is seen);
 * - a resource set reading only `resource.*` once per instance; reading `tenant.*`, once per instance and
 *   whether the user has a role in its tenant;
 * - a set reading across sides (`resource.*` in a user set, `user.*`/`role.*` in a resource set) once per
 *   (user, instance).
 * Results are memoised by the attributes read (`AbacMemo`, shared by a plan's before and after graphs),
 * so users or instances with equal attributes cost one evaluation.
 *
 * Decision time: `context.*` is only known when a check is made. A set whose conditions read it is
 * decided as `/allowed` decides a check passing no context (missing: false) for `can`, and besides
 * three-valued (Kleene) for the plan: "yes whatever the context", "no whatever the context", or "depends
 * on the context" (`Status` 2 and 3), which the plan reports instead of guessing.
 */
import {
  AttrSet,
  CONTEXT_UNKNOWN,
  andStatus,
  attributesNamed,
  checkAttributes,
  judgeChain,
  orStatus,
  setChain,
  statusOf,
  type Status,
  type AbacModel,
  type Bag,
  type Bags,
  type Condition,
  type EvaluateOptions,
  type JsonObject,
  type RuleDef,
  type SetDef,
} from '../conditions/index.js';
import type { AbacFacts, AbacVia, AccessFacts } from '../facts.js';
import { getOrSet } from '../groups.js';
import { typeOf } from '../../types/refs.js';
import { DEFAULT_TENANT } from '../../types/names.js';

/**
 * A decision on one (user, instance) through a set or a rule, the judge's verdict packed
 * (conditions/judge.ts): 0 no, 1 yes, whatever the check passes as context; 2 and 3 depend on the
 * context: 2 denies and 3 allows when the check passes none.
 */
export { allowsWithout, dependsOnContext, type Status } from '../conditions/index.js';
import { allowsWithout } from '../conditions/index.js';

/** What a set's conditions (ancestors included) read, which decides how it is evaluated. */
export interface SetInfo {
  key: string;
  def: SetDef;
  chain: SetDef[];
  /** Reads across sides: evaluated per (user, instance). */
  cross: boolean;
  /** Reads `user.roles`, `role.*` or `tenant.*`: depends on the check's tenant. */
  tenantDependent: boolean;
  /** `context.*` attributes read, sorted (empty: decided offline). */
  context: string[];
  /** Reads instances through `fk_resource_type`. */
  fk: boolean;
  /** The chain's definitions: equal signatures decide alike on equal attributes. */
  signature: string;
  /** The top-level attribute names it reads, by entity, sorted: its outcome depends on nothing else. */
  reads: Reads;
}

export interface Reads {
  user: readonly string[];
  tenant: readonly string[];
  resource: readonly string[];
  /** A key naming the three lists. */
  key: string;
}

export interface AbacRule {
  def: RuleDef;
  via: AbacVia;
  userSet: SetInfo;
  resourceSet: SetInfo;
  /** `context.*` attributes the rule's sets read, sorted. */
  context: string[];
}

/** Shared by graphs compared with each other (a plan's before and after). */
export interface AbacMemo {
  /** Set outcomes by set signature and the key of the attributes read. */
  readonly statuses: Map<string, Map<string, Status>>;
  /** Users' sides by tenant and user, and outside every tenant by user, with what they were made of (equal makings: the same side). */
  readonly sides: Map<string, Map<string, { made: UserMaking; side: UserSide }>>;
  readonly outside: Map<string, { made: UserMaking; side: UserSide }>;
  /** Keys of the attributes some sets read, as small integers: equal ids, equal keys (`userClasses`). */
  readonly ids: Map<string, number>;
}
export const abacMemo = (): AbacMemo => ({ statuses: new Map(), ids: new Map(), sides: new Map(), outside: new Map() });

/** What a user's side in checks in a tenant is computed from. */
interface UserMaking {
  stored: unknown;
  email: string | undefined;
  first: string | undefined;
  last: string | undefined;
  roles: readonly string[];
  tenants: readonly string[];
  tenant: string;
  definitions: string;
}

/** The stored attributes compared by identity (a plan's state after shares what it does not change). */
function sameMaking(a: UserMaking, b: UserMaking): boolean {
  return (
    a.stored === b.stored &&
    a.email === b.email &&
    a.first === b.first &&
    a.last === b.last &&
    a.tenant === b.tenant &&
    a.definitions === b.definitions &&
    sameList(a.roles, b.roles) &&
    sameList(a.tenants, b.tenants)
  );
}
const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** One user's attributes as a check in a tenant sees them: the user's part, the tenant's part, and a key naming both. */
interface UserSide {
  user: Bag;
  tenant: Bag;
  key: string;
  /** Keys of the values some sets read, by `Reads.key`, and their ids in the memo. */
  keys: Map<string, string>;
  ids: Map<string, number>;
}
interface InstanceSide {
  resource: Bag;
  key: string;
  keys: Map<string, string>;
  ids: Map<string, number>;
}

/** What checks in a tenant see of a user: the user's attributes and the tenant's. */
export interface UserBags {
  readonly user: Bag;
  readonly tenant: Bag;
}

export interface AbacIndex {
  readonly facts: AbacFacts;
  /** Every rule, in the model's order. */
  readonly rules: readonly AbacRule[];
  /** The rules granting `type:action`. */
  rulesFor(permission: string): readonly AbacRule[];
  set(key: string): SetInfo | undefined;
  /** Users the graph knows (stored, or named in its facts), sorted. */
  users(): readonly string[];
  /** The instances of a type, by tenant. */
  instancesOf(type: string): ReadonlyMap<string, readonly string[]>;
  /** The tenant a check on the instance names: the instance's, or `default` for one not stored. */
  tenantOf(instance: string): string;
  /** Whether the user has a role assignment (or membership) in the tenant. */
  inTenant(user: string, tenant: string): boolean;
  /** The tenants where the user has a role assignment. */
  tenantsOf(user: string): readonly string[];
  /** A user set's (or a cross set's user-side, meaningless) outcome for the user in checks in `tenant`. */
  userStatus(set: SetInfo, user: string, tenant: string): Status;
  /** A resource set's outcome on the instance, for a user who has (or not) a role in its tenant. */
  instanceStatus(set: SetInfo, instance: string, member: boolean): Status;
  /** One rule on one (user, instance). */
  ruleStatus(rule: AbacRule, user: string, instance: string): Status;
  /** Every rule granting the permission, combined (any yes wins; else any "depends"; else no). */
  permissionStatus(user: string, permission: string, instance: string): Status;
  /** The rules that allow a check passing no context, in order. */
  allowing(user: string, permission: string, instance: string): AbacVia[];
  /**
   * What the sets reading `reads` see of each user of the list (by index) in checks in `tenant` (outside
   * every tenant when undefined; `members` says who is in it), as integers: equal ids, equal outcomes of
   * those sets (in graphs sharing the memo too).
   */
  userClasses(reads: Reads, users: readonly string[], tenant: string | undefined, members?: Uint8Array): Int32Array;
  /** Per tenant, whether each user of the list has a role assignment (or membership) there, by index. */
  membership(users: readonly string[]): Map<string, Uint8Array>;
  /** The same of the instance's own attributes (its tenant's are the user's side: see `pairStatus`). */
  instanceClass(reads: Reads, instance: string): number;
  /**
   * A set reading across sides on one (user, instance), from the user's side in checks in the
   * instance's tenant (`userBags`) and the instance's attributes (`resourceBag`): decided anew each call,
   * for callers remembering by `userClasses` and `instanceClass`.
   */
  decideBags(set: SetInfo, user: UserBags, resource: Bag): Status;
  userBags(user: string, tenant: string): UserBags;
  resourceBag(instance: string): Bag;
  /** The key of the user's attributes in checks in the tenant (equal keys: equal attributes as the model's sets read them). */
  userKey(user: string, tenant: string): string;
  instanceKey(instance: string): string;
  /** The same, of what the given sets read only (the instance's tenant's attributes included). */
  instanceKeyFor(reads: Reads, instance: string): string;
  /** The user's stored attributes with a definition, and fields; undefined when not stored. */
  storedUser(user: string): Bag | undefined;
  storedInstance(instance: string): Bag | undefined;
  storedTenant(tenant: string): Bag | undefined;
  /** `user.roles` in the tenant. */
  rolesIn(user: string, tenant: string): readonly string[];
  /** Instances' stored attributes for `fk_resource_type`. */
  readonly fkInstances: ReadonlyMap<string, Bag | null>;
}

const EMPTY: Bag = {};

/** Builds the ABAC part of a graph. Cheap: every outcome is computed on first use. */
export function buildAbacIndex(facts: AccessFacts, memo: AbacMemo = abacMemo()): AbacIndex | undefined {
  if (!facts.abac) return undefined;
  const abac: AbacFacts = facts.abac;
  const { setInfo, rules, byPermission } = indexRules(abac);
  const place = indexPlacement(facts, abac);
  const { tenantOfInstance, tenantOf } = place;
  const stored = storedReaders(abac);
  const names = namesRead(abac.model);
  const userSide = userSides(abac, memo, place, names);
  const { instanceSide, tenantBagOf } = instanceSides(abac, names);
  const outcomes = outcomeMemos(abac, memo, stored.storedInstance);
  const { decide } = outcomes;
  const classes = sideClasses(memo, place, userSide, instanceSide);
  const { instanceKeyFor } = classes;
  const statuses = setStatuses({ byPermission, place, userSide, instanceSide, tenantBagOf, outcomes, classes });
  const { ruleStatus } = statuses;

  return {
    facts: abac,
    rules,
    rulesFor: (permission) => byPermission.get(permission) ?? [],
    set: (key) => (abac.model.sets.has(key) ? setInfo(key) : undefined),
    users: () => place.allUsers,
    instancesOf: (type) => place.byType.get(type) ?? new Map(),
    tenantOf,
    inTenant: place.inTenant,
    tenantsOf: place.tenantsOf,
    userStatus: statuses.userStatus,
    instanceStatus: statuses.instanceStatus,
    ruleStatus,
    permissionStatus: statuses.permissionStatus,
    userClasses: classes.userClasses,
    membership: classes.membership,
    instanceClass: classes.instanceClass,
    decideBags: (set, user, resource) =>
      decide(set, { user: user.user, tenant: user.tenant, resource, context: {}, roles: [] }),
    userBags: (user, tenant) => userSide(user, tenant),
    resourceBag: (instance) => instanceSide(instance).resource,
    allowing: (user, permission, instance) =>
      (byPermission.get(permission) ?? [])
        .filter((r) => allowsWithout(ruleStatus(r, user, instance)))
        .map((r) => r.via),
    userKey: (user, tenant) => userSide(user, tenant).key,
    instanceKeyFor: (reads, instance) =>
      tenantOfInstance.has(instance)
        ? `${instanceKeyFor(reads, instanceSide(instance))}\u0000${tenantOf(instance)}\u0000${keyOf(tenantBagOf(tenantOf(instance)), reads.tenant)}`
        : '',
    instanceKey: (instance) =>
      tenantOfInstance.has(instance)
        ? `${instanceSide(instance).key}\u0000${tenantOf(instance)}\u0000${keyOf(tenantBagOf(tenantOf(instance)), names.tenant)}`
        : '',
    storedUser: stored.storedUser,
    storedInstance: stored.storedInstance,
    storedTenant: stored.storedTenant,
    rolesIn: place.rolesIn,
    fkInstances: outcomes.fkInstances,
  };
}

/** The model's rules with their sets classified, and by permission; `setInfo` classifies a set on first use. */
function indexRules(abac: AbacFacts) {
  const model = abac.model;
  const sets = new Map<string, SetInfo>();
  const setInfo = (key: string): SetInfo => {
    let info = sets.get(key);
    if (!info) sets.set(key, (info = classify(model, key)));
    return info;
  };
  const rules: AbacRule[] = model.rules.map((def, i) => {
    const userSet = setInfo(def.userSet);
    const resourceSet = setInfo(def.resourceSet);
    return {
      def,
      via: {
        rule: abac.ruleKeys[i],
        userSet: def.userSet,
        resourceSet: def.resourceSet,
        permission: `${def.resource}:${def.action}`,
      },
      userSet,
      resourceSet,
      context: [...new Set([...userSet.context, ...resourceSet.context])].sort(),
    };
  });
  const byPermission = new Map<string, AbacRule[]>();
  for (const r of rules) getOrSet(byPermission, r.via.permission, () => []).push(r);
  return { setInfo, rules, byPermission };
}

/** Where users and instances are: instances' tenants and by type, users' tenants and roles there, every user. */
type Placement = ReturnType<typeof indexPlacement>;
function indexPlacement(facts: AccessFacts, abac: AbacFacts) {
  const tenantOfInstance = new Map<string, string>();
  for (const i of facts.instances) if (!tenantOfInstance.has(i.id)) tenantOfInstance.set(i.id, i.tenant);
  const byType = new Map<string, Map<string, string[]>>();
  for (const [id, tenant] of tenantOfInstance)
    getOrSet(
      getOrSet(byType, typeOf(id), () => new Map()),
      tenant,
      () => [],
    ).push(id);
  const rolesByUser = new Map<string, Map<string, string[]>>();
  for (const r of facts.tenantRoles) {
    const list = getOrSet(
      getOrSet(rolesByUser, r.user, () => new Map()),
      r.tenant,
      () => [],
    );
    if (!list.includes(r.role)) list.push(r.role);
  }
  const allUsers = [
    ...new Set([
      ...abac.users.keys(),
      ...facts.tenantRoles.map((r) => r.user),
      ...facts.instanceRoles.map((r) => r.user),
      ...facts.memberships.map((m) => m.user),
    ]),
  ].sort();
  const tenantSets = new Map<string, ReadonlySet<string>>();
  const tenantsOf = (user: string) => abac.userTenants.get(user) ?? [];
  const inTenant = (user: string, tenant: string) => {
    let s = tenantSets.get(user);
    if (!s) tenantSets.set(user, (s = new Set(tenantsOf(user))));
    return s.has(tenant);
  };
  const rolesIn = (user: string, tenant: string) => rolesByUser.get(user)?.get(tenant) ?? [];
  const tenantOf = (instance: string) => tenantOfInstance.get(instance) ?? DEFAULT_TENANT;
  return { tenantOfInstance, tenantOf, byType, allUsers, tenantsOf, inTenant, rolesIn };
}

/** The stored attributes of users, tenants and instances, with a definition only (and users' fields). */
function storedReaders(abac: AbacFacts) {
  const definedOf = (attributes: JsonObject, keys: ReadonlySet<string> | undefined): Bag => {
    const out: Bag = {};
    if (keys) for (const k of Object.keys(attributes).sort()) if (keys.has(k)) out[k] = attributes[k];
    return out;
  };
  const storedUser = (user: string): Bag | undefined => {
    const u = abac.users.get(user);
    if (!u) return undefined;
    return {
      ...(u.email ? { email: u.email } : {}),
      ...(u.first_name ? { first_name: u.first_name } : {}),
      ...(u.last_name ? { last_name: u.last_name } : {}),
      attributes: definedOf(u.attributes, abac.defined.user),
    };
  };
  const storedTenant = (tenant: string): Bag | undefined => {
    const t = abac.tenants.get(tenant);
    return t ? definedOf(t, abac.defined.tenant) : undefined;
  };
  const storedInstance = (instance: string): Bag | undefined => {
    const i = abac.instances.get(instance);
    return i ? definedOf(i, abac.defined.byResource.get(typeOf(instance))) : undefined;
  };
  return { storedUser, storedTenant, storedInstance };
}

/**
 * The top-level attribute names the model's conditions read, by entity, sorted: a side's key is made of
 * those only, so that users (or instances) that differ only in what no condition reads share one evaluation.
 */
type NamesRead = ReturnType<typeof namesRead>;
function namesRead(model: AbacModel) {
  const readNames = { user: new Set<string>(), tenant: new Set<string>(), resource: new Set<string>() };
  for (const set of model.sets.values()) {
    for (const { attribute } of attributesNamed(set.conditions)) {
      if (attribute.entity === 'user' || attribute.entity === 'tenant' || attribute.entity === 'resource')
        readNames[attribute.entity].add(attribute.path[0]);
    }
  }
  return {
    user: [...readNames.user].sort(),
    tenant: [...readNames.tenant].sort(),
    resource: [...readNames.resource].sort(),
  };
}

/** The values of `read` in the bag, as a key: equal keys, equal values. */
function keyOf(bag: Bag, read: readonly string[]): string {
  let out = '';
  for (let i = 0; i < read.length; i++) out += (i === 0 ? '' : ',') + encodeOne(bag[read[i]]);
  return out;
}

type StoredUser = AbacFacts['users'] extends ReadonlyMap<string, infer U> ? U : never;

/**
 * The user's side of checks: in a tenant where the user has a role (its own), or in any other (one for
 * all). Sides by tenant then user; outside every tenant, by user.
 */
function userSides(abac: AbacFacts, memo: AbacMemo, place: Placement, names: NamesRead) {
  const { inTenant, tenantsOf, rolesIn } = place;
  const userSides = new Map<string, Map<string, UserSide>>();
  const outsideSides = new Map<string, UserSide>();
  const OUTSIDE = '\u0000outside';
  // What a user's side is made of, to take the side (and the ids it has computed) from a graph sharing the
  // memo when they are the same: most users are alike before and after a plan.
  const definitionsKey = JSON.stringify([[...abac.defined.user].sort(), [...abac.defined.tenant].sort()]);
  const tenantKeys = new Map<string, string>();
  const tenantKey = (t: string) => getOrSet(tenantKeys, t, () => JSON.stringify(abac.tenants.get(t) ?? null));
  function userSide(user: string, tenant: string): UserSide {
    const outside = tenant === OUTSIDE_TENANT || !inTenant(user, tenant);
    if (outside) return outsideSides.get(user) ?? newSide(user, OUTSIDE, outsideSides, memo.outside);
    const mine = getOrSet(userSides, tenant, () => new Map<string, UserSide>());
    return (
      mine.get(user) ??
      newSide(
        user,
        tenant,
        mine,
        getOrSet(memo.sides, tenant, () => new Map()),
      )
    );
  }
  /** The user's side in `t`, from the memo when made of the same values (by tenant, then user: no map per user). */
  function newSide(
    user: string,
    t: string,
    mine: Map<string, UserSide>,
    shared: Map<string, { made: UserMaking; side: UserSide }>,
  ): UserSide {
    const u = abac.users.get(user);
    const member = t !== OUTSIDE;
    const made: UserMaking = {
      stored: u?.attributes,
      email: u?.email,
      first: u?.first_name,
      last: u?.last_name,
      roles: member ? rolesIn(user, t) : [],
      tenants: tenantsOf(user),
      tenant: member ? tenantKey(t) : '',
      definitions: definitionsKey,
    };
    const before = shared.get(user);
    let side: UserSide;
    if (before && sameMaking(before.made, made)) side = before.side;
    else shared.set(user, { made, side: (side = newUserSide(user, t, u, member)) });
    mine.set(user, side);
    return side;
  }
  /** The user's attributes as checks in `t` see them, and their key. */
  function newUserSide(user: string, t: string, u: StoredUser | undefined, member: boolean): UserSide {
    const bags = checkAttributes({
      user: {
        key: user,
        stored: u
          ? {
              email: u.email ?? null,
              first_name: u.first_name ?? null,
              last_name: u.last_name ?? null,
              attributes: u.attributes,
            }
          : undefined,
        rolesInTenant: member ? [...rolesIn(user, t)] : [],
        tenants: [...tenantsOf(user)],
      },
      resource: { type: '' },
      tenant: { key: member ? t : '', stored: member ? abac.tenants.get(t) : undefined, member },
      defined: { user: abac.defined.user, tenant: abac.defined.tenant, resource: NONE },
    });
    const key = `${keyOf(bags.user, names.user)}\u0000${member ? keyOf(bags.tenant, names.tenant) : ''}`;
    return { user: bags.user, tenant: bags.tenant, key, keys: new Map(), ids: new Map() };
  }
  return userSide;
}

/** Instances' sides (their own attributes and key), and tenants' attributes as checks in them see them. */
function instanceSides(abac: AbacFacts, names: NamesRead) {
  const instanceSides = new Map<string, InstanceSide>();
  function instanceSide(instance: string): InstanceSide {
    let side = instanceSides.get(instance);
    if (!side) {
      const type = typeOf(instance);
      const bags = checkAttributes({
        user: { key: '', rolesInTenant: [], tenants: [] },
        resource: { type, stored: abac.instances.get(instance) },
        tenant: { key: '', member: false },
        defined: { user: NONE, tenant: NONE, resource: abac.defined.byResource.get(type) ?? NONE },
      });
      instanceSides.set(
        instance,
        (side = {
          resource: bags.resource,
          key: keyOf(bags.resource, names.resource),
          keys: new Map(),
          ids: new Map(),
        }),
      );
    }
    return side;
  }
  const tenantBags = new Map<string, Bag>();
  const tenantBagOf = (tenant: string) =>
    getOrSet(
      tenantBags,
      tenant,
      () =>
        checkAttributes({
          user: { key: '', rolesInTenant: [], tenants: [] },
          resource: { type: '' },
          tenant: { key: tenant, stored: abac.tenants.get(tenant), member: true },
          defined: { user: NONE, tenant: abac.defined.tenant, resource: NONE },
        }).tenant,
    );
  return { instanceSide, tenantBagOf };
}

/** Where sets' outcomes are remembered (in the shared memo, by signature), and how one is decided. */
type OutcomeMemos = ReturnType<typeof outcomeMemos>;
function outcomeMemos(abac: AbacFacts, memo: AbacMemo, storedInstance: (instance: string) => Bag | undefined) {
  const fkInstances = new Map<string, Bag | null>();
  for (const id of abac.instances.keys()) fkInstances.set(id, storedInstance(id) ?? null);
  const options: EvaluateOptions = { instances: fkInstances };

  // A set reading instances through `fk_resource_type` depends on every instance's stored attributes too.
  let fkPrint: string | undefined;
  const fkFingerprint = () =>
    (fkPrint ??= JSON.stringify([...fkInstances].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
  const memos = new Map<SetInfo, Map<string, Status>>();
  const memoOf = (set: SetInfo) => {
    let m = memos.get(set);
    if (!m)
      memos.set(
        set,
        (m = getOrSet(
          memo.statuses,
          set.fk ? `${set.signature}\u0000${fkFingerprint()}` : set.signature,
          () => new Map<string, Status>(),
        )),
      );
    return m;
  };
  function decide(set: SetInfo, bags: Bags): Status {
    return setStatus(set, bags, options);
  }
  return { fkInstances, memoOf, decide };
}

/** Sides' keys and ids for what some sets read: equal ids, equal outcomes of those sets. */
type SideClasses = ReturnType<typeof sideClasses>;
function sideClasses(
  memo: AbacMemo,
  place: Placement,
  userSide: (user: string, tenant: string) => UserSide,
  instanceSide: (instance: string) => InstanceSide,
) {
  const { tenantsOf } = place;
  const userKeyFor = (reads: Reads, side: UserSide) => {
    let k = side.keys.get(reads.key);
    if (k === undefined)
      side.keys.set(reads.key, (k = `${keyOf(side.user, reads.user)}\u0000${keyOf(side.tenant, reads.tenant)}`));
    return k;
  };
  const instanceKeyFor = (reads: Reads, side: InstanceSide) => {
    let k = side.keys.get(reads.key);
    if (k === undefined) side.keys.set(reads.key, (k = keyOf(side.resource, reads.resource)));
    return k;
  };
  const idOf = (key: string) => {
    let id = memo.ids.get(key);
    if (id === undefined) memo.ids.set(key, (id = memo.ids.size));
    return id;
  };
  const classOf = (reads: Reads, side: UserSide) => {
    let id = side.ids.get(reads.key);
    if (id === undefined) side.ids.set(reads.key, (id = idOf(userKeyFor(reads, side))));
    return id;
  };
  // Outside every tenant, by the position of the user in a list the caller passes again and again.
  const outsideByList = new WeakMap<readonly string[], UserSide[]>();
  const outsideOf = (users: readonly string[]) => {
    let sides = outsideByList.get(users);
    if (!sides) outsideByList.set(users, (sides = users.map((user) => userSide(user, OUTSIDE_TENANT))));
    return sides;
  };
  const userClasses = (reads: Reads, users: readonly string[], tenant: string | undefined, members?: Uint8Array) => {
    const out = new Int32Array(users.length);
    if (tenant !== undefined && !members) {
      for (let u = 0; u < users.length; u++) out[u] = classOf(reads, userSide(users[u], tenant));
      return out;
    }
    const sides = outsideOf(users);
    for (let u = 0; u < users.length; u++)
      out[u] = classOf(reads, members?.[u] ? userSide(users[u], tenant!) : sides[u]);
    return out;
  };
  const membership = (users: readonly string[]) => {
    const out = new Map<string, Uint8Array>();
    users.forEach((user, u) => {
      for (const t of tenantsOf(user)) getOrSet(out, t, () => new Uint8Array(users.length))[u] = 1;
    });
    return out;
  };
  const instanceClass = (reads: Reads, instance: string) => {
    const side = instanceSide(instance);
    let id = side.ids.get(reads.key);
    if (id === undefined) side.ids.set(reads.key, (id = idOf(instanceKeyFor(reads, side))));
    return id;
  };
  return { userKeyFor, instanceKeyFor, userClasses, membership, instanceClass };
}

/** Outcomes of sets, rules and permissions on users, instances and pairs, each remembered by what it reads. */
function setStatuses(parts: {
  byPermission: ReadonlyMap<string, readonly AbacRule[]>;
  place: Placement;
  userSide: (user: string, tenant: string) => UserSide;
  instanceSide: (instance: string) => InstanceSide;
  tenantBagOf: (tenant: string) => Bag;
  outcomes: OutcomeMemos;
  classes: SideClasses;
}) {
  const { byPermission, userSide, instanceSide, tenantBagOf } = parts;
  const { tenantOf, inTenant } = parts.place;
  const { memoOf, decide } = parts.outcomes;
  const { userKeyFor, instanceKeyFor } = parts.classes;
  function userStatus(set: SetInfo, user: string, tenant: string): Status {
    const side = userSide(user, set.tenantDependent ? tenant : OUTSIDE_TENANT);
    const m = memoOf(set);
    const key = userKeyFor(set.reads, side);
    let s = m.get(key);
    if (s === undefined)
      m.set(key, (s = decide(set, { user: side.user, tenant: side.tenant, resource: EMPTY, context: {}, roles: [] })));
    return s;
  }
  function instanceStatus(set: SetInfo, instance: string, member: boolean): Status {
    const side = instanceSide(instance);
    const tenant = tenantOf(instance);
    const tenantBag: Bag = set.tenantDependent && member ? tenantBagOf(tenant) : EMPTY;
    const own = instanceKeyFor(set.reads, side);
    const key = set.tenantDependent ? `${own}\u0000${keyOf(tenantBag, set.reads.tenant)}` : own;
    const m = memoOf(set);
    let s = m.get(key);
    if (s === undefined)
      m.set(
        key,
        (s = decide(set, { user: EMPTY, tenant: tenantBag, resource: side.resource, context: {}, roles: [] })),
      );
    return s;
  }
  // Per pair, remembered by what the set reads of both (shared by the rules on the set, and the sides
  // compared): by the user's key, then the instance's (no key made per pair).
  const pairMemos = new Map<Map<string, Status>, Map<string, Map<string, Status>>>();
  function pairStatus(set: SetInfo, user: string, instance: string): Status {
    const u = userSide(user, tenantOf(instance));
    const i = instanceSide(instance);
    const m = memoOf(set);
    let byUser = pairMemos.get(m);
    if (!byUser) pairMemos.set(m, (byUser = new Map()));
    const uk = userKeyFor(set.reads, u);
    let row = byUser.get(uk);
    if (!row) byUser.set(uk, (row = new Map()));
    const ik = instanceKeyFor(set.reads, i);
    let s = row.get(ik);
    if (s === undefined)
      row.set(ik, (s = decide(set, { user: u.user, tenant: u.tenant, resource: i.resource, context: {}, roles: [] })));
    return s;
  }
  function ruleStatus(rule: AbacRule, user: string, instance: string): Status {
    if (typeOf(instance) !== rule.def.resource) return 0;
    const r = rule.resourceSet.cross
      ? pairStatus(rule.resourceSet, user, instance)
      : instanceStatus(rule.resourceSet, instance, inTenant(user, tenantOf(instance)));
    if (r === 0) return 0;
    const u = rule.userSet.cross
      ? pairStatus(rule.userSet, user, instance)
      : userStatus(rule.userSet, user, tenantOf(instance));
    return and(u, r);
  }
  function permissionStatus(user: string, permission: string, instance: string): Status {
    let out: Status = 0;
    for (const rule of byPermission.get(permission) ?? []) {
      const s = ruleStatus(rule, user, instance);
      if (s === 1) return 1;
      out = or(out, s);
    }
    return out;
  }
  return { userStatus, instanceStatus, ruleStatus, permissionStatus };
}

/** No tenant: what a tenant-independent set is decided on (the user's side outside any tenant they are in). */
const OUTSIDE_TENANT = '\u0000none';

/**
 * A value in a side's key: equal texts for equal values only (a string is quoted, a number or boolean is
 * not, a missing value and a generated set are marked apart from any JSON).
 */
function encodeOne(v: unknown): string {
  if (v === undefined) return '~';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof AttrSet) return `S${JSON.stringify(v.items)}`;
  return JSON.stringify(v);
}
const NONE: ReadonlySet<string> = new Set<string>();

const and = andStatus;
const or = orStatus;

/**
 * A set's outcome on a check's attributes (its chain AND-ed, a resource set's base type), judged with the
 * check's context unknown; an unknown one is decided again as a check passing no context.
 */
export function setStatus(set: SetInfo, bags: Bags, options: EvaluateOptions): Status {
  return statusOf(
    judgeChain(set.chain, bags, { ...options, unknown: CONTEXT_UNKNOWN }).verdict,
    () => judgeChain(set.chain, bags, options).verdict === 'holds',
  );
}

/** What a set reads (see the file's comment). A set missing from the model (or its chain) matches nothing. */
export function classify(model: AbacModel, key: string): SetInfo {
  const chain = setChain(model.sets, key);
  const def = chain[0] ?? { key, type: 'userset', conditions: { kind: 'anyOf', children: [] } };
  const named = chain.flatMap((s) => attributesNamed(s.conditions).map((a) => a.attribute));
  const reads = (entity: string, pred: (path: string[]) => boolean = () => true) =>
    named.some((a) => a.entity === entity && pred(a.path));
  const userOther = reads('user', (p) => p[0] !== 'roles');
  const tenantSide = reads('user', (p) => p[0] === 'roles') || reads('role') || reads('tenant');
  const cross = def.type === 'userset' ? reads('resource') : userOther || reads('user') || reads('role');
  const fk = chain.some((s) => usesFk(s.conditions));
  const namesOf = (entity: string) =>
    [...new Set(named.filter((a) => a.entity === entity).map((a) => a.path[0]))].sort();
  const read = { user: namesOf('user'), tenant: namesOf('tenant'), resource: namesOf('resource') };
  return {
    reads: { ...read, key: JSON.stringify(read) },
    key,
    def,
    chain,
    cross,
    tenantDependent: tenantSide,
    context: [...new Set(named.filter((a) => a.entity === 'context').map((a) => `context.${a.path.join('.')}`))].sort(),
    fk,
    signature: JSON.stringify(chain.map((s) => [s.key, s.type, s.resource ?? null, s.conditions])),
  };
}

function usesFk(c: Condition): boolean {
  switch (c.kind) {
    case 'allOf':
    case 'anyOf':
      return c.children.some(usesFk);
    case 'not':
      return usesFk(c.child);
    case 'leaf':
      return 'match' in c.test && testUsesFk(c.test);
  }
}
function testUsesFk(t: Extract<Condition, { kind: 'leaf' }>['test']): boolean {
  return 'match' in t && (t.fkResourceType !== undefined || t.match.some((m) => testUsesFk(m.test)));
}
