/**
 * The access section's counts, summary lines and first changes by user, computed as the access diff
 * yields its changes (src/access/diff.ts `eachAccessChange`), one user at a time: nothing is held per
 * user and instance beyond the lines shown. An apply from empty at 100,000 users gains millions of
 * roles; holding them all before summarising them cost more memory than the rest of the apply
 * (docs/performance.md). The result is what summarising the whole diff gives (test/plan/access-stream.test.ts).
 */
import type { AccessGraph, AccessSummaryEntry, TenantWideAccessChange } from '../access/index.js';
import { CoveredInstances, eachAccessChange, formatPath } from '../access/index.js';
import type { AccessChange } from '../access/diff.js';
import { diffRoleDefinitions } from '../access/definition-diff.js';
import { cmp } from '../access/paths.js';
import { compareEntries, formatCountedEntry, origin, tenantWide, type InstanceTally } from '../access/summary.js';
import {
  INSTANCES_LISTED,
  type PlanAccessCore,
  type PlanAccessLimits,
  type PlanAccessSummary,
} from './access-shapes.js';

/** One summary line being counted: its first users (sorted: users come in order) and how many. */
interface Counted {
  entry: AccessSummaryEntry;
  count: number;
}

/**
 * `alsoUsers`: users who gain or lose access otherwise (through set rules): `users` counts each user
 * once, whether their changes come through roles, rules or both.
 */
export function streamAccessSection(
  before: AccessGraph,
  after: AccessGraph,
  permissions: boolean,
  limits: PlanAccessLimits,
  alsoUsers?: ReadonlySet<string>,
): PlanAccessCore {
  const s: Tally = {
    limits,
    alsoUsers,
    lines: new Map(),
    byUser: [],
    users: 0,
    gains: 0,
    losses: 0,
    total: 0,
    shown: 0,
    full: false,
    alsoCounted: 0,
  };
  eachUserChanges(before, after, permissions, (changes, merged) => tallyUser(s, changes, merged));

  const counted = [...s.lines.values()].sort(compareLines);
  const summary = counted.slice(0, limits.summaryLines).map(({ entry: e, count: n }): PlanAccessSummary => ({
    line: formatCountedEntry(e, n),
    sign: e.sign,
    subject: e.subject,
    ...(e.instance !== undefined ? { instance: e.instance } : {}),
    ...(e.tally !== undefined ? listedOf(e.tally) : {}),
    viaKind: e.viaKind,
    via: e.via,
    ...(e.role !== undefined ? { role: e.role } : {}),
    userCount: n,
    users: e.users,
  }));
  return {
    level: permissions ? 'permission' : 'role',
    users: s.users + (alsoUsers?.size ?? 0) - s.alsoCounted,
    gains: s.gains,
    losses: s.losses,
    summary,
    omittedSummary: counted.length - summary.length,
    byUser: s.byUser,
    omittedChanges: s.total - s.shown,
  };
}

/** The section as it is counted, one user at a time. */
interface Tally {
  readonly limits: PlanAccessLimits;
  readonly alsoUsers: ReadonlySet<string> | undefined;
  readonly lines: Map<string, Counted>;
  readonly byUser: PlanAccessCore['byUser'];
  users: number;
  gains: number;
  losses: number;
  /** Changes counted, and listed by user (until `full`: the listing's limit is reached). */
  total: number;
  shown: number;
  full: boolean;
  /** Users counted here who are in `alsoUsers` too. */
  alsoCounted: number;
}

/**
 * Calls `onUser` with each user's changes in the diff's order: those the diff yields one instance at a
 * time, and those it merges (held only through tenant-wide roles, once per role and tenant with the
 * instances they cover). The role view adds what users gain or lose because a role they keep was
 * redefined (its permissions or `extends`; definition-diff.ts), merged into the diff's order.
 */
function eachUserChanges(
  before: AccessGraph,
  after: AccessGraph,
  permissions: boolean,
  onUser: (changes: AccessChange[], merged: TenantWideAccessChange[]) => void,
): void {
  const redefined = permissions ? [] : diffRoleDefinitions(before, after);
  let next = 0;
  let mine: AccessChange[] = [];
  let mineWide: TenantWideAccessChange[] = [];
  const flushUnless = (name: string) => {
    const current = mine[0]?.user ?? mineWide[0]?.user;
    if (current === undefined || current === name) return;
    onUser(mine, mineWide);
    mine = [];
    mineWide = [];
  };
  const take = (c: AccessChange) => {
    flushUnless(c.user);
    mine.push(c);
  };
  eachAccessChange(
    before,
    after,
    {
      permissions,
      // Merged tenant-wide changes come before their user's others: earlier users' redefinitions first.
      tenantWide: (w) => {
        while (next < redefined.length && cmp(redefined[next].user, w.user) < 0) take(redefined[next++]);
        flushUnless(w.user);
        mineWide.push(w);
      },
    },
    (c) => {
      while (next < redefined.length && compareChange(redefined[next], c) < 0) take(redefined[next++]);
      take(c);
    },
  );
  while (next < redefined.length) take(redefined[next++]);
  if (mine.length + mineWide.length > 0) onUser(mine, mineWide);
}

/** Counts one user's changes into the summary lines and totals, and lists them by user while room remains. */
function tallyUser(s: Tally, changes: AccessChange[], merged: TenantWideAccessChange[]): void {
  s.users++;
  if (s.alsoUsers?.has((changes[0] ?? merged[0]).user)) s.alsoCounted++;
  const items = itemsOf(changes, merged);
  for (const item of items) {
    const size = item.wide ? item.wide.instances.size : 1;
    s.total += size;
    if (item.sign === '+') s.gains += size;
    else s.losses += size;
    if (item.wide) countWide(s, item.wide, item.key!);
    else countOne(s, item.change!);
  }
  if (!s.full) listUser(s, items);
}

/** One user's changes as items: per instance, or merged over the instances of a tenant-wide role. */
function itemsOf(changes: AccessChange[], merged: TenantWideAccessChange[]): Item[] {
  // A change still yielded per instance and held only through a tenant-wide role (the role view's
  // redefinitions; the permission view with set rules) is merged here, over its instances.
  const { wide, rest } = tenantWide(changes);
  const items: Item[] = rest.map((c) => ({ at: c.instance, sign: c.sign, subject: c.subject, change: c }));
  for (const w of wide) {
    const instances = new CoveredInstances([w.instances], NONE);
    const m: TenantWideAccessChange = { ...w, via: w.changes[0].via, instances };
    items.push({ at: w.instances[0], sign: w.sign, subject: w.subject, wide: m, key: w.instances.join('\u0000') });
  }
  for (const m of merged)
    items.push({ at: m.instances.first(1)[0], sign: m.sign, subject: m.subject, wide: m, key: m.instances.key() });
  return items;
}

/**
 * By user: a tenant-wide role's gains or losses once per role and tenant (where the user's first change
 * of it comes), the rest per instance; capped by the changes they stand for.
 */
function listUser(s: Tally, items: Item[]): void {
  const { limits, byUser } = s;
  items.sort(
    (a, b) => cmp(a.at, b.at) || cmp(a.subject, b.subject) || (a.sign === b.sign ? 0 : a.sign === '+' ? -1 : 1),
  );
  for (const item of items) {
    const w = item.wide;
    const size = w ? w.instances.size : 1;
    if (s.shown + size > limits.changes) {
      s.full = true;
      return;
    }
    s.shown += size;
    const name = (w ?? item.change)!.user;
    if (byUser.length === 0 || byUser[byUser.length - 1].user !== name) byUser.push({ user: name, changes: [] });
    const via = (w ?? item.change)!.via.slice(0, limits.pathsPerChange);
    byUser[byUser.length - 1].changes.push(
      w
        ? {
            sign: w.sign,
            subject: w.subject,
            ...listedOf(w.instances.tally(INSTANCES_LISTED)),
            tenant: w.tenant,
            ...(w.role !== undefined ? { role: w.role } : {}),
            paths: via.map((v) => formatTenantPath(name, v.role, w.tenant)),
          }
        : {
            sign: item.sign,
            subject: item.subject,
            instance: item.at,
            paths: via.map((v) => formatPath(name, v.path, v.role, item.at)),
          },
    );
  }
}

/** Counts the user on a summary line (made on first use), among its first users while room remains. */
function countLine(s: Tally, key: string, user: string, make: () => AccessSummaryEntry): void {
  let line = s.lines.get(key);
  if (!line) s.lines.set(key, (line = { entry: make(), count: 0 }));
  if (line.count++ < s.limits.usersPerLine) line.entry.users.push(user);
}

/** A merged change on its line: by sign, subject, tenant, role and the instances it covers. */
function countWide(s: Tally, w: TenantWideAccessChange, instancesKey: string): void {
  countLine(
    s,
    `tenant\u0000${w.sign}\u0000${w.subject}\u0000${w.tenant}\u0000${w.role ?? ''}\u0000${instancesKey}`,
    w.user,
    () => ({
      sign: w.sign,
      subject: w.subject,
      tally: w.instances.tally(INSTANCES_LISTED),
      viaKind: 'tenant',
      via: w.tenant,
      ...(w.role !== undefined ? { role: w.role } : {}),
      users: [],
    }),
  );
}

/** A change on one instance on its line: by sign, subject, instance and its first path's origin and role. */
function countOne(s: Tally, c: AccessChange): void {
  const best = c.via[0];
  const via = origin(best.path);
  const role = best.role === c.subject ? undefined : best.role;
  countLine(
    s,
    `${c.sign}\u0000${c.subject}\u0000${c.instance}\u0000${best.path.kind}\u0000${via}\u0000${role ?? ''}`,
    c.user,
    () => ({
      sign: c.sign,
      subject: c.subject,
      instance: c.instance,
      viaKind: best.path.kind,
      via,
      ...(role !== undefined ? { role } : {}),
      users: [],
    }),
  );
}

/** summary.ts's order of lines: largest first, then by instance, subject, sign, origin, role, instances. */
function compareLines(x: Counted, y: Counted): number {
  return y.count - x.count || compareEntries(x.entry, y.entry);
}

/** The diff's order: user, instance, subject, then sign (`+` first). */
function compareChange(a: AccessChange, b: AccessChange): number {
  return (
    cmp(a.user, b.user) ||
    cmp(a.instance, b.instance) ||
    cmp(a.subject, b.subject) ||
    (a.sign === b.sign ? 0 : a.sign === '+' ? -1 : 1)
  );
}

/** One of the section's lines or changes in it, in the order its user's changes come. */
interface Item {
  /** The instance, or the first the merged change covers. */
  at: string;
  sign: '+' | '-';
  subject: string;
  change?: AccessChange;
  wide?: TenantWideAccessChange;
  /** A merged change's instances, as a line key. */
  key?: string;
}

const NONE: ReadonlySet<string> = new Set();

/** A tenant-wide line's or change's instances as the section gives them: the first few and their counts. */
function listedOf(t: InstanceTally): Pick<PlanAccessSummary, 'instances' | 'instanceCount' | 'instancesByType'> {
  return { instances: [...t.first], instanceCount: t.count, instancesByType: { ...t.byType } };
}

/** "frank → auditor (tenant-wide in acme)": the path of a change through a tenant-wide role, on no one instance. */
function formatTenantPath(user: string, role: string, tenant: string): string {
  return `${user} → ${role} (tenant-wide in ${tenant})`;
}
