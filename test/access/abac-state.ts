/** Compact builders of states with attribute-based access, for the graph's and the plan's ABAC tests. */
import type { DesiredAttribute, DesiredConditionSet, DesiredSetRule } from '../../src/types/abac.js';
import { setRuleKey } from '../../src/types/abac.js';
import type { DesiredUserRole } from '../../src/types/desired.js';
import { emptyLiveState, type LiveState } from '../../src/types/live.js';

export interface AbacStateInput {
  /** type → actions; each type gets the attribute definitions in `resourceAttributes[type]`. */
  resources?: Record<string, string[]>;
  resourceAttributes?: Record<string, string[]>;
  userAttributes?: string[];
  tenantAttributes?: string[];
  roles?: Record<string, string[]>;
  tenants?: Record<string, Record<string, unknown>>;
  users?: Record<string, { attributes?: Record<string, unknown>; roles?: DesiredUserRole[]; email?: string }>;
  instances?: Record<string, { tenant: string; attributes?: Record<string, unknown> }>;
  groups?: Record<string, { tenant: string; members: string[] }>;
  sets?: (Omit<DesiredConditionSet, 'name' | 'type'> & { type?: DesiredConditionSet['type'] })[];
  rules?: [userSet: string, permission: string, resourceSet: string][];
}

const defs = (keys: string[] = []): DesiredAttribute[] => keys.map((key) => ({ key, type: 'string' }));

export function abacState(input: AbacStateInput): LiveState {
  const s = emptyLiveState();
  for (const [key, actions] of Object.entries(input.resources ?? {})) {
    s.resources.set(key, {
      key,
      name: key,
      actions: [...actions].sort(),
      attributes: defs(input.resourceAttributes?.[key]),
    });
  }
  for (const a of defs(input.userAttributes)) s.userAttributes.set(a.key, a);
  for (const a of defs(input.tenantAttributes)) s.tenantAttributes.set(a.key, a);
  for (const [key, permissions] of Object.entries(input.roles ?? {})) s.roles.set(key, { key, name: key, permissions });
  for (const [key, attributes] of Object.entries(input.tenants ?? {}))
    s.tenants.set(key, { key, name: key, attributes });
  for (const [key, u] of Object.entries(input.users ?? {})) {
    const roles = u.roles ?? [];
    s.users.set(key, {
      key,
      ...(u.email ? { email: u.email } : {}),
      attributes: u.attributes ?? {},
      tenants: [...new Set(roles.map((r) => r.tenant))].sort(),
      roles,
    });
  }
  for (const [ref, i] of Object.entries(input.instances ?? {})) {
    const [resource, key] = ref.split(':');
    s.resourceInstances.set(ref, { resource, key, tenant: i.tenant, attributes: i.attributes ?? {} });
  }
  for (const [ref, g] of Object.entries(input.groups ?? {})) {
    const [type, key] = ref.split(':');
    s.groups.set(ref, { type, key, tenant: g.tenant, members: g.members, roles: [], memberOf: [] });
  }
  for (const set of input.sets ?? []) {
    const type = set.type ?? (set.resource ? 'resourceset' : 'userset');
    s.conditionSets.set(set.key, { ...set, type, name: set.key });
  }
  for (const [userSet, permission, resourceSet] of input.rules ?? []) {
    const [resource, action] = permission.split(':');
    const rule: DesiredSetRule = { userSet, resourceSet, resource, action };
    s.setRules.set(setRuleKey(rule), rule);
  }
  return s;
}
