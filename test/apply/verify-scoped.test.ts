import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/apply.js';
import { verifyApplied } from '../../src/apply/verify.js';
import { estimateVerify } from '../../src/apply/verify-scope.js';
import { costLine } from '../../src/plan/render-common.js';
import { readLiveState } from '../../src/api/read-live.js';
import type { ApiClient } from '../../src/api/index.js';
import { planChanges } from '../../src/plan/plan.js';
import { loadDesired, startEnv, type Env } from './helpers.js';

/** Every facet a verification reads: tenants, users, assignments, memberships, groups with grants and links, instances, tuples. */
const BASE = `version: 1
resources:
  folder:
    actions: [read, write]
    relations: { parent: folder }
  document: { name: Document, actions: [read, write] }
roles:
  viewer: { name: Viewer, permissions: [document:read] }
  editor: { name: Editor, permissions: [document:read, document:write] }
tenants:
  acme: { name: Acme }
users:
  alice: { email: alice@acme.test, tenants: [acme], roles: [viewer] }
  bob: { email: bob@acme.test, tenants: [acme] }
resource_instances:
  document:readme: { tenant: acme }
  folder:root: { tenant: acme }
  folder:sub: { tenant: acme }
groups:
  team:eng:
    tenant: acme
    members: [alice]
    roles: [{ role: editor, on: document:readme }]
  team:all:
    tenant: acme
    members: []
`;

interface Case {
  name: string;
  /** The configuration edit the apply makes. */
  edit: (yaml: string) => string;
  /** What another writer does after the apply's writes, before its reads. */
  undo: (client: ApiClient) => Promise<unknown>;
  /** The changes the verification finds still needed. */
  leftover: string[];
}

const CASES: Case[] = [
  {
    name: 'a tenant renamed, renamed back',
    edit: (y) => y.replace('acme: { name: Acme }', 'acme: { name: Acme Corp }'),
    undo: (c) => c.patch('/v2/facts/p/e/tenants/acme', { name: 'Acme' }),
    leftover: ['tenant:acme'],
  },
  {
    name: 'a user changed, changed back',
    edit: (y) => y.replace('bob: { email: bob@acme.test', 'bob: { email: bob@corp.test'),
    undo: (c) => c.patch('/v2/facts/p/e/users/bob', { email: 'bob@acme.test' }),
    leftover: ['user:bob'],
  },
  {
    name: 'a role assigned, unassigned',
    edit: (y) =>
      y.replace(
        'bob: { email: bob@acme.test, tenants: [acme] }',
        'bob: { email: bob@acme.test, tenants: [acme], roles: [editor] }',
      ),
    undo: (c) => c.delete('/v2/facts/p/e/role_assignments', { body: { user: 'bob', role: 'editor', tenant: 'acme' } }),
    leftover: ['assignment:bob:editor@acme'],
  },
  {
    name: 'a member added, removed',
    edit: (y) => y.replace('members: [alice]', 'members: [alice, bob]'),
    undo: (c) => c.delete('/v2/schema/p/e/groups/team:eng/users/bob', { body: { tenant: 'acme' } }),
    leftover: ['member:bob@team:eng'],
  },
  {
    name: 'a group grant added, removed',
    edit: (y) =>
      y.replace('    members: []\n', '    members: []\n    roles: [{ role: viewer, on: document:readme }]\n'),
    undo: (c) =>
      c.delete('/v2/schema/p/e/groups/team:all/roles', {
        body: { role: 'viewer', resource: 'document', resource_instance: 'readme', tenant: 'acme' },
      }),
    leftover: ['grant:team:all:viewer@document:readme'],
  },
  {
    name: 'a link made, unmade',
    edit: (y) => y.replace('    members: []\n', '    members: []\n    member_of: [team:eng]\n'),
    undo: (c) => c.delete('/v2/schema/p/e/groups/team:all/assign_group', { body: { group_instance_key: 'team:eng' } }),
    leftover: ['link:team:all@team:eng'],
  },
  {
    name: 'an instance created, deleted',
    edit: (y) =>
      y.replace(
        '  folder:sub: { tenant: acme }\n',
        '  folder:sub: { tenant: acme }\n  document:notes: { tenant: acme }\n',
      ),
    undo: (c) => c.delete('/v2/facts/p/e/resource_instances/document:notes'),
    leftover: ['instance:document:notes'],
  },
  {
    name: 'a tuple written, deleted',
    edit: (y) =>
      y.replace('  folder:sub: { tenant: acme }', '  folder:sub: { tenant: acme, relations: { parent: folder:root } }'),
    undo: (c) =>
      c.delete('/v2/facts/p/e/relationship_tuples', {
        body: { subject: 'folder:root', relation: 'parent', object: 'folder:sub' },
      }),
    leftover: ['tuple:folder:root#parent@folder:sub'],
  },
];

describe('verification reads what the apply changed, on the real service', { timeout: 120_000 }, () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => env?.close());

  for (const c of CASES) {
    it(`${c.name}: found in a few reads; undone by another writer, a conflict`, async () => {
      const { client, requests } = env.client();
      const base = await loadDesired(env.write('base.yaml', BASE));
      await applyPlan(planChanges(base, await readLiveState(client), { project: 'p', environment: 'e' }), client);
      const edited = await loadDesired(env.write('edited.yaml', c.edit(BASE)));
      const live = await readLiveState(client);
      const plan = planChanges(edited, live, { project: 'p', environment: 'e' });
      expect(plan.changes.map((x) => x.id)).toContain(c.leftover[0]);
      const applied = await applyPlan(plan, client);
      expect(applied.failed).toEqual([]);

      const before = requests.length;
      const clean = await verifyApplied({ desired: edited, client, plan, live, requestGrants: [] });
      expect(clean).toMatchObject({ ids: [], full: false });
      expect(clean.requests).toBe(requests.length - before);
      expect(clean.requests).toBeLessThanOrEqual(6);
      // The plan said so beforehand.
      expect(estimateVerify(plan, edited, live)).toBe(clean.requests);
      const cost = {
        requests: 1,
        byClass: { request: 1, write: 1 },
        kinds: { write: 1 },
        seconds: 0,
        limits: 'public' as const,
        verify: clean.requests,
      };
      expect(costLine({ ...plan, cost })).toContain(
        `1 write; then ${clean.requests === 1 ? '1 read' : `${clean.requests} reads`} to verify; under a second`,
      );

      await c.undo(env.client().client);
      const undone = await verifyApplied({ desired: edited, client, plan, live, requestGrants: [] });
      expect(undone.ids).toEqual(c.leftover);
      // Back to the base for the next case.
      await applyPlan(
        planChanges(base, await readLiveState(client), { project: 'p', environment: 'e', prune: true }),
        client,
      );
    });
  }
});
