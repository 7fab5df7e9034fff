import type { AccessPath, Via } from './facts.js';
import { cmp } from './paths.js';
import { typeOf } from '../types/refs.js';
import { plural } from '../words.js';

export interface AccessSummaryEntry {
  sign: '+' | '-';
  /** Role key, or permission in the permission view. */
  subject: string;
  /** The instance; absent on a tenant-wide line, which covers `instances`. */
  instance?: string;
  /**
   * Tenant-wide lines only (`viaKind: 'tenant'`): every instance the line covers, sorted; each of `users`
   * gains or loses `subject` on exactly these.
   */
  instances?: string[];
  /** Tenant-wide lines of the plan's access section: the instances counted, not listed (`instances` absent). */
  tally?: InstanceTally;
  /** Where the first (best) path of each change comes from. */
  viaKind: AccessPath['kind'];
  /** The granting group (last in the chain), the tenant, or '' for a direct grant. */
  via: string;
  /** The role that carries the permission; permission view only. */
  role?: string;
  /** Sorted. */
  users: string[];
}

/**
 * What summarising reads of a change: the fields of diff.ts's `AccessChange` (written out here, not
 * imported: diff.ts calls `summarise`, and the two files must not import each other).
 */
export interface SummarisedChange {
  sign: '+' | '-';
  user: string;
  instance: string;
  subject: string;
  via: readonly Via[];
}

/**
 * Groups changes by sign, subject, instance and origin of their best path, so that one group grant
 * reads as one line. Each change counts once, under its best path. A change held only through a
 * tenant-wide role is named once per role and tenant, with the instances it covers (`tenantWide`):
 * a tenant-wide role reaches every instance of its tenant, thousands on a real environment. Largest
 * groups first, then by key.
 */
export function summarise(changes: readonly SummarisedChange[]): AccessSummaryEntry[] {
  const groups = new Map<string, AccessSummaryEntry>();
  const { wide, rest } = tenantWide(changes);
  for (const w of wide) {
    const key = ['tenant', w.sign, w.subject, w.tenant, w.role ?? '', ...w.instances].join('\u0000');
    let entry = groups.get(key);
    if (!entry) {
      entry = { sign: w.sign, subject: w.subject, instances: w.instances, viaKind: 'tenant', via: w.tenant, users: [] };
      if (w.role !== undefined) entry.role = w.role;
      groups.set(key, entry);
    }
    entry.users.push(w.user);
  }
  for (const c of rest) {
    const best = c.via[0];
    const via = origin(best.path);
    const role = best.role === c.subject ? undefined : best.role;
    const key = [c.sign, c.subject, c.instance, best.path.kind, via, role ?? ''].join('\u0000');
    let entry = groups.get(key);
    if (!entry) {
      entry = { sign: c.sign, subject: c.subject, instance: c.instance, viaKind: best.path.kind, via, users: [] };
      if (role !== undefined) entry.role = role;
      groups.set(key, entry);
    }
    entry.users.push(c.user);
  }
  const out = [...groups.values()];
  for (const e of out) e.users.sort(cmp);
  return out.sort((a, b) => b.users.length - a.users.length || compareEntries(a, b));
}

/** The order of summary lines of equal size: by instance, subject, sign, origin, role, instances. */
export function compareEntries(a: AccessSummaryEntry, b: AccessSummaryEntry): number {
  return (
    cmp(a.instance ?? '', b.instance ?? '') ||
    cmp(a.subject, b.subject) ||
    (a.sign === b.sign ? 0 : a.sign === '+' ? -1 : 1) ||
    cmp(a.viaKind, b.viaKind) ||
    cmp(a.via, b.via) ||
    cmp(a.role ?? '', b.role ?? '') ||
    cmp((a.instances ?? a.tally?.first ?? []).join(' '), (b.instances ?? b.tally?.first ?? []).join(' ')) ||
    (a.tally?.count ?? 0) - (b.tally?.count ?? 0)
  );
}

/** One user's change of `subject` through a tenant-wide role, on every instance it covers. */
export interface TenantWideChange<C extends SummarisedChange = SummarisedChange> {
  sign: '+' | '-';
  user: string;
  subject: string;
  tenant: string;
  /** The role carrying a permission (permission view); absent when `subject` is the role. */
  role?: string;
  /** Sorted. */
  instances: string[];
  /** The changes it stands for. */
  changes: C[];
}

/**
 * The changes held only through tenant-wide roles (every path tenant-wide), merged per user, sign,
 * subject, tenant and role; the others as they are, in their order.
 */
export function tenantWide<C extends SummarisedChange>(
  changes: readonly C[],
): { wide: TenantWideChange<C>[]; rest: C[] } {
  const byKey = new Map<string, TenantWideChange<C>>();
  const rest: C[] = [];
  for (const c of changes) {
    const best = c.via[0];
    if (best.path.kind !== 'tenant' || !c.via.every((v) => v.path.kind === 'tenant')) {
      rest.push(c);
      continue;
    }
    const role = best.role === c.subject ? undefined : best.role;
    const key = [c.user, c.sign, c.subject, best.path.tenant, role ?? ''].join('\u0000');
    let w = byKey.get(key);
    if (!w)
      byKey.set(
        key,
        (w = {
          sign: c.sign,
          user: c.user,
          subject: c.subject,
          tenant: best.path.tenant,
          ...(role !== undefined ? { role } : {}),
          instances: [],
          changes: [],
        }),
      );
    w.instances.push(c.instance);
    w.changes.push(c);
  }
  const wide = [...byKey.values()];
  for (const w of wide) w.instances.sort(cmp);
  return { wide, rest };
}

/** Where a path comes from, as a summary line names it (`via`). */
export function origin(path: AccessPath): string {
  switch (path.kind) {
    case 'direct':
      return '';
    case 'tenant':
      return path.tenant;
    case 'group':
      return path.chain[path.chain.length - 1];
    case 'derived':
      return `${path.subject} (${path.relation})`;
  }
}

/** "+37 users gain editor on document:roadmap via team:engineering". */
export function formatSummaryEntry(e: AccessSummaryEntry): string {
  return formatCountedEntry(e, e.users.length);
}

/**
 * The same line for `n` users, when the entry holds only the first of them (the plan's access section,
 * src/plan/access-stream.ts).
 */
export function formatCountedEntry(e: AccessSummaryEntry, n: number): string {
  const who = plural(n, 'user');
  const verb = e.sign === '+' ? (n === 1 ? 'gains' : 'gain') : n === 1 ? 'loses' : 'lose';
  const covered = e.tally ?? e.instances;
  if (covered) return `${e.sign}${who} ${verb} ${describeTenantWide(e.subject, e.role, e.via, covered)}`;
  const how =
    e.viaKind === 'group'
      ? e.via
      : e.viaKind === 'tenant'
        ? `tenant-wide role in ${e.via}`
        : e.viaKind === 'derived'
          ? `a role on ${e.via}`
          : 'direct assignment';
  const role = e.role === undefined ? '' : ` (${e.role})`;
  return `${e.sign}${who} ${verb} ${e.subject} on ${e.instance} via ${how}${role}`;
}

/**
 * Instances told by their number per type, not listed: what a tenant-wide line covers (thousands on a
 * real environment). `first`: the first few, sorted (one is named when it is the only one).
 */
export interface InstanceTally {
  count: number;
  /** Type key → how many, in type order. */
  byType: Readonly<Record<string, number>>;
  first: readonly string[];
}

/**
 * "folder:read through auditor in acme, on 3 folders" (a permission and the role carrying it), or
 * "auditor tenant-wide in acme, on 2 documents and 3 folders" (a role); one instance is named.
 */
export function describeTenantWide(
  subject: string,
  role: string | undefined,
  tenant: string,
  instances: readonly string[] | InstanceTally,
): string {
  const how = role === undefined ? `${subject} tenant-wide in ${tenant}` : `${subject} through ${role} in ${tenant}`;
  return `${how}, on ${countInstances(instances)}`;
}

/** "document:a", or "2 documents and 3 folders"; with an adjective, "new document:a", "2 new documents". */
export function countInstances(instances: readonly string[] | InstanceTally, adjective?: string): string {
  const tally = 'count' in instances ? instances : undefined;
  const list = tally ? tally.first : (instances as readonly string[]);
  if ((tally?.count ?? list.length) === 1) return adjective ? `${adjective} ${list[0]}` : list[0];
  const byType = new Map<string, number>(tally ? Object.entries(tally.byType) : []);
  if (!tally) for (const i of list) byType.set(typeOf(i), (byType.get(typeOf(i)) ?? 0) + 1);
  const parts = [...byType]
    .sort(([a], [b]) => cmp(a, b))
    .map(
      ([type, n]) =>
        `${n.toLocaleString('en-US')} ${adjective ? `${adjective} ` : ''}${n === 1 ? type : pluralOfType(type)}`,
    );
  return parts.length <= 2 ? parts.join(' and ') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/** English plural of a type key, for counts ("3 folders", "2 policies", "4 boxes"). */
export function pluralOfType(word: string): string {
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(word)) return `${word}es`;
  return `${word}s`;
}
