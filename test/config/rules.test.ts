import { describe, expect, it } from 'vitest';
import { RULES } from '../../src/config/rules/index.js';
import { brief, fixturePath, fixtureText, ruleContext, validateFixture } from './helpers.js';

/**
 * One row per scenario: the fixture test/fixtures/config/<scenario>.yaml, the rule that must catch it,
 * and every problem expected (`line:column path: message`). The rule alone must report exactly these,
 * and so must the whole pipeline (no other rule fires on the fixture).
 */
const cases: { scenario: string; rule: keyof typeof RULES; expected: string[]; hint?: string }[] = [
  {
    scenario: 'role-permission-unknown-resource',
    rule: 'rolePermissionsResolve',
    expected: ['4:42 roles.viewer.permissions[1]: unknown resource "docment" in permission "docment:write"'],
  },
  {
    scenario: 'role-permission-unknown-action',
    rule: 'rolePermissionsResolve',
    expected: ['4:27 roles.viewer.permissions[1]: resource "document" has no action "wirte"'],
  },
  {
    scenario: 'user-tenant-unknown',
    rule: 'userTenantsResolve',
    expected: ['8:28 users.alice.tenants[1]: unknown tenant "acne"'],
  },
  {
    scenario: 'user-role-unknown',
    rule: 'userRolesResolve',
    expected: ['8:45 users.alice.roles[1].role: unknown role "viewr"'],
  },
  {
    scenario: 'user-role-tenant-ambiguous',
    rule: 'userRolesResolve',
    expected: ['9:45 users.alice.roles[0]: cannot tell the tenant of role "viewer": the user is in 2 tenants'],
  },
  {
    scenario: 'user-role-instance-unknown',
    rule: 'userRolesResolve',
    expected: ['8:57 users.alice.roles[0].on: unknown resource instance "document:readme"'],
  },
  {
    scenario: 'user-role-instance-other-tenant',
    rule: 'userRolesResolve',
    expected: [
      '11:33 users.alice.roles[0].tenant: role "viewer" on "document:plans" is given in tenant "acme", but the instance is in tenant "globex"',
    ],
  },
  {
    scenario: 'instance-resource-unknown',
    rule: 'instancesResolve',
    expected: ['10:3 resource_instances.folder:root: unknown resource "folder" in "folder:root"'],
  },
  {
    scenario: 'instance-tenant-unknown',
    rule: 'instancesResolve',
    expected: ['10:30 resource_instances.document:readme.tenant: unknown tenant "globex"'],
  },
  {
    scenario: 'group-member-unknown',
    rule: 'groupMembersResolve',
    expected: ['14:22 groups.team:eng.members[1]: unknown user "alcie"'],
  },
  {
    scenario: 'group-role-unknown',
    rule: 'groupRolesResolve',
    expected: ['15:21 groups.team:eng.roles[0].role: unknown role "editor"'],
    hint: 'declared roles: viewer',
  },
  {
    scenario: 'group-role-target-unknown',
    rule: 'groupRolesResolve',
    expected: ['15:33 groups.team:eng.roles[0].on: unknown resource instance "document:redme"'],
  },
  {
    scenario: 'group-role-target-other-tenant',
    rule: 'groupRoleTargetInTenant',
    expected: [
      '17:29 groups.team:eng.roles[0].on: "document:plans" is in tenant "globex", but group "team:eng" is in tenant "acme"',
    ],
  },
  {
    scenario: 'member-of-unknown-group',
    rule: 'memberOfResolves',
    expected: ['16:17 groups.team:platform.member_of[0]: unknown group "team:platfrom"'],
  },
  {
    scenario: 'member-of-other-type',
    rule: 'memberOfSameTypeAndTenant',
    expected: [
      '16:17 groups.squad:web.member_of[0]: "squad:web" (type "squad") cannot be a member of "team:eng" (type "team")',
    ],
  },
  {
    scenario: 'member-of-other-tenant',
    rule: 'memberOfSameTypeAndTenant',
    expected: [
      '18:17 groups.team:web.member_of[0]: "team:web" (tenant "globex") cannot be a member of "team:eng" (tenant "acme")',
    ],
  },
  {
    scenario: 'member-of-cycle',
    rule: 'memberOfAcyclic',
    expected: ['16:17 groups.team:b.member_of[0]: member_of forms a cycle: team:a → team:c → team:b → team:a'],
  },
  {
    scenario: 'member-of-self',
    rule: 'memberOfAcyclic',
    expected: ['13:17 groups.ops.member_of[0]: member_of forms a cycle: group:ops → group:ops'],
  },
  {
    scenario: 'group-type-has-instances',
    rule: 'groupTypeCollision',
    expected: [
      '11:3 resource_instances.team:eng: "team:eng" is declared both as a resource instance and as a group',
      '12:3 resource_instances.team:ops: "team" is a group type (of group "team:eng"), so "team:ops" cannot be an ordinary resource instance',
    ],
  },
  {
    scenario: 'group-type-member-action',
    rule: 'groupTypeCollision',
    expected: [
      '3:18 resources.team.actions[1]: resource "team" is a group type (of group "team:eng") and declares the action "member", which conflicts with group membership',
    ],
  },
  {
    scenario: 'reviewer-role-unknown',
    rule: 'reviewerRolesResolve',
    expected: ['10:39 access_requests.default.reviewer_roles[1]: unknown role "admin"'],
  },
  {
    scenario: 'grant-for-invalid',
    rule: 'grantForDuration',
    expected: [
      '10:50 access_requests.default.grant_for: invalid duration "12 hours": expected a whole number and a unit, s, m, h or d (45s, 30m, 12h, 7d)',
      '13:16 access_requests.short.grant_for: a duration of 0s would expire every grant at once',
    ],
  },
  {
    scenario: 'authoritative-unmanaged',
    rule: 'authoritativeSectionsManaged',
    expected: ['1:16 authoritative: authoritative lists "groups", a section no file of the configuration has'],
  },
  {
    scenario: 'assertion-shape',
    rule: 'assertionShape',
    expected: [
      '15:20 assertions[1].users_in: an assertion names user and users_in: keep exactly one',
      '16:5 assertions[2]: an assertion must say what it checks: one of can, cannot, has_role',
    ],
  },
  {
    scenario: 'assertion-subject-unknown',
    rule: 'assertionSubjectsResolve',
    expected: [
      '14:13 assertions[0].user: unknown user "alcie"',
      '15:17 assertions[1].users_in: unknown group "team:engg"',
    ],
  },
  {
    scenario: 'assertion-target-unknown',
    rule: 'assertionTargetsResolve',
    expected: ['14:36 assertions[0].on: unknown resource instance "document:redme"'],
  },
  {
    scenario: 'assertion-action-unknown',
    rule: 'assertionActionsResolve',
    expected: [
      '14:25 assertions[0].can: resource "document" has no action "wirte"',
      '15:28 assertions[1].cannot: "folder:write" is an action of "folder", but "document:readme" is a "document"',
    ],
  },
  {
    scenario: 'role-extends-unknown',
    rule: 'roleExtendsResolve',
    expected: ['5:54 roles.editor.extends[0]: unknown role "viewr" in extends'],
    hint: 'did you mean "viewer"?',
  },
  {
    scenario: 'role-extends-itself',
    rule: 'roleExtendsResolve',
    expected: ['4:53 roles.viewer.extends[0]: role "viewer" extends itself'],
  },
  {
    scenario: 'role-extends-cycle',
    rule: 'roleExtendsResolve',
    expected: ['5:53 roles.editor.extends: roles extend each other in a cycle: editor -> viewer -> owner -> editor'],
  },
  {
    scenario: 'assertion-role-unknown',
    rule: 'assertionRolesResolve',
    expected: ['14:30 assertions[0].has_role: unknown role "editr"'],
  },
  {
    scenario: 'assertion-exact-shape',
    rule: 'exactAssertionShape',
    expected: [
      '14:5 assertions[0]: an exact-set assertion needs exactly',
      '15:50 assertions[1].users_in: an exact-set assertion cannot have users_in',
    ],
  },
  {
    scenario: 'assertion-exact-unknown',
    rule: 'exactAssertionsResolve',
    expected: [
      '14:16 assertions[0].who_can: resource "document" has no action "wirte"',
      '14:54 assertions[0].exactly[0]: unknown user "alise"',
      '15:60 assertions[1].exactly[0]: unknown resource instance "document:readm"',
    ],
  },
  {
    scenario: 'resource-role-action-unknown',
    rule: 'resourceRolesResolve',
    expected: ['6:37 resources.document.roles.editor.permissions[1]: resource "document" has no action "wirte"'],
  },
  {
    scenario: 'resource-role-extends-unknown',
    rule: 'resourceRolesResolve',
    expected: ['6:49 resources.document.roles.editor.extends[0]: resource "document" has no role "viewr"'],
  },
  {
    scenario: 'resource-role-extends-cycle',
    rule: 'resourceRolesResolve',
    expected: [
      '6:48 resources.document.roles.editor.extends: roles of "document" extend each other in a cycle: editor -> viewer -> owner -> editor',
    ],
  },
  {
    scenario: 'resource-role-tenant-wide',
    rule: 'userRolesResolve',
    expected: [
      '10:35 users.bob.roles[0].role: role "editor" is a resource role (of "document"): a tenant-wide role must be a top-level role',
    ],
  },
  {
    scenario: 'resource-role-unknown-on-instance',
    rule: 'userRolesResolve',
    expected: ['9:45 users.alice.roles[0].role: unknown role "editr" on "document:readme"'],
    hint: 'did you mean "editor"?',
  },
  {
    scenario: 'top-level-role-on-instance',
    rule: 'topLevelRoleOnInstance',
    expected: [
      '11:45 users.alice.roles[0].role: role "admin" on "document:readme" is the top-level role: resource "document" declares roles, but not "admin" [warning]',
    ],
  },
  {
    scenario: 'relation-subject-unknown',
    rule: 'relationsResolve',
    expected: [
      '6:15 resources.document.relations.parent: unknown resource "foldr" as the subject of relation "parent"',
    ],
    hint: 'did you mean "folder"?',
  },
  {
    scenario: 'derivation-unknown-relation',
    rule: 'derivationsResolve',
    expected: ['11:84 resources.document.roles.editor.granted_to[0].via: resource "document" has no relation "parnt"'],
    hint: 'did you mean "parent"?',
  },
  {
    scenario: 'derivation-relation-mismatch',
    rule: 'derivationsResolve',
    expected: [
      '15:83 resources.document.roles.editor.granted_to[0].via: relation "parent" of "document" links "folder", not "project"',
    ],
  },
  {
    scenario: 'tuple-subject-type-mismatch',
    rule: 'tuplesResolve',
    expected: [
      '13:57 resource_instances.document:budget.relations.parent: "project:apollo" is a "project", but relation "parent" of "document" relates a "folder"',
    ],
  },
  {
    scenario: 'tuple-relation-unknown',
    rule: 'tuplesResolve',
    expected: ['11:49 resource_instances.document:budget.relations.parnt: unknown relation "parnt" of "document"'],
    hint: 'did you mean "parent"?',
  },
  {
    scenario: 'unused-role',
    rule: 'unusedRoles',
    expected: ['5:3 roles.auditor: role "auditor" is not given to any user or group [warning]'],
  },
  {
    scenario: 'empty-group',
    rule: 'emptyGroups',
    expected: ['10:3 groups.team:eng: group "team:eng" has no members and no member groups [warning]'],
  },
  {
    scenario: 'member-outside-tenants',
    rule: 'memberOutsideTenants',
    expected: [
      '9:3 users.dennis: user "dennis" is a member of group "team:hq" in tenant "vela-hq", which the user\'s tenants do not list: the membership keeps the user in "vela-hq" [warning]',
    ],
  },
  {
    scenario: 'abac-conditions-unparsed',
    rule: 'conditionsParse',
    expected: [
      '23:11 user_sets.approvers.conditions.allOf[1]["usr.level"]: unknown condition "usr.level"; supported: {"allOf": [...]}, {"anyOf": [...]}, {"not": {...}} or {"<entity>.<attribute>": {"<operator>": <value or {"ref": "<entity>.<attribute>"}>}} with entity one of user, subject, resource, tenant, role, context and operator one of equals, not-equals, greater-than, less-than, greater-than-equals, less-than-equals, contains, array_contains, array_intersect, array_subset, array_superset, in, object_match, any_match, all_match',
      '24:11 user_sets.approvers.conditions.allOf[2]["user.level"]: a comparison is {"<operator>": <value>} with exactly one operator, one of equals, not-equals, greater-than, less-than, greater-than-equals, less-than-equals, contains, array_contains, array_intersect, array_subset, array_superset, in, object_match, any_match, all_match',
      '25:26 user_sets.approvers.conditions.allOf[3]["user.active"].equal: unknown operator "equal"; supported: equals, not-equals, greater-than, less-than, greater-than-equals, less-than-equals, contains, array_contains, array_intersect, array_subset, array_superset, in, object_match, any_match, all_match',
      '27:31 resource_sets.small.conditions: a condition has exactly one key, found "resource.amount", "resource.region": wrap several in {"allOf": [...]}',
    ],
    hint: 'did you mean "user.level"?',
  },
  {
    scenario: 'abac-attribute-unknown',
    rule: 'conditionAttributesResolve',
    expected: [
      '23:11 user_sets.approvers.conditions.allOf[0]["user.levle"]: unknown user attribute "levle"',
      '24:11 user_sets.approvers.conditions.allOf[1]["tenant.regoin"]: unknown tenant attribute "regoin"',
      '26:30 user_sets.approvers.conditions.allOf[3]["resource.amount"].less-than-equals: unknown user attribute "limit"',
      '27:50 user_sets.approvers.conditions.allOf[4]["user.expenses"].any_match.match.amont: resource "expense" has no attribute "amont"',
      '28:99 user_sets.approvers.conditions.allOf[5]["user.expenses"].all_match.fk_resource_type: unknown resource "expence" in fk_resource_type',
      '34:11 resource_sets.small.conditions.anyOf[0]["resource.amoutn"]: resource "expense" has no attribute "amoutn"',
    ],
    hint: 'did you mean "level"?',
  },
  {
    scenario: 'abac-operator-type',
    rule: 'conditionOperatorsApply',
    expected: [
      '22:26 user_sets.approvers.conditions.allOf[0]["user.active"].greater-than: operator "greater-than" cannot apply to user attribute "active", a bool',
      '23:25 user_sets.approvers.conditions.allOf[1]["user.level"].contains: operator "contains" cannot apply to user attribute "level", a number',
      '30:30 resource_sets.small.conditions.allOf[0]["resource.region"].array_contains: operator "array_contains" cannot apply to attribute "region" of "expense", a string',
    ],
  },
  {
    scenario: 'abac-operator-fk',
    rule: 'conditionOperatorsApply',
    expected: [
      '27:33 resource_sets.allowed_visit.conditions.allOf[4]["resource.diagnosis"].object_match: operator "object_match" cannot apply to attribute "diagnosis" of "visit", an array (with fk_resource_type)',
      '28:39 resource_sets.allowed_visit.conditions.allOf[5]["resource.practitioner_id"].any_match: operator "any_match" cannot apply to attribute "practitioner_id" of "visit", a string (with fk_resource_type)',
      '29:31 resource_sets.allowed_visit.conditions.allOf[6]["resource.records"].all_match: operator "all_match" cannot apply to attribute "records" of "visit", an object_array (with fk_resource_type)',
    ],
    hint: 'with fk_resource_type, object_match reads one instance key: a string attribute',
  },
  {
    scenario: 'abac-literal-type',
    rule: 'conditionLiteralTypes',
    expected: [
      '22:46 user_sets.approvers.conditions.allOf[0]["user.level"].greater-than-equals: "3" is a string, but user attribute "level" is a number: the service compares them as they are [warning]',
      '23:34 user_sets.approvers.conditions.allOf[1]["user.active"].equals: "true" is a string, but user attribute "active" is a bool: the service compares them as they are [warning]',
      '24:44 user_sets.approvers.conditions.allOf[2]["user.department"].in[1]: 7 is a number, but user attribute "department" is a string [warning]',
    ],
    hint: 'write 3 without quotes',
  },
  {
    scenario: 'abac-condition-role-unknown',
    rule: 'conditionRolesResolve',
    expected: [
      '17:41 user_sets.auditors.conditions.anyOf[0]["user.roles"].array_contains: unknown role "auditr" in a condition on user.roles [warning]',
      '18:52 user_sets.auditors.conditions.anyOf[1]["user.roles"].array_intersect[1]: unknown role "finance-admn" in a condition on user.roles [warning]',
      '19:41 user_sets.auditors.conditions.anyOf[2]["user.roles"].array_contains: unknown role "approver" in a condition on user.roles [warning]',
      '22:84 resource_sets.mine.conditions["user.roles"].array_superset[1]: unknown role "admin" in a condition on user.roles [warning]',
    ],
    hint: 'did you mean "auditor"?',
  },
  {
    scenario: 'abac-set-unresolved',
    rule: 'setsResolve',
    expected: [
      '18:23 user_sets.managers.parent: unknown user set "seniorz" as parent',
      '21:38 resource_sets.tiny.parent: "seniors" is a user set, so it cannot be the parent of resource set "tiny"',
      '22:48 resource_sets.small-invoices.parent: resource set "small" holds "expense" instances, but "small-invoices" holds "invoice" instances',
      '23:25 resource_sets.receipts.resource: unknown resource "receipt"',
    ],
    hint: 'did you mean "seniors"?',
  },
  {
    scenario: 'abac-set-parent-cycle',
    rule: 'setParentsAcyclic',
    expected: ["17:16 user_sets.a.parent: user sets are each other's parents in a cycle: a -> c -> b -> a"],
  },
  {
    scenario: 'abac-empty-set',
    rule: 'emptySets',
    expected: [
      '17:13 user_sets.everyone.conditions: user set "everyone" matches every user: its conditions are {} [warning]',
      '18:17 user_sets.all-levels.conditions: user set "all-levels" matches every user: its conditions are {"allOf":[]} [warning]',
      '19:13 user_sets.nobody.conditions: user set "nobody" matches no user: its conditions are {"anyOf":[]} [warning]',
      '22:17 resource_sets.all-expenses.conditions: resource set "all-expenses" matches every instance of "expense": its conditions are {} [warning]',
    ],
  },
  {
    scenario: 'abac-set-rule-shape',
    rule: 'setRuleShape',
    expected: [
      '21:26 set_rules[0].role: a set rule names user_set and role: keep exactly one',
      '22:5 set_rules[1]: a set rule must say who it is for: one of user_set, role',
      '23:5 set_rules[2]: a set rule must say what it is on: one of resource_set, resource',
      '24:61 set_rules[3].resource: a set rule names resource_set and resource: keep exactly one',
    ],
  },
  {
    scenario: 'abac-set-rule-unresolved',
    rule: 'setRulesResolve',
    expected: [
      '22:17 set_rules[0].user_set: unknown user set "senoirs"',
      '23:17 set_rules[1].user_set: "small" is a resource set, not a user set',
      '23:52 set_rules[1].resource_set: "seniors" is a user set, not a resource set',
      '24:13 set_rules[2].role: unknown role "auditr"',
      '25:53 set_rules[3].resource: unknown resource "expenses"',
      '26:42 set_rules[4].can[1]: "invoice:view" is an action of "invoice", but the rule is on resource set "small" (of "expense")',
      '26:56 set_rules[4].can[2]: resource "expense" has no action "approv"',
      '27:13 set_rules[5].role: role "approver" is a resource role (of "expense"): a set rule\'s role is a top-level role',
    ],
    hint: 'did you mean "seniors"?',
  },
  {
    scenario: 'abac-attribute-value-type',
    rule: 'attributeValuesTyped',
    expected: [
      '13:33 tenants.acme.attributes.region: attribute "region" of tenant "acme" is a list, but tenant attribute "region" is a string (defined at test/fixtures/config/abac-attribute-value-type.yaml:19:3) [warning]',
      '13:47 tenants.acme.attributes.opened: attribute "opened" of tenant "acme" is the string "yesterday", but tenant attribute "opened" is a time (an ISO 8601 date or date-time string) (defined at test/fixtures/config/abac-attribute-value-type.yaml:20:3) [warning]',
      '16:66 users.bob.attributes.level: attribute "level" of user "bob" is the string "senior", but user attribute "level" is a number (defined at test/fixtures/config/abac-attribute-value-type.yaml:9:3) [warning]',
      '22:53 resource_instances.expense:e1.attributes.amount: attribute "amount" of "expense:e1" is the string "12.50", but attribute "amount" of "expense" is a number (defined at test/fixtures/config/abac-attribute-value-type.yaml:5:7) [warning]',
    ],
  },
  // memo writes no `attributes:`: its definitions are not managed here (they may be on the service).
  {
    scenario: 'abac-attribute-value-undefined',
    rule: 'attributeValuesDefined',
    expected: [
      '11:33 tenants.acme.attributes.region: attribute "region" of tenant "acme" has no definition (tenant_attributes does not declare it): the service keeps the value, but decisions ignore it [warning]',
      '13:86 users.bob.attributes.departement: attribute "departement" of user "bob" has no definition (user_attributes does not declare it): the service keeps the value, but decisions ignore it [warning]',
      '15:67 resource_instances.expense:e1.attributes.approved: attribute "approved" of "expense:e1" has no definition (resources.expense.attributes does not declare it): the service keeps the value, but decisions ignore it [warning]',
    ],
    hint: 'declare it under tenant_attributes (region: string), or remove the value',
  },
];

describe('semantic rules', () => {
  it.each(cases)('$rule catches $scenario', ({ scenario, rule, expected, hint }) => {
    const ctx = ruleContext(fixturePath(scenario), fixtureText(scenario));
    const problems = RULES[rule](ctx);
    expect(problems.map(brief)).toEqual(expected);
    if (hint !== undefined) expect(problems[0].hint).toBe(hint);
  });

  it.each(cases)('the pipeline reports only that for $scenario', ({ scenario, expected }) => {
    const r = validateFixture(scenario);
    expect([...r.errors, ...r.warnings].map(brief)).toEqual(expected);
    expect(r.desired === undefined).toBe(r.errors.length > 0);
  });

  it('a role key in a condition on user.roles: did you mean, or that a resource role is not in user.roles', () => {
    const problems = RULES.conditionRolesResolve(
      ruleContext(fixturePath('abac-condition-role-unknown'), fixtureText('abac-condition-role-unknown')),
    );
    expect(problems.map((p) => p.hint)).toEqual([
      'did you mean "auditor"?',
      'did you mean "finance-admin"?',
      '"approver" is a resource role (of "expense"): user.roles holds the top-level roles the user holds in the check\'s tenant',
      'declared roles: auditor, finance-admin',
    ]);
  });

  it('every rule has a scenario', () => {
    expect(new Set(Object.keys(RULES))).toEqual(new Set([...cases.map((c) => c.rule), 'groupTenantsResolve']));
  });

  it('groupTenantsResolve catches group-tenant-unknown, and nothing that follows from it', () => {
    // The group's role is on an instance of "acme": comparing it with the unknown "acmee" would be a
    // second report of the same typo.
    const r = validateFixture('group-tenant-unknown');
    expect(r.errors.map(brief)).toEqual(['13:13 groups.team:eng.tenant: unknown tenant "acmee"']);
    expect(r.errors[0].hint).toBe('did you mean "acme"?');
  });

  it('hints at the closest known key', () => {
    expect(validateFixture('member-of-unknown-group').errors[0].hint).toBe('did you mean "team:platform"?');
    expect(validateFixture('group-member-unknown').errors[0].hint).toBe('did you mean "alice"?');
    expect(validateFixture('role-permission-unknown-action').errors[0].hint).toBe('did you mean "write"?');
  });

  it('a valid configuration has no problems', () => {
    const r = validateFixture('valid-minimal');
    expect(r).toMatchObject({ errors: [], warnings: [] });
    expect(r.desired).toBeDefined();
  });

  it('finds a cycle in a long chain without deep recursion', () => {
    const n = 5_000;
    const groups = Array.from({ length: n }, (_, i) => `  g${i}: { tenant: acme, member_of: [g${(i + 1) % n}] }`).join(
      '\n',
    );
    const ctx = ruleContext('chain.yaml', `tenants: { acme: {} }\ngroups:\n${groups}\n`);
    const found = RULES.memberOfAcyclic(ctx);
    expect(found).toHaveLength(1);
    expect(found[0].message).toMatch(/^member_of forms a cycle: group:g0 → group:g1 → .* → group:g4999 → group:g0$/);
  });
});
