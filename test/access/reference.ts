/**
 * A deliberately naive reading of the access semantics, for property tests: fixpoint iteration over
 * memberships and links, no indexes, no memoisation. Also usable to check the server's `/allowed`.
 */
import type { AccessFacts } from '../../src/access/index.js';

/** user → every group the user is a member of, directly or through links (until nothing changes). */
export function naiveGroups(f: AccessFacts): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const m of f.memberships) {
    if (!out.has(m.user)) out.set(m.user, new Set());
    out.get(m.user)!.add(m.group);
  }
  let grew = true;
  while (grew) {
    grew = false;
    for (const groups of out.values()) {
      for (const l of f.links) {
        if (groups.has(l.child) && !groups.has(l.parent)) {
          groups.add(l.parent);
          grew = true;
        }
      }
    }
  }
  return out;
}

export function naiveTenantOf(f: AccessFacts, instance: string): string | undefined {
  return f.instances.find((i) => i.id === instance)?.tenant;
}

/** Every held (user, instance, role), as `user|instance|role`. */
export function naiveGrants(f: AccessFacts): Set<string> {
  return naiveGrantsAndDerived(f).held;
}

/** naiveGrants, and the grants some derivation step gives (whether or not they are also held otherwise). */
export function naiveGrantsAndDerived(f: AccessFacts): { held: Set<string>; derived: Set<string> } {
  const out = new Set<string>();
  const derived = new Set<string>();
  for (const r of f.instanceRoles) out.add(`${r.user}|${r.instance}|${r.role}`);
  for (const r of f.tenantRoles) {
    for (const i of f.instances) if (naiveTenantOf(f, i.id) === r.tenant) out.add(`${r.user}|${i.id}|${r.role}`);
  }
  for (const [user, groups] of naiveGroups(f)) {
    for (const g of f.groupGrants) if (groups.has(g.group)) out.add(`${user}|${g.instance}|${g.role}`);
  }
  // Derivations: until nothing changes, a role held on a tuple's subject gives the derived role on its
  // object (of the derived role's type), unless the rule asks for no direct role there and there is one.
  const direct = new Set(f.instanceRoles.map((r) => `${r.user}|${r.instance}`));
  let grew = (f.derivations?.length ?? 0) > 0;
  while (grew) {
    grew = false;
    for (const k of [...out]) {
      const [user, subject, from] = k.split('|');
      for (const t of f.relationships ?? []) {
        if (t.subject !== subject) continue;
        for (const d of f.derivations ?? []) {
          if (d.from !== from || d.relation !== t.relation || d.role.split('#')[0] !== t.object.split(':')[0]) continue;
          if (d.noDirect && direct.has(`${user}|${t.object}`)) continue;
          const held = `${user}|${t.object}|${d.role}`;
          derived.add(held);
          if (!out.has(held)) {
            out.add(held);
            grew = true;
          }
        }
      }
    }
  }
  return { held: out, derived };
}

/**
 * The role view of the plan's access section: naiveGrants without the tenant-wide holdings of a role
 * that grants nothing on the instance's type (src/access/diff.ts). A derived holding is listed, whatever
 * it was derived from.
 */
export function naiveRoleViewGrants(f: AccessFacts): Set<string> {
  const out = new Set<string>(naiveGrantsAndDerived(f).derived);
  for (const r of f.instanceRoles) out.add(`${r.user}|${r.instance}|${r.role}`);
  for (const r of f.tenantRoles) {
    for (const i of f.instances) {
      const type = i.id.slice(0, i.id.indexOf(':'));
      const grantsOnType = [...naivePermissions(f, r.role)].some((p) => p.slice(0, p.indexOf(':')) === type);
      if (grantsOnType && naiveTenantOf(f, i.id) === r.tenant) out.add(`${r.user}|${i.id}|${r.role}`);
    }
  }
  for (const [user, groups] of naiveGroups(f)) {
    for (const g of f.groupGrants) if (groups.has(g.group)) out.add(`${user}|${g.instance}|${g.role}`);
  }
  return out;
}

export function naiveRolesOn(f: AccessFacts, user: string, instance: string): string[] {
  return [...naiveGrants(f)]
    .map((k) => k.split('|'))
    .filter(([u, i]) => u === user && i === instance)
    .map(([, , r]) => r)
    .sort();
}

/** A role's permissions, inheriting through `extends` until nothing changes (first definition wins). */
export function naivePermissions(f: AccessFacts, role: string): Set<string> {
  const def = (k: string) => f.roles.find((r) => r.key === k);
  const roles = new Set([role]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const k of [...roles]) {
      for (const e of def(k)?.extends ?? []) {
        if (!roles.has(e)) {
          roles.add(e);
          grew = true;
        }
      }
    }
  }
  return new Set([...roles].flatMap((k) => def(k)?.permissions ?? []));
}

/** `action` is `write` or `document:write`. */
export function naiveCan(f: AccessFacts, user: string, action: string, instance: string): boolean {
  const type = instance.split(':')[0];
  const permission = action.includes(':') ? action : `${type}:${action}`;
  if (permission.split(':')[0] !== type) return false;
  return naiveRolesOn(f, user, instance).some((r) => naivePermissions(f, r).has(permission));
}

/** Every held (user, instance, permission) on the instance's own type, as `user|instance|permission`. */
export function naivePermissionGrants(f: AccessFacts): Set<string> {
  const out = new Set<string>();
  for (const k of naiveGrants(f)) {
    const [user, instance, role] = k.split('|');
    const type = instance.split(':')[0];
    for (const p of naivePermissions(f, role)) if (p.split(':')[0] === type) out.add(`${user}|${instance}|${p}`);
  }
  return out;
}

/** Every simple chain of links from `from` up to `to` (both included), by depth-first search. */
export function naiveChains(f: AccessFacts, from: string, to: string): string[][] {
  const out: string[][] = [];
  const walk = (chain: string[]) => {
    const last = chain[chain.length - 1];
    if (last === to) out.push(chain);
    for (const l of f.links) if (l.child === last && !chain.includes(l.parent)) walk([...chain, l.parent]);
  };
  walk([from]);
  return out
    .map((c) => c.join('>'))
    .filter((c, i, all) => all.indexOf(c) === i)
    .map((c) => c.split('>'));
}
