/**
 * `roster plan --replay` through set rules, end to end: checks carrying attributes and context go through
 * /allowed on the real server, the plan replays them with what they carried (as `explain --with` decides
 * such a check) and names the rule and the condition behind each changed answer; the edit applied, the
 * same checks asked again change exactly as the replay said.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ENV_KEY, ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';

const CONFIG = `project: p
environment: e
user_attributes: { level: number }
resources: { expense: { actions: [approve, read] } }
roles: { auditor: [expense:read] }
tenants: { acme: {} }
users:
  frank: { tenants: [acme], attributes: { level: 1 } }
  grace: { tenants: [acme], attributes: { level: 4 } }
  ivan: { tenants: [acme], roles: [auditor] }
resource_instances: { expense:e1: acme }
user_sets:
  senior: { conditions: { user.level: { greater-than-equals: 3 } } }
set_rules:
  - { user_set: senior, can: approve, resource: expense }
`;
/** Seniority starts at level 6; ivan is no longer an auditor. */
const EDITED = CONFIG.replace('greater-than-equals: 3', 'greater-than-equals: 6').replace(
  'roles: [auditor] }',
  'roles: [] }',
);

type Check = { user: unknown; action: string; resource: unknown; context?: unknown };
const QUESTIONS: Check[] = [
  // A context no condition reads: replayed as grace's question without it.
  { user: { key: 'grace' }, action: 'approve', resource: { type: 'expense', key: 'e1' }, context: { channel: 'web' } },
  { user: { key: 'grace' }, action: 'approve', resource: { type: 'expense', key: 'e1' } },
  // frank's stored level is 1; the check passes 5, which the rule reads.
  { user: { key: 'frank', attributes: { level: 5 } }, action: 'approve', resource: { type: 'expense', key: 'e1' } },
  { user: { key: 'frank' }, action: 'approve', resource: { type: 'expense', key: 'e1' } },
  { user: { key: 'ivan' }, action: 'read', resource: { type: 'expense', key: 'e1' }, context: { channel: 'web' } },
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

beforeAll(async () => {
  s = await startTestServer();
  dir = mkdtempSync(path.join(os.tmpdir(), 'roster-replay-abac-'));
  write(CONFIG);
  const applied = await cli(['apply', '--yes', '--no-verify-decisions']);
  expect(applied.code, applied.stderr).toBe(0);
});
afterAll(async () => {
  await s?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('plan --replay with attributes and context', () => {
  it('replays the checks with what they carried, naming the rule and the condition behind each change', async () => {
    const logged = await decide(QUESTIONS);
    expect(logged).toEqual([true, true, true, false, true]);
    write(EDITED);
    const r = await cli(['plan', '--replay', '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const replay = JSON.parse(r.stdout).replay;
    expect(replay).toMatchObject({ read: 5, distinct: 4, unreplayable: [], disagreements: [] });
    const changes = replay.changes.map(
      (d: { user: string; passed?: unknown; times: number; after: boolean; why: string[] }) => [
        d.user,
        d.passed,
        d.times,
        d.after,
        d.why,
      ],
    );
    expect(changes.sort()).toEqual([
      [
        'frank',
        { user: { level: 5 } },
        1,
        false,
        [
          'frank loses expense:approve: user set senior × every expense no longer holds (user.level greater-than-equals 6 (user.level = 5, passed))',
        ],
      ],
      [
        'grace',
        undefined,
        2,
        false,
        [
          'grace loses expense:approve: user set senior × every expense no longer holds (user.level greater-than-equals 6 (user.level = 4, stored))',
        ],
      ],
      ['ivan', undefined, 1, false, ['ivan loses auditor (tenant-wide in acme)']],
    ]);
    const text = await cli(['plan', '--replay']);
    expect(text.stdout).toMatch(
      /\n {2}frank approve expense:e1 with user\.level = 5 \(allowed once, last \d+ seconds? ago\) would be denied: frank loses expense:approve: user set senior × every expense no longer holds \(user\.level greater-than-equals 6 \(user\.level = 5, passed\)\)\n/,
    );
    expect(text.stdout).not.toContain('Not replayed');

    // Applied, the same checks change exactly as the replay said.
    const applied = await cli(['apply', '--yes', '--no-verify-decisions']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(await decide(QUESTIONS)).toEqual([false, false, false, false, false]);
  });
});
