import type { AccessPath, Via } from './facts.js';
import type { AccessGraph } from './graph.js';
import { affectedUsers } from './delta.js';
import { cmp, compareVia, typeOf } from './paths.js';
import { summarise, type AccessSummaryEntry } from './summary.js';

export interface AccessDiffOptions {
  /** Compare permissions (`document:write`) instead of roles. */
  permissions?: boolean;
}

export interface AccessChange {
  sign: '+' | '-';
  user: string;
  instance: string;
  /** A role key, or in the permission view a permission (`document:write`). */
  subject: string;
  /** Why it was held: in `after` for a gain, in `before` for a loss. Sorted, best first; never empty. */
  via: Via[];
}

export interface AccessDiff {
  level: 'role' | 'permission';
  /** Sorted by user, instance, subject, then sign (`+` first). */
  changes: AccessChange[];
  /** Changes grouped by (sign, subject, instance, first path's origin): largest first. */
  summary: AccessSummaryEntry[];
  /** Users with at least one change, sorted. */
  users: string[];
}

/**
 * Roles (or permissions) gained and lost per user and instance. Only users whose facts could make a
 * difference are compared (see `affectedUsers`), so a small edit of a big environment is cheap.
 */
export function diffAccess(before: AccessGraph, after: AccessGraph, opts: AccessDiffOptions = {}): AccessDiff {
  const permissions = opts.permissions === true;
  const affected = affectedUsers(before, after, permissions);
  const candidates =
    affected === 'all' ? new Set([...before.users(), ...after.users()]) : affected;
  const changes: AccessChange[] = [];
  for (const user of [...candidates].sort(cmp)) {
    const was = heldBy(before, user, permissions);
    const now = heldBy(after, user, permissions);
    const mine: AccessChange[] = [];
    for (const [key, via] of now) if (!was.has(key)) mine.push(change('+', user, key, via));
    for (const [key, via] of was) if (!now.has(key)) mine.push(change('-', user, key, via));
    changes.push(...mine.sort(compareChanges));
  }
  return {
    level: permissions ? 'permission' : 'role',
    changes,
    summary: summarise(changes),
    users: [...new Set(changes.map((c) => c.user))],
  };
}

/** instance NUL subject → why. */
function heldBy(graph: AccessGraph, user: string, permissions: boolean): Map<string, Via[]> {
  const out = new Map<string, Via[]>();
  for (const { instance, role, paths } of graph.grantsOf(user)) {
    const subjects = permissions ? permissionsOn(graph, role, instance) : [role];
    for (const subject of subjects) {
      const key = `${instance}\u0000${subject}`;
      const via = paths.map((path: AccessPath) => ({ role, path }));
      const known = out.get(key);
      if (known) known.push(...via);
      else out.set(key, via);
    }
  }
  // Roles come in key order, so only a permission granted by several roles needs re-sorting.
  if (permissions) for (const via of out.values()) via.sort(compareVia);
  return out;
}

function permissionsOn(graph: AccessGraph, role: string, instance: string): string[] {
  const type = typeOf(instance);
  return graph.permissionsOf(role).filter((p) => typeOf(p) === type);
}

function change(sign: '+' | '-', user: string, key: string, via: Via[]): AccessChange {
  const [instance, subject] = key.split('\u0000');
  return { sign, user, instance, subject, via };
}

function compareChanges(a: AccessChange, b: AccessChange): number {
  return cmp(a.instance, b.instance) || cmp(a.subject, b.subject) || (a.sign === b.sign ? 0 : a.sign === '+' ? -1 : 1);
}
