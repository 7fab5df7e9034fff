/**
 * `roster plan --replay` end to end: traffic through /allowed on the real server, an edit of the
 * configuration, the replay read through the public audit-log API, then the edit applied and the same
 * questions asked again: the replay lists exactly those whose answer changed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ENV_KEY, ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';

const CONFIG = `project: p
environment: e
resources: { document: [read, write], invoice: [read] }
roles: { editor: [document:read, document:write], viewer: [document:read], clerk: [invoice:read] }
tenants: { acme: {} }
users:
  alice: { tenants: [acme] }
  bob: { tenants: [acme] }
  carol: { tenants: [acme] }
  dave: { tenants: [acme], roles: [clerk] }
resource_instances: { document:roadmap: acme, document:billing: acme, invoice:q1: acme }
groups:
  team:engineering: { tenant: acme, members: [alice, bob], roles: [{ role: editor, on: document:roadmap }] }
  team:contractors: { tenant: acme, members: [dave], roles: [{ role: viewer, on: document:billing }] }
`;
/** bob leaves engineering; carol joins the contractors; clerk no longer reads invoices. */
const EDITED = CONFIG.replace('members: [alice, bob]', 'members: [alice]')
  .replace('members: [dave]', 'members: [dave, carol]')
  .replace('clerk: [invoice:read]', 'clerk: []');

type Check = { user: unknown; action: string; resource: unknown; context?: unknown };
const c = (
  user: string,
  action: string,
  resource: string | { type: string; tenant?: string },
  extra: object = {},
): Check => ({
  user: { key: user },
  action,
  resource: typeof resource === 'string' ? { type: resource.split(':')[0], key: resource.split(':')[1] } : resource,
  ...extra,
});
/** The replayable questions, each asked a few times. */
const QUESTIONS: Check[] = [
  c('alice', 'write', 'document:roadmap'),
  c('bob', 'write', 'document:roadmap'),
  c('bob', 'read', 'document:roadmap'),
  c('bob', 'read', 'document:billing'),
  c('carol', 'read', 'document:billing'),
  c('carol', 'write', 'document:billing'),
  c('dave', 'read', 'document:billing'),
  c('dave', 'read', 'invoice:q1'),
  c('dave', 'read', { type: 'invoice', tenant: 'acme' }),
  c('alice', 'read', 'invoice:q1'),
];
const UNREPLAYABLE: Check[] = [
  c('alice', 'fly', 'document:roadmap'),
  c('alice', 'read', 'spaceship:x'),
  // Context no set rule reads: replayed, as bob's question without it.
  c('bob', 'read', 'document:roadmap', { context: { ip: '10.0.0.1' } }),
];

let s: TestServer;
let dir: string;
const write = (text: string) => writeFileSync(path.join(dir, 'roster.yaml'), text);
const cli = (args: string[]) => runCli([...args, '--api-url', s.url], { cwd: dir, env: { ROSTER_API_KEY: ORG_KEY } });
const decide = async (checks: Check[]): Promise<boolean[]> => {
  const r = await s.call('POST', '/allowed/bulk', checks, { key: ENV_KEY });
  expect(r.status).toBe(200);
  return r.body.allow.map((a: { allow: boolean }) => a.allow);
};
const label = (q: Check) => {
  const r = q.resource as { type: string; key?: string; tenant?: string };
  return `${(q.user as { key: string }).key} ${q.action} ${r.key ? `${r.type}:${r.key}` : `${r.type} in ${r.tenant}`}`;
};

beforeAll(async () => {
  s = await startTestServer();
  dir = mkdtempSync(path.join(os.tmpdir(), 'roster-replay-'));
  write(CONFIG);
  const applied = await cli(['apply', '--yes', '--no-verify-decisions']);
  expect(applied.code, applied.stderr).toBe(0);
});
afterAll(async () => {
  await s?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('plan --replay', () => {
  let logged: boolean[];
  it('lists exactly the recent decisions whose answer the applied plan changes', async () => {
    // 3 rounds of every question (30 decisions), one of them single checks, and the unreplayable ones.
    logged = await decide(QUESTIONS);
    await decide(QUESTIONS);
    for (const q of QUESTIONS) await s.call('POST', '/allowed', q, { key: ENV_KEY });
    await decide(UNREPLAYABLE);
    write(EDITED);
    const r = await cli(['plan', '--replay', '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const replay = JSON.parse(r.stdout).replay;
    expect(replay).toMatchObject({
      read: 33,
      total: 33,
      truncated: false,
      requests: 1,
      distinct: 10,
      disagreements: [],
    });
    expect(replay.unreplayable).toEqual([
      { reason: "action 'fly' unknown on document", decisions: 1, examples: ['alice fly document:roadmap'] },
      {
        reason: "resource type 'spaceship' unknown to the configuration and the live environment",
        decisions: 1,
        examples: ['alice read spaceship:x'],
      },
    ]);
    expect(
      replay.changes.find(
        (d: { user: string; action: string; resource: string }) =>
          `${d.user} ${d.action} ${d.resource}` === 'bob read document:roadmap',
      ),
    ).toMatchObject({ times: 4 });
    const listed = replay.changes
      .map(
        (d: { user: string; action: string; resource: string; tenant?: string; after: boolean }) =>
          `${d.user} ${d.action} ${d.resource}${d.tenant ? ` in ${d.tenant}` : ''} → ${d.after}`,
      )
      .sort();

    // Without the decision check, whose own questions would be logged too.
    const applied = await cli(['apply', '--yes', '--no-verify-decisions']);
    expect(applied.code, applied.stderr).toBe(0);
    const now = await decide(QUESTIONS);
    const changed = QUESTIONS.map((q, i) => [q, i] as const)
      .filter(([, i]) => now[i] !== logged[i])
      .map(([q, i]) => `${label(q)} → ${now[i]}`)
      .sort();
    expect(listed).toEqual(changed);
    expect(changed).toEqual([
      'bob read document:roadmap → false',
      'bob write document:roadmap → false',
      'carol read document:billing → true',
      'dave read invoice in acme → false',
      'dave read invoice:q1 → false',
    ]);
  });

  it('says why, how often and how recently, in text and Markdown', async () => {
    // The applied configuration, and a plan back to the first one: the opposite changes.
    write(CONFIG);
    const text = await cli(['plan', '--replay=1d']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /Recent decisions: 43 logged since [0-9-]+ [0-9:]+ UTC \(read in 1 request\), asking 10 distinct questions \(2 decisions not replayable, below\); the plan changes the answer to 5 of them:/,
    );
    expect(text.stdout).toMatch(
      /\n {2}bob write document:roadmap \(allowed 3 of 4 times, last \d+ seconds? ago\) would be allowed: bob gains editor via team:engineering\n/,
    );
    expect(text.stdout).toContain('dave read invoice in acme');
    expect(text.stdout).toContain('clerk now grants invoice:read');
    expect(text.stdout).toContain('Not replayed: 2 decisions:');
    const md = await cli(['plan', '--replay', '--format', 'markdown']);
    expect(md.stdout).toContain('#### Recent decisions replayed');
    expect(md.stdout).toMatch(
      /- `carol read document:billing` \(allowed 1 of 4 times, last \d+ seconds? ago\) would be \*\*denied\*\*: carol loses viewer via team:contractors/,
    );
  });

  it('names decisions the decision point answered otherwise than the model of the live state', async () => {
    // A grant made by hand, used, then taken back: the log says allowed, the live state denies.
    await s.facts('POST', '/users/carol/roles', { role: 'editor', tenant: 'acme' });
    await decide([c('carol', 'write', 'document:billing')]);
    await s.facts('DELETE', '/users/carol/roles', { role: 'editor', tenant: 'acme' });
    write(EDITED);
    const r = await cli(['plan', '--replay', '--format', 'json']);
    const replay = JSON.parse(r.stdout).replay;
    expect(
      replay.disagreements.map(
        (d: { user: string; action: string; resource: string; logged: boolean; before: boolean }) => [
          d.user,
          d.action,
          d.resource,
          d.logged,
          d.before,
        ],
      ),
    ).toEqual([['carol', 'write', 'document:billing', true, false]]);
    const text = await cli(['plan', '--replay']);
    expect(text.stdout).toMatch(
      /carol write document:billing was allowed by the decision point \(last \d+ seconds? ago\); the model of the live state denies it/,
    );
  });

  it('pages through the audit log (100 a page) and reports the requests', async () => {
    await decide(Array.from({ length: 250 }, () => c('alice', 'read', 'document:roadmap')));
    const r = await cli(['plan', '--replay', '--format', 'json']);
    const replay = JSON.parse(r.stdout).replay;
    expect(replay.read).toBe(replay.total);
    expect(replay.requests).toBe(Math.ceil(replay.total / 100));
    expect(replay.requests).toBe(3);
  });

  it('refuses a window it cannot read', async () => {
    const r = await cli(['plan', '--replay=yesterday']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--replay takes a duration back from now (7d, 12h, 30m) or a date');
  });
});
