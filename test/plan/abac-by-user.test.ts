/**
 * The plan's "By user" and the notes on live objects the configuration no longer declares count access
 * through set rules as they count roles (issue 39): a user whose access all comes from attributes is
 * listed with what he loses, in text, Markdown and JSON, and his deletion names that access.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';

const CONFIG = `project: p
environment: e
user_attributes: { level: number }
resources:
  expense: { actions: [view, approve] }
roles: { viewer: [expense:view] }
tenants: { acme: {} }
users:
  erin: { roles: [{ role: viewer, tenant: acme }], attributes: { level: 4 } }
  frank: { tenants: [acme], attributes: { level: 5 } }
resource_instances: { expense:e1: acme, expense:e2: acme }
user_sets:
  senior: { conditions: { user.level: { greater-than-equals: 3 } } }
set_rules:
  - { user_set: senior, can: approve, resource: expense }
`;

let server: TestServer;
let dir: string;
const cli = (args: string[]) => runCli(args, { cwd: dir, env: { ROSTER_API_KEY: ORG_KEY } });

beforeAll(async () => {
  server = await startTestServer();
  dir = mkdtempSync(path.join(os.tmpdir(), 'roster-abac-by-user-'));
  writeFileSync(path.join(dir, 'roster.yaml'), CONFIG);
  const r = await cli(['apply', '--yes', '--api-url', server.url]);
  expect(r.code, r.stderr).toBe(0);
  // frank leaves the configuration; erin's level drops below the set's.
  writeFileSync(path.join(dir, 'roster.yaml'), CONFIG.replace(/  frank: .*\n/, '').replace('level: 4 }', 'level: 2 }'));
});
afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('By user counts set rules', () => {
  it("text: both users listed with the permission they lose through the rule; the deleted user's note names it", async () => {
    const r = await cli(['plan', '--prune', '--api-url', server.url, '--no-color']);
    expect(r.code, r.stderr).toBe(0);
    const byUser = r.stdout.slice(r.stdout.indexOf('By user:'));
    expect(byUser).toContain('erin\n      - expense:approve on 2 instances (expense:e1, expense:e2)');
    expect(byUser).toContain('frank\n      - expense:approve on 2 instances (expense:e1, expense:e2)');
    expect(byUser).toContain('set rule: user set senior × every expense');
    expect(r.stdout).not.toContain('grants no access');
    expect(r.stdout).toMatch(
      /user:frank \(deleted\)[\s\S]*expense:approve on 2 instances \(expense:e1, expense:e2\) \(set rule /,
    );
  });

  it('JSON access.byUser and Markdown carry the same changes', async () => {
    const json = await cli(['plan', '--prune', '--api-url', server.url, '--format', 'json']);
    const plan = JSON.parse(json.stdout) as {
      access: {
        byUser: { user: string; changes: { sign: string; subject: string; instances?: string[]; rule?: string }[] }[];
      };
    };
    const frank = plan.access.byUser.find((u) => u.user === 'frank');
    expect(frank?.changes).toEqual([
      expect.objectContaining({
        sign: '-',
        subject: 'expense:approve',
        instances: ['expense:e1', 'expense:e2'],
        rule: expect.any(String),
      }),
    ]);
    expect(plan.access.byUser.map((u) => u.user)).toEqual(['erin', 'frank']);
    const md = await cli(['plan', '--prune', '--api-url', server.url, '--format', 'markdown']);
    expect(md.stdout).toContain('| `frank` | - expense:approve on 2 instances (expense:e1, expense:e2) |');
  });
});
