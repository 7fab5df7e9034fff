import type { AccessFacts, Decision, Explanation, Missing, RoleHolding, Via } from './facts.js';
import { cmp, compareVia } from './paths.js';
import { qualify } from '../types/refs.js';
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
    return { ...base, kind, allowed: false, via: [], missing: { roles: [], groups: [], tenant: graph.tenantOf(instance), message } };
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
    return { roles: [], groups: [], tenant, message: `No role has ${what}: no assignment can grant it.` };
  }
  const names = granting.join(' or ');
  const ways = [`a direct ${names} on ${instance}`];
  // Resource roles (`document#editor`) are held on instances only; tenant-wide roles are top-level.
  const topLevel = granting.filter((r) => !r.includes('#'));
  if (tenant !== null && topLevel.length > 0) ways.push(`a tenant-wide ${topLevel.join(' or ')} in ${tenant}`);
  if (groups.length > 0) ways.push(`membership of ${groups.map((g) => `${g.group} (${g.role})`).join(', ')}`);
  let message = `${user} lacks ${what} on ${instance}; it would take ${ways.join('; or ')}.`;
  if (tenant === null) message += ` Tenant-wide roles do not apply: ${instance} is not a listed instance.`;
  return { roles: granting, groups, tenant, message };
}
