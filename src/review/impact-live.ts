/**
 * "If approved" on the whole environment: the access graphs of the live state and of the live state with
 * the requested role assignment added, compared as the plan's access section compares before and after
 * (`eachAccessChange` in the permission view, `diffAbac` for set rules), for the requester. So every
 * source counts: the role itself, tenant-wide, resource roles, what it derives over relationship tuples,
 * what the requester holds already through groups, and set rules, decided on the stored attributes
 * (`context.*`, which only a check passes, said, never guessed). Pure; the graphs are memoised per live
 * state read, since the detail pane is drawn again on every key.
 */
import { buildAccessGraph, eachAccessChange, type AccessGraph, type Via } from '../access/index.js';
import { factsFromState } from '../access/from-state.js';
import { derivationCache } from '../access/derive.js';
import { abacMemo } from '../access/abac/graph.js';
import {
  describeResourceSet,
  describeUserSet,
  diffAbac,
  type AbacChangeLine,
  type AbacUndecided,
} from '../access/abac/diff.js';
import { countInstances, pluralOfType } from '../access/summary.js';
import { cmp } from '../access/paths.js';
import { liveAfter } from '../plan/after.js';
import { createChange } from '../plan/change.js';
import { ids } from '../plan/identity.js';
import type { LiveState } from '../types/live.js';
import { typeOf } from '../types/refs.js';
import { count, plural } from '../words.js';
import type { AccessRequest } from './request.js';
import type { Impact } from './impact.js';

/** Lines of gains shown before "… and N more lines"; instances named on one line. */
const MAX_LINES = 20;
const INSTANCES_PER_LINE = 10;

const NOTE =
  'from the whole environment as read this session: groups, derivations over relationship tuples and set rules on stored attributes included; R reads it again';

interface Base {
  before: AccessGraph;
  derivations: ReturnType<typeof derivationCache>;
  memo: ReturnType<typeof abacMemo>;
  impacts: Map<string, Impact>;
}
const bases = new WeakMap<LiveState, Base>();

/** The live state once `request` is approved as `role` (a key, as the service takes it): the assignment added. */
export function liveWithGrant(
  live: LiveState,
  request: Pick<AccessRequest, 'requester' | 'tenant' | 'resource' | 'instance'>,
  role: string,
): LiveState {
  const on = instanceOf(request);
  const grant = { user: request.requester, role, tenant: request.tenant, ...(on ? { on } : {}) };
  return liveAfter(live, [createChange('assignment', ids.assignment(grant.user, role, on ?? request.tenant), grant)]);
}

/** What approving `request` as `role` changes for the requester, on the whole live state. */
export function buildLiveImpact(request: AccessRequest, live: LiveState, role = request.role): Impact {
  let base = bases.get(live);
  if (!base) {
    const derivations = derivationCache();
    const memo = abacMemo();
    base = {
      before: buildAccessGraph(factsFromState(live), { derivations, abacMemo: memo }),
      derivations,
      memo,
      impacts: new Map(),
    };
    bases.set(live, base);
  }
  const key = `${request.requester}\u0000${request.tenant}\u0000${instanceOf(request) ?? ''}\u0000${role}`;
  let impact = base.impacts.get(key);
  if (!impact) base.impacts.set(key, (impact = { ...impactOn(request, live, role, base), note: NOTE }));
  return impact;
}

const instanceOf = (r: Pick<AccessRequest, 'resource' | 'instance'>) =>
  r.resource && r.instance ? `${r.resource}:${r.instance}` : undefined;

function impactOn(request: AccessRequest, live: LiveState, role: string, base: Base): Omit<Impact, 'note'> {
  const user = request.requester;
  const instance = instanceOf(request);
  const { before } = base;
  const id = instance ? before.roleOn(role, instance) : role;
  if (!before.facts.roles.some((r) => r.key === id)) {
    const where = instance
      ? `neither a role of ${request.resource} nor a top-level role`
      : 'not a top-level role of this environment';
    return { lines: [`? ${role} is ${where} (the service will refuse it)`], gained: [] };
  }
  const where = instance ? `on ${instance}` : `tenant-wide in ${request.tenant}`;
  const held = live.users
    .get(user)
    ?.roles.some((r) => r.role === role && r.tenant === request.tenant && (r.on ?? '') === (instance ?? ''));
  if (held) return { lines: [`= ${user} already holds ${id} ${where}: approving changes nothing`], gained: [] };
  const after = buildAccessGraph(factsFromState(liveWithGrant(live, request, role)), {
    derivations: base.derivations,
    abacMemo: base.memo,
  });
  const type = request.resource ?? undefined;
  const perms = after.permissionsOf(id).filter((p) => !type || typeOf(p) === type);

  const groups = roleGains(before, after, user);
  const own = (g: Gain) => g.via.path.kind === (instance ? 'direct' : 'tenant') && g.via.role === id;
  const lines: string[] = [];
  let gained: string[] = [];
  if (instance) {
    gained = groups.find((g) => own(g) && g.instances.includes(instance))?.perms ?? [];
    const kept = perms.filter((p) => !gained.includes(p));
    const through = kept.length > 0 ? heldThrough(before, user, instance, kept) : '';
    if (gained.length > 0) lines.push(`+ ${id}: ${gained.join(', ')} on ${instance}`);
    if (kept.length > 0)
      lines.push(
        gained.length > 0
          ? `  already held there: ${kept.join(', ')}${through}`
          : `= ${user} gains nothing on ${instance}: ${id} grants ${kept.join(', ')}, held already${through}`,
      );
    if (perms.length === 0) lines.push(`+ ${id} on ${instance} (grants no permission on this type)`);
  } else {
    const mine = groups.filter(own);
    gained = [...new Set(mine.flatMap((g) => g.perms))].sort(cmp);
    for (const g of mine) lines.push(`+ ${id} ${where}: ${g.perms.join(', ')} on ${listed(g.instances)}`);
    if (mine.length === 0) lines.push(tenantWideNothing(after, id, request.tenant, perms, user));
  }
  const rest = groups
    .filter((g) => !own(g))
    .map((g) => `+ ${g.via.role}: ${g.perms.join(', ')} on ${listed(g.instances, describeVia(g.via))}`);
  // Only the requester's facts differ between the graphs: no one else is compared.
  const abac = after.abac || before.abac ? diffAbac(before, after, { users: [user] }) : undefined;
  // Gains first, then losses (the diff's order within each), then what waits for the context.
  const byRule = abac?.lines.filter((l) => l.users.includes(user)) ?? [];
  const ruleLines = [...byRule.filter((l) => l.sign === '+'), ...byRule.filter((l) => l.sign === '-')].map((l) =>
    ruleLine(l, user),
  );
  ruleLines.push(...(abac?.undecided.filter((u) => u.users > 0).map(undecidedLine) ?? []));
  const more = [...rest, ...ruleLines];
  const room = Math.max(0, MAX_LINES - lines.length);
  lines.push(...more.slice(0, room));
  if (more.length > room) lines.push(`  … and ${plural(more.length - room, 'more line', 'more lines')}`);
  return { lines, gained };
}

/** Permissions gained on instances through one role and path, grouped by the permissions and the path. */
interface Gain {
  via: Via;
  perms: string[];
  instances: string[];
}

/** The requester's gains through roles (the plan's permission view), per role and path, then per set of permissions. */
function roleGains(before: AccessGraph, after: AccessGraph, user: string): Gain[] {
  const perInstance = new Map<string, Map<string, { via: Via; perms: string[] }>>();
  eachAccessChange(before, after, { permissions: true }, (c) => {
    if (c.user !== user || c.sign !== '+') return;
    const byVia = perInstance.get(c.instance) ?? new Map<string, { via: Via; perms: string[] }>();
    perInstance.set(c.instance, byVia);
    const via = c.via[0];
    const key = viaKey(via);
    const entry = byVia.get(key) ?? { via, perms: [] };
    byVia.set(key, entry);
    entry.perms.push(c.subject);
  });
  const groups = new Map<string, Gain>();
  for (const [instance, byVia] of perInstance) {
    for (const [key, { via, perms }] of byVia) {
      const k = `${key}\u0000${perms.join(',')}`;
      const g = groups.get(k) ?? { via, perms, instances: [] };
      groups.set(k, g);
      g.instances.push(instance);
    }
  }
  return [...groups.values()].sort(
    (a, b) => depth(a.via) - depth(b.via) || cmp(viaKey(a.via), viaKey(b.via)) || cmp(a.instances[0], b.instances[0]),
  );
}

const depth = (v: Via) => (v.path.kind === 'derived' ? 1 : 0);

/** What groups gains: the role, and how it is held apart from the instance (a derivation: from which role on which instance). */
function viaKey(v: Via): string {
  return `${v.role}\u0000${describeVia(v)}`;
}

function describeVia(v: Via): string {
  const p = v.path;
  switch (p.kind) {
    case 'direct':
      return '';
    case 'tenant':
      return ` (tenant-wide in ${p.tenant})`;
    case 'group':
      return ` (through ${p.chain.join(' → ')})`;
    case 'derived':
      return ` (from ${p.role} on ${p.subject} via ${p.relation})`;
  }
}

/** "document:q1", or "3 documents (from …): document:a, document:b, document:c", at most INSTANCES_PER_LINE named. */
function listed(instances: readonly string[], suffix = ''): string {
  const sorted = [...instances].sort(cmp);
  if (sorted.length === 1) return `${sorted[0]}${suffix}`;
  const shown = sorted.slice(0, INSTANCES_PER_LINE).join(', ');
  const more = sorted.length - INSTANCES_PER_LINE;
  return `${countInstances(sorted)}${suffix}: ${shown}${more > 0 ? ` … (${count(more)} more)` : ''}`;
}

/** " (through viewer, folder#viewer via team:eng)": the roles (a group's named) and set rules that give `kept` already. */
function heldThrough(before: AccessGraph, user: string, instance: string, kept: readonly string[]): string {
  const roles = before.rolesOn(user, instance).map((h) => {
    const p = h.paths[0];
    return p.kind === 'group' ? `${h.role} via ${p.chain.at(-1)}` : h.role;
  });
  const rules = before.abac
    ? kept
        .flatMap((p) => before.abac!.allowing(user, p, instance))
        .map((r) => `set rule ${describeUserSet(r.userSet)} × ${describeResourceSet(r.resourceSet)}`)
    : [];
  const all = [...new Set([...roles, ...rules])];
  return all.length > 0 ? ` (through ${all.join(', ')})` : '';
}

/** A tenant-wide role that adds nothing through roles: no instance of its types there yet, or all held already. */
function tenantWideNothing(
  after: AccessGraph,
  role: string,
  tenant: string,
  perms: readonly string[],
  user: string,
): string {
  if (perms.length === 0) return `+ ${role} tenant-wide in ${tenant} (the role itself grants no permission)`;
  const types = new Set(perms.map(typeOf));
  const reach = after.facts.instances.filter((i) => i.tenant === tenant && types.has(typeOf(i.id))).map((i) => i.id);
  const grants = `${role} tenant-wide in ${tenant} grants ${perms.join(', ')}`;
  if (reach.length === 0)
    return `+ ${grants}: no ${[...types].sort(cmp).join(' or ')} in ${tenant} yet, so nothing today`;
  return `= ${grants}: ${user} holds it already on ${countInstances(reach)} of ${tenant}`;
}

const ruleName = (l: { via: { userSet: string; resourceSet: string } }) =>
  `set rule: ${describeUserSet(l.via.userSet)} × ${describeResourceSet(l.via.resourceSet)}`;

/** "+ expense:approve on 2 expenses (set rule: role manager × resource set urgent): expense:a, expense:b". */
function ruleLine(l: AbacChangeLine, user: string): string {
  const why = l.sign === '+' ? ruleName(l) : `${ruleName(l)}, whose user set no longer takes ${user} in`;
  return `${l.sign} ${l.permission} on ${listed(l.instances, ` (${why})`)}`;
}

/** "? expense:approve on 2 expenses depends on context.urgent (set rule: …): decided at each check". */
function undecidedLine(u: AbacUndecided): string {
  const type = typeOf(u.via.permission);
  const on = u.instances === 1 ? `1 ${type}` : `${count(u.instances)} ${pluralOfType(type)}`;
  return `? ${u.via.permission} on ${on} depends on ${u.attributes.join(', ')} (${ruleName(u)}): decided at each check, by the context it passes`;
}
