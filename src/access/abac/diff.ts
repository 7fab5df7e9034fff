/**
 * What attribute-based access grants and takes away between two graphs (a plan's before and after),
 * grouped by set rule, never one line per user and instance: "+12 users gain expense:approve on 300
 * expenses: user set senior-approvers × resource set small-expenses, after bob's level changed". Pure.
 *
 * A (user, instance) pair counts when the permission as a whole changes: a user who keeps it through a
 * role or another rule loses nothing, and one who had it already gains nothing. A pair gained or lost
 * through a role as well is the role view's (diff.ts): it is not repeated here. A pair whose decision
 * depends on `context.*` in either graph is not guessed: it is counted under its rule in `undecided`.
 *
 * Only pairs whose decision can differ are visited (graph.ts decides each side once): for a rule
 * whose sets are unchanged, the users whose attributes (as the rule's sets read them) changed × the
 * instances in its resource set, and the instances whose attributes changed × the users in its user set;
 * for a new, removed or redefined rule, its user set × its resource set.
 *
 * Within a rule, a line holds the users who gain or lose on the same instances for the same origin: a new
 * or deleted user's pairs, and the pairs on a new or deleted instance, are lines of their own, so that
 * each line's causes (causes.ts) are what made its pairs change.
 */
import type { AbacVia } from '../facts.js';
import type { AccessGraph } from '../graph.js';
import { dependsOnContext, type AbacIndex, type AbacRule, type Reads, type SetInfo } from './graph.js';
import {
  crossStatus,
  isCross,
  sameShape,
  setsDifferAt,
  sideVectors,
  type SideVectors,
  widened,
  type Found,
  type Prepared,
} from './diff-sides.js';
import { GroupUsers } from './diff-users.js';
import { causesOf, type Changes, type Origin } from './causes.js';
import { getOrSet } from '../groups.js';
import { cmp } from '../paths.js';
import { countInstances } from '../summary.js';
import { plural } from '../../words.js';
import { typeOf } from '../../types/refs.js';

export interface AbacChangeLine {
  sign: '+' | '-';
  permission: string;
  /** The rule that grants it (after, for a gain) or granted it (before, for a loss). */
  via: AbacVia;
  /** Sorted; each gains or loses the permission on every one of `instances`. */
  users: string[];
  /** Sorted. */
  instances: string[];
  /** What changed that makes the difference, in words ("bob's level changed"); at most a few. */
  causes: string[];
}

export interface AbacUndecided {
  via: AbacVia;
  /** The `context.*` attributes the rule's sets read, sorted. */
  attributes: string[];
  /** Users and instances whose decision through the rule may change, depending on them. */
  users: number;
  instances: number;
  /** Whether the plan adds or removes the rule, or only changes what it may decide. */
  change: 'added' | 'removed' | 'kept';
}

export interface AbacDiff {
  /** Largest first (users × instances), then by permission and rule. */
  lines: AbacChangeLine[];
  undecided: AbacUndecided[];
  /** Users with a gain or a loss, sorted. */
  users: string[];
  /** (user, instance) pairs gained and lost. */
  gains: number;
  losses: number;
}

const EMPTY_DIFF: AbacDiff = { lines: [], undecided: [], users: [], gains: 0, losses: 0 };

export interface AbacDiffOptions {
  /**
   * Only these users can differ (the caller changed nothing else of the graphs' facts: the review adds one
   * user's role): the others are not compared. A user's decisions read only that user's attributes, roles
   * and tenants, the tenants' and the instances', so the lines for these users are as without it.
   */
  users?: readonly string[];
}

export function diffAbac(before: AccessGraph, after: AccessGraph, opts: AbacDiffOptions = {}): AbacDiff {
  const A = before.abac;
  const B = after.abac;
  if (!A && !B) return EMPTY_DIFF;
  const byKey = pairRules(A, B);
  const users = [...new Set(opts.users ?? [...(A?.users() ?? []), ...(B?.users() ?? [])])].sort(cmp);
  const changes = changeDetector(A, B);
  const vectors = [sideVectors(A, users), sideVectors(B, users)] as const;
  // Per side and tenant: whether each user has a role there (which decides `user.roles` and tenant attributes).
  const outsideAll = new Uint8Array(users.length);
  const ctx: DiffContext = {
    A,
    B,
    byKey,
    users,
    roleCheck: roleChecker(before, after, users),
    changes,
    vectors,
    found: new Map(),
    undecided: new Map(),
    resourceBits: new Map(),
    membersIn: (k, t) => vectors[k]?.membersIn(t) ?? outsideAll,
    crossUserChanged: userChangeTracker(users, vectors, changes),
  };
  const permissions = [...new Set([...byKey.values()].map((p) => (p.b ?? p.a)!.via.permission))].sort(cmp);
  for (const permission of permissions) diffPermission(ctx, permission);
  const { lines, gains, losses, changedUsers } = changeLines(ctx);
  return { lines, undecided: undecidedOf(ctx), users: [...changedUsers].sort(cmp), gains, losses };
}

type RulePair = { a?: AbacRule; b?: AbacRule };
type UndecidedEntry = { rule: AbacRule; change: AbacUndecided['change']; users: Set<string>; instances: Set<string> };

/** What one diff shares across its permissions and groups of instances. */
interface DiffContext {
  A: AbacIndex | undefined;
  B: AbacIndex | undefined;
  /** Each rule on each side, by its key. */
  byKey: Map<string, RulePair>;
  /** Sorted; users are named by their index in it. */
  users: string[];
  /** Per user (by index): whether a role grants the permission on the instance, on either side. */
  roleCheck: (u: number) => (permission: string, instance: string) => boolean;
  changes: Changes;
  vectors: readonly [SideVectors | undefined, SideVectors | undefined];
  /** (sign, rule) → user → instances. */
  found: Map<string, Found>;
  undecided: Map<string, UndecidedEntry>;
  /** Per side, group of instances and resource set: its instances (yes, or depending on the context), for a user outside and inside the tenant. */
  resourceBits: Map<string, { yes: Uint32Array; maybe: Uint32Array }[]>;
  /** Per side and tenant: whether each user has a role there. */
  membersIn: (k: number, t: string) => Uint8Array;
  /** Per tenant and sets read per pair: the users whose values those sets read changed. */
  crossUserChanged: (t: string, reads: readonly Reads[]) => Uint8Array;
}

/** The rules of both sides by their key. */
function pairRules(A: AbacIndex | undefined, B: AbacIndex | undefined): Map<string, RulePair> {
  const byKey = new Map<string, RulePair>();
  const slot = (rule: string) => getOrSet(byKey, rule, (): RulePair => ({}));
  for (const r of A?.rules ?? []) slot(r.via.rule).a = r;
  for (const r of B?.rules ?? []) slot(r.via.rule).b = r;
  return byKey;
}

/** Per user (by index), made on first use: whether a role grants the permission on the instance on either side. */
function roleChecker(before: AccessGraph, after: AccessGraph, users: readonly string[]) {
  const roleChecks: ((permission: string, instance: string) => boolean)[] = [];
  return (u: number) => {
    let check = roleChecks[u];
    if (!check) {
      const [x, y] = [before.roleGrants(users[u]), after.roleGrants(users[u])];
      roleChecks[u] = check = (permission, instance) => x(permission, instance) || y(permission, instance);
    }
    return check;
  };
}

/** Per tenant and sets read, remembered: the users whose values those sets read differ between the sides. */
function userChangeTracker(
  users: readonly string[],
  vectors: readonly [SideVectors | undefined, SideVectors | undefined],
  changes: Changes,
) {
  const readsChanged = new Map<string, Uint8Array>();
  const changedFor = (t: string, r: Reads) => {
    // What does not read the tenant's attributes or the roles held there reads the same in every tenant.
    const tenantFree = r.tenant.length === 0 && !r.user.includes('roles');
    return getOrSet(readsChanged, tenantFree ? r.key : `${t}\u0000${r.key}`, () => {
      const out = new Uint8Array(users.length);
      if (!vectors[0] || !vectors[1] || changes.definitionsChanged) return out.fill(1);
      const [a, b] = [
        vectors[0].classesOf(r, tenantFree ? undefined : t),
        vectors[1].classesOf(r, tenantFree ? undefined : t),
      ];
      for (let u = 0; u < users.length; u++) out[u] = a.global[a.local[u]] !== b.global[b.local[u]] ? 1 : 0;
      return out;
    });
  };
  const crossChanged = new Map<string, Uint8Array>();
  return (t: string, reads: readonly Reads[]) =>
    getOrSet(crossChanged, `${t}\u0000${reads.map((r) => r.key).join('\u0000')}`, () => {
      const out = new Uint8Array(users.length);
      for (const r of new Map(reads.map((x) => [x.key, x])).values()) {
        const one = changedFor(t, r);
        for (let u = 0; u < users.length; u++) out[u] |= one[u];
      }
      return out;
    });
}

/** One permission's rules on both sides, and what its rules read per pair (sets reading across sides). */
interface PermissionScope {
  permission: string;
  type: string;
  allSides: ({ g: AbacIndex; rules: readonly AbacRule[]; vectors: SideVectors } | undefined)[];
  /** Rules read per pair (a set reading across sides): compared where something they read changed. */
  crossRules: RulePair[];
  crossReads: Reads[];
  /** Whether such a rule is new, removed or redefined (or reads instances that changed): compared everywhere. */
  crossEverywhere: boolean;
}

/** The gains, losses and undecided pairs of one permission, by group of instances in the same tenants. */
function diffPermission(ctx: DiffContext, permission: string): void {
  const { A, B, byKey, vectors, changes } = ctx;
  const type = typeOf(permission);
  const allSides = [A, B].map((g, k) => (g ? { g, rules: g.rulesFor(permission), vectors: vectors[k]! } : undefined));
  const crossRules = [...byKey.values()].filter(
    (p) => (p.b ?? p.a)!.via.permission === permission && [p.a, p.b].some((r) => r && isCross(r)),
  );
  const crossReads = crossRules
    .flatMap((p) => [p.a, p.b])
    .filter((r): r is AbacRule => r !== undefined)
    .flatMap((r) => [r.userSet.reads, r.resourceSet.reads]);
  const crossEverywhere = crossRules.some(
    (p) =>
      !p.a ||
      !p.b ||
      p.a.userSet.signature !== p.b.userSet.signature ||
      p.a.resourceSet.signature !== p.b.resourceSet.signature ||
      ((usesFk(p.a) || usesFk(p.b)) && changes.fkChanged()),
  );
  const scope: PermissionScope = { permission, type, allSides, crossRules, crossReads, crossEverywhere };
  // Instances grouped by their tenant on each side (one that moves is checked in its tenant on each side;
  // one that exists on one side only is granted nothing on the other).
  const groups = new Map<string, { tenants: (string | undefined)[]; instances: string[] }>();
  const where = [A, B].map((g) => {
    const out = new Map<string, string>();
    for (const [tenant, list] of g?.instancesOf(type) ?? []) for (const i of list) out.set(i, tenant);
    return out;
  });
  for (const i of [...new Set([...where[0].keys(), ...where[1].keys()])].sort(cmp)) {
    const ts = [where[0].get(i), where[1].get(i)];
    getOrSet(groups, `${ts[0] ?? ''}\u0000${ts[1] ?? ''}`, () => ({ tenants: ts, instances: [] })).instances.push(i);
  }
  for (const { tenants, instances } of groups.values()) diffInstanceGroup(ctx, scope, tenants, instances);
}

/** One permission on a group of instances in the same tenant on each side: visits the users that can differ. */
function diffInstanceGroup(
  ctx: DiffContext,
  scope: PermissionScope,
  ts: (string | undefined)[],
  instances: string[],
): void {
  const { users, changes } = ctx;
  const { permission, type, allSides, crossRules, crossReads, crossEverywhere } = scope;
  const sides = allSides.map((side, k) => (ts[k] === undefined ? undefined : side));
  const tk = ts.map((x) => x ?? ts[0] ?? ts[1]!);
  const t = tk[1];
  const words = (instances.length + 31) >>> 5;
  const bitsOf = (pred: (i: string) => boolean) => {
    const out = new Uint32Array(words);
    instances.forEach((i, k) => {
      if (pred(i)) out[k >>> 5] |= 1 << (k & 31);
    });
    return out;
  };
  const everything = bitsOf(() => true);
  const changedInstances =
    crossRules.length > 0 && !crossEverywhere && tk[0] === tk[1] && !changes.tenantChanged(t)
      ? bitsOf((i) => crossReads.some((r) => changes.instanceChanged(i, r)))
      : everything;
  const members = [ctx.membersIn(0, tk[0]), ctx.membersIn(1, tk[1])];
  const groupKey = `${type}\u0000${ts[0] ?? ''}\u0000${ts[1] ?? ''}`;
  const prepared = prepareSides(ctx, sides, tk, instances, members, groupKey);
  const changedUsers = crossRules.length > 0 && !crossEverywhere ? ctx.crossUserChanged(t, crossReads) : undefined;
  const shape = sameShape(prepared);
  const allWords = Int32Array.from({ length: words }, (_, w) => w);
  // Words where a rule read per side has other instances in its resource set on each side.
  const setsMoved = shape ? allWords.filter((w) => setsDifferAt(prepared, w)) : allWords;
  // Without rules read per pair, and with the same rules and resource sets on both sides, only users
  // whose place in a user set (or in the tenant) moved can gain or lose.
  const candidates =
    crossRules.length === 0 && shape && setsMoved.length === 0 ? indexesOf(widened(prepared, members)) : undefined;
  // With rules read per pair: a user whose place in no set (nor in the tenant) moved, and whose values
  // those rules read did not change, can differ only on the instances whose values the rules read per
  // pair changed, or that moved in or out of a resource set: only the words holding those are visited
  // for such a user (the others are equal on both sides).
  const narrow =
    crossRules.length > 0 && changedInstances !== everything && shape
      ? widened(prepared, members, changedUsers)
      : undefined;
  const narrowWords = narrow
    ? allWords.filter((w) => changedInstances[w] !== 0 || setsMoved.includes(w))
    : new Int32Array(0);
  const group = new GroupUsers({
    permission,
    users,
    instances,
    graphs: sides.map((s) => s?.g),
    prepared,
    members,
    cross: crossRules.length > 0,
    crossEverywhere,
    changedUsers,
    changedInstances,
    everything,
    narrow,
    narrowWords,
    roleCheck: ctx.roleCheck,
    found: ctx.found,
    undecided: (rule, user, instance) => {
      const entry = getOrSet(ctx.undecided, rule.via.rule, () => ({
        rule,
        change: changeOf(ctx.byKey.get(rule.via.rule)!),
        users: new Set<string>(),
        instances: new Set<string>(),
      }));
      entry.users.add(user);
      entry.instances.add(instance);
    },
  });
  if (candidates) for (const u of candidates) group.visit(u);
  else for (let u = 0; u < users.length; u++) group.visit(u);
}

/** Per side and rule read per side: the instances in its resource set (yes, or depending on the context), for a user outside and inside the tenant. */
function prepareSides(
  ctx: DiffContext,
  sides: PermissionScope['allSides'],
  tk: string[],
  instances: string[],
  members: Uint8Array[],
  groupKey: string,
): (Prepared[] | undefined)[] {
  return sides.map(
    (side, k) =>
      side &&
      side.rules.map((r): Prepared => {
        if (isCross(r)) {
          const users = r.userSet.cross ? undefined : side.vectors.vec(r.userSet, tk[k]);
          return {
            r,
            cross: true as const,
            ...(users ? { users } : {}),
            status: crossStatus(side.g, side.vectors, r, users, instances, tk[k], members[k]!, `${k}\u0000${groupKey}`),
          };
        }
        const sets = getOrSet(ctx.resourceBits, `${k}\u0000${groupKey}\u0000${r.resourceSet.key}`, () =>
          setBits(side.g, r.resourceSet, instances),
        );
        return { r, cross: false as const, users: side.vectors.vec(r.userSet, tk[k]), sets };
      }),
  );
}

/** The pairs found, as lines of users gaining or losing on the same instances for the same origin, largest first. */
function changeLines({ A, B, found, byKey, changes }: DiffContext) {
  const lines: AbacChangeLine[] = [];
  const differences = new Map<string, string[]>();
  let gains = 0;
  let losses = 0;
  const changedUsers = new Set<string>();
  const origins = originOf(A, B);
  for (const { sign, via, byUser } of found.values()) {
    const byInstances = new Map<string, { users: string[]; instances: string[]; origin: Origin }>();
    for (const [u, is] of byUser) {
      is.sort(cmp);
      for (const [origin, part] of origins(sign, u, is))
        getOrSet(byInstances, `${origin}\u0000${part.join('\u0000')}`, () => ({
          users: [],
          instances: part,
          origin,
        })).users.push(u);
      changedUsers.add(u);
      if (sign === '+') gains += is.length;
      else losses += is.length;
    }
    const pair = byKey.get(via.rule)!;
    for (const { users: us, instances, origin } of byInstances.values()) {
      us.sort(cmp);
      lines.push({
        sign,
        permission: via.permission,
        via,
        users: us,
        instances,
        causes: causesOf(A, B, { sign, pair, users: us, instances, origin }, changes, differences),
      });
    }
  }
  lines.sort(
    (x, y) =>
      y.users.length * y.instances.length - x.users.length * x.instances.length ||
      cmp(x.permission, y.permission) ||
      cmp(x.via.rule, y.via.rule) ||
      (x.sign === y.sign ? 0 : x.sign === '+' ? -1 : 1) ||
      cmp(x.users[0], y.users[0]),
  );
  return { lines, gains, losses, changedUsers };
}

/** The rules whose decisions depend on the context, with how many users and instances, sorted by rule. */
function undecidedOf({ undecided, byKey }: DiffContext): AbacUndecided[] {
  const out = [...undecided.values()]
    .map((e): AbacUndecided => ({
      via: e.rule.via,
      attributes: e.rule.context,
      users: e.users.size,
      instances: e.instances.size,
      change: e.change,
    }))
    .sort((x, y) => cmp(x.via.rule, y.via.rule));
  // Rules depending on the context that this plan adds or removes, even when no one is in their sets yet.
  for (const [key, pair] of byKey) {
    const r = (pair.b ?? pair.a)!;
    if (r.context.length > 0 && changeOf(pair) !== 'kept' && !undecided.has(key))
      out.push({ via: r.via, attributes: r.context, users: 0, instances: 0, change: changeOf(pair) });
  }
  return out;
}

/**
 * A user's gained (or lost) instances through one rule, by origin (causes.ts `Origin`): all the user's when
 * the user is new (deleted), else those that are new (deleted) apart from the rest. Sorted lists stay sorted.
 */
function originOf(
  A: AbacIndex | undefined,
  B: AbacIndex | undefined,
): (sign: '+' | '-', user: string, instances: string[]) => [Origin, string[]][] {
  // Without set rules on one side every line is the rule's (added or removed): nothing to tell apart.
  if (!A || !B) return (_sign, _user, instances) => [['kept', instances]];
  const newInstances = new Set([...B.facts.instances.keys()].filter((i) => !A.facts.instances.has(i)));
  const deletedInstances = new Set([...A.facts.instances.keys()].filter((i) => !B.facts.instances.has(i)));
  return (sign, user, instances) => {
    // A gain's user and instances are new when only after has them; a loss's deleted when only before has them.
    const [only, not, onOneSide] = sign === '+' ? [B, A, newInstances] : [A, B, deletedInstances];
    if (only.facts.users.has(user) && !not.facts.users.has(user)) return [['user', instances]];
    if (onOneSide.size === 0) return [['kept', instances]];
    const own = instances.filter((i) => onOneSide.has(i));
    if (own.length === 0) return [['kept', instances]];
    const rest = instances.filter((i) => !onOneSide.has(i));
    return rest.length === 0
      ? [['instance', own]]
      : [
          ['instance', own],
          ['kept', rest],
        ];
  };
}

/** A resource set's instances among the group's, as words: for a user outside the instances' tenant, and inside it. */
function setBits(g: AbacIndex, set: SetInfo, instances: readonly string[]): { yes: Uint32Array; maybe: Uint32Array }[] {
  const words = (instances.length + 31) >>> 5;
  const out = [0, 1].map(() => ({ yes: new Uint32Array(words), maybe: new Uint32Array(words) }));
  for (let k = 0; k < instances.length; k++) {
    const outside = g.instanceStatus(set, instances[k], false);
    // A set reading no tenant (nor roles held there) decides alike inside and outside it.
    const inside = set.tenantDependent ? g.instanceStatus(set, instances[k], true) : outside;
    [outside, inside].forEach((s, m) => {
      if (s === 1) out[m].yes[k >>> 5] |= 1 << (k & 31);
      else if (dependsOnContext(s)) out[m].maybe[k >>> 5] |= 1 << (k & 31);
    });
  }
  return out;
}

/** The indexes holding 1. */
function indexesOf(mask: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < mask.length; i++) if (mask[i] === 1) out.push(i);
  return out;
}

const changeOf = (p: { a?: AbacRule; b?: AbacRule }): AbacUndecided['change'] =>
  !p.a ? 'added' : !p.b ? 'removed' : 'kept';
const usesFk = (r: AbacRule) => r.userSet.fk || r.resourceSet.fk;

/** What changed between the graphs, as the sets read it (equal keys: equal decisions). */
function changeDetector(A: AbacIndex | undefined, B: AbacIndex | undefined): Changes {
  if (!A || !B) {
    const all = (type: string) =>
      [...new Set([A, B].flatMap((g) => [...(g?.instancesOf(type).values() ?? [])].flat()))].sort(cmp);
    return {
      definitionsChanged: true,
      userChanged: () => true,
      userRecordChanged: () => true,
      instanceChanged: () => true,
      changedInstances: all,
      tenantChanged: () => true,
      someTenantChanged: () => true,
      fkChanged: () => true,
    };
  }
  const definitionsChanged = JSON.stringify(definedOf(A)) !== JSON.stringify(definedOf(B));
  const tenants = new Map<string, boolean>();
  const tenantDiffers = (t: string) =>
    getOrSet(tenants, t, () => JSON.stringify(A.storedTenant(t) ?? null) !== JSON.stringify(B.storedTenant(t) ?? null));
  const users = new Map<string, Map<string, boolean>>();
  const instances = new Map<string, boolean>();
  const changedByType = new Map<string, string[]>();
  let someTenant: boolean | undefined;
  // A side shared by both graphs (made of the same values) has not changed.
  const whole = (u: string, t: string) => A.userBags(u, t) !== B.userBags(u, t) && A.userKey(u, t) !== B.userKey(u, t);
  let fk: boolean | undefined;
  const record = (g: AbacIndex, u: string) => g.facts.users.get(u);
  const sameRoles = (u: string) =>
    [...new Set([...A.tenantsOf(u), ...B.tenantsOf(u)])].every(
      (t) => A.rolesIn(u, t).join('\u0000') === B.rolesIn(u, t).join('\u0000'),
    );
  const records = new Map<string, boolean>();
  const userRecordChanged = (u: string) => getOrSet(records, u, () => recordChanged(u));
  const recordChanged = (u: string) => {
    const [a, b] = [record(A, u), record(B, u)];
    if (a === undefined || b === undefined) return a !== b;
    const same =
      a.attributes === b.attributes &&
      a.email === b.email &&
      a.first_name === b.first_name &&
      a.last_name === b.last_name;
    return !same || A.tenantsOf(u).join('\u0000') !== B.tenantsOf(u).join('\u0000') || !sameRoles(u);
  };
  return {
    definitionsChanged,
    userRecordChanged,
    userChanged: (u, t) =>
      definitionsChanged ||
      getOrSet(
        getOrSet(users, u, () => new Map<string, boolean>()),
        t,
        () => whole(u, t),
      ),
    instanceChanged: (i, r) => definitionsChanged || A.instanceKeyFor(r, i) !== B.instanceKeyFor(r, i),
    changedInstances: (type) =>
      getOrSet(changedByType, type, () =>
        [...new Set([A, B].flatMap((g) => [...g.instancesOf(type).values()].flat()))]
          .filter((i) => getOrSet(instances, i, () => A.instanceKey(i) !== B.instanceKey(i)) || definitionsChanged)
          .sort(cmp),
      ),
    someTenantChanged: () =>
      (someTenant ??= [...new Set([...A.facts.tenants.keys(), ...B.facts.tenants.keys()])].some(tenantDiffers)),
    tenantChanged: (t) => definitionsChanged || tenantDiffers(t),
    fkChanged: () => (fk ??= JSON.stringify([...A.fkInstances]) !== JSON.stringify([...B.fkInstances])),
  };
}

function definedOf(g: AbacIndex) {
  const d = g.facts.defined;
  return [[...d.user].sort(), [...d.tenant].sort(), [...d.byResource].map(([k, v]) => [k, [...v].sort()]).sort()];
}

/** "user set senior-approvers", or "role admin" for a rule on a role's autogenerated set. */
export function describeUserSet(key: string): string {
  return key.startsWith('__autogen_') ? `role ${key.slice('__autogen_'.length)}` : `user set ${key}`;
}
/** "resource set small-expenses", or "every expense" for a rule on a resource's autogenerated set. */
export function describeResourceSet(key: string): string {
  return key.startsWith('__autogen_') ? `every ${key.slice('__autogen_'.length)}` : `resource set ${key}`;
}

/** "+12 users gain expense:approve on 300 expenses: user set senior-approvers × resource set small-expenses, after bob's level changed". */
export function formatAbacLine(l: AbacChangeLine): string {
  const n = l.users.length;
  const verb = l.sign === '+' ? (n === 1 ? 'gains' : 'gain') : n === 1 ? 'loses' : 'lose';
  const who = n === 1 ? l.users[0] : plural(n, 'user');
  const after = l.causes.length > 0 ? `, after ${l.causes.join('; ')}` : '';
  return `${l.sign}${who} ${verb} ${l.permission} on ${countInstances(l.instances)}: ${describeUserSet(l.via.userSet)} × ${describeResourceSet(l.via.resourceSet)}${after}`;
}

/** "? document:approve: user set x × resource set y depends on context.amount: not decided offline (3 users on 2 documents)". */
export function formatAbacUndecided(u: AbacUndecided): string {
  const what = u.change === 'added' ? ' (a new rule)' : u.change === 'removed' ? ' (a removed rule)' : '';
  const scope =
    u.users > 0 ? `; ${plural(u.users, 'user')} on ${plural(u.instances, 'instance')} may gain or lose it` : '';
  return `? ${u.via.permission}: ${describeUserSet(u.via.userSet)} × ${describeResourceSet(u.via.resourceSet)}${what} depends on ${u.attributes.join(', ')}: not decided offline${scope}`;
}
