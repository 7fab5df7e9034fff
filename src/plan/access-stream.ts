/**
 * The access section's counts, summary lines and first changes by user, computed as the access diff
 * yields its changes (src/access/diff.ts `eachAccessChange`), one user at a time: nothing is held per
 * user and instance beyond the lines shown. An apply from empty at 100,000 users gains millions of
 * roles; holding them all before summarising them cost more memory than the rest of the apply
 * (docs/performance.md). The result is what summarising the whole diff gives (test/plan/access-stream.test.ts).
 */
import type { AccessGraph, AccessSummaryEntry } from '../access/index.js';
import { eachAccessChange, formatPath } from '../access/index.js';
import type { AccessChange } from '../access/diff.js';
import { diffRoleDefinitions } from '../access/definition-diff.js';
import { cmp } from '../access/paths.js';
import { compareEntries, formatCountedEntry, origin, tenantWide } from '../access/summary.js';
import type { PlanAccessCore, PlanAccessLimits, PlanAccessSummary } from './access-shapes.js';

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
  const lines = new Map<string, Counted>();
  const byUser: PlanAccessCore['byUser'] = [];
  let users = 0;
  let gains = 0;
  let losses = 0;
  let total = 0;
  let shown = 0;
  let full = false;

  const count = (key: string, user: string, make: () => AccessSummaryEntry) => {
    let line = lines.get(key);
    if (!line) lines.set(key, (line = { entry: make(), count: 0 }));
    if (line.count++ < limits.usersPerLine) line.entry.users.push(user);
  };

  /** One user's changes, in the diff's order. */
  let alsoCounted = 0;
  const user = (changes: AccessChange[]) => {
    users++;
    if (alsoUsers?.has(changes[0].user)) alsoCounted++;
    total += changes.length;
    for (const c of changes)
      if (c.sign === '+') gains++;
      else losses++;
    // A change held only through a tenant-wide role is counted once per role and tenant (summary.ts).
    const { wide, rest } = tenantWide(changes);
    for (const w of wide) {
      count(
        `tenant\u0000${w.sign}\u0000${w.subject}\u0000${w.tenant}\u0000${w.role ?? ''}\u0000${w.instances.join('\u0000')}`,
        w.user,
        () => ({
          sign: w.sign,
          subject: w.subject,
          instances: w.instances,
          viaKind: 'tenant',
          via: w.tenant,
          ...(w.role !== undefined ? { role: w.role } : {}),
          users: [],
        }),
      );
    }
    for (const c of rest) {
      const best = c.via[0];
      const via = origin(best.path);
      const role = best.role === c.subject ? undefined : best.role;
      count(
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
    if (full) return;
    // By user: a tenant-wide role's gains or losses once per role and tenant (where the user's first
    // change of it comes), the rest per instance; capped by the changes they stand for.
    const firstOf = new Map(wide.map((w) => [w.changes[0], w]));
    const merged = new Set(wide.flatMap((w) => w.changes.slice(1)));
    for (const c of changes) {
      if (merged.has(c)) continue;
      const w = firstOf.get(c);
      const size = w ? w.changes.length : 1;
      if (shown + size > limits.changes) {
        full = true;
        return;
      }
      shown += size;
      if (byUser.length === 0 || byUser[byUser.length - 1].user !== c.user) byUser.push({ user: c.user, changes: [] });
      const paths = c.via
        .slice(0, limits.pathsPerChange)
        .map((v) => (w ? formatTenantPath(c.user, v.role, w.tenant) : formatPath(c.user, v.path, v.role, c.instance)));
      byUser[byUser.length - 1].changes.push(
        w
          ? {
              sign: c.sign,
              subject: c.subject,
              instances: w.instances,
              tenant: w.tenant,
              ...(w.role !== undefined ? { role: w.role } : {}),
              paths,
            }
          : { sign: c.sign, subject: c.subject, instance: c.instance, paths },
      );
    }
  };

  // The role view adds what users gain or lose because a role they keep was redefined (its
  // permissions or `extends`; definition-diff.ts), merged into the diff's order.
  const redefined = permissions ? [] : diffRoleDefinitions(before, after);
  let next = 0;
  let mine: AccessChange[] = [];
  const take = (c: AccessChange) => {
    if (mine.length > 0 && mine[0].user !== c.user) {
      user(mine);
      mine = [];
    }
    mine.push(c);
  };
  eachAccessChange(before, after, { permissions }, (c) => {
    while (next < redefined.length && compareChange(redefined[next], c) < 0) take(redefined[next++]);
    take(c);
  });
  while (next < redefined.length) take(redefined[next++]);
  if (mine.length > 0) user(mine);

  const counted = [...lines.values()].sort(compareLines);
  const summary = counted.slice(0, limits.summaryLines).map(({ entry: e, count: n }): PlanAccessSummary => ({
    line: formatCountedEntry(e, n),
    sign: e.sign,
    subject: e.subject,
    ...(e.instance !== undefined ? { instance: e.instance } : {}),
    ...(e.instances !== undefined ? { instances: e.instances } : {}),
    viaKind: e.viaKind,
    via: e.via,
    ...(e.role !== undefined ? { role: e.role } : {}),
    userCount: n,
    users: e.users,
  }));
  return {
    level: permissions ? 'permission' : 'role',
    users: users + (alsoUsers?.size ?? 0) - alsoCounted,
    gains,
    losses,
    summary,
    omittedSummary: counted.length - summary.length,
    byUser,
    omittedChanges: total - shown,
  };
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

/** "frank → auditor (tenant-wide in acme)": the path of a change through a tenant-wide role, on no one instance. */
function formatTenantPath(user: string, role: string, tenant: string): string {
  return `${user} → ${role} (tenant-wide in ${tenant})`;
}
