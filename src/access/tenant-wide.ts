/**
 * The access diff of one user holding tenant-wide roles, without walking the (user, instance) pairs
 * those roles reach: a company-wide deployment gives 1% of 100,000 users a role over 20,000 instances,
 * 20 million pairs (issue 42). Outside the few instances where the user holds something else (`E`: a
 * direct role, a group's grant, a derived role), what a user holds on an instance of the tenant is
 * exactly their tenant-wide roles there, so the change is the same on every instance of one *class*:
 * the tenant's instances of one type listed on the same sides (before, after or both). Each class is
 * compared once, on its first instance, and yields a change over the whole class; the instances of `E`
 * are compared one by one, as diff.ts compares every instance, and taken out of (or into) those changes.
 * The result is exactly diff.ts's changes, with those held only through tenant-wide roles merged per
 * (sign, subject, tenant, role): test/access/tenant-wide.test.ts holds the two together.
 */
import type { AccessPath, RoleHolding, Via } from './facts.js';
import type { AccessGraph, HeldSource } from './graph.js';
import type { Held } from './held.js';
import { getOrSet } from './groups.js';
import { cmp } from './paths.js';
import { typeOf } from '../types/refs.js';
import { CoveredInstances } from './covered.js';

/** One user's change on one instance (diff.ts's `AccessChange`, written out: diff.ts calls this file). */
export interface ComparedChange {
  sign: '+' | '-';
  user: string;
  instance: string;
  subject: string;
  via: Via[];
}

/** A change held only through tenant-wide roles, once for every instance it covers. */
export interface TenantWideAccessChange {
  sign: '+' | '-';
  user: string;
  /** A role, or in the permission view a permission. */
  subject: string;
  tenant: string;
  /** The role carrying the permission (permission view); absent when `subject` is the role. */
  role?: string;
  /** Why it is held (the same on every instance it covers): in `after` for a gain, in `before` for a loss. */
  via: Via[];
  instances: CoveredInstances;
}

/** diff.ts's comparison of one user on one instance, with every change's `via`. */
export type CompareAt = (
  user: string,
  instance: string,
  was: readonly RoleHolding[],
  now: readonly RoleHolding[],
  emit: (c: ComparedChange) => void,
) => void;

/** The tenant's instances of one type listed on the same sides; `instances` sorted, never empty. */
interface InstanceClass {
  inBefore: boolean;
  inAfter: boolean;
  instances: string[];
}

interface Layout {
  classes: InstanceClass[];
  classOf: Map<string, InstanceClass>;
  /** Instances listed on one side only here and in another tenant on the other side. */
  moved: string[];
}

export interface TenantWideDiffOptions {
  /** Every instance can differ (role definitions changed, or every user is compared). */
  everywhere: boolean;
  compare: CompareAt;
  /** The instances where sources other than tenant-wide ones differ (diff.ts's source comparison). */
  differing: (was: readonly HeldSource[], now: readonly HeldSource[]) => Set<string>;
}

/** One user's changes in diff.ts's order, with those held only through tenant-wide roles merged. */
export interface MergedChanges {
  changes: ComparedChange[];
  /** Ordered by first instance, subject, sign. */
  wide: TenantWideAccessChange[];
}

export interface TenantWideDiffer {
  /** Whether the user holds a tenant-wide role on either side (no other user has anything to merge). */
  holds(user: string): boolean;
  /** Undefined for a user with no tenant-wide source on either side: diff.ts compares them as before. */
  diff(user: string): MergedChanges | undefined;
  /**
   * A user's changes compared instance by instance, their tenant-wide ones merged: a user whose direct
   * roles block a derivation their tenant-wide roles use holds everything through one source of their own
   * (graph.ts `sourcesOf`), which says nothing of tenants. Rare, and enumerated as before.
   */
  regroup(user: string, changes: readonly ComparedChange[]): MergedChanges;
}

export function tenantWideDiffer(
  before: AccessGraph,
  after: AccessGraph,
  opts: TenantWideDiffOptions,
): TenantWideDiffer {
  const layouts = new Map<string, Layout>();
  let listed: { before: Map<string, Set<string>>; after: Map<string, Set<string>> } | undefined;
  const layoutOf = (tenant: string) =>
    getOrSet(layouts, tenant, () => {
      listed ??= { before: listedByTenant(before), after: listedByTenant(after) };
      return buildLayout(before, after, listed.before.get(tenant) ?? new Set(), listed.after.get(tenant) ?? new Set());
    });
  const impure = new Map<readonly Held[], string[]>();
  const impureOf = (held: readonly Held[]) => getOrSet(impure, held, () => beyondTenant(held));
  const regroup = (user: string, all: readonly ComparedChange[]): MergedChanges => {
    const merged = new Merged();
    const changes: ComparedChange[] = [];
    for (const ch of all) {
      const tenant = tenantOnly(ch);
      const cls = tenant === undefined ? undefined : layoutOf(tenant).classOf.get(ch.instance);
      if (tenant === undefined || cls === undefined) changes.push(ch);
      else merged.addOne(tenant, cls, ch);
    }
    return { changes, wide: merged.result(user) };
  };
  const diff = (user: string): MergedChanges | undefined => {
    const sb = before.sourcesOf(user);
    const sa = after.sourcesOf(user);
    const tb = byTenant(sb);
    const ta = byTenant(sa);
    if (tb.size + ta.size === 0) return undefined;
    const others = (sources: readonly HeldSource[]) => sources.filter((s) => !s.tenant);
    // E: where the user holds anything besides tenant-wide roles, on either side.
    const elsewhere = new Set<string>();
    for (const s of [...sb, ...sa])
      for (const i of s.tenant ? impureOf(s.held) : s.held.map((h) => h.instance)) elsewhere.add(i);
    const tenants = [...new Set([...tb.keys(), ...ta.keys()])].sort(cmp);
    const changed = tenants.filter((t) => opts.everywhere || tb.get(t)?.held !== ta.get(t)?.held);
    const compared = opts.everywhere ? new Set(elsewhere) : opts.differing(others(sb), others(sa));
    for (const t of changed) {
      for (const i of layoutOf(t).moved) compared.add(i);
      if (opts.everywhere) continue;
      for (const s of [tb.get(t), ta.get(t)]) if (s) for (const i of impureOf(s.held)) compared.add(i);
      for (const i of elsewhere) if (before.tenantOf(i) === t || after.tenantOf(i) === t) compared.add(i);
    }

    const merged = new Merged();
    for (const t of changed) {
      const path: AccessPath = { kind: 'tenant', tenant: t };
      const holdings = (roles: readonly string[] | undefined) =>
        (roles ?? []).map((role): RoleHolding => ({ role, paths: [path] }));
      const [was, now] = [holdings(tb.get(t)?.tenant?.roles), holdings(ta.get(t)?.tenant?.roles)];
      for (const c of layoutOf(t).classes) {
        const w = c.inBefore ? was : [];
        const n = c.inAfter ? now : [];
        if (w.length + n.length > 0) opts.compare(user, c.instances[0], w, n, (ch) => merged.addClass(t, c, ch));
      }
    }
    const changes: ComparedChange[] = [];
    for (const i of [...compared].sort(cmp)) {
      const held = new Set<string>();
      opts.compare(user, i, before.rolesOn(user, i), after.rolesOn(user, i), (ch) => {
        const tenant = tenantOnly(ch);
        const cls = tenant === undefined ? undefined : layoutOf(tenant).classOf.get(i);
        if (tenant === undefined || cls === undefined) changes.push(ch);
        else held.add(merged.addOne(tenant, cls, ch));
      });
      for (const t of changed) {
        const cls = layoutOf(t).classOf.get(i);
        if (cls) merged.except(cls, i, held);
      }
    }
    return { changes, wide: merged.result(user) };
  };
  const holders = new Set([...before.facts.tenantRoles, ...after.facts.tenantRoles].map((r) => r.user));
  return { holds: (user) => holders.has(user), diff, regroup };
}

/** The tenant of a change held only through tenant-wide roles, or undefined. */
function tenantOnly(c: ComparedChange): string | undefined {
  const first = c.via[0]?.path;
  if (first?.kind !== 'tenant' || !c.via.every((v) => v.path.kind === 'tenant')) return undefined;
  return first.tenant;
}

/** The changes being merged for one user: per (tenant, sign, subject, role), the classes they cover. */
class Merged {
  private readonly byKey = new Map<string, MergedChange>();
  private readonly keysOf = new Map<InstanceClass, Set<string>>();

  /** A change found on a class's first instance: it holds on the whole class (but for `except`). */
  addClass(tenant: string, cls: InstanceClass, c: ComparedChange): void {
    const key = this.entry(tenant, c);
    this.byKey.get(key)!.classes.add(cls);
    getOrSet(this.keysOf, cls, () => new Set()).add(key);
  }

  /** A change found on one instance compared alone; its key. */
  addOne(tenant: string, cls: InstanceClass, c: ComparedChange): string {
    const key = this.entry(tenant, c);
    if (!this.keysOf.get(cls)?.has(key)) getOrSet(this.byKey.get(key)!.added, cls, () => new Set()).add(c.instance);
    return key;
  }

  /** Instance `i` of `cls`, compared alone, holds only the changes `held`: out of the class's others. */
  except(cls: InstanceClass, i: string, held: ReadonlySet<string>): void {
    for (const key of this.keysOf.get(cls) ?? []) if (!held.has(key)) this.byKey.get(key)!.except.add(i);
  }

  result(user: string): TenantWideAccessChange[] {
    const out: { first: string; change: TenantWideAccessChange }[] = [];
    for (const m of this.byKey.values()) {
      const instances = m.covered();
      if (instances.size === 0) continue;
      out.push({ first: instances.first(1)[0], change: { ...m.change, user, instances } });
    }
    return out
      .sort(
        (a, b) =>
          cmp(a.first, b.first) ||
          cmp(a.change.subject, b.change.subject) ||
          (a.change.sign === b.change.sign ? 0 : a.change.sign === '+' ? -1 : 1),
      )
      .map((o) => o.change);
  }

  private entry(tenant: string, c: ComparedChange): string {
    const role = c.via[0].role === c.subject ? undefined : c.via[0].role;
    const key = `${tenant}\u0000${c.sign}\u0000${c.subject}\u0000${role ?? ''}`;
    if (!this.byKey.has(key)) {
      const change = { sign: c.sign, subject: c.subject, tenant, ...(role !== undefined ? { role } : {}), via: c.via };
      this.byKey.set(key, new MergedChange(change));
    }
    return key;
  }
}

class MergedChange {
  readonly classes = new Set<InstanceClass>();
  readonly except = new Set<string>();
  /** Instances of a class the change does not cover as a whole, found one by one. */
  readonly added = new Map<InstanceClass, Set<string>>();

  constructor(readonly change: Omit<TenantWideAccessChange, 'user' | 'instances'>) {}

  /**
   * The canonical form: every class holding one of the instances, less the instances it does not hold
   * on. A class of which only some instances were found one by one is walked here (rare: see above).
   */
  covered(): CoveredInstances {
    const except = new Set(this.except);
    const classes = new Set(this.classes);
    for (const [cls, found] of this.added) {
      if (classes.has(cls)) continue;
      classes.add(cls);
      for (const i of cls.instances) if (!found.has(i)) except.add(i);
    }
    const kept: InstanceClass[] = [];
    for (const cls of classes) {
      if (except.size >= cls.instances.length && cls.instances.every((i) => except.has(i))) {
        for (const i of cls.instances) except.delete(i);
      } else kept.push(cls);
    }
    return new CoveredInstances(
      kept.map((c) => c.instances),
      except,
    );
  }
}

/** The user's tenant-wide sources by tenant. */
function byTenant(
  sources: readonly HeldSource[],
): Map<string, HeldSource & { tenant: NonNullable<HeldSource['tenant']> }> {
  const out = new Map<string, HeldSource & { tenant: NonNullable<HeldSource['tenant']> }>();
  for (const s of sources)
    if (s.tenant) out.set(s.tenant.tenant, s as HeldSource & { tenant: NonNullable<HeldSource['tenant']> });
  return out;
}

/** Instances where a tenant-wide source holds something through another path (derivations). */
function beyondTenant(held: readonly Held[]): string[] {
  const out: string[] = [];
  for (const h of held)
    if (h.paths.some((p) => p.kind !== 'tenant') && out[out.length - 1] !== h.instance) out.push(h.instance);
  return out;
}

/** The tenant's instances in classes (type, listed before, listed after), each list made once per diff. */
function buildLayout(
  before: AccessGraph,
  after: AccessGraph,
  inBefore: ReadonlySet<string>,
  inAfter: ReadonlySet<string>,
): Layout {
  const classOf = new Map<string, InstanceClass>();
  const byKey = new Map<string, InstanceClass>();
  const moved: string[] = [];
  for (const i of [...new Set([...inBefore, ...inAfter])].sort(cmp)) {
    const b = inBefore.has(i);
    const a = inAfter.has(i);
    const cls = getOrSet(byKey, `${typeOf(i)}\u0000${b}\u0000${a}`, () => ({ inBefore: b, inAfter: a, instances: [] }));
    cls.instances.push(i);
    classOf.set(i, cls);
    if (b !== a && (b ? after : before).tenantOf(i) !== null) moved.push(i);
  }
  return { classes: [...byKey.values()], classOf, moved };
}

/** The instances a graph lists, by tenant (an instance's first listing decides its tenant, as in the graph). */
function listedByTenant(graph: AccessGraph): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const i of graph.facts.instances)
    if (graph.tenantOf(i.id) === i.tenant) getOrSet(out, i.tenant, () => new Set<string>()).add(i.id);
  return out;
}
