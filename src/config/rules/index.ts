/**
 * Step 4 of the pipeline: the semantic rules, each a small pure function with its own tests. Listed in
 * the order their problems are most useful to read (references first, then structure, then warnings).
 */
import type { Problem } from '../source.js';
import type { Rule, RuleContext } from './context.js';
import { emptyGroups, memberOutsideTenants, unusedRoles } from './warnings.js';
import {
  groupMembersResolve,
  groupRolesResolve,
  groupRoleTargetInTenant,
  groupTenantsResolve,
  groupTypeCollision,
  memberOfAcyclic,
  memberOfResolves,
  memberOfSameTypeAndTenant,
} from './groups.js';
import {
  assertionActionsResolve,
  assertionRolesResolve,
  assertionShape,
  assertionSubjectsResolve,
  assertionTargetsResolve,
} from './assertions.js';
import { exactAssertionShape, exactAssertionsResolve } from './exact-assertions.js';
import { grantForDuration } from './access-requests.js';
import { resourceRolesResolve, topLevelRoleOnInstance } from './resource-roles.js';
import { derivationsResolve, relationsResolve, tuplesResolve } from './relations.js';
import { authoritativeSectionsManaged } from './authoritative.js';
import {
  conditionAttributesResolve,
  conditionLiteralTypes,
  conditionOperatorsApply,
  conditionsParse,
} from './abac-conditions.js';
import { conditionRolesResolve } from './abac-roles.js';
import { emptySets, setParentsAcyclic, setRuleShape, setRulesResolve, setsResolve } from './abac-sets.js';
import { attributeValuesDefined, attributeValuesTyped } from './abac-values.js';
import {
  instancesResolve,
  reviewerRolesResolve,
  roleExtendsResolve,
  rolePermissionsResolve,
  userRolesResolve,
  userTenantsResolve,
} from './references.js';

export type { Rule, RuleContext } from './context.js';

export const RULES: Readonly<Record<string, Rule>> = {
  rolePermissionsResolve,
  roleExtendsResolve,
  resourceRolesResolve,
  relationsResolve,
  derivationsResolve,
  tuplesResolve,
  userTenantsResolve,
  userRolesResolve,
  instancesResolve,
  groupTenantsResolve,
  groupMembersResolve,
  groupRolesResolve,
  groupRoleTargetInTenant,
  memberOfResolves,
  memberOfSameTypeAndTenant,
  memberOfAcyclic,
  groupTypeCollision,
  reviewerRolesResolve,
  grantForDuration,
  authoritativeSectionsManaged,
  assertionShape,
  assertionSubjectsResolve,
  assertionTargetsResolve,
  assertionActionsResolve,
  assertionRolesResolve,
  exactAssertionShape,
  exactAssertionsResolve,
  conditionsParse,
  conditionAttributesResolve,
  conditionOperatorsApply,
  setsResolve,
  setParentsAcyclic,
  setRuleShape,
  setRulesResolve,
  unusedRoles,
  topLevelRoleOnInstance,
  emptyGroups,
  memberOutsideTenants,
  conditionLiteralTypes,
  conditionRolesResolve,
  emptySets,
  attributeValuesTyped,
  attributeValuesDefined,
};

export function runRules(ctx: RuleContext): { errors: Problem[]; warnings: Problem[] } {
  const errors: Problem[] = [];
  const warnings: Problem[] = [];
  for (const rule of Object.values(RULES)) {
    for (const p of rule(ctx)) (p.severity === 'warning' ? warnings : errors).push(p);
  }
  return { errors, warnings };
}
