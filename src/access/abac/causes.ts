/**
 * Why a set-rule line of the access section changes (diff.ts): the rule, its sets, and the users',
 * instances' and tenants' stored values that concern the line, in words ("bob's level changed", "15 new
 * users", "resource set small was defined again"). Pure; run once per line, after the diff's loops.
 */
import type { AbacIndex, AbacRule, Reads } from './graph.js';
import type { SetDef } from '../conditions/index.js';
import { getOrSet } from '../groups.js';
import { cmp } from '../paths.js';
import { countInstances } from '../summary.js';
import { plural } from '../../words.js';
import { typeOf } from '../../types/refs.js';

/** What changed between the graphs, as the sets read it (equal keys: equal decisions): diff.ts `changeDetector`. */
export interface Changes {
  /** Attribute definitions differ: every user's and instance's attributes may read differently. */
  definitionsChanged: boolean;
  /** Whether what the model's sets read of the user, in checks in the tenant, differs. */
  userChanged(user: string, tenant: string): boolean;
  /**
   * Whether the user's own record differs (stored attributes, names, tenants, roles in any tenant): when
   * not, and definitions are the same, only their tenants' attributes can make `userChanged` true.
   */
  userRecordChanged(user: string): boolean;
  /** Whether what sets reading `reads` read of the instance (and its tenant) differs. */
  instanceChanged(instance: string, reads: Reads): boolean;
  /** The instances of a type whose attributes (as the model reads them) or tenant changed, sorted. */
  changedInstances(type: string): readonly string[];
  tenantChanged(tenant: string): boolean;
  /** Whether any tenant's stored attributes changed. */
  someTenantChanged(): boolean;
  fkChanged(): boolean;
}

/**
 * What a line's gains or losses come from. A new user's gains and a deleted user's losses are the
 * user's (`user`), whatever else changed; the rest on a new or deleted instance are the instance's
 * (`instance`); the others (`kept`) are between users and instances on both sides. The diff gives each
 * its own lines, so that a deletion's cause is said only of what it took.
 */
export type Origin = 'user' | 'instance' | 'kept';

export interface LineOfCauses {
  sign: '+' | '-';
  pair: { a?: AbacRule; b?: AbacRule };
  users: readonly string[];
  /** Sorted. */
  instances: readonly string[];
  origin: Origin;
}

const MAX_CAUSES = 3;

/** What changed that concerns the line: the rule, its sets, the users', instances' and tenants' attributes, roles. */
export function causesOf(
  A: AbacIndex | undefined,
  B: AbacIndex | undefined,
  line: LineOfCauses,
  changes: Changes,
  memo: Map<string, string[]>,
): string[] {
  const { sign, pair, users, instances, origin } = line;
  const out = ruleCauses(B, pair);
  if (A && B) {
    if (origin === 'user')
      out.push(
        users.length === 1
          ? `${sign === '+' ? 'new' : 'deleted'} user ${users[0]}`
          : plural(users.length, sign === '+' ? 'new user' : 'deleted user'),
      );
    else if (origin === 'instance')
      out.push(
        instances.length === 1
          ? `${sign === '+' ? 'new' : 'deleted'} instance ${instances[0]}`
          : countInstances(instances, sign === '+' ? 'new' : 'deleted'),
      );
    else out.push(...keptCauses(A, B, users, instances, changes, memo));
  }
  return out.length > MAX_CAUSES
    ? [...out.slice(0, MAX_CAUSES), `${plural(out.length - MAX_CAUSES, 'more change')}`]
    : out;
}

/** The rule added or removed, its sets' conditions or parents changed, or a set defined again (replaced). */
function ruleCauses(B: AbacIndex | undefined, pair: { a?: AbacRule; b?: AbacRule }): string[] {
  if (!pair.a) return ['the rule was added'];
  const slots = [
    ['user set', 'userSet'],
    ['resource set', 'resourceSet'],
  ] as const;
  if (!pair.b) {
    // A set replaced by the plan takes its rules with it; those the plan does not make again are removed.
    const gone = slots.find(([, slot]) => {
      const now = B?.set(pair.a![slot].key);
      return now !== undefined && definedAgain(pair.a![slot].def, now.def);
    });
    return [
      gone ? `the rule was removed with ${gone[0]} ${pair.a[gone[1]].key}, defined again` : 'the rule was removed',
    ];
  }
  const out: string[] = [];
  for (const [kind, slot] of slots) {
    const [x, y] = [pair.a[slot], pair.b[slot]];
    if (x.signature === y.signature) continue;
    const after = new Map(y.chain.map((s) => [s.key, s]));
    const both = x.chain.filter((s) => after.has(s.key));
    const again = both.filter((s) => definedAgain(s, after.get(s.key)!)).map((s) => s.key);
    const conditions = both
      .filter(
        (s) => !again.includes(s.key) && JSON.stringify(s.conditions) !== JSON.stringify(after.get(s.key)!.conditions),
      )
      .map((s) => s.key);
    if (again.length > 0) out.push(`${kind} ${again.join(', ')} ${again.length === 1 ? 'was' : 'were'} defined again`);
    if (conditions.length > 0) out.push(`${kind} ${conditions.join(', ')}'s conditions changed`);
    const chainMoved = x.chain.map((s) => s.key).join('\u0000') !== y.chain.map((s) => s.key).join('\u0000');
    if (chainMoved && !again.includes(x.key)) out.push(`${kind} ${x.key}'s parents changed`);
  }
  return out;
}

/**
 * Whether the set was made again rather than updated: another type or base resource, or no parent where it
 * had one, which the public update cannot change (src/plan/abac.ts replaces such a set).
 */
function definedAgain(x: SetDef, y: SetDef): boolean {
  return (
    x.type !== y.type || (x.resource ?? '') !== (y.resource ?? '') || (x.parent !== undefined && y.parent === undefined)
  );
}

/** Between users and instances on both sides: which stored attributes, roles or tenants changed. */
function keptCauses(
  A: AbacIndex,
  B: AbacIndex,
  users: readonly string[],
  instances: readonly string[],
  changes: Changes,
  memo: Map<string, string[]>,
): string[] {
  const out: string[] = [];
  if (changes.definitionsChanged) out.push('attribute definitions changed');
  // The tenants of the line's instances, when a user's record or a tenant changed.
  let tenants: string[] | undefined;
  const tenantsOfLine = () => (tenants ??= [...new Set(instances.map((i) => B.tenantOf(i)))]);
  // Users: which stored attributes, roles or tenants changed (as the user set reads them).
  const byWhat = new Map<string, string[]>();
  for (const u of users) {
    if (!changes.definitionsChanged && !changes.userRecordChanged(u)) continue;
    if (!tenantsOfLine().some((t) => changes.userChanged(u, t))) continue;
    const whats = userDifferences(A, B, u, tenantsOfLine(), memo);
    if (whats.length > 0) getOrSet(byWhat, joinWords(whats), () => []).push(u);
  }
  for (const [what, us] of byWhat)
    out.push(us.length === 1 ? `${us[0]}'s ${what} changed` : `the ${what} of ${plural(us.length, 'user')} changed`);
  // Instances: the few whose attributes or tenant changed, looked up in the line's (sorted) list.
  const byInstanceWhat = new Map<string, string[]>();
  for (const i of changes.changedInstances(typeOf(instances[0]))) {
    if (!includesSorted(instances, i)) continue;
    for (const what of bagDifferences(A.storedInstance(i), B.storedInstance(i)))
      getOrSet(byInstanceWhat, what, () => []).push(i);
    if (A.tenantOf(i) !== B.tenantOf(i)) getOrSet(byInstanceWhat, 'tenant', () => []).push(i);
  }
  for (const [what, is] of byInstanceWhat)
    out.push(is.length === 1 ? `${is[0]}'s ${what} changed` : `the ${what} of ${countInstances(is)} changed`);
  if (changes.someTenantChanged())
    for (const t of tenantsOfLine())
      for (const what of bagDifferences(A.storedTenant(t), B.storedTenant(t)))
        out.push(`tenant ${t}'s ${what} changed`);
  return out;
}

function userDifferences(
  A: AbacIndex,
  B: AbacIndex,
  user: string,
  tenants: readonly string[],
  memo: Map<string, string[]>,
): string[] {
  return getOrSet(memo, `${user}\u0000${tenants.join('\u0000')}`, () => userDifferencesOf(A, B, user, tenants));
}
function userDifferencesOf(A: AbacIndex, B: AbacIndex, user: string, tenants: readonly string[]): string[] {
  const a = A.storedUser(user);
  const b = B.storedUser(user);
  const out =
    a === undefined || b === undefined
      ? a === b
        ? []
        : ['record']
      : bagDifferences(
          { ...(a.attributes as object), email: a.email ?? null },
          { ...(b.attributes as object), email: b.email ?? null },
        );
  if (tenants.some((t) => A.rolesIn(user, t).join() !== B.rolesIn(user, t).join())) out.push('roles');
  if (A.tenantsOf(user).join() !== B.tenantsOf(user).join()) out.push('tenants');
  return out;
}

/** Keys whose values differ, sorted, as one item: "level", or "level and department". */
function bagDifferences(a: object | undefined, b: object | undefined): string[] {
  const x = (a ?? {}) as Record<string, unknown>;
  const y = (b ?? {}) as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])]
    .filter((k) => JSON.stringify(x[k]) !== JSON.stringify(y[k]))
    .sort(cmp);
  return keys.length === 0 ? [] : [joinWords(keys)];
}

/** Binary search in a list sorted by `cmp`. */
function includesSorted(sorted: readonly string[], x: string): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = cmp(sorted[mid], x);
    if (c === 0) return true;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

const joinWords = (xs: readonly string[]) =>
  xs.length <= 2 ? xs.join(' and ') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`;
