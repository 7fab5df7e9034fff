import {
  checkAttributes,
  parseConditions,
  type AbacModel,
  type Bags,
  type CheckFacts,
  type Condition,
  type JsonObject,
  type RuleDef,
  type SetDef,
} from '../../../src/access/conditions/index.js';

/** A parsed tree, or the test fails with the parser's problems. */
export function cond(json: unknown): Condition {
  const r = parseConditions(json);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.condition;
}

/** Facts for one check with small defaults: a stored user, no roles, tenant `default`, everything defined that is given. */
export function aCheck(over: {
  user?: Partial<CheckFacts['user']> & { attributes?: JsonObject; unstored?: boolean };
  type?: string;
  instance?: JsonObject;
  passed?: JsonObject;
  tenant?: Partial<CheckFacts['tenant']>;
  context?: JsonObject;
  roleAttributes?: JsonObject[];
  defined?: Partial<{ user: string[]; tenant: string[]; resource: string[] }>;
}): Bags {
  const u = over.user ?? {};
  const stored = u.unstored
    ? undefined
    : {
        attributes: u.attributes ?? {},
        email: u.stored?.email,
        first_name: u.stored?.first_name,
        last_name: u.stored?.last_name,
      };
  const defined = {
    user: new Set(over.defined?.user ?? Object.keys(u.attributes ?? {})),
    tenant: new Set(over.defined?.tenant ?? Object.keys(over.tenant?.stored ?? {})),
    resource: new Set(over.defined?.resource ?? Object.keys(over.instance ?? {})),
  };
  return checkAttributes({
    user: {
      key: u.key ?? 'u',
      stored,
      rolesInTenant: u.rolesInTenant ?? [],
      tenants: u.tenants ?? [],
      passed: u.passed,
    },
    resource: { type: over.type ?? 'document', stored: over.instance, passed: over.passed },
    tenant: { key: over.tenant?.key ?? 'default', stored: over.tenant?.stored, member: over.tenant?.member ?? false },
    context: over.context,
    roleAttributes: over.roleAttributes,
    defined,
  });
}

export function aModel(sets: (Omit<SetDef, 'conditions'> & { conditions: unknown })[], rules: RuleDef[]): AbacModel {
  return { sets: new Map(sets.map((s) => [s.key, { ...s, conditions: cond(s.conditions) }])), rules };
}

export const rule = (userSet: string, permission: string, resourceSet: string): RuleDef => {
  const [resource, action] = permission.split(':');
  return { userSet, resourceSet, resource, action };
};
