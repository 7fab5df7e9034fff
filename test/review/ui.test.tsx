import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import { ReviewScreen } from '../../src/review/ui/Screen.js';
import { reduce } from '../../src/review/model.js';
import { initQueue, type Action, type QueueState } from '../../src/review/state.js';
import { aRequest, keys, pageOf, someRequests, userId } from './builders.js';

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
  let s = initQueue({ user: 'bob', tenant: 'acme', width: o.width ?? 100, rows: o.rows ?? 24, readonly: o.readonly, order: 'newest' });
  for (const a of actions) s = reduce(s, a).state;
  return s;
}

const queue = () => [
  aRequest({ id: 'r3', requester: 'alice', role: 'editor', instance: 'readme', reason: 'I need to fix the release notes before Friday, the old ones are wrong', createdAt: '2026-01-01T01:58:00Z' }),
  aRequest({ id: 'r2', requester: 'bob', role: 'viewer', instance: 'roadmap', reason: 'mine', createdAt: '2026-01-01T01:00:00Z' }),
  aRequest({ id: 'r1', requester: 'dave', role: 'viewer', resource: null, instance: null, reason: null, createdAt: '2025-12-30T02:00:00Z' }),
];

const frame = (s: QueueState) => {
  const ui = render(<ReviewScreen state={s} now={NOW} color={false} />);
  return ui.lastFrame()!;
};

afterEach(() => cleanup());

describe('review screen (plain data)', () => {
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
    const s = stateOf([roles, pageOf(queue()), ...keys('<return>'), { type: 'personLoaded', user: 'alice', facts: { user: 'alice', assignments: [{ role: 'viewer', tenant: 'acme', resource_instance: 'document:readme' }] } }], { rows: 34 });
    const f = frame(s);
    expect(f).not.toContain('is not a role');
    expect(f).toContain('If approved\n  + document#editor: document:comment, document:write on document:readme\n    already held there: document:read (through document#viewer)');
    const picker = frame(reduce(s, keys('r')[0]).state);
    expect(picker).toContain('› document#editor (asked)');
    expect(picker).toContain('document#commenter');
    expect(picker).toContain('document#viewer');
    expect(picker).not.toContain('approver');
  });

  it('details: every field, the requester roles, what approving would change', () => {
    // Tall enough for every field of the public read model.
    const s = stateOf([ROLES, pageOf(queue()), ...keys('<return>'), { type: 'personLoaded', user: 'alice', facts: { user: 'alice', assignments: [{ role: 'viewer', tenant: 'acme', resource_instance: 'document:readme' }] } }], { rows: 34 });
    const f = frame(s);
    // The requester by key, with the id the read model names them by.
    expect(f).toContain(`requester        alice (${userId('alice')})`);
    expect(f).toMatch(/organization_id +0a000000-/);
    expect(f).not.toContain('more lines');
    expect(f).toMatchSnapshot();
  });

  it('the comment, the confirmation and the optimistic status', () => {
    const s1 = stateOf([ROLES, pageOf(queue()), ...keys('a', 'ship it')]);
    expect(frame(s1)).toContain("Approving alice's request for editor on document:readme. comment (optional): ship it▏");
    const s2 = stateOf([ROLES, pageOf(queue()), ...keys('a', 'ship it', '<return>')]);
    expect(frame(s2)).toContain(`Approve alice's request for editor on document:readme with comment "ship it"? [y/N]`);
    const s3 = stateOf([ROLES, pageOf(queue()), ...keys('a', 'ship it', '<return>', 'y')]);
    expect(frame(s3)).toMatch(/› alice\s+acme\s+editor\s+document:readme\s+2m\s+approving…/);
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
