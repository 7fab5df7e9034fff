/**
 * The cost line against a service other than the embedded default, as `roster plan` and `roster apply`
 * print it (issue #41): each request named once by its kind, the kinds adding up to the requests, then
 * the reads that verify them. The words of each kind: test/apply/progress-lines.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';

const CONFIG = `project: p
environment: e
resources: { document: [read, write] }
roles: { editor: [document:read, document:write], viewer: [document:read] }
tenants: { acme: {} }
users:
  alice: { tenants: [acme] }
  bob: { tenants: [acme] }
  carol: { tenants: [acme] }
resource_instances: { document:roadmap: acme }
groups:
  team:engineering: { tenant: acme, members: [alice], roles: [{ role: editor, on: document:roadmap }] }
`;

let s: TestServer;
let dir: string;
const cli = (args: string[]) => runCli(args, { cwd: dir, env: { ROSTER_API_KEY: ORG_KEY, ROSTER_API_URL: s.url } });

beforeAll(async () => {
  s = await startTestServer();
  dir = mkdtempSync(path.join(os.tmpdir(), 'roster-cost-'));
  writeFileSync(path.join(dir, 'roster.yaml'), CONFIG);
  const r = await cli(['apply', '--yes']);
  expect(r.code, r.stderr).toBe(0);
});
afterAll(async () => {
  await s?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `Applying it: N requests: a kind, b kind; then M reads to verify; ...`, with the kinds adding up to N. */
function costOf(output: string): { line: string; requests: number; kinds: Record<string, number> } {
  const line = output.split('\n').find((l) => l.startsWith('Applying it: '));
  expect(line, output).toBeDefined();
  const m =
    /^Applying it: (\d+) requests?: ((?:\d+ [a-z ]+)(?:, \d+ [a-z ]+)*); then \d+ reads? to verify; not paced against this service \(.+\)\.$/.exec(
      line!,
    );
  expect(m, line).not.toBeNull();
  const kinds = Object.fromEntries(m![2].split(', ').map((p) => [p.replace(/^\d+ /, ''), Number(p.split(' ')[0])]));
  return { line: line!, requests: Number(m![1]), kinds };
}

describe('the cost line in plan and apply output', () => {
  it('names each request once, by its kind, in the same words in plan and apply', async () => {
    // bob joins the team (a bulk write), carol goes (a bulk delete of users): two requests, one of each kind.
    writeFileSync(
      path.join(dir, 'roster.yaml'),
      CONFIG.replace('members: [alice]', 'members: [alice, bob]').replace('  carol: { tenants: [acme] }\n', ''),
    );
    const plan = await cli(['plan', '--prune']);
    expect(plan.code, plan.stderr).toBe(0);
    const planned = costOf(plan.stdout);
    expect(Object.values(planned.kinds).reduce((a, b) => a + b, 0)).toBe(planned.requests);
    expect(planned.kinds).toEqual({ 'bulk write': 1, 'bulk delete': 1 });
    expect(planned.line).not.toMatch(/also|of them/);

    const applied = await cli(['apply', '--prune', '--yes']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(costOf(applied.stdout).line).toBe(planned.line);
  });
});
