import type { AccessPath, EffectiveGrant, Via } from './facts.js';
import type { AccessGraph } from './graph.js';
import { diffFacts } from './delta.js';
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
 * Roles (or permissions) gained and lost per user and instance. Only users whose access can differ are
 * compared (see `diffFacts`), each by one walk over both graphs' sorted grants.
 */
export function diffAccess(before: AccessGraph, after: AccessGraph, opts: AccessDiffOptions = {}): AccessDiff {
  const permissions = opts.permissions === true;
  // A role's definition matters to the role view too when tenant-wide roles exist: whether the role
  // grants anything on a type decides whether its tenant-wide holdings are listed (subjectsIn).
  const definitionsMatter = permissions || before.facts.tenantRoles.length + after.facts.tenantRoles.length > 0;
  const delta = diffFacts(before, after, definitionsMatter);
  const users = delta.all ? new Set([...before.users(), ...after.users()]) : new Set(delta.users);
  if (!delta.all) {
    for (const g of delta.groups) for (const graph of [before, after]) for (const u of graph.membersOf(g)) users.add(u);
  }
  const subjects = {
    before: subjectsIn(before, permissions),
    after: subjectsIn(after, permissions),
  };
  const changes: AccessChange[] = [];
  for (const user of [...users].sort(cmp)) {
    const was = before.grantsOf(user);
    const now = after.grantsOf(user);
    let i = 0;
    let j = 0;
    // Both lists are sorted by instance then role: walk them one instance at a time.
    while (i < was.length || j < now.length) {
      const instance =
        j >= now.length || (i < was.length && was[i].instance < now[j].instance) ? was[i].instance : now[j].instance;
      const i0 = i;
      const j0 = j;
      while (i < was.length && was[i].instance === instance) i++;
      while (j < now.length && now[j].instance === instance) j++;
      // Same roles, same definitions: nothing to compare. Not in the role view with tenant-wide roles,
      // where the same role can be listed or not by how it is held (subjectsIn).
      if (!delta.all && !(definitionsMatter && !permissions) && sameRoles(was, i0, i, now, j0, j)) continue;
      const a = subjects.before(was.slice(i0, i));
      const b = subjects.after(now.slice(j0, j));
      const mine: AccessChange[] = [];
      for (const [subject, via] of b) if (!a.has(subject)) mine.push({ sign: '+', user, instance, subject, via });
      for (const [subject, via] of a) if (!b.has(subject)) mine.push({ sign: '-', user, instance, subject, via });
      changes.push(...mine.sort(compareChanges));
    }
  }
  return {
    level: permissions ? 'permission' : 'role',
    changes,
    summary: summarise(changes),
    users: [...new Set(changes.map((c) => c.user))],
  };
}

function sameRoles(a: EffectiveGrant[], a0: number, a1: number, b: EffectiveGrant[], b0: number, b1: number): boolean {
  if (a1 - a0 !== b1 - b0) return false;
  for (let k = 0; k < a1 - a0; k++) if (a[a0 + k].role !== b[b0 + k].role) return false;
  return true;
}

/** The grants of one user on one instance → subject (role, or permission on the instance's type) → why. */
function subjectsIn(graph: AccessGraph, permissions: boolean): (grants: EffectiveGrant[]) => Map<string, Via[]> {
  const perms = new Map<string, string[]>(); // role NUL type → permissions on that type
  const permissionsOn = (role: string, instance: string) => {
    const type = typeOf(instance);
    const key = `${role}\u0000${type}`;
    let found = perms.get(key);
    if (!found) perms.set(key, (found = graph.permissionsOf(role).filter((p) => typeOf(p) === type)));
    return found;
  };
  return (grants) => {
    const out = new Map<string, Via[]>();
    for (const { instance, role, paths: all } of grants) {
      // A tenant-wide role holds on every instance of its tenant, but says nothing about an instance of a
      // type it grants nothing on (`security-reviewer on team:product-mgmt`): the role view leaves those
      // out, as the permission view does by construction. Direct and group grants are named on the instance.
      const paths = permissions || permissionsOn(role, instance).length > 0 ? all : all.filter((path) => path.kind !== 'tenant');
      if (paths.length === 0) continue;
      for (const subject of permissions ? permissionsOn(role, instance) : [role]) {
        const via = paths.map((path: AccessPath) => ({ role, path }));
        const known = out.get(subject);
        if (known) known.push(...via);
        else out.set(subject, via);
      }
    }
    // Roles come in key order, so only a permission granted by several roles needs re-sorting.
    if (permissions) for (const via of out.values()) via.sort(compareVia);
    return out;
  };
}

function compareChanges(a: AccessChange, b: AccessChange): number {
  return cmp(a.subject, b.subject) || (a.sign === b.sign ? 0 : a.sign === '+' ? -1 : 1);
}
