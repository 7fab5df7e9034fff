/**
 * Effective access and the plan's access section through the real adapters (issue #6), on the generated
 * 10,000-user configuration (bench/generate.ts): YAML → DesiredState → AccessFacts → graph, and the
 * access section of a plan for a 1% edit (memberships, group grants and links, users' roles). The
 * desired state of the unedited configuration stands in for the live state (same shapes).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchResult } from './run.js';
import { generateEnvironment, prng, toYaml, type RawConfigObject } from './generate.js';
import { loadConfig } from '../src/config/index.js';
import type { DesiredState } from '../src/types/desired.js';
import { buildAccessGraph } from '../src/access/index.js';
import { factsFromState } from '../src/access/from-state.js';
import { planChanges } from '../src/plan/plan.js';
import { planAccess } from '../src/plan/access.js';
import { time } from './stats.js';

export const OPTS = {
  users: 10_000,
  groups: 1_000,
  maxDepth: 8,
  instances: 2_000,
  memberships: 20_000,
  tenants: 5,
  seed: 7,
};

/** 1%: 200 memberships moved, 10 groups' grants dropped, 10 links removed, 100 users' roles dropped. */
export function editOnePercent(raw: RawConfigObject): RawConfigObject {
  const out = structuredClone(raw);
  const r = prng(11);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const groupIds = Object.keys(out.groups);
  const userKeys = Object.keys(out.users);
  for (let k = 0; k < 200; k++) {
    const g = out.groups[pick(groupIds)];
    if (!g.members?.length) continue;
    const next = pick(userKeys);
    if (!g.members.includes(next)) g.members[Math.floor(r() * g.members.length)] = next;
  }
  for (let k = 0; k < 10; k++) delete out.groups[pick(groupIds)].roles;
  for (let k = 0; k < 10; k++) delete out.groups[pick(groupIds.filter((id) => out.groups[id].member_of))].member_of;
  for (let k = 0; k < 100; k++) delete out.users[pick(userKeys)].roles;
  return out;
}

export async function load(dir: string, name: string, raw: RawConfigObject): Promise<DesiredState> {
  const file = path.join(dir, name);
  writeFileSync(file, toYaml(raw as unknown as Record<string, unknown>));
  const loaded = await loadConfig([file]);
  if (!loaded.desired) throw new Error(`generated config invalid: ${loaded.errors[0]?.message}`);
  return loaded.desired;
}

export async function run(): Promise<BenchResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'roster-bench-access-plan-'));
  try {
    const raw = generateEnvironment(OPTS);
    const live = await load(dir, 'before.yaml', raw);
    const desired = await load(dir, 'after.yaml', editOnePercent(raw));

    const facts = time(() => factsFromState(live));
    const full = time(() => {
      let n = 0;
      for (const _ of buildAccessGraph(factsFromState(live)).effectiveGrants()) n++;
      return n;
    });
    const plan = planChanges(desired, live, { project: 'bench', environment: 'prod' });
    const section = time(() => planAccess({ live, changes: plan.changes }));
    const permissions = time(() => planAccess({ live, changes: plan.changes, permissions: true }));
    const whole = time(() => {
      const p = planChanges(desired, live, { project: 'bench', environment: 'prod' });
      return planAccess({ live, changes: p.changes, assertions: desired.assertions });
    });
    const ms = 'ms';
    return {
      name: 'access-plan',
      description:
        "Effective access and the plan's access section through the adapters: the generated 10,000-user configuration " +
        '(1,000 groups nested up to 8 deep, 2,000 instances, 20,000 memberships) as DesiredState → AccessFacts → graph; ' +
        "a 1% edit (200 memberships moved, 10 groups' grants and 10 links removed, 100 users' roles removed).",
      figures: [
        { name: 'factsFromState (10,000 users)', value: facts.ms, unit: ms },
        {
          name: 'full effective access (facts + build + every grant)',
          value: full.ms,
          unit: ms,
          target: { op: '<', value: 2000 },
        },
        {
          name: 'access section of the 1% edit plan (liveAfter + both graphs + diff + caps)',
          value: section.ms,
          unit: ms,
          target: { op: '<', value: 2000 },
        },
        {
          name: 'access section of the 1% edit plan, permission view',
          value: permissions.ms,
          unit: ms,
          target: { op: '<', value: 2000 },
        },
        { name: 'plan + access section of the 1% edit', value: whole.ms, unit: ms },
      ],
      notes: [
        `${full.value} effective (user, instance, role) grants; the edit plans ${plan.changes.length} changes; its access section: ` +
          `${section.value.users} users, ${section.value.gains} gained, ${section.value.losses} lost, in ${section.value.summary.length + section.value.omittedSummary} summary lines ` +
          `(permission view: ${permissions.value.gains} gained, ${permissions.value.losses} lost).`,
        'Medians of 3 runs; YAML loading is not included (see the config bench).',
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
