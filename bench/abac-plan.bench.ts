/**
 * The plan's access section with attribute-based access (issue 29), on access-plan.bench.ts's generated
 * 10,000-user configuration (1,000 groups, 2,000 instances over 3 types, 20,000 memberships) plus
 * attribute values on every user and instance, 20 user sets and 10 resource sets (5 on documents, 5 on
 * invoices; two of them reference the user across sides) joined by 40 set rules. The 1% edit is
 * access-plan's (memberships, group grants, links, users' roles) plus 100 users' attributes and 20
 * instances' attributes. The desired state of the unedited configuration stands in for the live state.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchResult } from './run.js';
import { generateEnvironment, prng } from './generate.js';
import { editOnePercent, load, OPTS } from './access-plan.bench.js';
import type { DesiredState } from '../src/types/desired.js';
import { setRuleKey, type DesiredConditionSet, type DesiredSetRule } from '../src/types/abac.js';
import { planChanges } from '../src/plan/plan.js';
import { accessGraphs, planAccess } from '../src/plan/access.js';
import { planDecisionChecks, VERIFY_BOUND } from '../src/apply/verify-decisions.js';
import { time } from './stats.js';

const DEPARTMENTS = ['finance', 'legal', 'sales', 'eng', 'ops'];
const REGIONS = ['eu', 'us', 'apac'];
const CLASSES = ['public', 'internal', 'secret'];
const TYPES = ['document', 'invoice'];

/** 20 user sets: levels, departments, regions, a role, a child set, a negation, mixtures. */
function userSets(): DesiredConditionSet[] {
  const sets: DesiredConditionSet[] = [];
  const add = (key: string, conditions: Record<string, unknown>, parent?: string) =>
    sets.push({ key, name: key, type: 'userset', conditions, ...(parent ? { parent } : {}) });
  for (let l = 1; l <= 5; l++) add(`level_${l}`, { allOf: [{ 'user.level': { 'greater-than-equals': l } }] });
  for (const d of DEPARTMENTS) add(`dept_${d}`, { allOf: [{ 'user.department': { equals: d } }] });
  for (const r of REGIONS) add(`region_${r}`, { allOf: [{ 'user.region': { equals: r } }] });
  add('admins_eu', { allOf: [{ 'user.roles': { array_contains: 'admin' } }, { 'user.region': { in: ['eu'] } }] });
  add('senior_finance', { allOf: [{ 'user.level': { 'greater-than': 3 } }] }, 'dept_finance');
  add('not_sales', { not: { 'user.department': { equals: 'sales' } } });
  for (let i = sets.length; i < 20; i++)
    add(`mixed_${i}`, {
      anyOf: [
        { allOf: [{ 'user.level': { equals: i % 5 } }, { 'user.region': { equals: REGIONS[i % 3] } }] },
        { 'user.department': { equals: DEPARTMENTS[i % 5] } },
      ],
    });
  return sets;
}

/** 10 resource sets, 5 per type: under the user's limit (across sides), classifications, local ones (across sides). */
function resourceSets(): DesiredConditionSet[] {
  const sets: DesiredConditionSet[] = [];
  for (const type of TYPES) {
    const add = (key: string, conditions: Record<string, unknown>) =>
      sets.push({ key, name: key, type: 'resourceset', resource: type, conditions });
    add(`${type}_small`, { allOf: [{ 'resource.amount': { 'less-than-equals': { ref: 'user.limit' } } }] });
    for (const c of CLASSES) add(`${type}_${c}`, { allOf: [{ 'resource.classification': { equals: c } }] });
    add(`${type}_cheap`, {
      allOf: [{ 'resource.amount': { 'less-than': 100 } }, { 'resource.classification': { 'not-equals': 'secret' } }],
    });
  }
  return sets;
}

const ACTIONS: Record<string, string[]> = {
  document: ['read', 'comment', 'write', 'delete'],
  invoice: ['read', 'create', 'approve'],
};

/** The ABAC parts, the same on both sides; attribute values drawn in key order (the edit changes some after). */
function addAbac(s: DesiredState): number {
  const r = prng(29);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  for (const [key, type] of [
    ['level', 'number'],
    ['department', 'string'],
    ['region', 'string'],
    ['limit', 'number'],
  ] as const)
    s.userAttributes.set(key, { key, type });
  for (const t of TYPES) {
    const res = s.resources.get(t)!;
    s.resources.set(t, {
      ...res,
      attributes: [
        { key: 'amount', type: 'number' },
        { key: 'classification', type: 'string' },
        { key: 'region', type: 'string' },
      ],
    });
  }
  for (const key of [...s.users.keys()].sort()) {
    const u = s.users.get(key)!;
    s.users.set(key, {
      ...u,
      attributes: {
        level: Math.floor(r() * 6),
        department: pick(DEPARTMENTS),
        region: pick(REGIONS),
        limit: Math.floor(r() * 1000),
      },
    });
  }
  for (const ref of [...s.resourceInstances.keys()].sort()) {
    const i = s.resourceInstances.get(ref)!;
    s.resourceInstances.set(ref, {
      ...i,
      attributes: { amount: Math.floor(r() * 1000), classification: pick(CLASSES), region: pick(REGIONS) },
    });
  }
  const us = userSets();
  const rs = resourceSets();
  for (const set of [...us, ...rs]) s.conditionSets.set(set.key, set);
  for (const [i, u] of us.entries()) {
    for (const k of [0, 1]) {
      const set = rs[(i * 2 + k) % rs.length];
      const actions = ACTIONS[set.resource!];
      const rule: DesiredSetRule = {
        userSet: u.key,
        resourceSet: set.key,
        resource: set.resource!,
        action: actions[(i + k) % actions.length],
      };
      s.setRules.set(setRuleKey(rule), rule);
    }
  }
  return s.setRules.size;
}

/** 100 users' level or department, 20 instances' amount or classification. */
function editAttributes(s: DesiredState): void {
  const r = prng(31);
  const users = [...s.users.keys()].sort();
  const instances = [...s.resourceInstances.keys()].filter((ref) => TYPES.some((t) => ref.startsWith(`${t}:`))).sort();
  for (let k = 0; k < 100; k++) {
    const key = users[Math.floor(r() * users.length)];
    const u = s.users.get(key)!;
    const a = { ...(u.attributes as Record<string, unknown>) };
    if (k % 2 === 0) a.level = ((a.level as number) + 2) % 6;
    else a.department = DEPARTMENTS[(DEPARTMENTS.indexOf(a.department as string) + 1) % DEPARTMENTS.length];
    s.users.set(key, { ...u, attributes: a });
  }
  for (let k = 0; k < 20; k++) {
    const ref = instances[Math.floor(r() * instances.length)];
    const i = s.resourceInstances.get(ref)!;
    const a = { ...(i.attributes as Record<string, unknown>) };
    if (k % 2 === 0) a.amount = ((a.amount as number) + 500) % 1000;
    else a.classification = CLASSES[(CLASSES.indexOf(a.classification as string) + 1) % CLASSES.length];
    s.resourceInstances.set(ref, { ...i, attributes: a });
  }
}

export async function run(): Promise<BenchResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'roster-bench-abac-plan-'));
  try {
    const raw = generateEnvironment(OPTS);
    const edited = editOnePercent(raw);
    // RBAC/ReBAC only, the same edit: the baseline.
    const plainLive = await load(dir, 'before.yaml', raw);
    const plainDesired = await load(dir, 'after.yaml', edited);
    const plainPlan = planChanges(plainDesired, plainLive, { project: 'bench', environment: 'prod' });
    const plain = time(() => planAccess({ live: plainLive, changes: plainPlan.changes }), 3);

    const live = await load(dir, 'before.yaml', raw);
    const desired = await load(dir, 'after.yaml', edited);
    const rules = addAbac(live);
    addAbac(desired);
    editAttributes(desired);
    const plan = planChanges(desired, live, { project: 'bench', environment: 'prod' });
    const section = time(() => planAccess({ live, changes: plan.changes }), 3);
    const permissions = time(() => planAccess({ live, changes: plan.changes, permissions: true }), 3);
    const abac = section.value.abac!;
    // Apply's decision check on each edit: how many questions it samples and how many bulk requests
    // they take (src/apply/verify-decisions.ts), for roles only and with set rules (issue 39: at most as many).
    const decisionsOf = (l: typeof live, changes: typeof plan.changes) => {
      const { before, after } = accessGraphs(l, changes);
      const d = planDecisionChecks(before, after);
      return { checks: d.checks.length, total: d.total, requests: Math.ceil(d.checks.length / VERIFY_BOUND) };
    };
    const plainDecisions = decisionsOf(plainLive, plainPlan.changes);
    const abacDecisions = decisionsOf(live, plan.changes);
    const ms = 'ms';
    return {
      name: 'abac-plan',
      description:
        "The plan's access section with set rules: access-plan's 10,000-user configuration (2,000 instances) plus attributes on every user and instance, " +
        `20 user sets and 10 resource sets (2 referencing the user across sides) joined by ${rules} set rules; a 1% edit (access-plan's, plus 100 users' and 20 instances' attributes).`,
      figures: [
        {
          name: 'access section of the 1% edit, RBAC/ReBAC only (no attributes, sets or rules)',
          value: plain.ms,
          unit: ms,
        },
        {
          name: 'access section of the 1% edit with ABAC (liveAfter + both graphs + role diff + set-rule diff + caps)',
          value: section.ms,
          unit: ms,
          target: { op: '<', value: 2000 },
        },
        { name: 'the same, permission view', value: permissions.ms, unit: ms, target: { op: '<', value: 2000 } },
        {
          name: "apply's decision check on the 1% edit, RBAC/ReBAC only: bulk requests",
          value: plainDecisions.requests,
          unit: 'requests',
        },
        {
          name: "apply's decision check on the 1% edit with ABAC: bulk requests",
          value: abacDecisions.requests,
          unit: 'requests',
          target: { op: '<=', value: plainDecisions.requests },
        },
      ],
      notes: [
        `The edit plans ${plan.changes.length} changes. Set rules: ${abac.users} users, ${abac.gains} (user, instance) pairs gained, ${abac.losses} lost, in ${abac.lines.length + abac.omittedLines} lines; ` +
          `the whole section: ${section.value.users} users, ${section.value.gains} gained, ${section.value.losses} lost.`,
        `Apply's decision check: ${plainDecisions.checks} of ${plainDecisions.total} changed decisions asked for roles only, ${abacDecisions.checks} of ${abacDecisions.total} with set rules (an even sample beyond ${VERIFY_BOUND}).`,
        'Medians of 3 runs; YAML loading and planning are not included.',
        `Load average at the end: ${os.loadavg()[0].toFixed(2)} (the machine's 2 cores are shared).`,
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
