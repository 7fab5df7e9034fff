/** The plan's access section: liveAfter (the plan carried out on the live state) and planAccess. Pure. */
import { describe, expect, it } from 'vitest';
import { validateSources } from '../../src/config/index.js';
import type { DesiredState } from '../../src/types/desired.js';
import { planChanges } from '../../src/plan/plan.js';
import { liveAfter } from '../../src/plan/after.js';
import { accessGraphs, accessMarkdownLines, accessTextLines, planAccess } from '../../src/plan/access.js';
import { diffAccess } from '../../src/access/diff.js';
import { renderPlanJson, renderPlanText } from '../../src/plan/index.js';
import type { LiveState } from '../../src/types/live.js';
import { planDecisionChecks } from '../../src/apply/verify-decisions.js';

function desired(text: string): DesiredState {
  const r = validateSources([{ file: 'roster.yaml', text }]);
  if (!r.desired) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return r.desired;
}
/** A desired state stands in for the live state it would become (same shapes). */
const asLive = (d: DesiredState): LiveState => d;

const base = (extra = '') => `
resources: { document: [read, write] }
roles: { editor: [document:read, document:write], viewer: [document:read] }
tenants: { acme: {} }
users:
  alice: { tenants: [acme] }
  bob: { tenants: [acme] }
  carol: { tenants: [acme] }
  dave: { tenants: [acme], roles: [{ role: viewer, on: document:readme }] }
resource_instances: { document:readme: acme, document:roadmap: acme }
groups:
  team:engineering: { tenant: acme, members: [alice], roles: [{ role: editor, on: document:roadmap }] }
  team:platform: { tenant: acme, members: [bob, carol]${extra} }
`;

function access(before: string, after: string, opts: { permissions?: boolean; prune?: boolean; limits?: object } = {}) {
  const live = asLive(desired(before));
  const want = desired(after);
  const plan = planChanges(want, live, { project: 'p', environment: 'e', prune: opts.prune });
  return {
    plan,
    access: planAccess({
      live,
      changes: plan.changes,
      permissions: opts.permissions,
      assertions: want.assertions,
      limits: opts.limits,
    }),
  };
}

describe('planAccess', () => {
  it('a new link shows exactly the users who gain, with the path', () => {
    const { access: a } = access(base(), base(', member_of: [team:engineering]'));
    expect(a.summary.map((s) => [s.line, s.users])).toEqual([
      ['+2 users gain editor on document:roadmap via team:engineering', ['bob', 'carol']],
    ]);
    expect(a.byUser).toEqual([
      {
        user: 'bob',
        changes: [
          {
            sign: '+',
            subject: 'editor',
            instance: 'document:roadmap',
            paths: ['bob → team:platform → team:engineering → editor on document:roadmap'],
          },
        ],
      },
      {
        user: 'carol',
        changes: [
          {
            sign: '+',
            subject: 'editor',
            instance: 'document:roadmap',
            paths: ['carol → team:platform → team:engineering → editor on document:roadmap'],
          },
        ],
      },
    ]);
    expect([a.users, a.gains, a.losses, a.omittedChanges, a.omittedSummary]).toEqual([2, 2, 0, 0, 0]);
  });

  it('gives its graphs to withGraphs: the decision check sampled there is the one built after the writes', () => {
    const live = asLive(desired(base()));
    const plan = planChanges(desired(base(', member_of: [team:engineering]')), live, {
      project: 'p',
      environment: 'e',
    });
    let sampled: ReturnType<typeof planDecisionChecks> | undefined;
    planAccess({
      live,
      changes: plan.changes,
      withGraphs: (before, after) => (sampled = planDecisionChecks(before, after)),
    });
    const { before, after } = accessGraphs(live, plan.changes);
    expect(sampled).toEqual(planDecisionChecks(before, after));
    expect(sampled!.total).toBeGreaterThan(0);
  });

  it('the permission view names permissions and the role carrying them', () => {
    const { access: a } = access(base(), base(', member_of: [team:engineering]'), { permissions: true });
    expect(a.level).toBe('permission');
    expect(a.summary.map((s) => s.line)).toEqual([
      '+2 users gain document:read on document:roadmap via team:engineering (editor)',
      '+2 users gain document:write on document:roadmap via team:engineering (editor)',
    ]);
  });

  it('losses: a user leaving a group, and a direct role removed', () => {
    const after = base()
      .replace('members: [bob, carol]', 'members: [bob]')
      .replace('roles: [{ role: viewer, on: document:readme }] }', '}');
    const { access: a } = access(
      base(', member_of: [team:engineering]'),
      after.replace('members: [bob] }', 'members: [bob], member_of: [team:engineering] }'),
    );
    expect(a.summary.map((s) => s.line)).toEqual([
      '-1 user loses viewer on document:readme via direct assignment',
      '-1 user loses editor on document:roadmap via team:engineering',
    ]);
  });

  it('sections the configuration does not manage keep their live objects (no users section: live roles stay)', () => {
    const live = base();
    const noUsers = live
      .replace(/users:[\s\S]*?resource_instances/, 'resource_instances')
      .replace(/members: \[[^\]]*\]/g, 'members: []');
    const { plan } = access(live, noUsers);
    // The groups lose their members (groups are managed), but dave's direct viewer role stays.
    const after = liveAfter(asLive(desired(live)), plan.changes);
    expect(after.users.get('dave')!.roles).toEqual([{ role: 'viewer', tenant: 'acme', on: 'document:readme' }]);
    expect(planAccess({ live: asLive(desired(live)), changes: plan.changes }).summary.map((s) => s.line)).toEqual([
      '-1 user loses editor on document:roadmap via team:engineering',
    ]);
  });

  it('caps long sections and counts what it left out', () => {
    const { access: a } = access(base(), base(', member_of: [team:engineering]'), {
      limits: { changes: 1, usersPerLine: 1 },
    });
    expect(a.byUser.map((u) => u.user)).toEqual(['bob']);
    expect(a.omittedChanges).toBe(1);
    expect(a.summary[0]).toMatchObject({ userCount: 2, users: ['bob'] });
    expect(accessTextLines(a)).toContain('      bob … (1 more)');
  });

  it('evaluates the assertions on the state after the plan, with the breaking path', () => {
    const after =
      base(', member_of: [team:engineering]') +
      'assertions:\n  - { users_in: team:platform, cannot: write, on: document:roadmap }\n';
    const { access: a } = access(base(), after);
    expect(a.assertions).toEqual({
      total: 1,
      failed: 1,
      failures: [
        {
          place: 'roster.yaml:15',
          name: 'users in team:platform cannot write on document:roadmap',
          lines: [
            'bob can write on document:roadmap: one path grants it.',
            '  bob → team:platform → team:engineering → editor on document:roadmap (editor grants document:write)',
            'carol can write on document:roadmap: one path grants it.',
            '  carol → team:platform → team:engineering → editor on document:roadmap (editor grants document:write)',
          ],
        },
      ],
    });
  });

  describe('assertions through set rules', () => {
    const abac = (assertions = '') => `
resources:
  expense:
    actions: [approve, view]
    attributes: { amount: number }
roles: { manager: [expense:view] }
user_attributes: { level: number }
tenants: { acme: {} }
users:
  alice: { tenants: [acme], attributes: { level: 4 } }
  bob: { tenants: [acme], attributes: { level: 2 } }
  carol: { roles: [{ role: manager, tenant: acme }] }
resource_instances:
  expense:small: { tenant: acme, attributes: { amount: 500 } }
  expense:big: { tenant: acme, attributes: { amount: 5000 } }
user_sets:
  approvers:
    conditions: { allOf: [{ user.level: { greater-than-equals: 3 } }] }
resource_sets:
  small-expenses:
    resource: expense
    conditions: { allOf: [{ resource.amount: { less-than: 1000 } }] }
  urgent:
    resource: expense
    conditions: { allOf: [{ context.urgent: { equals: true } }] }
set_rules:
  - { user_set: approvers, can: approve, resource_set: small-expenses }
  - { role: manager, can: approve, resource_set: urgent }
${assertions}`;

    it('decides an assertion with its with: attributes (passing where the stored ones alone fail)', () => {
      const { access: a } = access(
        abac(),
        abac(`assertions:
  - { user: bob, can: approve, on: expense:small, with: { user: { level: 5 } } }
  - { user: bob, can: approve, on: expense:small }
`),
      );
      // bob stores level 2: without with:, the rule fails on it; with level 5 passed, it holds.
      expect(a.assertions).toMatchObject({
        total: 2,
        failed: 1,
        failures: [{ name: 'bob can approve on expense:small' }],
      });
      expect(a.assertions!.failures[0].place).toBe('roster.yaml:31');
      expect(a.assertions!.failures[0].lines.map((l) => l.trim())).toContain(
        'user set approvers: user.level greater-than-equals 3 (user.level = 2, stored)',
      );
      expect(a.assertions!.undecided).toBeUndefined();
    });

    it('lists an assertion depending on context.* as not decided offline in the text output, neither passed nor failed', () => {
      const { access: a } = access(
        abac(),
        abac(`assertions:
  - { user: carol, can: approve, on: expense:big }
  - { user: carol, can: approve, on: expense:big, with: { context: { urgent: true } } }
`),
      );
      expect(a.assertions).toMatchObject({
        total: 2,
        failed: 0,
        failures: [],
        undecided: [{ place: 'roster.yaml:30', name: 'carol can approve on expense:big' }],
      });
      const text = accessTextLines(a).join('\n');
      expect(text).toContain(
        'Assertions not decided offline (a set rule waits for attributes the check passes): 1\n  UNDECIDED roster.yaml:30: carol can approve on expense:big\n',
      );
      expect(text).toContain('depends on context.urgent');
      expect(text).not.toContain('FAIL');
      expect(accessMarkdownLines(a)).toContain('#### 1 assertion not decided offline');
    });
  });

  it('renders in text, markdown and JSON; the checksum does not cover it', () => {
    const { plan, access: a } = access(base(), base(', member_of: [team:engineering]'));
    const withAccess = { ...plan, access: a };
    expect(renderPlanText(withAccess)).toContain(
      'Access changes: 2 users; 2 gained, 0 lost.\n  +2 users gain editor on document:roadmap via team:engineering\n      bob, carol',
    );
    expect(accessMarkdownLines(a)).toContain(
      '- `+2 users gain editor on document:roadmap via team:engineering`: bob, carol',
    );
    expect(JSON.parse(renderPlanJson(withAccess)).access).toEqual(a);
    expect(withAccess.checksum).toBe(plan.checksum);
  });
});

describe('liveAfter', () => {
  it('carries out cascades: deleting a role drops its assignments and grants; deleting an instance drops what is on it', () => {
    const live = asLive(desired(base()));
    const after = liveAfter(live, [
      {
        action: 'delete',
        kind: 'role',
        id: 'role:viewer',
        before: { key: 'viewer', name: 'viewer', permissions: [] },
        dependsOn: [],
      },
      {
        action: 'delete',
        kind: 'instance',
        id: 'instance:document:roadmap',
        before: { resource: 'document', key: 'roadmap', tenant: 'acme' },
        dependsOn: [],
      },
    ]);
    expect(after.users.get('dave')!.roles).toEqual([]);
    expect(after.groups.get('team:engineering')!.roles).toEqual([]);
    expect(live.users.get('dave')!.roles).toHaveLength(1); // copy-on-write: the live state is unchanged
    expect(live.groups.get('team:engineering')!.roles).toHaveLength(1);
  });

  it('a user leaving a tenant loses every role and membership there', () => {
    const after = liveAfter(asLive(desired(base())), [
      {
        action: 'delete',
        kind: 'tenant_user',
        id: 'tenant_user:bob@acme',
        before: { user: 'bob', tenant: 'acme' },
        dependsOn: [],
      },
    ]);
    expect(after.groups.get('team:platform')!.members).toEqual(['carol']);
  });

  it('planning the live state against itself after the plan gives no changes (the plan is carried out exactly)', () => {
    const live = asLive(desired(base()));
    const want = desired(
      base(', member_of: [team:engineering]').replace(
        'dave: { tenants: [acme], roles: [{ role: viewer, on: document:readme }] }',
        'dave: { roles: [{ role: editor, tenant: acme }] }',
      ),
    );
    const plan = planChanges(want, live, { project: 'p', environment: 'e', prune: true });
    expect(plan.changes.length).toBeGreaterThan(0);
    expect(
      planChanges(want, liveAfter(live, plan.changes), { project: 'p', environment: 'e', prune: true }).changes,
    ).toEqual([]);
  });
});

describe('planAccess of a plan without changes', () => {
  it.each([false, true])(
    'is the empty section the graphs would give (permissions: %s), without building them',
    (permissions) => {
      const live = asLive(desired(base()));
      const got = planAccess({ live, changes: [], permissions });
      const { before, after } = accessGraphs(live, []);
      const diff = diffAccess(before, after, { permissions });
      expect(diff.changes).toEqual([]);
      expect(got).toEqual({
        level: diff.level,
        users: 0,
        gains: 0,
        losses: 0,
        summary: [],
        omittedSummary: 0,
        byUser: [],
        omittedChanges: 0,
      });
    },
  );
});

describe('a tenant-wide role in the access section (issue 28)', () => {
  const world = (auditor: string) => `
resources: { folder: [read, write], document: [read] }
roles: { auditor: [${auditor}], editor: [folder:read, folder:write] }
tenants: { acme: {} }
users:
  frank: { tenants: [acme], roles: [{ role: auditor, tenant: acme }] }
  gina: { tenants: [acme], roles: [{ role: auditor, tenant: acme }, { role: editor, on: folder:finance }] }
resource_instances: { folder:finance: acme, folder:hr: acme, folder:ops: acme, document:memo: acme }
`;

  it('a permission removed from a role held tenant-wide: the permission is lost, once per role and tenant; never the role, which is still held', () => {
    const { plan, access: a } = access(world('folder:read, document:read'), world('document:read'));
    expect(a.summary.map((s) => s.line)).toEqual([
      '-1 user loses folder:read through auditor in acme, on 3 folders',
      '-1 user loses folder:read through auditor in acme, on 2 folders',
    ]);
    expect(a.summary.map((s) => s.users)).toEqual([['frank'], ['gina']]);
    expect(a.summary[0]).toMatchObject({
      sign: '-',
      subject: 'folder:read',
      viaKind: 'tenant',
      via: 'acme',
      role: 'auditor',
      instances: ['folder:finance', 'folder:hr', 'folder:ops'],
    });
    expect(a.summary[0].instance).toBeUndefined();
    const text = accessTextLines(a).join('\n');
    expect(text).not.toMatch(/loses auditor/);
    expect(text).toContain(
      '    frank\n      - folder:read through auditor in acme, on 3 folders (folder:finance, folder:hr, folder:ops)\n          frank → auditor (tenant-wide in acme)',
    );
    // gina keeps folder:read on finance through her editor role: lost on the two others only.
    expect(text).toContain('      - folder:read through auditor in acme, on 2 folders (folder:hr, folder:ops)');
    expect([a.users, a.gains, a.losses]).toEqual([2, 0, 5]);
    expect(accessMarkdownLines(a)).toContain(
      '- `-1 user loses folder:read through auditor in acme, on 3 folders`: frank',
    );
    const json = JSON.parse(renderPlanJson({ ...plan, access: a })).access;
    expect(json.byUser[0]).toEqual({
      user: 'frank',
      changes: [
        {
          sign: '-',
          subject: 'folder:read',
          instances: ['folder:finance', 'folder:hr', 'folder:ops'],
          instanceCount: 3,
          instancesByType: { folder: 3 },
          tenant: 'acme',
          role: 'auditor',
          paths: ['frank → auditor (tenant-wide in acme)'],
        },
      ],
    });
  });

  it('renders in text and Markdown', () => {
    const { access: a } = access(world('folder:read, document:read'), world('document:read'));
    expect(accessTextLines(a).join('\n')).toMatchInlineSnapshot(`
      "Access changes: 2 users; 0 gained, 5 lost.
        -1 user loses folder:read through auditor in acme, on 3 folders
            frank
        -1 user loses folder:read through auditor in acme, on 2 folders
            gina

        By user:
          frank
            - folder:read through auditor in acme, on 3 folders (folder:finance, folder:hr, folder:ops)
                frank → auditor (tenant-wide in acme)
          gina
            - folder:read through auditor in acme, on 2 folders (folder:hr, folder:ops)
                gina → auditor (tenant-wide in acme)"
    `);
    expect(accessMarkdownLines(a).join('\n')).toMatchInlineSnapshot(`
      "#### Access changes

      2 users; 0 gained, 5 lost.

      - \`-1 user loses folder:read through auditor in acme, on 3 folders\`: frank
      - \`-1 user loses folder:read through auditor in acme, on 2 folders\`: gina

      <details><summary>By user, with the granting paths</summary>

      | user | change | paths |
      |---|---|---|
      | \`frank\` | - folder:read through auditor in acme, on 3 folders (folder:finance, folder:hr, folder:ops) | \`frank → auditor (tenant-wide in acme)\` |
      | \`gina\` | - folder:read through auditor in acme, on 2 folders (folder:hr, folder:ops) | \`gina → auditor (tenant-wide in acme)\` |

      </details>"
    `);
  });

  it('the last permission on a type removed from a role held tenant-wide: still no "loses auditor"', () => {
    const { access: a } = access(world('folder:read'), world('document:read'));
    const lines = accessTextLines(a).join('\n');
    expect(lines).not.toMatch(/(gains|loses|gain|lose) auditor/);
    expect(a.summary.map((s) => s.line)).toEqual([
      '+2 users gain document:read through auditor in acme, on document:memo',
      '-1 user loses folder:read through auditor in acme, on 3 folders',
      '-1 user loses folder:read through auditor in acme, on 2 folders',
    ]);
  });

  it('a tenant-wide role given: one line for the role and tenant, not one per instance', () => {
    const { access: a } = access(
      world('folder:read').replace('roles: [{ role: auditor, tenant: acme }] }', '}'),
      world('folder:read'),
    );
    expect(a.summary.map((s) => s.line)).toEqual(['+1 user gains auditor tenant-wide in acme, on 3 folders']);
  });
});
