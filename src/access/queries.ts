/**
 * List queries on the access graph (docs/cli.md "who-can", "what-can"): every user who may do an action
 * on an instance, or every instance a user may do it on, each with the ways in as `explain` names them
 * (a role directly, tenant-wide, through groups or a derivation; a set rule). Pure. Decided as `check`
 * decides one assertion: roles by the graph, set rules on the state with the attributes passed (or,
 * passing none, with `context.*` not decided offline: such a user or instance is `undecided`).
 */
import type { AccessGraph } from './graph.js';
import type { AbacSource, AbacView } from './abac/model.js';
import { abacLines, checkOn, explainAbac, type LoosePassed } from './abac/explain.js';
import { formatPath } from './paths.js';
import { cmp } from './paths.js';

/** The state the graph was built from, for set rules; without it only roles count (as the graph decides rules). */
export interface QueryAbac {
  state: AbacSource;
  view: AbacView;
}

/** One (user, permission, instance) decided, with the ways in or what it waits for. */
export interface Decided {
  allowed: boolean;
  /** No role allows it and a set rule waits for decision-time attributes. */
  undecided: boolean;
  /** Allowed: every way in, one line each (`alice → team:x → editor on document:a (editor grants document:read)`). */
  ways: string[];
  /** Undecided: the attributes the rules wait for (`context.region`). */
  dependsOn: string[];
}

/** Whether `user` may do `permission` (`type:action`) on `instance`, and through what. */
export function decide(
  graph: AccessGraph,
  user: string,
  permission: string,
  instance: string,
  options: { abac?: QueryAbac; passed?: LoosePassed } = {},
): Decided {
  const decision = graph.can(user, permission, instance);
  const { abac, passed } = options;
  const rules =
    abac && abac.view.granted.has(permission)
      ? explainAbac(abac.state, abac.view, checkOn(abac.state, user, permission, instance, passed))
      : undefined;
  const ways = decision.via.map(
    (v) => `${formatPath(user, v.path, v.role, instance)} (${v.role} grants ${permission})`,
  );
  if (rules) {
    const holding = rules.rules.filter((r) => r.outcome === 'holds');
    ways.push(...abacLines({ ...rules, rules: holding }).filter((l) => !l.startsWith(' ')));
    const allowed = decision.via.length > 0 || holding.length > 0;
    const waiting = allowed ? [] : rules.rules.filter((r) => r.outcome === 'unknown');
    const dependsOn = [...new Set(waiting.flatMap((r) => r.dependsOn))].sort(cmp);
    return { allowed, undecided: waiting.length > 0, ways, dependsOn };
  }
  for (const r of decision.rules ?? [])
    ways.push(`${r.userSet} × ${r.resourceSet} (rule: ${r.userSet} can ${r.permission} on ${r.resourceSet})`);
  return { allowed: decision.allowed, undecided: false, ways, dependsOn: [] };
}

export interface Listed {
  /** A user (who-can) or an instance `type:key` (what-can). */
  key: string;
  ways: string[];
}

export interface Undecided {
  key: string;
  dependsOn: string[];
}

export interface WhoCanResult {
  /** `expense:approve` */
  permission: string;
  instance: string;
  /** The instance's tenant; null when the state does not list the instance. */
  tenant: string | null;
  users: Listed[];
  /** Users a set rule may allow, not decided offline. */
  undecided: Undecided[];
}

/** `approve` or `expense:approve` on `expense:exp-001` → `expense:approve`; null for an action of another type. */
export function permissionOn(action: string, type: string): string | null {
  const i = action.indexOf(':');
  if (i < 0) return `${type}:${action}`;
  return action.slice(0, i) === type ? action : null;
}

/** Every user who may do `action` on `instance`, sorted, each with the ways in. */
export function whoCan(
  graph: AccessGraph,
  action: string,
  instance: string,
  options: { abac?: QueryAbac; passed?: LoosePassed } = {},
): WhoCanResult {
  const type = instance.slice(0, instance.indexOf(':'));
  const permission = permissionOn(action, type) ?? action;
  const tenant = graph.tenantOf(instance);
  const out: WhoCanResult = { permission, instance, tenant, users: [], undecided: [] };
  if (permissionOn(action, type) === null) return out;
  // Role holders come from the graph's index; with set rules on the permission any user may be in a set.
  const candidates = new Set(graph.usersWith(permission, instance));
  if (options.abac?.view.granted.has(permission)) for (const u of options.abac.state.users.keys()) candidates.add(u);
  for (const user of [...candidates].sort(cmp)) {
    const d = decide(graph, user, permission, instance, options);
    if (d.allowed) out.users.push({ key: user, ways: d.ways });
    else if (d.undecided) out.undecided.push({ key: user, dependsOn: d.dependsOn });
  }
  return out;
}

export interface WhatCanResult {
  user: string;
  action: string;
  /** The resource the instances were limited to (`--type`, `on_type:`), if any. */
  type: string | null;
  tenant: string | null;
  instances: Listed[];
  undecided: Undecided[];
}

/**
 * Every instance (of `type` when given, in `tenant` when given) on which `user` may do `action`, sorted,
 * each with the ways in. Candidates: what the user holds a role on, and, when set rules grant the action
 * on a type, every instance of it.
 */
export function whatCan(
  graph: AccessGraph,
  user: string,
  action: string,
  options: { type?: string; tenant?: string; abac?: QueryAbac; passed?: LoosePassed } = {},
): WhatCanResult {
  const { type, tenant } = options;
  const out: WhatCanResult = { user, action, type: type ?? null, tenant: tenant ?? null, instances: [], undecided: [] };
  const candidates = new Set(graph.heldOf(user).map((h) => h.instance));
  const granted = options.abac?.view.granted;
  if (granted)
    for (const i of graph.facts.instances) {
      const p = permissionOn(action, i.id.slice(0, i.id.indexOf(':')));
      if (p !== null && granted.has(p)) candidates.add(i.id);
    }
  for (const instance of [...candidates].sort(cmp)) {
    const t = instance.slice(0, instance.indexOf(':'));
    const permission = permissionOn(action, t);
    if (permission === null || (type !== undefined && t !== type)) continue;
    if (tenant !== undefined && graph.tenantOf(instance) !== tenant) continue;
    const d = decide(graph, user, permission, instance, options);
    if (d.allowed) out.instances.push({ key: instance, ways: d.ways });
    else if (d.undecided) out.undecided.push({ key: instance, dependsOn: d.dependsOn });
  }
  return out;
}
