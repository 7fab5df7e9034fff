import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import { ReviewScreen } from '../../src/review/ui/Screen.js';
import { reduce } from '../../src/review/model.js';
import { initQueue, type Action, type QueueState } from '../../src/review/state.js';
import { aRequest, keys, pageOf, run, someRequests, userId } from './builders.js';
import { columnsFor } from '../../src/review/format.js';

/** Components get plain data: a queue state built by the reducer from made-up pages. No server here. */

const NOW = Date.parse('2026-01-01T02:00:00Z');
const ROLES: Action = {
  type: 'rolesLoaded',
  roles: [
    { key: 'approver', permissions: [], extends: [] },
    { key: 'editor', permissions: ['document:write'], extends: ['viewer'] },
    { key: 'viewer', permissions: ['document:read'], extends: [] },
  ],
};

function stateOf(actions: Action[], o: { width?: number; rows?: number; readonly?: boolean } = {}): QueueState {
  let s = initQueue({
    user: 'bob',
    tenant: 'acme',
    width: o.width ?? 100,
    rows: o.rows ?? 24,
    readonly: o.readonly,
    order: 'newest',
  });
  for (const a of actions) s = reduce(s, a).state;
  return s;
}

const queue = () => [
  aRequest({
    id: 'r3',
    requester: 'alice',
    role: 'editor',
    instance: 'readme',
    reason: 'I need to fix the release notes before Friday, the old ones are wrong',
    createdAt: '2026-01-01T01:58:00Z',
  }),
  aRequest({
    id: 'r2',
    requester: 'bob',
    role: 'viewer',
    instance: 'roadmap',
    reason: 'mine',
    createdAt: '2026-01-01T01:00:00Z',
  }),
  aRequest({
    id: 'r1',
    requester: 'dave',
    role: 'viewer',
    resource: null,
    instance: null,
    reason: null,
    createdAt: '2025-12-30T02:00:00Z',
  }),
];

const frame = (s: QueueState) => {
  const ui = render(<ReviewScreen state={s} now={NOW} color={false} />);
  return ui.lastFrame()!;
};

afterEach(() => cleanup());

describe('review screen (plain data)', () => {
  it('decided tab: an approved request whose grant is gone since reads "revoked", in the row and the details (issue 41)', () => {
    const decided = [
      aRequest({
        id: 'r2',
        requester: 'alice',
        role: 'editor',
        status: 'approved',
        reviewer: 'bob',
        createdAt: '2026-01-01T01:00:00Z',
      }),
      aRequest({
        id: 'r1',
        requester: 'dave',
        role: 'viewer',
        resource: null,
        instance: null,
        status: 'approved',
        reviewer: 'bob',
        createdAt: '2026-01-01T00:00:00Z',
      }),
    ];
    // The decided tab merges the approved list (source 0) and the denied one (source 1).
    const loaded = run({ tab: 'decided', width: 100 }, [ROLES, pageOf(decided, 2, 1, 1, 0), pageOf([], 0, 1, 1, 1)]);
    // The requesters of the approved rows on screen are read: their roles say whether the grant is still there.
    expect(loaded.all.flatMap((e) => (e.type === 'loadPerson' ? [e.user] : [])).sort()).toEqual(['alice', 'dave']);
    const before = frame(loaded.state);
    expect(before).toMatch(/alice\s+editor\s+document:readme\s+\S+\s+approved/);
    expect(before).toMatch(/dave\s+viewer\s+tenant-wide\s+\S+\s+approved/);
    // alice still holds her grant; dave's tenant-wide viewer was revoked (he holds it on an instance only).
    const people: Action[] = [
      {
        type: 'personLoaded',
        user: 'alice',
        facts: {
          user: 'alice',
          assignments: [{ role: 'editor', tenant: 'acme', resource_instance: 'document:readme' }],
        },
      },
      {
        type: 'personLoaded',
        user: 'dave',
        facts: {
          user: 'dave',
          assignments: [{ role: 'viewer', tenant: 'acme', resource_instance: 'document:readme' }],
        },
      },
    ];
    let s = loaded.state;
    for (const a of people) s = reduce(s, a).state;
    const after = frame(s);
    expect(after).toMatch(/alice\s+editor\s+document:readme\s+\S+\s+approved/);
    expect(after).toMatch(/dave\s+viewer\s+tenant-wide\s+\S+\s+revoked/);
    const details = frame(reduce(reduce(s, keys('j')[0]).state, keys('<return>')[0]).state);
    expect(details).toContain('Request by dave: viewer in acme (tenant-wide) — revoked');
    expect(details).toContain("revoked since: dave's viewer in acme (tenant-wide) is not a role assignment any more");
  });

  it('the queue at 100 columns: own request marked, reason truncated, total shown', () => {
    expect(frame(stateOf([ROLES, pageOf(queue())]))).toMatchSnapshot();
  });

  it('the queue at 80x24', () => {
    const f = frame(stateOf([ROLES, pageOf(queue(), 3)], { width: 80 }));
    expect(f.split('\n').every((line) => line.length <= 80)).toBe(true);
    expect(f.split('\n')).toHaveLength(23);
    expect(f).toMatchSnapshot();
  });

  it('details of a request for a resource role: resolved as the service does, with what approving adds (issue 28)', () => {
    const roles: Action = {
      type: 'rolesLoaded',
      roles: [
        { key: 'approver', permissions: [], extends: [] },
        { key: 'viewer', resource: 'document', permissions: ['read'], extends: [] },
        { key: 'commenter', resource: 'document', permissions: ['comment'], extends: ['viewer'] },
        { key: 'editor', resource: 'document', permissions: ['write'], extends: ['commenter'] },
      ],
    };
    const s = stateOf(
      [
        roles,
        pageOf(queue()),
        ...keys('<return>'),
        {
          type: 'personLoaded',
          user: 'alice',
          facts: {
            user: 'alice',
            assignments: [{ role: 'viewer', tenant: 'acme', resource_instance: 'document:readme' }],
          },
        },
      ],
      { rows: 34 },
    );
    const f = frame(s);
    expect(f).not.toContain('is not a role');
    expect(f).toContain(
      'If approved\n  + document#editor: document:comment, document:write on document:readme\n    already held there: document:read (through document#viewer)',
    );
    const picker = frame(reduce(s, keys('r')[0]).state);
    expect(picker).toContain('› document#editor (asked)');
    expect(picker).toContain('document#commenter');
    expect(picker).toContain('document#viewer');
    expect(picker).not.toContain('approver');
  });

  it('details: every field, the requester roles, what approving would change', () => {
    // Tall enough for every field of the public read model.
    const s = stateOf(
      [
        ROLES,
        pageOf(queue()),
        ...keys('<return>'),
        {
          type: 'personLoaded',
          user: 'alice',
          facts: {
            user: 'alice',
            assignments: [{ role: 'viewer', tenant: 'acme', resource_instance: 'document:readme' }],
          },
        },
      ],
      { rows: 34 },
    );
    const f = frame(s);
    // The requester by key, with the id the read model names them by.
    expect(f).toContain(`requester        alice (${userId('alice')})`);
    expect(f).toMatch(/organization_id +0a000000-/);
    expect(f).not.toContain('more lines');
    expect(f).toMatchSnapshot();
  });

  it('the comment, the confirmation and the optimistic status', () => {
    const s1 = stateOf([ROLES, pageOf(queue()), ...keys('a', 'ship it')]);
    expect(frame(s1)).toContain(
      "Approving alice's request for editor on document:readme. comment (optional): ship it▏",
    );
    const s2 = stateOf([ROLES, pageOf(queue()), ...keys('a', 'ship it', '<return>')]);
    expect(frame(s2)).toContain(`Approve alice's request for editor on document:readme with comment "ship it"? [y/N]`);
    const s3 = stateOf([ROLES, pageOf(queue()), ...keys('a', 'ship it', '<return>', 'y')]);
    expect(frame(s3)).toMatch(/› alice\s+editor\s+document:readme\s+2m\s+approving…/);
  });

  it('the role picker and help', () => {
    expect(frame(stateOf([ROLES, pageOf(queue()), ...keys('r')]))).toMatchSnapshot();
    const help = frame(stateOf([ROLES, pageOf(queue()), ...keys('?')], { readonly: true }));
    expect(help).toContain('Keys (read-only: decision keys are off)');
    expect(help).toContain('approve (optional comment, then confirm) (off)');
  });

  it('read-only: no decision key is offered', () => {
    const f = frame(stateOf([pageOf(queue()), ...keys('a')], { readonly: true }));
    expect(f).toContain('read-only (--readonly): decision keys are off');
    expect(f).toContain('[read-only]');
    expect(f).not.toContain('a approve');
  });

  it('10,000 rows: only the visible ones are rendered', () => {
    const s = stateOf([pageOf(someRequests(50), 10_000), ...keys('<ctrl-d>', '<ctrl-d>')]);
    const lines = frame(s).split('\n');
    expect(lines).toHaveLength(23);
    expect(lines.filter((l) => /^[› ] dave/.test(l))).toHaveLength(16);
    expect(lines.at(-4)).toBe('17–32 of 10,000 · page 1/200');
  });

  it('rows still loading, and a resize', () => {
    const s = stateOf([pageOf(someRequests(50), 10_000), ...keys('G')]);
    expect(frame(s)).toContain('› loading…');
    const small = reduce(s, { type: 'resize', width: 60, rows: 12 }).state;
    const lines = frame(small).split('\n');
    expect(lines).toHaveLength(11);
    expect(lines.every((l) => l.length <= 60)).toBe(true);
  });
});

describe('review screen: issue 31', () => {
  const at = (
    o: {
      tab?: 'pending' | 'decided' | 'mine';
      width?: number;
      rows?: number;
      configs?: string[];
      lifetimes?: Record<string, string>;
    },
    actions: Action[],
  ) => {
    let s = initQueue({
      user: 'bob',
      tenant: 'acme',
      width: o.width ?? 100,
      rows: o.rows ?? 24,
      order: 'newest',
      tab: o.tab,
      configs: o.configs,
      lifetimes: o.lifetimes,
    });
    for (const a of actions) s = reduce(s, a).state;
    return s;
  };

  it('the details of a tenant-wide request say where: "viewer in acme (tenant-wide)", never "on tenant-wide"', () => {
    const f = frame(stateOf([ROLES, pageOf(queue()), ...keys('j', 'j', '<return>')]));
    expect(f).toContain('Request by dave: viewer in acme (tenant-wide) — pending');
    expect(f).not.toContain('on tenant-wide');
    const confirm = frame(stateOf([ROLES, pageOf(queue()), ...keys('j', 'j', 'a', '<return>')]));
    expect(confirm).toContain("Approve dave's request for viewer in acme (tenant-wide)?");
  });

  it("a tenant-wide request's details list what set rules add (the set rules read with the roles)", () => {
    const setRules = {
      sets: [
        {
          key: 'approved-readers',
          type: 'resourceset' as const,
          resource: 'document',
          conditions: { allOf: [{ 'resource.public': { equals: true } }] },
        },
      ],
      rules: [
        { userSet: '__autogen_viewer', resource: 'document', action: 'comment', resourceSet: 'approved-readers' },
      ],
    };
    const person: Action = { type: 'personLoaded', user: 'dave', facts: { user: 'dave', assignments: [] } };
    const f = frame(
      stateOf([{ ...ROLES, setRules } as Action, pageOf(queue()), ...keys('j', 'j', '<return>'), person], { rows: 34 }),
    );
    expect(f).toContain('+ document:comment on resource set approved-readers (set rule: role viewer × resource set');
    const unread = frame(
      stateOf([{ ...ROLES, setRules: null } as Action, pageOf(queue()), ...keys('j', 'j', '<return>'), person], {
        rows: 34,
      }),
    );
    expect(unread.replace(/\s+/g, ' ')).toContain('the set rules could not be read');
  });

  it('the permissions of a role that grants many are wrapped in the details, never cut', () => {
    const permissions = Array.from({ length: 14 }, (_, i) => `document:permission-${String(i).padStart(2, '0')}`);
    const roles: Action = { type: 'rolesLoaded', roles: [{ key: 'owner', permissions, extends: [] }] };
    const request = aRequest({ id: 'r9', requester: 'alice', role: 'owner', instance: 'readme' });
    for (const width of [80, 120]) {
      const s = at({ width, rows: 60 }, [
        roles,
        pageOf([request]),
        ...keys('<return>'),
        { type: 'personLoaded', user: 'alice', facts: { user: 'alice', assignments: [] } },
      ]);
      const f = frame(s);
      const text = f.replace(/\s+/g, ' ');
      for (const p of permissions) expect(text).toContain(p);
      expect(f.split('\n').every((l) => l.length <= width)).toBe(true);
      expect(f).not.toMatch(/document:permission-\d*…/);
    }
  });

  it('REASON gets the widest column at 80 and 120 columns, with and without the configuration column', () => {
    for (const width of [80, 120]) {
      for (const config of [false, true]) {
        const { reason, ...rest } = columnsFor(width, { config });
        expect(reason, `${width} ${config}`).toBeGreaterThanOrEqual(Math.max(...Object.values(rest)));
        const used =
          Object.values(rest).filter((w) => w > 0).length + 2 + reason + Object.values(rest).reduce((a, b) => a + b, 0);
        expect(used, `${width} ${config}`).toBeLessThanOrEqual(width);
      }
    }
    const f = frame(stateOf([ROLES, pageOf(queue())], { width: 80 }));
    expect(f).toContain('I need to fix the rel');
  });

  it('on the decided tab AGE counts from the decision, not the request', () => {
    const decided = aRequest({
      id: 'r7',
      requester: 'alice',
      reviewer: 'carol',
      status: 'approved',
      createdAt: '2025-12-20T02:00:00Z',
    });
    const r = { ...decided, reviewedAt: '2026-01-01T01:55:00Z' };
    const s = at({ tab: 'decided' }, [
      { type: 'pageLoaded', gen: 1, fetch: { source: 0, page: 1 }, items: [r], total: 1 },
      { type: 'pageLoaded', gen: 1, fetch: { source: 1, page: 1 }, items: [], total: 0 },
    ]);
    const f = frame(s);
    expect(f).toMatch(/REQUESTER\s+ROLE\s+RESOURCE\/INSTANCE\s+DONE\s+STATUS/);
    expect(f).toMatch(/› alice\s+editor\s+document:readme\s+5m\s+approved/);
    // Pending: from the request.
    expect(frame(stateOf([ROLES, pageOf(queue())]))).toMatch(/dave\s+viewer\s+tenant-wide\s+2d\s+pending/);
  });

  it('a user who reviews nothing is told so, with the reviewer roles, instead of "no pending request"', () => {
    const empty = { type: 'pageLoaded', gen: 1, fetch: { source: 0, page: 1 }, items: [], total: 0 } as Action;
    const none = at({}, [empty, { type: 'reviewingLoaded', reviewing: { roles: ['admin'], reviews: false } }]);
    expect(frame(none)).toContain('you review no requests in acme (reviewer roles: admin)');
    const reviewer = at({}, [empty, { type: 'reviewingLoaded', reviewing: { roles: ['admin'], reviews: true } }]);
    expect(frame(reviewer)).toContain('no pending request');
  });

  it("the details of one's own request, where one is the tenant's only reviewer, say nobody can decide it", () => {
    const own = aRequest({ id: 'b1', requester: 'bob', role: 'viewer' });
    const s = at({ rows: 40 }, [
      ROLES,
      pageOf([{ ...own, config: 'default' }]),
      { type: 'reviewingLoaded', reviewing: { roles: ['approver'], reviews: true, alone: ['default'] } },
      ...keys('<return>'),
    ]);
    expect(frame(s).replace(/\s+/g, ' ')).toContain(
      'nobody can decide this request: you are the only user holding a reviewer role of configuration default tenant-wide in acme, and nobody may review their own request; it stays pending until someone else reviews there (x cancels it)',
    );
    const other = at({ rows: 40 }, [
      ROLES,
      pageOf([{ ...own, config: 'default' }]),
      { type: 'reviewingLoaded', reviewing: { roles: ['approver'], reviews: true } },
      ...keys('<return>'),
    ]);
    expect(frame(other)).not.toContain('nobody can decide');
  });

  it('duplicate pending requests (same requester, role and instance) are marked, in the row and the details', () => {
    const dupes = [
      aRequest({ id: 'd3', requester: 'dave', role: 'viewer', instance: 'roadmap', createdAt: '2026-01-01T01:50:00Z' }),
      aRequest({
        id: 'd2',
        requester: 'alice',
        role: 'viewer',
        instance: 'roadmap',
        createdAt: '2026-01-01T01:40:00Z',
      }),
      aRequest({ id: 'd1', requester: 'dave', role: 'viewer', instance: 'roadmap', createdAt: '2026-01-01T01:30:00Z' }),
    ];
    const f = frame(stateOf([ROLES, pageOf(dupes)]));
    expect(f).toMatch(/› dave\s+viewer\s+document:roadmap\s+10m\s+dup ×2/);
    expect(f).toMatch(/ {2}alice\s+viewer\s+document:roadmap\s+20m\s+pending/);
    expect(f).toMatch(/ {2}dave\s+viewer\s+document:roadmap\s+30m\s+dup ×2/);
    const details = frame(stateOf([ROLES, pageOf(dupes), ...keys('<return>')])).replace(/\s+/g, ' ');
    expect(details).toContain(
      'duplicates: 2 pending requests by dave for viewer on document:roadmap among the rows read (d3, d1): deny or cancel all but one',
    );
  });

  it('one queue across configurations: each row names its configuration and lifetime', () => {
    const rows = [
      aRequest({ id: 'o1', requester: 'alice', reason: 'pager duty tonight' }),
      aRequest({ id: 'd1', requester: 'dave', role: 'viewer', reason: 'onboarding' }),
    ];
    const tagged = [
      { ...rows[0], config: 'oncall' },
      { ...rows[1], config: 'default' },
    ];
    const s = at({ width: 80, configs: ['default', 'oncall'], lifetimes: { oncall: '12h' } }, [
      ROLES,
      pageOf([tagged[1]], 1, 1, 1, 0),
      pageOf([tagged[0]], 1, 1, 1, 1),
    ]);
    const f = frame(s);
    expect(f).toMatch(/REQUESTER\s+ROLE\s+RESOURCE\/\S*\s+CONFIG\s+AGE\s+STATUS\s+REASON/);
    expect(f).toMatch(/alice\s+editor\s+document:readme\s+oncall\s+\S+\s+pending\s+pager duty/);
    expect(f).toMatch(/dave\s+viewer\s+document:readme\s+default\s+\S+\s+pending\s+onboarding/);
    expect(f.split('\n').every((l) => l.length <= 80)).toBe(true);
    const wide = frame(reduce(s, { type: 'resize', width: 120, rows: 24 }).state);
    expect(wide).toMatch(/alice\s+editor\s+document:readme\s+oncall 12h\s+/);
    const details = frame(reduce(s, keys('<return>')[0]).state);
    expect(details).toMatch(/configuration: (oncall \(grant_for 12h|default)/);
  });
});
