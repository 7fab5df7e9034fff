import { emptyDesiredState, type DesiredState } from '../../src/types/desired.js';
import { setRuleKey, type AttributeType } from '../../src/types/abac.js';

/** An expense-approval environment, compact: each test writes only what it needs. */
export interface AbacInput {
  /** resource → actions, with attribute definitions `key: type`. */
  resources?: Record<string, { actions: string[]; attributes?: Record<string, AttributeType> }>;
  /** Top-level roles → permissions. */
  roles?: Record<string, string[]>;
  userAttributes?: Record<string, AttributeType>;
  tenantAttributes?: Record<string, AttributeType>;
  /** user → stored attributes and tenant-wide roles `role@tenant`. */
  users?: Record<string, { attributes?: Record<string, unknown>; roles?: string[] }>;
  tenants?: Record<string, Record<string, unknown> | undefined>;
  /** `type:key` → tenant and stored attributes. */
  instances?: Record<string, { tenant?: string; attributes?: Record<string, unknown> }>;
  /** key → user set (conditions, parent). */
  userSets?: Record<string, { conditions: Record<string, unknown>; parent?: string }>;
  resourceSets?: Record<string, { resource: string; conditions: Record<string, unknown>; parent?: string }>;
  /** `userSet resource:action resourceSet` */
  rules?: string[];
}

export function abacState(input: AbacInput): DesiredState {
  const s = emptyDesiredState();
  for (const [key, r] of Object.entries(input.resources ?? {})) {
    s.resources.set(key, {
      key,
      name: key,
      actions: [...r.actions].sort(),
      ...(r.attributes ? { attributes: Object.entries(r.attributes).map(([k, type]) => ({ key: k, type })) } : {}),
    });
  }
  for (const [key, permissions] of Object.entries(input.roles ?? {}))
    s.roles.set(key, { key, name: key, permissions: [...permissions].sort() });
  for (const [key, type] of Object.entries(input.userAttributes ?? {})) s.userAttributes.set(key, { key, type });
  for (const [key, type] of Object.entries(input.tenantAttributes ?? {})) s.tenantAttributes.set(key, { key, type });
  const tenants = new Set(['default', ...Object.keys(input.tenants ?? {})]);
  for (const t of tenants)
    s.tenants.set(t, { key: t, name: t, ...(input.tenants?.[t] ? { attributes: input.tenants[t] } : {}) });
  for (const [key, u] of Object.entries(input.users ?? {})) {
    const roles = (u.roles ?? []).map((r) => {
      const [role, tenant = 'default'] = r.split('@');
      return { role, tenant };
    });
    s.users.set(key, {
      key,
      tenants: [...new Set(roles.map((r) => r.tenant))].sort(),
      roles,
      ...(u.attributes ? { attributes: u.attributes } : {}),
    });
  }
  for (const [id, i] of Object.entries(input.instances ?? {})) {
    const [resource, key] = id.split(':');
    s.resourceInstances.set(id, {
      resource,
      key,
      tenant: i.tenant ?? 'default',
      ...(i.attributes ? { attributes: i.attributes } : {}),
    });
  }
  for (const [key, u] of Object.entries(input.userSets ?? {}))
    s.conditionSets.set(key, {
      key,
      name: key,
      type: 'userset',
      conditions: u.conditions,
      ...(u.parent ? { parent: u.parent } : {}),
    });
  for (const [key, r] of Object.entries(input.resourceSets ?? {})) {
    s.conditionSets.set(key, {
      key,
      name: key,
      type: 'resourceset',
      resource: r.resource,
      conditions: r.conditions,
      ...(r.parent ? { parent: r.parent } : {}),
    });
  }
  for (const text of input.rules ?? []) {
    const [userSet, permission, resourceSet] = text.split(' ');
    const [resource, action] = permission.split(':');
    const rule = { userSet, resourceSet, resource, action };
    s.setRules.set(setRuleKey(rule), rule);
  }
  return s;
}

/** The expense-approval policy of permit-cli's template, small: approval limits by level and amount, regions. */
export const EXPENSES: AbacInput = {
  resources: { expense: { actions: ['approve', 'read'], attributes: { amount: 'number', region: 'string' } } },
  roles: { auditor: ['expense:read'], manager: [] },
  userAttributes: { level: 'number', region: 'string', limit: 'number' },
  users: {
    alice: { attributes: { level: 4, region: 'eu', limit: 1000 } },
    bob: { attributes: { level: 2, region: 'us' } },
    carol: { roles: ['manager'] },
    dave: {},
  },
  instances: {
    'expense:small': { attributes: { amount: 500, region: 'eu' } },
    'expense:big': { attributes: { amount: 5000, region: 'us' } },
    'expense:blank': {},
  },
  userSets: {
    approvers: { conditions: { allOf: [{ 'user.level': { 'greater-than-equals': 3 } }] } },
    'senior-eu': { conditions: { allOf: [{ 'user.region': { equals: 'eu' } }] }, parent: 'approvers' },
  },
  resourceSets: {
    'small-expenses': { resource: 'expense', conditions: { allOf: [{ 'resource.amount': { 'less-than': 1000 } }] } },
    'within-limit': {
      resource: 'expense',
      conditions: { allOf: [{ 'resource.amount': { 'less-than-equals': { ref: 'user.limit' } } }] },
    },
    urgent: { resource: 'expense', conditions: { allOf: [{ 'context.urgent': { equals: true } }] } },
  },
  rules: [
    'approvers expense:approve small-expenses',
    'senior-eu expense:approve within-limit',
    '__autogen_manager expense:approve urgent',
  ],
};
