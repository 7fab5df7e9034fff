import type { AccessPath, Via } from './facts.js';
import { cmp } from './paths.js';
import { plural } from '../words.js';

export interface AccessSummaryEntry {
  sign: '+' | '-';
  /** Role key, or permission in the permission view. */
  subject: string;
  instance: string;
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
interface SummarisedChange {
  sign: '+' | '-';
  user: string;
  instance: string;
  subject: string;
  via: readonly Via[];
}

/**
 * Groups changes by sign, subject, instance and origin of their best path, so that one group grant
 * reads as one line. Each change counts once, under its best path. Largest groups first, then by key.
 */
export function summarise(changes: readonly SummarisedChange[]): AccessSummaryEntry[] {
  const groups = new Map<string, AccessSummaryEntry>();
  for (const c of changes) {
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
  return out.sort(
    (a, b) =>
      b.users.length - a.users.length ||
      cmp(a.instance, b.instance) ||
      cmp(a.subject, b.subject) ||
      (a.sign === b.sign ? 0 : a.sign === '+' ? -1 : 1) ||
      cmp(a.viaKind, b.viaKind) ||
      cmp(a.via, b.via) ||
      cmp(a.role ?? '', b.role ?? ''),
  );
}

function origin(path: AccessPath): string {
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
  const n = e.users.length;
  const who = plural(n, 'user');
  const verb = e.sign === '+' ? (n === 1 ? 'gains' : 'gain') : n === 1 ? 'loses' : 'lose';
  const how =
    e.viaKind === 'group' ? e.via : e.viaKind === 'tenant' ? `tenant-wide role in ${e.via}` : e.viaKind === 'derived' ? `a role on ${e.via}` : 'direct assignment';
  const role = e.role === undefined ? '' : ` (${e.role})`;
  return `${e.sign}${who} ${verb} ${e.subject} on ${e.instance} via ${how}${role}`;
}
