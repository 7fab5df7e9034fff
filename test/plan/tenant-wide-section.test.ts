/**
 * Issue 42: the access section names a tenant-wide role's grant once per (role, tenant), with every
 * user who gains or loses it and the instances it covers counted, never listed whole (`instances`: the
 * first INSTANCES_LISTED; `instanceCount`, `instancesByType`). Table-driven on planAccess, then as a
 * user meets it: `roster plan` in text, Markdown and JSON against the real server over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateSources } from '../../src/config/index.js';
import type { DesiredState } from '../../src/types/desired.js';
import { planChanges } from '../../src/plan/plan.js';
import { accessMarkdownLines, accessTextLines, planAccess } from '../../src/plan/access.js';
import { INSTANCES_LISTED } from '../../src/plan/access-shapes.js';
import type { Plan } from '../../src/plan/types.js';
import { ORG_KEY, startEnv, type Env } from '../apply/helpers.js';

const DOCUMENTS = 25;
const docs = Array.from({ length: DOCUMENTS }, (_, i) => `document:d${String(i).padStart(2, '0')}`);

/** A company in one tenant: 25 documents, 2 folders, users u0..u5; `roles` gives users tenant-wide roles. */
function company(roles: Record<string, string[]> = {}, extra = ''): string {
  const users = ['u0', 'u1', 'u2', 'u3', 'u4', 'u5'].map((u) => {
    const held = (roles[u] ?? []).map((r) => `{ role: ${r}, tenant: acme }`).join(', ');
    return `  ${u}: { tenants: [acme]${held ? `, roles: [${held}]` : ''} }`;
  });
  return `
resources: { document: [read, write], folder: [read] }
roles: { editor: [document:read, document:write], viewer: [document:read, folder:read] }
tenants: { acme: {} }
users:
${users.join('\n')}
resource_instances: { ${[...docs, 'folder:f0', 'folder:f1'].map((i) => `${i}: acme`).join(', ')} }
${extra}`;
}

function desired(text: string): DesiredState {
  const r = validateSources([{ file: 'roster.yaml', text }]);
  if (!r.desired) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return r.desired;
}

function section(before: string, after: string, permissions = false) {
  const live = desired(before);
  const plan = planChanges(desired(after), live, { project: 'p', environment: 'e' });
  return planAccess({ live, changes: plan.changes, permissions });
}

describe('tenant-wide lines of the access section', () => {
  const first = docs.slice(0, INSTANCES_LISTED);
  const cases: {
    name: string;
    before: string;
    after: string;
    permissions?: boolean;
    lines: [line: string, users: string[], count: number, byType: Record<string, number>][];
    gains: number;
    losses: number;
  }[] = [
    {
      name: 'a role given to three users tenant-wide: one line, every user, the instances counted',
      before: company(),
      after: company({ u0: ['editor'], u1: ['editor'], u2: ['editor'] }),
      lines: [['+3 users gain editor tenant-wide in acme, on 25 documents', ['u0', 'u1', 'u2'], 25, { document: 25 }]],
      gains: 75,
      losses: 0,
    },
    {
      name: 'a role on every type: the counts per type',
      before: company(),
      after: company({ u3: ['viewer'] }),
      lines: [
        [
          '+1 user gains viewer tenant-wide in acme, on 25 documents and 2 folders',
          ['u3'],
          27,
          { document: 25, folder: 2 },
        ],
      ],
      gains: 27,
      losses: 0,
    },
    {
      name: 'the permission view: one line per permission, carried by the role',
      before: company({ u0: ['viewer'] }),
      after: company({ u0: ['editor'] }),
      permissions: true,
      lines: [
        ['+1 user gains document:write through editor in acme, on 25 documents', ['u0'], 25, { document: 25 }],
        ['-1 user loses folder:read through viewer in acme, on 2 folders', ['u0'], 2, { folder: 2 }],
      ],
      gains: 25,
      losses: 2,
    },
    {
      name: 'a user holding the role on one document through a group: that document on a line of its own',
      before: company(
        {},
        'groups: { team:t: { tenant: acme, members: [u4], roles: [{ role: editor, on: document:d03 }] } }',
      ),
      after: company(
        { u4: ['editor'], u5: ['editor'] },
        'groups: { team:t: { tenant: acme, members: [u4], roles: [{ role: editor, on: document:d03 }] } }',
      ),
      lines: [
        ['+1 user gains editor tenant-wide in acme, on 25 documents', ['u5'], 25, { document: 25 }],
        ['+1 user gains editor tenant-wide in acme, on 24 documents', ['u4'], 24, { document: 24 }],
      ],
      gains: 49,
      losses: 0,
    },
  ];

  it.each(cases)('$name', ({ before, after, permissions, lines, gains, losses }) => {
    const a = section(before, after, permissions);
    expect(a.summary.map((s) => [s.line, s.users, s.instanceCount, s.instancesByType])).toEqual(lines);
    for (const s of a.summary) {
      expect(s.instances).toHaveLength(Math.min(INSTANCES_LISTED, s.instanceCount!));
      expect(s.instance).toBeUndefined();
    }
    expect([a.gains, a.losses]).toEqual([gains, losses]);
  });

  it('lists the first instances, sorted, and says how many in By user', () => {
    const a = section(company(), company({ u0: ['editor'] }));
    expect(a.summary[0].instances).toEqual(first);
    expect(a.byUser).toEqual([
      {
        user: 'u0',
        changes: [
          {
            sign: '+',
            subject: 'editor',
            instances: first,
            instanceCount: 25,
            instancesByType: { document: 25 },
            tenant: 'acme',
            paths: ['u0 → editor (tenant-wide in acme)'],
          },
        ],
      },
    ]);
    expect(accessTextLines(a)).toContain(
      '      + editor tenant-wide in acme, on 25 documents (document:d00, document:d01, document:d02, …)',
    );
    expect(accessMarkdownLines(a)).toContain('- `+1 user gains editor tenant-wide in acme, on 25 documents`: u0');
  });
});

describe.sequential('roster plan shows the summary over HTTP (real server)', { timeout: 300_000 }, () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv();
    const applied = await env.roster('apply', env.write('base.yaml', company()), '--yes');
    expect(applied.code, applied.stderr).toBe(0);
  });
  afterAll(async () => env?.close());

  it('one line per role and tenant, every user, the instances counted: text, Markdown and JSON', async () => {
    const file = env.write('wide.yaml', company({ u0: ['editor'], u1: ['editor'], u2: ['editor'], u3: ['viewer'] }));
    const [text, md, json] = await Promise.all([
      env.roster('plan', file),
      env.roster('plan', file, '--format', 'markdown'),
      env.roster('plan', file, '--format', 'json'),
    ]);
    for (const r of [text, md, json]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(ORG_KEY);
    }
    expect(text.stdout).toContain('Access changes: 4 users; 102 gained, 0 lost.');
    expect(text.stdout).toContain('  +3 users gain editor tenant-wide in acme, on 25 documents\n      u0, u1, u2');
    expect(text.stdout).toContain(
      '  +1 user gains viewer tenant-wide in acme, on 25 documents and 2 folders\n      u3',
    );
    expect(md.stdout).toContain('- `+3 users gain editor tenant-wide in acme, on 25 documents`: u0, u1, u2');
    const plan = JSON.parse(json.stdout) as Plan;
    expect(plan.access?.summary).toEqual([
      {
        line: '+3 users gain editor tenant-wide in acme, on 25 documents',
        sign: '+',
        subject: 'editor',
        instances: docs.slice(0, INSTANCES_LISTED),
        instanceCount: 25,
        instancesByType: { document: 25 },
        viaKind: 'tenant',
        via: 'acme',
        userCount: 3,
        users: ['u0', 'u1', 'u2'],
      },
      {
        line: '+1 user gains viewer tenant-wide in acme, on 25 documents and 2 folders',
        sign: '+',
        subject: 'viewer',
        instances: docs.slice(0, INSTANCES_LISTED),
        instanceCount: 27,
        instancesByType: { document: 25, folder: 2 },
        viaKind: 'tenant',
        via: 'acme',
        userCount: 1,
        users: ['u3'],
      },
    ]);
  });
});
