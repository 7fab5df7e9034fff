/**
 * Live objects the configuration does not declare, in the sections it manages: every plan lists them,
 * with the access each grants now, whether the plan deletes them (--prune, or `authoritative:`) or keeps
 * them. A person removed from `users:` without either is still live and still has access: the plan must
 * say so instead of "No changes". Pure; derived data, outside the checksum.
 */
import { SECTIONS, type DesiredState, type Section } from '../types/desired.js';
import { buildAccessGraph, type AccessGraph } from '../access/index.js';
import { grantsOnType } from '../access/graph.js';
import { allowsWithout } from '../access/abac/graph.js';
import { factsFromState } from '../access/from-state.js';
import { typeOf } from '../types/refs.js';
import { DEFAULT_TENANT, MEMBER_ROLE } from '../types/names.js';
import { type LiveState } from '../types/live.js';
import { ids } from './identity.js';
import { KINDS, type Change, type Kind } from './change.js';
import type { PlanHeld } from './request-grants.js';
import type { RequestGrant } from '../types/live.js';
import { ruleId, setSection } from './abac.js';
import { agree, plural } from '../words.js';
import { attributesNamed, parseConditions } from '../access/conditions/index.js';

/**
 * The tenant a new environment of the public service comes with: the service's, like the `member` role
 * and the resource of each group type. Never deleted, nor listed, unless the configuration declares it.
 */

export interface UndeclaredObject {
  id: string;
  kind: Kind;
  /**
   * `deleted` by this plan; `kept`: not deleted (the plan has no --prune and the configuration does not
   * declare the section authoritative); `held`: its deletion is withheld because it would remove grants
   * of approved access requests (`held.kept`).
   */
  fate: 'deleted' | 'kept' | 'held';
  /** What it grants now, one line each: `admin on 12 instances (tenant-wide in acme)`. Empty: nothing. */
  access: string[];
  /** Access lines left out. */
  omittedAccess: number;
}

export interface PlanUndeclared {
  total: number;
  deleted: number;
  /** Sorted by kind (dependency order), then identity; the first `OBJECTS_LISTED`. */
  objects: UndeclaredObject[];
  /** Objects left out of `objects`. */
  omitted: number;
}

export const OBJECTS_LISTED = 50;
const ACCESS_LINES = 5;
const NAMES = 3;

export interface UndeclaredInput {
  desired: DesiredState;
  live: LiveState;
  changes: readonly Change[];
  held: PlanHeld | undefined;
  requestGrants: readonly RequestGrant[];
}

/** The undeclared live objects, or undefined when there are none. */
export function listUndeclared(input: UndeclaredInput): PlanUndeclared | undefined {
  const { desired, live, changes } = input;
  const deleted = new Set(changes.filter((c) => c.action === 'delete').map((c) => c.id));
  const withheld = new Set((input.held?.kept ?? []).map((k) => k.id));
  const groupTypes = new Set([...live.groups.values()].map((g) => g.type));
  const found: { id: string; kind: Kind; key: string }[] = [];
  const add = (
    section: Section,
    kind: Kind,
    keys: Iterable<string>,
    declared: Map<string, unknown>,
    id: (k: string) => string,
    serviceOwned: (k: string) => boolean = () => false,
  ) => {
    if (!desired.sections.has(section)) return;
    for (const key of keys)
      if (!declared.has(key) && (deleted.has(id(key)) || !serviceOwned(key))) found.push({ id: id(key), kind, key });
  };
  for (const section of SECTIONS) {
    switch (section) {
      case 'resources':
        add(section, 'resource', live.resources.keys(), desired.resources, ids.resource, (k) => groupTypes.has(k));
        break;
      case 'roles':
        add(section, 'role', live.roles.keys(), desired.roles, ids.role, (k) => k === MEMBER_ROLE);
        break;
      case 'tenants':
        add(section, 'tenant', live.tenants.keys(), desired.tenants, ids.tenant, (k) => k === DEFAULT_TENANT);
        break;
      case 'users':
        add(section, 'user', live.users.keys(), desired.users, ids.user);
        break;
      case 'resource_instances':
        add(section, 'instance', live.resourceInstances.keys(), desired.resourceInstances, ids.instance);
        break;
      case 'groups':
        add(section, 'group', live.groups.keys(), desired.groups, ids.group);
        break;
      case 'access_requests':
        add(section, 'access_requests', live.accessRequests.keys(), desired.accessRequests, ids.accessRequests);
        break;
      case 'user_attributes':
        add(section, 'user_attribute', live.userAttributes.keys(), desired.userAttributes, ids.userAttribute);
        break;
      case 'tenant_attributes':
        add(section, 'tenant_attribute', live.tenantAttributes.keys(), desired.tenantAttributes, ids.tenantAttribute);
        break;
      case 'user_sets':
      case 'resource_sets': {
        const keys = [...live.conditionSets.values()].filter((c) => setSection(c.type) === section).map((c) => c.key);
        add(section, 'condition_set', keys, desired.conditionSets, ids.conditionSet);
        break;
      }
      case 'set_rules':
        add(section, 'set_rule', live.setRules.keys(), desired.setRules, (k) => ruleId(live.setRules.get(k)!));
        break;
    }
  }
  if (found.length === 0) return undefined;
  found.sort((a, b) => KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind) || cmp(a.id, b.id));
  const listed = found.slice(0, OBJECTS_LISTED);
  const graph = buildAccessGraph(factsFromState(live));
  const describe = describer(graph, input);
  const objects = listed.map(({ id, kind, key }): UndeclaredObject => {
    const lines = describe(kind, key);
    return {
      id,
      kind,
      fate: deleted.has(id) ? 'deleted' : withheld.has(id) ? 'held' : 'kept',
      access: lines.slice(0, ACCESS_LINES),
      omittedAccess: Math.max(0, lines.length - ACCESS_LINES),
    };
  });
  return {
    total: found.length,
    deleted: found.filter((o) => deleted.has(o.id)).length,
    objects,
    omitted: found.length - listed.length,
  };
}

/** The access lines of one object, by kind, read from the live graph. */
function describer(graph: AccessGraph, input: UndeclaredInput): (kind: Kind, key: string) => string[] {
  const { live } = input;
  // Holders of every role, in one walk over the graph: 50 undeclared roles must not walk it 50 times.
  let byRole: Map<string, { holders: Set<string>; instances: Set<string> }> | undefined;
  const holdersOf = (role: string) => {
    if (!byRole) {
      byRole = new Map();
      for (const g of graph.effectiveGrants()) {
        const entry =
          byRole.get(g.role) ?? byRole.set(g.role, { holders: new Set(), instances: new Set() }).get(g.role)!;
        entry.holders.add(g.user);
        entry.instances.add(g.instance);
      }
    }
    return byRole.get(role) ?? { holders: new Set<string>(), instances: new Set<string>() };
  };
  return (kind, key) => {
    switch (kind) {
      case 'user':
        return [...userAccess(graph, key), ...setRuleAccess(graph, key)];
      case 'group':
      case 'instance':
        return onInstance(graph, live, key, kind === 'group');
      case 'role': {
        const { holders, instances } = holdersOf(key);
        const perms = graph.permissionsOf(key);
        return [
          ...(holders.size > 0
            ? [`held by ${users([...holders].sort(cmp))} on ${plural(instances.size, 'instance')}`]
            : []),
          ...(perms.length > 0 ? [`permits ${perms.join(', ')}`] : []),
        ];
      }
      case 'tenant': {
        const inTenant = [...live.users.values()]
          .filter((u) => u.tenants.includes(key))
          .map((u) => u.key)
          .sort(cmp);
        const objects = [...live.resourceInstances.values(), ...live.groups.values()].filter(
          (o) => o.tenant === key,
        ).length;
        const lines =
          inTenant.length + objects > 0
            ? [`${users(inTenant)} in it; ${plural(objects, 'instance or group', 'instances and groups')}`]
            : [];
        const wide = new Map<string, string[]>();
        for (const u of live.users.values())
          for (const r of u.roles)
            if (r.tenant === key && r.on === undefined)
              (wide.get(r.role) ?? wide.set(r.role, []).get(r.role)!).push(u.key);
        for (const [role, holders] of [...wide].sort(([a], [b]) => cmp(a, b)))
          lines.push(`${role} tenant-wide to ${users(holders.sort(cmp))}`);
        return lines;
      }
      case 'resource': {
        const objects =
          [...live.resourceInstances.values()].filter((i) => i.resource === key).length +
          [...live.groups.values()].filter((g) => g.type === key).length;
        const roles = [...live.roles.values()]
          .filter((r) => r.permissions.some((p) => p.startsWith(`${key}:`)))
          .map((r) => r.key);
        return [
          ...(objects > 0 ? [`${plural(objects, 'instance')} of this type`] : []),
          ...(roles.length > 0
            ? [`its actions are permitted by ${agree(roles.length, 'role', 'roles')} ${roles.join(', ')}`]
            : []),
        ];
      }
      case 'access_requests': {
        const requests = new Set(input.requestGrants.filter((g) => g.request.config === key).map((g) => g.request.id));
        const held = (input.held?.grants ?? []).filter((g) => g.request.config === key).map((g) => g.id);
        return [
          ...(requests.size > 0 ? [`${plural(requests.size, 'approved request')} made through it`] : []),
          ...held.map((id) => `holds ${id}`),
        ];
      }
      case 'user_attribute':
      case 'tenant_attribute': {
        const entity = kind === 'user_attribute' ? 'user' : 'tenant';
        const sets = [...live.conditionSets.values()]
          .filter((c) => namesAttribute(c.conditions, `${entity}.${key}`))
          .map((c) => c.key)
          .sort(cmp);
        return sets.length > 0 ? [`used by the conditions of ${plural(sets.length, 'set')} (${names(sets)})`] : [];
      }
      case 'condition_set':
        return [...live.setRules.values()]
          .filter((r) => r.userSet === key || r.resourceSet === key)
          .map((r) => `${r.resource}:${r.action} from ${r.userSet} on ${r.resourceSet}`)
          .sort(cmp);
      case 'set_rule': {
        const r = live.setRules.get(key);
        return r ? [`users in ${r.userSet} may ${r.resource}:${r.action} on ${r.resourceSet}`] : [];
      }
      default:
        return [];
    }
  };
}

/** Whether a conditions tree names `entity.attribute` (a leaf or a reference). */
function namesAttribute(conditions: Record<string, unknown>, name: string): boolean {
  const parsed = parseConditions(conditions);
  return (
    parsed.ok && attributesNamed(parsed.condition).some((n) => `${n.attribute.entity}.${n.attribute.path[0]}` === name)
  );
}

/** A user's roles, grouped by role and origin: `admin on 12 instances (tenant-wide in acme)`. */
function userAccess(graph: AccessGraph, user: string): string[] {
  const byOrigin = new Map<string, string[]>();
  for (const g of graph.grantsOf(user)) {
    // A tenant-wide role on an instance of a type it grants nothing on is no access there.
    if (g.paths.every((p) => p.kind === 'tenant') && !grantsOnType(graph, g.role, g.instance)) continue;
    const p = g.paths[0];
    const origin =
      p.kind === 'direct'
        ? 'direct'
        : p.kind === 'tenant'
          ? `tenant-wide in ${p.tenant}`
          : p.kind === 'group'
            ? `through ${p.chain[p.chain.length - 1]}`
            : `derived from ${p.role} on ${p.subject}`;
    const key = `${g.role}\u0000${origin}`;
    (byOrigin.get(key) ?? byOrigin.set(key, []).get(key)!).push(g.instance);
  }
  return [...byOrigin]
    .sort(([a], [b]) => cmp(a, b))
    .map(([key, instances]) => {
      const [role, origin] = key.split('\u0000');
      return `${role} on ${instances.length === 1 ? instances[0] : `${plural(instances.length, 'instance')} (${names(instances)})`} (${origin})`;
    });
}

/**
 * What set rules give a user, a line per rule: `expense:approve on 2 instances (expense:e1, expense:e2)
 * through set rule senior_can_expense_approve___autogen_expense`, decided as a check passing nothing
 * (stored attributes; one that depends on `context.*` and allows without it counts, as in `can`).
 */
function setRuleAccess(graph: AccessGraph, user: string): string[] {
  const abac = graph.abac;
  if (!abac) return [];
  const lines: string[] = [];
  for (const rule of abac.rules) {
    const instances: string[] = [];
    for (const list of abac.instancesOf(rule.def.resource).values())
      for (const i of list) if (allowsWithout(abac.ruleStatus(rule, user, i))) instances.push(i);
    if (instances.length === 0) continue;
    instances.sort(cmp);
    const on = instances.length === 1 ? instances[0] : `${plural(instances.length, 'instance')} (${names(instances)})`;
    lines.push(`${rule.via.permission} on ${on} (set rule ${rule.via.rule})`);
  }
  return lines;
}

/** Who holds what on an instance (or group), and for a group what its members hold through it. */
function onInstance(graph: AccessGraph, live: LiveState, ref: string, isGroup: boolean): string[] {
  const lines: string[] = [];
  if (isGroup) {
    const members = graph.membersOf(ref);
    const through = graph.grantsThrough(ref);
    if (through.length === 0 && members.length > 0)
      lines.push(`${plural(members.length, 'member')} (${names(members)}), no roles through it`);
    for (const g of through) lines.push(`${g.role} on ${g.instance} to ${users(members)}`);
  }
  // Every role that can be held on it, by identity: the top-level roles, as they resolve on the
  // instance, and the resource roles of its type (which may have no top-level namesake).
  const ofType = graph.facts.roles.filter((r) => r.key.startsWith(`${typeOf(ref)}#`)).map((r) => r.key);
  const roles = [
    ...new Set(
      [...live.roles.keys(), MEMBER_ROLE, ...ofType].map((r) => (r === MEMBER_ROLE ? r : graph.roleOn(r, ref))),
    ),
  ].sort(cmp);
  for (const role of roles) {
    if (isGroup && role === MEMBER_ROLE) continue; // its members, above
    // Only what is granted there: a role that grants nothing on the type (a tenant-wide admin of
    // documents, on a team) is no access to it.
    if (!grantsOnType(graph, role, ref)) continue;
    const holders = graph.usersWith(role, ref);
    if (holders.length > 0) lines.push(`${role} on it to ${users(holders)}`);
  }
  return lines;
}

const names = (xs: readonly string[]) => xs.slice(0, NAMES).join(', ') + (xs.length > NAMES ? ', …' : '');
const users = (xs: readonly string[]) => (xs.length === 0 ? 'no users' : `${plural(xs.length, 'user')} (${names(xs)})`);
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
