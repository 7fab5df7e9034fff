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
 * Only pairs whose decision can differ are visited (abac-graph.ts decides each side once): for a rule
 * whose sets are unchanged, the users whose attributes (as the rule's sets read them) changed × the
 * instances in its resource set, and the instances whose attributes changed × the users in its user set;
 * for a new, removed or redefined rule, its user set × its resource set.
 */
import type { AbacVia } from './facts.js';
import type { AccessGraph } from './graph.js';
import { dependsOnContext, type AbacIndex, type AbacRule, type SetInfo, type Status } from './abac-graph.js';
import { getOrSet } from './groups.js';
import { cmp } from './paths.js';
import { countInstances } from './summary.js';
import { plural } from '../words.js';
import { typeOf } from '../types/refs.js';

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

export function diffAbac(before: AccessGraph, after: AccessGraph): AbacDiff {
  const A = before.abac;
  const B = after.abac;
  if (!A && !B) return EMPTY_DIFF;
  const byKey = new Map<string, { a?: AbacRule; b?: AbacRule }>();
  const slot = (rule: string) => getOrSet(byKey, rule, (): { a?: AbacRule; b?: AbacRule } => ({}));
  for (const r of A?.rules ?? []) slot(r.via.rule).a = r;
  for (const r of B?.rules ?? []) slot(r.via.rule).b = r;
  const users = [...new Set([...(A?.users() ?? []), ...(B?.users() ?? [])])].sort(cmp);
  const rbac = [rolesGrant(before), rolesGrant(after)] as const;
  const changes = changeDetector(A, B);

  // (sign, rule) → user → instances
  const found = new Map<string, { sign: '+' | '-'; via: AbacVia; byUser: Map<string, string[]> }>();
  const undecided = new Map<string, { rule: AbacRule; change: AbacUndecided['change']; users: Set<string>; instances: Set<string> }>();
  const visited = new Map<string, Set<string>>(); // permission → pair keys
  const status = (g: AbacIndex | undefined, u: string, p: string, i: string): Status => (g ? g.permissionStatus(u, p, i) : 0);

  for (const { a, b } of byKey.values()) {
    const rule = (b ?? a)!;
    const permission = rule.via.permission;
    const seen = getOrSet(visited, permission, () => new Set<string>());
    const global = !a || !b || a.userSet.signature !== b.userSet.signature || a.resourceSet.signature !== b.resourceSet.signature ||
      ((usesFk(a) || usesFk(b)) && changes.fkChanged());
    const visit = (u: string, i: string) => {
      const pair = `${u}\u0000${i}`;
      if (seen.has(pair)) return;
      seen.add(pair);
      const s0 = status(A, u, permission, i);
      const s1 = status(B, u, permission, i);
      if (s0 === s1) return;
      if (dependsOnContext(s0) || dependsOnContext(s1)) {
        for (const g of [A, B]) {
          for (const r of g?.rulesFor(permission) ?? []) {
            if (!dependsOnContext(g!.ruleStatus(r, u, i))) continue;
            const entry = getOrSet(undecided, r.via.rule, () => ({ rule: r, change: changeOf(byKey.get(r.via.rule)!), users: new Set<string>(), instances: new Set<string>() }));
            entry.users.add(u);
            entry.instances.add(i);
          }
        }
        return;
      }
      if (rbac[0](u, permission, i) || rbac[1](u, permission, i)) return;
      const sign = s1 === 1 ? '+' : '-';
      const g = (sign === '+' ? B : A)!;
      const by = g.rulesFor(permission).find((r) => g.ruleStatus(r, u, i) === 1)!;
      const entry = getOrSet(found, `${sign}\u0000${by.via.rule}`, () => ({ sign, via: by.via, byUser: new Map<string, string[]>() }));
      getOrSet(entry.byUser, u, () => []).push(i);
    };
    const type = rule.def.resource;
    const tenants = new Set([...(A?.instancesOf(type).keys() ?? []), ...(B?.instancesOf(type).keys() ?? [])]);
    for (const t of [...tenants].sort(cmp)) {
      const instances = [...new Set([...(A?.instancesOf(type).get(t) ?? []), ...(B?.instancesOf(type).get(t) ?? [])])].sort(cmp);
      const inResources = instances.filter((i) => [[A, a], [B, b]].some(([g, r]) => g && r && mayHoldInstance(g as AbacIndex, (r as AbacRule).resourceSet, i)));
      const inUsers = users.filter((u) => [[A, a], [B, b]].some(([g, r]) => g && r && mayHoldUser(g as AbacIndex, (r as AbacRule).userSet, u, t)));
      if (global || changes.tenantChanged(t)) {
        for (const u of inUsers) for (const i of inResources) visit(u, i);
        continue;
      }
      const changedInstances = inResources.filter((i) => changes.instanceChanged(i));
      for (const u of inUsers) {
        if (changes.userChanged(u, t)) for (const i of inResources) visit(u, i);
        else for (const i of changedInstances) visit(u, i);
      }
    }
  }

  const lines: AbacChangeLine[] = [];
  let gains = 0;
  let losses = 0;
  const changedUsers = new Set<string>();
  for (const { sign, via, byUser } of found.values()) {
    const byInstances = new Map<string, { users: string[]; instances: string[] }>();
    for (const [u, is] of byUser) {
      is.sort(cmp);
      getOrSet(byInstances, is.join('\u0000'), () => ({ users: [], instances: is })).users.push(u);
      changedUsers.add(u);
      if (sign === '+') gains += is.length;
      else losses += is.length;
    }
    const pair = byKey.get(via.rule)!;
    for (const { users: us, instances } of byInstances.values()) {
      us.sort(cmp);
      lines.push({ sign, permission: via.permission, via, users: us, instances, causes: causesOf(A, B, pair, us, instances, changes) });
    }
  }
  lines.sort((x, y) => y.users.length * y.instances.length - x.users.length * x.instances.length || cmp(x.permission, y.permission) || cmp(x.via.rule, y.via.rule) || (x.sign === y.sign ? 0 : x.sign === '+' ? -1 : 1) || cmp(x.users[0], y.users[0]));
  const undecidedOut = [...undecided.values()]
    .map((e): AbacUndecided => ({ via: e.rule.via, attributes: e.rule.context, users: e.users.size, instances: e.instances.size, change: e.change }))
    .sort((x, y) => cmp(x.via.rule, y.via.rule));
  // Rules depending on the context that this plan adds or removes, even when no one is in their sets yet.
  for (const [key, pair] of byKey) {
    const r = (pair.b ?? pair.a)!;
    if (r.context.length > 0 && changeOf(pair) !== 'kept' && !undecided.has(key)) undecidedOut.push({ via: r.via, attributes: r.context, users: 0, instances: 0, change: changeOf(pair) });
  }
  return { lines, undecided: undecidedOut, users: [...changedUsers].sort(cmp), gains, losses };
}

const changeOf = (p: { a?: AbacRule; b?: AbacRule }): AbacUndecided['change'] => (!p.a ? 'added' : !p.b ? 'removed' : 'kept');
const usesFk = (r: AbacRule) => r.userSet.fk || r.resourceSet.fk;

/** Whether the instance may be in the resource set (cross sets: any instance of its type). */
function mayHoldInstance(g: AbacIndex, set: SetInfo, instance: string): boolean {
  if (set.cross) return set.def.type !== 'resourceset' || typeOf(instance) === set.def.resource;
  if (g.instanceStatus(set, instance, false) !== 0) return true;
  return set.tenantDependent && g.instanceStatus(set, instance, true) !== 0;
}
function mayHoldUser(g: AbacIndex, set: SetInfo, user: string, tenant: string): boolean {
  return set.cross || g.userStatus(set, user, tenant) !== 0;
}

/** Whether a role grants the permission on the instance, in one graph (memoised per role). */
function rolesGrant(g: AccessGraph): (user: string, permission: string, instance: string) => boolean {
  const perms = new Map<string, ReadonlySet<string>>();
  return (user, permission, instance) =>
    g.rolesOn(user, instance).some((h) => getOrSet(perms, h.role, () => new Set(g.permissionsOf(h.role))).has(permission));
}

interface Changes {
  userChanged(user: string, tenant: string): boolean;
  instanceChanged(instance: string): boolean;
  tenantChanged(tenant: string): boolean;
  fkChanged(): boolean;
}

/** What changed between the graphs, as the sets read it (equal keys: equal decisions). */
function changeDetector(A: AbacIndex | undefined, B: AbacIndex | undefined): Changes {
  if (!A || !B) return { userChanged: () => true, instanceChanged: () => true, tenantChanged: () => true, fkChanged: () => true };
  const definitionsChanged = JSON.stringify(definedOf(A)) !== JSON.stringify(definedOf(B));
  const tenants = new Map<string, boolean>();
  let fk: boolean | undefined;
  return {
    userChanged: (u, t) => definitionsChanged || A.userKey(u, t) !== B.userKey(u, t),
    instanceChanged: (i) => definitionsChanged || A.instanceKey(i) !== B.instanceKey(i),
    tenantChanged: (t) => getOrSet(tenants, t, () => definitionsChanged || JSON.stringify(A.storedTenant(t) ?? null) !== JSON.stringify(B.storedTenant(t) ?? null)),
    fkChanged: () => (fk ??= JSON.stringify([...A.fkInstances]) !== JSON.stringify([...B.fkInstances])),
  };
}

function definedOf(g: AbacIndex) {
  const d = g.facts.defined;
  return [[...d.user].sort(), [...d.tenant].sort(), [...d.byResource].map(([k, v]) => [k, [...v].sort()]).sort()];
}

const MAX_CAUSES = 3;

/** What changed that concerns the line: the rule, its sets, the users', instances' and tenants' attributes, roles. */
function causesOf(
  A: AbacIndex | undefined,
  B: AbacIndex | undefined,
  pair: { a?: AbacRule; b?: AbacRule },
  users: readonly string[],
  instances: readonly string[],
  changes: Changes,
): string[] {
  const out: string[] = [];
  if (!pair.a) out.push('the rule was added');
  else if (!pair.b) out.push('the rule was removed');
  else {
    for (const [kind, x, y] of [['user set', pair.a.userSet, pair.b.userSet], ['resource set', pair.a.resourceSet, pair.b.resourceSet]] as const) {
      if (x.signature === y.signature) continue;
      const before = new Map(x.chain.map((s) => [s.key, JSON.stringify(s)]));
      const after = new Map(y.chain.map((s) => [s.key, JSON.stringify(s)]));
      const sets = [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k));
      out.push(sets.length === 0 ? `${kind} ${x.key}'s parents changed` : `${kind} ${sets.join(', ')}'s conditions changed`);
    }
  }
  if (A && B) {
    if (JSON.stringify(definedOf(A)) !== JSON.stringify(definedOf(B))) out.push('attribute definitions changed');
    // Users: which stored attributes, roles or tenants changed (as the user set reads them).
    const byWhat = new Map<string, string[]>();
    const tenants = [...new Set(instances.map((i) => (B.tenantOf(i))))];
    for (const u of users) {
      if (!tenants.some((t) => changes.userChanged(u, t))) continue;
      const whats = userDifferences(A, B, u, tenants);
      if (whats.length > 0) getOrSet(byWhat, joinWords(whats), () => []).push(u);
    }
    for (const [what, us] of byWhat) out.push(us.length === 1 ? `${us[0]}'s ${what} changed` : `the ${what} of ${plural(us.length, 'user')} changed`);
    const byInstanceWhat = new Map<string, string[]>();
    for (const i of instances) {
      if (!changes.instanceChanged(i)) continue;
      for (const what of bagDifferences(A.storedInstance(i), B.storedInstance(i))) getOrSet(byInstanceWhat, what, () => []).push(i);
      if (A.tenantOf(i) !== B.tenantOf(i)) getOrSet(byInstanceWhat, 'tenant', () => []).push(i);
    }
    for (const [what, is] of byInstanceWhat) out.push(is.length === 1 ? `${is[0]}'s ${what} changed` : `the ${what} of ${countInstances(is)} changed`);
    for (const t of tenants) for (const what of bagDifferences(A.storedTenant(t), B.storedTenant(t))) out.push(`tenant ${t}'s ${what} changed`);
  }
  return out.length > MAX_CAUSES ? [...out.slice(0, MAX_CAUSES), `${plural(out.length - MAX_CAUSES, 'more change')}`] : out;
}

function userDifferences(A: AbacIndex, B: AbacIndex, user: string, tenants: readonly string[]): string[] {
  const a = A.storedUser(user);
  const b = B.storedUser(user);
  const out = a === undefined || b === undefined ? (a === b ? [] : ['record']) : bagDifferences({ ...(a.attributes as object), email: a.email ?? null }, { ...(b.attributes as object), email: b.email ?? null });
  if (tenants.some((t) => A.rolesIn(user, t).join() !== B.rolesIn(user, t).join())) out.push('roles');
  if (A.tenantsOf(user).join() !== B.tenantsOf(user).join()) out.push('tenants');
  return out;
}

/** Keys whose values differ, sorted, as one item: "level", or "level and department". */
function bagDifferences(a: object | undefined, b: object | undefined): string[] {
  const x = (a ?? {}) as Record<string, unknown>;
  const y = (b ?? {}) as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])].filter((k) => JSON.stringify(x[k]) !== JSON.stringify(y[k])).sort(cmp);
  return keys.length === 0 ? [] : [joinWords(keys)];
}

const joinWords = (xs: readonly string[]) => (xs.length <= 2 ? xs.join(' and ') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);

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
  const scope = u.users > 0 ? `; ${plural(u.users, 'user')} on ${plural(u.instances, 'instance')} may gain or lose it` : '';
  return `? ${u.via.permission}: ${describeUserSet(u.via.userSet)} × ${describeResourceSet(u.via.resourceSet)}${what} depends on ${u.attributes.join(', ')}: not decided offline${scope}`;
}
