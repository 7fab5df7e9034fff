/**
 * The set-rule diff's view of one side (diff.ts): the users' classes for what sets read, user sets'
 * outcomes for every user, and the rules of a group of instances ready for the users' loop, sets read
 * across sides decided once per (class of users, class of instances). Pure.
 */
import type { AbacVia } from '../facts.js';
import type { AbacIndex, AbacRule, Reads, SetInfo, Status, UserBags } from './graph.js';
import { andStatus, orStatus, type Bag } from '../conditions/index.js';
import { getOrSet } from '../groups.js';

export const isCross = (r: AbacRule) => r.userSet.cross || r.resourceSet.cross;

export type Found = { sign: '+' | '-'; via: AbacVia; byUser: Map<string, string[]> };
/** A rule on one side of a group, ready for the users' loop; `entry` and `list` remember where its pairs go. */
export type Prepared = (
  | { r: AbacRule; cross: true; users?: Uint8Array; status: PairStatus }
  | { r: AbacRule; cross: false; users: Uint8Array; sets: { yes: Uint32Array; maybe: Uint32Array }[] }
) & {
  entry?: Found;
  list?: string[];
  listUser?: number;
};

/** The same rules on both sides in the same order, each read per pair on both sides or on neither. */
export function sameShape(prepared: readonly (readonly Prepared[] | undefined)[]): boolean {
  const [a, b] = prepared;
  if (!a || !b || a.length !== b.length) return false;
  return a.every((p, i) => p.r.via.rule === b[i].r.via.rule && p.cross === b[i].cross);
}

/** Whether a rule read per side has other instances in its resource set on each side in word `w` (`sameShape` holds). */
export function setsDifferAt(prepared: readonly (readonly Prepared[] | undefined)[], w: number): boolean {
  const [a, b] = prepared as [Prepared[], Prepared[]];
  return a.some((p, i) => {
    const q = b[i];
    return (
      !p.cross && !q.cross && p.sets.some((s, m) => s.yes[w] !== q.sets[m].yes[w] || s.maybe[w] !== q.sets[m].maybe[w])
    );
  });
}

/**
 * Per user (by index), 1 when their outcome in some rule's user set, their place in the tenant, or (with
 * `changed`) the values the rules read per pair differ between the sides (`sameShape` holds).
 */
export function widened(
  prepared: readonly (readonly Prepared[] | undefined)[],
  members: readonly Uint8Array[],
  changed?: Uint8Array,
): Uint8Array {
  const [a, b] = prepared as [Prepared[], Prepared[]];
  const out = new Uint8Array(members[0].length);
  for (let u = 0; u < out.length; u++) {
    if (changed?.[u] === 1 || members[0][u] !== members[1][u]) out[u] = 1;
    else
      for (let i = 0; i < a.length && out[u] === 0; i++)
        if ((a[i].users?.[u] ?? 0) !== (b[i].users?.[u] ?? 0)) out[u] = 1;
  }
  return out;
}

/** Either (conditions/judge.ts `orStatus`). */
export const or = orStatus;

/** The users' classes for what some sets read: `local[u]` numbers them densely, `global` gives the memo's id of each. */
export interface Classes {
  local: Int32Array;
  global: Int32Array;
  /** A user (by index) of each class. */
  rep: Int32Array;
  count: number;
}

export interface SideVectors {
  users: readonly string[];
  /** What sets reading `reads` see of each user, in checks in the tenant (outside every tenant when undefined). */
  classesOf(reads: Reads, tenant: string | undefined): Classes;
  /** Whether each user has a role in the tenant (a role assignment or a membership). */
  membersIn(tenant: string): Uint8Array;
  /** A user set's outcome for every user (by index) in checks in a tenant, computed once per class of users. */
  vec(set: SetInfo, tenant: string): Uint8Array;
  /** Pair tables of sets read across sides, by side, group and set (crossStatus). */
  pairs: Map<string, PairTable>;
}

export function sideVectors(g: AbacIndex | undefined, users: readonly string[]): SideVectors | undefined {
  if (!g) return undefined;
  const classes = new Map<string, Classes>();
  const membership = g.membership(users);
  const none = new Uint8Array(users.length);
  const membersIn = (tenant: string) => membership.get(tenant) ?? none;
  const classesOf = (reads: Reads, tenant: string | undefined): Classes =>
    getOrSet(classes, `${tenant ?? ''}\u0001${reads.key}`, () => {
      const local = new Int32Array(users.length);
      const byGlobal = new Map<number, number>();
      const global: number[] = [];
      const rep: number[] = [];
      const ids = g.userClasses(reads, users, tenant, tenant === undefined ? undefined : membersIn(tenant));
      for (let u = 0; u < users.length; u++) {
        const id = ids[u];
        let l = byGlobal.get(id);
        if (l === undefined) {
          byGlobal.set(id, (l = global.length));
          global.push(id);
          rep.push(u);
        }
        local[u] = l;
      }
      return { local, global: Int32Array.from(global), rep: Int32Array.from(rep), count: global.length };
    });
  const known = new Map<string, Uint8Array>();
  const vec = (set: SetInfo, tenant: string) =>
    getOrSet(known, set.tenantDependent ? `${set.key}\u0000${tenant}` : set.key, () => {
      const c = classesOf(set.reads, set.tenantDependent ? tenant : undefined);
      const byClass = new Int8Array(c.count).fill(-1);
      const out = new Uint8Array(users.length);
      for (let u = 0; u < users.length; u++) {
        const l = c.local[u];
        let s = byClass[l];
        if (s < 0) byClass[l] = s = g.userStatus(set, users[c.rep[l]], tenant);
        out[u] = s;
      }
      return out;
    });
  return { users, classesOf, membersIn, vec, pairs: new Map() };
}

/** A rule's outcome on (user index, instance index in the group). */
export type PairStatus = (u: number, k: number) => Status;

/**
 * A set read across sides on the pairs of one group of instances (one type, one tenant on this side):
 * decided once per (class of users, class of instances) as the set reads them, remembered densely.
 */
export interface PairTable {
  status(u: number, k: number): Status;
}

const DENSE_LIMIT = 1 << 22;

function pairTable(
  g: AbacIndex,
  side: SideVectors,
  set: SetInfo,
  users: readonly string[],
  instances: readonly string[],
  tenant: string,
): PairTable {
  // A set that reads no tenant (nor the roles held there) sees a user alike in every tenant.
  const uc = side.classesOf(set.reads, set.tenantDependent ? tenant : undefined);
  const ic = new Int32Array(instances.length);
  const byGlobal = new Map<number, number>();
  const repI: number[] = [];
  for (let k = 0; k < instances.length; k++) {
    const id = g.instanceClass(set.reads, instances[k]);
    let l = byGlobal.get(id);
    if (l === undefined) {
      byGlobal.set(id, (l = repI.length));
      repI.push(k);
    }
    ic[k] = l;
  }
  const nI = repI.length;
  // The sides' attributes, once per class.
  const userBags: (UserBags | undefined)[] = [];
  const resourceBags: (Bag | undefined)[] = [];
  const decide = (cu: number, ci: number) =>
    g.decideBags(
      set,
      (userBags[cu] ??= g.userBags(users[uc.rep[cu]], tenant)),
      (resourceBags[ci] ??= g.resourceBag(instances[repI[ci]])),
    );
  if (uc.count * nI <= DENSE_LIMIT) {
    const table = new Int8Array(uc.count * nI).fill(-1);
    return {
      status(u, k) {
        const cu = uc.local[u];
        const x = cu * nI + ic[k];
        let s = table[x];
        if (s < 0) table[x] = s = decide(cu, ic[k]);
        return s as Status;
      },
    };
  }
  const sparse = new Map<number, Status>();
  return {
    status(u, k) {
      const cu = uc.local[u];
      const x = cu * nI + ic[k];
      let s = sparse.get(x);
      if (s === undefined) sparse.set(x, (s = decide(cu, ic[k])));
      return s;
    },
  };
}

/**
 * A rule reading across sides, on the pairs of a group (its instances' tenant on this side): its user set
 * by the user's vector or a pair table, its resource set by the instance's status or a pair table.
 */
export function crossStatus(
  g: AbacIndex,
  side: SideVectors,
  r: AbacRule,
  userVec: Uint8Array | undefined,
  instances: readonly string[],
  tenant: string,
  members: Uint8Array,
  group: string,
): PairStatus {
  const users = side.users;
  const table = (set: SetInfo) =>
    getOrSet(side.pairs, `${group}\u0000${set.key}`, () => pairTable(g, side, set, users, instances, tenant));
  const userPart = userVec ? undefined : table(r.userSet);
  let resOf: PairStatus;
  if (r.resourceSet.cross) {
    const t = table(r.resourceSet);
    resOf = (u, k) => t.status(u, k);
  } else {
    const byMember = [false, true].map((m) => Uint8Array.from(instances, (i) => g.instanceStatus(r.resourceSet, i, m)));
    resOf = (u, k) => byMember[members[u]][k] as Status;
  }
  return (u, k) => {
    const su = userVec ? (userVec[u] as Status) : userPart!.status(u, k);
    if (su === 0) return 0;
    const sr = resOf(u, k);
    return sr === 0 ? 0 : and(su, sr);
  };
}

const and = andStatus;
