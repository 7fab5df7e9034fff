/**
 * The access graph at the size issue #6 sets: 10,000 users, 1,000 groups nested up to depth 8, 2,000
 * instances, 20,000 memberships, ~3,000 group grants. Figures are medians of a few runs, each on freshly
 * built graphs (no memoised state carried over).
 */
import type { BenchResult } from './run.js';
import { buildAccessGraph, diffAccess, type AccessFacts } from '../src/access/index.js';
import { prng } from './generate.js';
import { time } from './stats.js';

const SIZE = {
  users: 10_000,
  groups: 1_000,
  levels: 8,
  instances: 2_000,
  tenants: 5,
  memberships: 20_000,
  grants: 3_000,
};
const ROLES = ['viewer', 'commenter', 'editor', 'admin'];

/** Deterministic PRNG: the generator's (mulberry32). */
const rng = prng;

const pad = (n: number, w: number) => String(n).padStart(w, '0');
const user = (i: number) => `u${pad(i, 5)}`;
const group = (i: number) => `team:g${pad(i, 4)}`;
/** Groups are laid out in levels; a group links only to groups of higher levels, so chains are ≤ 8 long. */
const levelOf = (g: number) => Math.floor((g * SIZE.levels) / SIZE.groups);
const perLevel = SIZE.groups / SIZE.levels;

export function generateFacts(seed = 42): AccessFacts {
  const r = rng(seed);
  const pick = (n: number) => Math.floor(r() * n);
  const instance = (i: number) => (i % 4 === 3 ? `folder:f${pad(i, 4)}` : `document:d${pad(i, 4)}`);
  const anyInstance = () => instance(pick(SIZE.instances));
  const roles: AccessFacts['roles'] = [
    { key: 'viewer', permissions: ['document:read', 'folder:read'] },
    { key: 'commenter', permissions: ['document:comment'], extends: ['viewer'] },
    { key: 'editor', permissions: ['document:write', 'folder:write'], extends: ['commenter'] },
    { key: 'admin', permissions: ['document:delete', 'folder:delete'], extends: ['editor'] },
  ];
  const instances = Array.from({ length: SIZE.instances }, (_, i) => ({
    id: instance(i),
    tenant: `t${i % SIZE.tenants}`,
  }));
  const links: AccessFacts['links'] = [];
  for (let g = 0; g < SIZE.groups; g++) {
    const level = levelOf(g);
    if (level === SIZE.levels - 1) continue;
    const parentAt = (l: number) => Math.min(SIZE.groups - 1, Math.floor(l * perLevel) + pick(perLevel));
    links.push({ child: group(g), parent: group(parentAt(level + 1)) });
    // A second parent now and then: diamonds.
    if (r() < 0.3)
      links.push({ child: group(g), parent: group(parentAt(Math.min(SIZE.levels - 1, level + 1 + pick(2)))) });
  }
  const memberships = Array.from({ length: SIZE.memberships }, () => ({
    user: user(pick(SIZE.users)),
    group: group(pick(SIZE.groups)),
  }));
  const groupGrants = Array.from({ length: SIZE.grants }, () => ({
    group: group(pick(SIZE.groups)),
    role: ROLES[pick(ROLES.length)],
    instance: anyInstance(),
  }));
  const instanceRoles = Array.from({ length: 5_000 }, () => ({
    user: user(pick(SIZE.users)),
    role: ROLES[pick(2)],
    instance: anyInstance(),
  }));
  const tenantRoles = Array.from({ length: 50 }, () => ({
    user: user(pick(SIZE.users)),
    role: 'viewer',
    tenant: `t${pick(SIZE.tenants)}`,
  }));
  return { roles, instances, tenantRoles, instanceRoles, memberships, links, groupGrants };
}

/** Replaces ~1% of memberships, links and grants (and of direct roles) with new random ones. */
export function editFacts(f: AccessFacts, seed = 7): AccessFacts {
  const r = rng(seed);
  const pick = (n: number) => Math.floor(r() * n);
  const replace = <T>(xs: T[], make: () => T) => {
    const out = [...xs];
    for (let k = 0; k < Math.max(1, Math.round(xs.length / 100)); k++) out[pick(out.length)] = make();
    return out;
  };
  const fresh = generateFacts(seed + 1);
  return {
    ...f,
    memberships: replace(f.memberships, () => fresh.memberships[pick(fresh.memberships.length)]),
    links: replace(f.links, () => fresh.links[pick(fresh.links.length)]),
    groupGrants: replace(f.groupGrants, () => fresh.groupGrants[pick(fresh.groupGrants.length)]),
    instanceRoles: replace(f.instanceRoles, () => fresh.instanceRoles[pick(fresh.instanceRoles.length)]),
  };
}

export async function run(): Promise<BenchResult> {
  const before = generateFacts();
  const after = editFacts(before);

  const full = time(() => {
    let n = 0;
    for (const _ of buildAccessGraph(before).effectiveGrants()) n++;
    return n;
  });
  const roleDiff = time(() => diffAccess(buildAccessGraph(before), buildAccessGraph(after)));
  const permDiff = time(() => diffAccess(buildAccessGraph(before), buildAccessGraph(after), { permissions: true }));
  // Changed role definitions touch everyone in the permission view: the full comparison.
  const rolesEdited = {
    ...after,
    roles: after.roles.map((x) =>
      x.key === 'viewer' ? { ...x, permissions: [...x.permissions, 'document:share'] } : x,
    ),
  };
  const fullDiff = time(
    () => diffAccess(buildAccessGraph(before), buildAccessGraph(rolesEdited), { permissions: true }),
    1,
  );
  const queries = time(() => {
    const g = buildAccessGraph(before);
    const r = rng(3);
    let allowed = 0;
    for (let i = 0; i < 10_000; i++) {
      const u = user(Math.floor(r() * SIZE.users));
      const inst = `document:d${pad(Math.floor(r() * (SIZE.instances / 4)) * 4, 4)}`;
      if (g.can(u, 'read', inst).allowed) allowed++;
    }
    return allowed;
  });

  const ms = 'ms';
  return {
    name: 'access',
    description:
      'Access graph (src/access): 10,000 users, 1,000 groups in 8 levels (30% with a second parent), 2,000 instances, ' +
      '20,000 memberships, 3,000 group grants, 5,000 direct roles, 50 tenant-wide roles; 1% edit of memberships, links, grants and direct roles.',
    figures: [
      {
        name: 'full effective access (build + every grant)',
        value: full.ms,
        unit: ms,
        target: { op: '<', value: 2000 },
      },
      {
        name: 'access changes, 1% edit (build both + diff)',
        value: roleDiff.ms,
        unit: ms,
        target: { op: '<', value: 2000 },
      },
      {
        name: 'access changes, 1% edit, permission view',
        value: permDiff.ms,
        unit: ms,
        target: { op: '<', value: 2000 },
      },
      { name: 'access changes, role definitions edited (every user compared)', value: fullDiff.ms, unit: ms },
      { name: '10,000 can() on a fresh graph', value: queries.ms, unit: ms },
    ],
    notes: [
      `${full.value} effective (user, instance, role) grants; the 1% edit changes ${roleDiff.value.changes.length} role grants ` +
        `of ${roleDiff.value.users.length} users in ${roleDiff.value.summary.length} summary lines ` +
        `(${permDiff.value.changes.length} permission changes); ${queries.value} of 10,000 random reads allowed.`,
    ],
  };
}
