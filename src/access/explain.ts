import type { AccessFacts, Decision, Explanation, Missing, RoleHolding, Via, Way } from './facts.js';
import { cmp, compareVia } from './paths.js';
import { qualify, typeOf } from '../types/refs.js';
import type { RoleIndex } from './roles.js';

/**
 * What explaining asks of the access graph (graph.ts's `AccessGraph` has it all; written out here, not
 * imported: graph.ts calls `explainAccess`, and the two files must not import each other).
 */
export interface ExplainGraph {
  readonly facts: AccessFacts;
  can(user: string, action: string, instance: string): Decision;
  rolesOn(user: string, instance: string): RoleHolding[];
  tenantOf(instance: string): string | null;
  roleOn(role: string, instance: string): string;
}

export interface ExplainInput {
  graph: ExplainGraph;
  roles: RoleIndex;
  /** The group grants on `instance`. */
  grantsOn: readonly { group: string; role: string }[];
  user: string;
  subject: string;
  instance: string;
}

/** Ways listed in the message; the data keeps them all. */
const WAYS_IN_MESSAGE = 12;

/**
 * Every path that grants `subject` (a known role key, else an action) and, when denied, what is missing.
 * A name that is both a role key and an action is read as the role: pass `type:action` to mean the action.
 */
export function explainAccess(input: ExplainInput): Explanation {
  const { graph, roles, user, subject, instance } = input;
  // A role named on an instance is the resource role of the instance's type when there is one.
  const role = subject.includes(':') ? subject : graph.roleOn(subject, instance);
  const isRole = !subject.includes(':') && graph.facts.roles.some((r) => r.key === role);
  const base = { user, instance, subject };
  if (isRole) {
    const held = graph.rolesOn(user, instance).find((h) => h.role === role);
    const via: Via[] = (held?.paths ?? []).map((path) => ({ role, path }));
    if (via.length > 0) return { ...base, kind: 'role', allowed: true, via };
    return { ...base, kind: 'role', allowed: false, via, missing: describeMissing(input, [role], `role ${role}`) };
  }
  const permission = qualify(subject, instance);
  const decision = graph.can(user, subject, instance);
  const kind = 'permission' as const;
  if (permission === null) {
    const message = `${subject} does not apply to ${instance}: the permission names another resource type.`;
    return {
      ...base,
      kind,
      allowed: false,
      via: [],
      missing: { roles: [], groups: [], ways: [], tenant: graph.tenantOf(instance), message },
    };
  }
  if (decision.allowed) return { ...base, kind, permission, allowed: true, via: decision.via.sort(compareVia) };
  const granting = roles.rolesGranting(permission);
  return { ...base, kind, permission, allowed: false, via: [], missing: describeMissing(input, granting, permission) };
}

function describeMissing(input: ExplainInput, granting: string[], what: string): Missing {
  const { graph, user, instance } = input;
  const tenant = graph.tenantOf(instance);
  const groups = input.grantsOn
    .filter((g) => granting.includes(g.role))
    .sort((a, b) => cmp(a.group, b.group) || cmp(a.role, b.role));
  if (granting.length === 0) {
    return { roles: [], groups: [], ways: [], tenant, message: `No role has ${what}: no assignment can grant it.` };
  }
  const ways = waysIn(graph, user, granting, instance);
  const here = ways.filter((w) => w.steps.length === 0);
  const parts: string[] = [];
  const direct = here.filter((w) => w.by.kind === 'direct').map((w) => w.role);
  if (direct.length > 0) parts.push(`a direct ${direct.join(' or ')} on ${instance}`);
  // Resource roles (`document#editor`) are held on instances only; tenant-wide roles are top-level.
  const tenantWide = here.filter((w) => w.by.kind === 'tenant').map((w) => w.role);
  if (tenant !== null && tenantWide.length > 0) parts.push(`a tenant-wide ${tenantWide.join(' or ')} in ${tenant}`);
  if (groups.length > 0) parts.push(`membership of ${groups.map((g) => `${g.group} (${g.role})`).join(', ')}`);
  const derived = ways.filter((w) => w.steps.length > 0);
  for (const w of derived.slice(0, WAYS_IN_MESSAGE)) parts.push(describeWay(w));
  if (derived.length > WAYS_IN_MESSAGE)
    parts.push(`${derived.length - WAYS_IN_MESSAGE} more through derivations (--format json lists them)`);
  let message =
    parts.length > 0
      ? `${user} lacks ${what} on ${instance}; it would take ${parts.join('; or ')}.`
      : `${user} lacks ${what} on ${instance}; no assignment can grant it here.`;
  if (tenant === null) message += ` Tenant-wide roles do not apply: ${instance} is not a listed instance.`;
  return { roles: granting, groups, ways, tenant, message };
}

/** "folder#editor on folder:finance (document#editor via parent)", or the group that holds it. */
function describeWay(w: Way): string {
  const steps = w.steps
    .map((s, i) => `${s.role}${i === w.steps.length - 1 ? '' : ` on ${s.object}`} via ${s.relation}`)
    .join(', then ');
  const held = `${w.role} on ${w.instance} (${steps})`;
  return w.by.kind === 'group'
    ? `membership of ${w.by.group}, which holds ${held}`
    : w.by.kind === 'tenant'
      ? `a tenant-wide ${held}`
      : `a direct ${held}`;
}

/**
 * Every way to hold one of `granting` on `instance`, walking role derivations backwards over the tuples
 * (the rules of derive.ts, read the other way): a derived role is reached from the role it derives from,
 * held on a subject related to the object, of the derivation's type. A `no_direct_roles_on_object` rule
 * is no way in for a user who holds a role directly on its object. Each (role, instance) is visited once,
 * by its shortest derivation, so cycles of tuples end.
 */
function waysIn(graph: ExplainGraph, user: string, granting: readonly string[], instance: string): Way[] {
  const facts = graph.facts;
  const derivations = facts.derivations ?? [];
  const tuples = facts.relationships ?? [];
  const directOn = new Set(facts.instanceRoles.filter((r) => r.user === user).map((r) => r.instance));
  const ways: Way[] = [];
  const seen = new Set<string>();
  // `noDirect`: the objects a `no_direct_roles_on_object` rule on the way derives into; a direct role
  // there would stop it, so a direct assignment on one of them is no way in.
  const queue: { role: string; instance: string; steps: Way['steps']; noDirect: ReadonlySet<string> }[] = [];
  const visit = (role: string, on: string, steps: Way['steps'], noDirect: ReadonlySet<string>) => {
    const key = `${role}\u0000${on}`;
    if (seen.has(key)) return;
    seen.add(key);
    queue.push({ role, instance: on, steps, noDirect });
  };
  for (const role of granting) visit(role, instance, [], new Set());
  for (let i = 0; i < queue.length; i++) {
    const { role, instance: on, steps, noDirect } = queue[i];
    const hash = role.indexOf('#');
    if (hash >= 0 && role.slice(0, hash) !== typeOf(on)) continue;
    // Assigned on `on` only when its key names this role there: a top-level role that the type's own role
    // of that key hides is not (the service resolves the key to the resource role); tenant-wide it is.
    if ((hash >= 0 || graph.roleOn(role, on) === role) && !noDirect.has(on))
      ways.push({ role, instance: on, by: { kind: 'direct' }, steps });
    const tenant = graph.tenantOf(on);
    if (hash < 0 && tenant !== null) ways.push({ role, instance: on, by: { kind: 'tenant', tenant }, steps });
    for (const g of facts.groupGrants)
      if (g.role === role && g.instance === on)
        ways.push({ role, instance: on, by: { kind: 'group', group: g.group }, steps });
    for (const d of derivations) {
      if (d.role !== role || (d.noDirect && directOn.has(on))) continue;
      const fromType = d.from.slice(0, Math.max(0, d.from.indexOf('#')));
      for (const t of tuples) {
        if (t.object !== on || t.relation !== d.relation || typeOf(t.subject) !== fromType) continue;
        visit(
          d.from,
          t.subject,
          [{ relation: d.relation, object: on, role }, ...steps],
          d.noDirect ? new Set([...noDirect, on]) : noDirect,
        );
      }
    }
  }
  return ways;
}
