/**
 * The access section's headline when a set rule's effect waits for what a check passes (`context.*`):
 * `roster plan` against `roster serve` says so, in text and Markdown, instead of "none".
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ENV_KEY, startTestServer, type TestServer } from '../helpers/server.js';

const CONFIG = (rules: string) => `
resources:
  expense:
    actions: [approve, view]
    attributes: { amount: number }
roles: { manager: [expense:view] }
tenants: { acme: {} }
users:
  carol: { roles: [{ role: manager, tenant: acme }] }
resource_instances:
  expense:big: { tenant: acme, attributes: { amount: 5000 } }
resource_sets:
  urgent:
    resource: expense
    conditions: { allOf: [{ context.urgent: { equals: true } }] }
set_rules: ${rules}
`;

let server: TestServer;
let dir: string;
const cli = (args: string[]) =>
  runCli([...args, '--api-url', server.url], { cwd: dir, env: { ROSTER_API_KEY: ENV_KEY } });

beforeAll(async () => {
  server = await startTestServer();
  dir = mkdtempSync(path.join(os.tmpdir(), 'roster-abac-headline-'));
  writeFileSync(path.join(dir, 'roster.yaml'), CONFIG('[]'));
  const applied = await cli(['apply', 'roster.yaml', '--yes']);
  expect(applied.code, applied.stderr + applied.stdout).toBe(0);
  writeFileSync(path.join(dir, 'roster.yaml'), CONFIG('\n  - { role: manager, can: approve, resource_set: urgent }'));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the access headline with a rule not decided offline', () => {
  it('text and Markdown say a set rule depends on what a check passes, not "none"', async () => {
    const text = await cli(['plan', 'roster.yaml']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(
      'Access changes: none decided offline; 1 set rule depends on attributes a check passes (below).',
    );
    expect(text.stdout).toContain(
      '? expense:approve: role manager × resource set urgent (a new rule) depends on context.urgent: not decided offline',
    );
    expect(text.stdout).not.toContain('no user gains or loses access');
    const md = await cli(['plan', 'roster.yaml', '--format', 'markdown']);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toContain(
      '#### Access changes\n\nnone decided offline; 1 set rule depends on attributes a check passes (below).',
    );
  });
});
