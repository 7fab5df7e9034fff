import type { AccessPath, RoleHolding, Via } from './facts.js';
import type { AccessGraph, HeldSource } from './graph.js';
import { compareHeld, type Held } from './held.js';
import { diffFacts } from './delta.js';
import { cmp, compareVia } from './paths.js';
import { typeOf } from '../types/refs.js';
import { summarise, type AccessSummaryEntry } from './summary.js';
import { tenantWideDiffer, type MergedChanges, type TenantWideAccessChange } from './tenant-wide.js';

export interface AccessDiffOptions {
  /** Compare permissions (`document:write`) instead of roles. */
  permissions?: boolean;
  /**
   * false: every change's `via` is left empty, for callers that need only who gains or loses what where
   * (the decision check samples millions of them after an apply from empty; the paths were most of
   * what it allocated).
   */
  via?: boolean;
  /**
   * Given: the changes held only through tenant-wide roles (every path tenant-wide) come here, once per
   * (user, sign, subject, tenant, role) with the instances they cover (tenant-wide.ts), instead of once
   * per instance to `visit`: for each user, before that user's other changes. A tenant-wide role reaches
   * every instance of its tenant, so per instance they are users × instances. Not in the permission view
   * with set rules (a rule covers a permission per instance): there every change goes to `visit`.
   */
  tenantWide?: (change: TenantWideAccessChange) => void;
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
 * compared (see `diffFacts`), and for each only the instances where one of their sources (direct roles,
 * a tenant's roles, a group, with what each derives) differs between the graphs: a shared source is
 * compared once for all its users.
 */
export function diffAccess(before: AccessGraph, after: AccessGraph, opts: AccessDiffOptions = {}): AccessDiff {
  const changes: AccessChange[] = [];
  eachAccessChange(before, after, opts, (c) => void changes.push(c));
  return {
    level: opts.permissions === true ? 'permission' : 'role',
    changes,
    summary: summarise(changes),
    users: [...new Set(changes.map((c) => c.user))],
  };
}

/**
 * `diffAccess`'s changes one at a time, in its order (by user, instance, subject, then sign), without
 * holding them: what an apply from empty gains runs to millions, and a caller that counts or samples
 * them (the access section's summary, the decision check) need not keep them all.
 */
export function eachAccessChange(
  before: AccessGraph,
  after: AccessGraph,
  opts: AccessDiffOptions,
  visit: (change: AccessChange) => void,
): void {
  const permissions = opts.permissions === true;
  // A role's definition matters to the role view too when tenant-wide roles exist: whether the role
  // grants anything on a type decides whether its tenant-wide holdings are listed (subjectsIn).
  const definitionsMatter = permissions || before.facts.tenantRoles.length + after.facts.tenantRoles.length > 0;
  const delta = diffFacts(before, after, definitionsMatter);
  const users = usersToCompare(before, after, delta);
  // Same definitions: an instance where every source holds the same roles, listed the same way, has no change.
  const everywhere = delta.all || (definitionsMatter && delta.definitions);
  const differing = sourceDiffer();
  const withVia = opts.via !== false;
  const covered = coveredByRule(before, after, permissions);
  const compareIn = instanceComparer(permissions, covered);
  const compare = compareIn({
    before: subjectsIn(before, permissions, withVia),
    after: subjectsIn(after, permissions, withVia),
  });
  // Tenant-wide roles merged (tenant-wide.ts): that file tells a change held only through them by its
  // paths, so it compares with them even when the caller wants none.
  const merges = opts.tenantWide !== undefined && !covered;
  const wideCompare =
    merges && !withVia
      ? compareIn({ before: subjectsIn(before, permissions), after: subjectsIn(after, permissions) })
      : undefined;
  const wide = merges
    ? tenantWideDiffer(before, after, { everywhere, differing, compare: wideCompare ?? compare })
    : undefined;
  const yieldMerged = (merged: MergedChanges) => {
    for (const w of merged.wide) opts.tenantWide!(withVia ? w : { ...w, via: NO_VIA });
    for (const c of merged.changes) visit(withVia ? c : { ...c, via: NO_VIA });
  };
  const side = { before, after, everywhere, differing };
  for (const user of [...users].sort(cmp)) {
    const merging = wide?.holds(user) === true ? wide : undefined;
    const merged = merging?.diff(user);
    if (merged) {
      yieldMerged(merged);
      continue;
    }
    // Instance by instance; when merging, with paths, and the user's tenant-wide changes merged after.
    if (!merging) {
      compareUser(side, user, compare, visit);
      continue;
    }
    const mine: AccessChange[] = [];
    compareUser(side, user, wideCompare ?? compare, (c) => void mine.push(c));
    yieldMerged(merging.regroup(user, mine));
  }
}

/** The users whose access can differ: everyone, or those `diffFacts` names and the members of its groups. */
function usersToCompare(before: AccessGraph, after: AccessGraph, delta: ReturnType<typeof diffFacts>): Set<string> {
  if (delta.all) return new Set([...before.users(), ...after.users()]);
  const users = new Set(delta.users);
  for (const g of delta.groups) for (const graph of [before, after]) for (const u of graph.membersOf(g)) users.add(u);
  return users;
}

type Change = (c: AccessChange) => boolean;

/**
 * The permission view: a permission gained through a role that a set rule granted already, or lost
 * through a role while a set rule still grants it, is no change of access (abac/diff.ts has the rules' own).
 */
function coveredByRule(before: AccessGraph, after: AccessGraph, permissions: boolean): Change | undefined {
  if (!permissions || !(before.abac || after.abac)) return undefined;
  return (c) => {
    const other = c.sign === '+' ? before.abac : after.abac;
    return other !== undefined && other.permissionStatus(c.user, c.subject, c.instance) === 1;
  };
}

type CompareAt = (
  user: string,
  instance: string,
  was: readonly RoleHolding[],
  now: readonly RoleHolding[],
  emit: (c: AccessChange) => void,
) => void;

/** One user's changes on one instance, from the roles held there on each side, with the subjects given. */
function instanceComparer(
  permissions: boolean,
  coveredByRule: Change | undefined,
): (subjects: { before: Subjects; after: Subjects }) => CompareAt {
  return (subjects: { before: Subjects; after: Subjects }): CompareAt =>
    (user, instance, was, now, emit) => {
      // Held on one side only (every change of an apply from empty): each subject is a gain, or a loss,
      // and nothing is held on the other side to leave out.
      if (was.length === 0 || now.length === 0) {
        const sign = was.length === 0 ? '+' : '-';
        const held = sign === '+' ? subjects.after(instance, now) : subjects.before(instance, was);
        // The role view yields its subjects in key order already; the permission view's need sorting.
        const keys = permissions && held.size > 1 ? [...held.keys()].sort(cmp) : held.keys();
        for (const subject of keys) {
          const c: AccessChange = { sign, user, instance, subject, via: held.get(subject)! };
          if (!coveredByRule?.(c)) emit(c);
        }
        return;
      }
      const a = subjects.before(instance, was);
      const b = subjects.after(instance, now);
      // The role view never says a user gains a role they held already, or loses one they still hold: a
      // tenant-wide role left out on a type it grants nothing on (subjectsIn) is still held. What its
      // holders gain or lose when its definition changes is the permissions (definition-diff.ts).
      const heldBefore = permissions ? undefined : new Set(was.map((h) => h.role));
      const heldAfter = permissions ? undefined : new Set(now.map((h) => h.role));
      const mine: AccessChange[] = [];
      for (const [subject, via] of b)
        if (!a.has(subject) && !heldBefore?.has(subject)) mine.push({ sign: '+', user, instance, subject, via });
      for (const [subject, via] of a)
        if (!b.has(subject) && !heldAfter?.has(subject)) mine.push({ sign: '-', user, instance, subject, via });
      for (const c of mine.sort(compareChanges)) if (!coveredByRule?.(c)) emit(c);
    };
}

/**
 * One user compared instance by instance: every instance either side holds something on (`everywhere`),
 * else only those where one of the user's sources differs.
 */
function compareUser(
  side: {
    before: AccessGraph;
    after: AccessGraph;
    everywhere: boolean;
    differing: ReturnType<typeof sourceDiffer>;
  },
  user: string,
  at: CompareAt,
  emit: (c: AccessChange) => void,
): void {
  const { before, after } = side;
  if (side.everywhere)
    compareEverywhere(before.heldOf(user), after.heldOf(user), (instance, was, now) =>
      at(user, instance, was, now, emit),
    );
  else
    for (const instance of [...side.differing(before.sourcesOf(user), after.sourcesOf(user))].sort(cmp))
      at(user, instance, before.rolesOn(user, instance), after.rolesOn(user, instance), emit);
}

/** Both lists are sorted by instance then role: one walk, one instance at a time. */
function compareEverywhere(
  was: readonly Held[],
  now: readonly Held[],
  each: (instance: string, was: readonly Held[], now: readonly Held[]) => void,
): void {
  let i = 0;
  let j = 0;
  while (i < was.length || j < now.length) {
    const instance =
      j >= now.length || (i < was.length && was[i].instance < now[j].instance) ? was[i].instance : now[j].instance;
    const i0 = i;
    const j0 = j;
    while (i < was.length && was[i].instance === instance) i++;
    while (j < now.length && now[j].instance === instance) j++;
    each(instance, i > i0 ? was.slice(i0, i) : NONE, j > j0 ? now.slice(j0, j) : NONE);
  }
}

/**
 * The instances where a user's sources differ between the graphs: a (role, listed-as-held-otherwise-than-
 * tenant-wide) pair held in one and not the other. Shared sources are compared once per key.
 */
function sourceDiffer(): (was: readonly HeldSource[], now: readonly HeldSource[]) => Set<string> {
  const shared = new Map<string, readonly string[]>();
  return (was, now) => {
    const out = new Set<string>();
    const before = new Map(was.map((s) => [s.key, s]));
    const after = new Map(now.map((s) => [s.key, s]));
    for (const key of new Set([...before.keys(), ...after.keys()])) {
      const a = before.get(key);
      const b = after.get(key);
      let found: readonly string[];
      if (a?.shared && b?.shared) {
        const known = shared.get(key);
        if (known) found = known;
        else shared.set(key, (found = differingInstances(a.held, b.held)));
      } else {
        found = differingInstances(a?.held ?? [], b?.held ?? []);
      }
      for (const i of found) out.add(i);
    }
    return out;
  };
}

function differingInstances(a: readonly Held[], b: readonly Held[]): string[] {
  if (a === b) return [];
  const out: string[] = [];
  const add = (instance: string) => {
    if (out[out.length - 1] !== instance) out.push(instance);
  };
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const c = i >= a.length ? 1 : j >= b.length ? -1 : compareHeld(a[i], b[j]);
    if (c < 0) add(a[i++].instance);
    else if (c > 0) add(b[j++].instance);
    else {
      if (beyondTenant(a[i].paths) !== beyondTenant(b[j].paths)) add(a[i].instance);
      i++;
      j++;
    }
  }
  return out;
}

const beyondTenant = (paths: readonly AccessPath[]) => paths.some((p) => p.kind !== 'tenant');

const NONE: readonly Held[] = [];

/** The `via` of every change when the caller asked for none. */
const NO_VIA: Via[] = [];

/** The roles one user holds on one instance → subject → why. */
type Subjects = (instance: string, held: readonly RoleHolding[]) => Map<string, Via[]>;

/**
 * The roles one user holds on one instance → subject (role, or permission on the instance's type) → why
 * (`withVia` false: no why, NO_VIA).
 */
function subjectsIn(
  graph: AccessGraph,
  permissions: boolean,
  withVia = true,
): (instance: string, held: readonly RoleHolding[]) => Map<string, Via[]> {
  const perms = new Map<string, Map<string, string[]>>(); // role → type → permissions on that type
  const permissionsOn = (role: string, type: string) => {
    let ofRole = perms.get(role);
    if (!ofRole) perms.set(role, (ofRole = new Map()));
    let found = ofRole.get(type);
    if (!found) ofRole.set(type, (found = graph.permissionsOf(role).filter((p) => typeOf(p) === type)));
    return found;
  };
  return (instance, held) => {
    const out = new Map<string, Via[]>();
    const type = typeOf(instance);
    for (const { role, paths: all } of held) {
      // A tenant-wide role holds on every instance of its tenant, but says nothing about an instance of a
      // type it grants nothing on (`security-reviewer on team:product-mgmt`): the role view leaves those
      // out, as the permission view does by construction. Direct and group grants are named on the instance.
      const granted = permissions ? permissionsOn(role, type) : undefined;
      const paths =
        permissions || permissionsOn(role, type).length > 0 ? all : all.filter((path) => path.kind !== 'tenant');
      if (paths.length === 0) continue;
      if (!withVia) {
        if (granted) for (const subject of granted) out.set(subject, NO_VIA);
        else out.set(role, NO_VIA);
        continue;
      }
      if (!granted) {
        // The role view: one subject, the role itself, met once per instance (held is by role).
        out.set(
          role,
          paths.map((path: AccessPath) => ({ role, path })),
        );
        continue;
      }
      for (const subject of granted) {
        const via = paths.map((path: AccessPath) => ({ role, path }));
        const known = out.get(subject);
        if (known) known.push(...via);
        else out.set(subject, via);
      }
    }
    // Roles come in key order, so only a permission granted by several roles needs re-sorting.
    if (permissions && withVia) for (const via of out.values()) via.sort(compareVia);
    return out;
  };
}

function compareChanges(a: AccessChange, b: AccessChange): number {
  return cmp(a.subject, b.subject) || (a.sign === b.sign ? 0 : a.sign === '+' ? -1 : 1);
}
