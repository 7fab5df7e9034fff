import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliResult } from '../helpers/cli.js';
import { ORG_KEY, startEnv, type Env } from './helpers.js';

/**
 * `roster requests adopt` of grants of resource roles (issue 28), through the CLI against the real
 * server: an approved request for `editor` on `document:readme`, where `editor` is a role of `document`,
 * is written into the configuration as `{ role: editor, on: document:readme }`; a grant with a lifetime
 * is reported as one, with the lifetime, whatever else it lacks.
 */
const CONFIG = `resources:
  document:
    actions: [read, write]
    roles:
      viewer: [read]
      editor: { permissions: [write], extends: [viewer] }
roles:
  admin: {} # reviews access requests
tenants:
  acme: {}
users:
  mindy: { tenants: [acme] }
  bob: { tenants: [acme], roles: [{ role: admin, tenant: acme }] }
resource_instances:
  document:readme: acme
  document:roadmap: acme
access_requests:
  default:
    reviewer_roles: [admin]
  oncall:
    reviewer_roles: [admin]
    grant_for: 1h
`;

describe.sequential('requests adopt of resource-role grants, end to end', { timeout: 180_000 }, () => {
  let env: Env;
  const outputs: string[] = [];
  const roster = async (...args: string[]): Promise<CliResult> => {
    const r = await env.roster(...args);
    outputs.push(r.stdout, r.stderr);
    return r;
  };
  const config = () => readFileSync(path.join(env.dir, 'roster.yaml'), 'utf8');
  async function approved(user: string, details: { role: string; resource_instance: string }, cfg = 'default') {
    const created = await env.server.call('POST', `/v2/facts/p/e/access_requests/${cfg}/user/${user}/tenant/acme`, {
      access_request_details: { tenant: 'acme', ...details },
      reason: 'please',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const decided = await env.server.call(
      'PUT',
      `/v2/facts/p/e/access_requests/${cfg}/user/bob/tenant/acme/${created.body.id}/approve`,
      {},
    );
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    return decided.body as { id: string; reviewed_at: string };
  }

  beforeAll(async () => {
    env = await startEnv();
    env.write('roster.yaml', CONFIG);
    const applied = await roster('apply', '--yes');
    expect(applied.code, applied.stderr).toBe(0);
  });
  afterAll(async () => {
    for (const out of outputs) expect(out).not.toContain(ORG_KEY);
    await env?.close();
  });

  it('a resource role granted on an instance is adopted as { role, on }; a grant with a lifetime says so, with its lifetime', async () => {
    const editor = await approved('mindy', { role: 'editor', resource_instance: 'document:readme' });
    const timed = await approved('mindy', { role: 'viewer', resource_instance: 'document:roadmap' }, 'oncall');
    const [dry, json] = await Promise.all([
      roster('requests', 'adopt', '--dry-run'),
      roster('requests', 'adopt', '--dry-run', '--format', 'json'),
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('Would adopt 1 grant of approved access requests into roster.yaml:');
    expect(dry.stdout).toContain('  + users.mindy.roles: { role: editor, on: document:readme }');
    expect(dry.stdout).not.toContain('not declared');
    const out = JSON.parse(json.stdout);
    expect(out.adopted).toMatchObject([
      {
        id: 'assignment:mindy:editor@document:readme',
        role: 'editor',
        on: 'document:readme',
        request: { id: editor.id },
      },
    ]);
    expect(out.skipped).toHaveLength(1);
    expect(out.skipped[0].id).toBe('assignment:mindy:viewer@document:roadmap');
    expect(out.skipped[0].reason).toMatch(
      /^has a lifetime: expires at \S+ \(grant_for 1h of oncall\); adopting it would make it permanent/,
    );
    expect(out.skipped[0].request.id).toBe(timed.id);

    const written = await roster('requests', 'adopt');
    expect(written.code, written.stderr).toBe(0);
    expect(config()).toContain('mindy: { tenants: [acme], roles: [{ role: editor, on: document:readme }] }');
    const plan = await roster('plan', '--detailed-exitcode');
    expect(plan.code, plan.stdout).toBe(0);
    expect(plan.stdout).not.toContain('assignment:mindy:editor@document:readme');
  });

  it('with --with-lifetime, the timed grant of a resource role is adopted too', async () => {
    const r = await roster('requests', 'adopt', '--with-lifetime', '--dry-run');
    expect(r.stdout).toContain('  + users.mindy.roles: { role: viewer, on: document:roadmap }');
  });
});
