import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { changeLines, ORG_KEY, startEnv, type Env } from './helpers.js';

/**
 * GitOps and access requests together, through the CLI against the real server (docs/plan.md, "Grants
 * of approved access requests"): an approved grant survives plan and apply, with and without --prune;
 * `roster requests adopt` writes it into the configuration; `grant_for` expires it. One server; the
 * steps build on each other. The server's clock is the only thing controlled: approvals can be dated in
 * the past (`ago`), the CLI runs on the real time.
 */
const CONFIG = `# yaml-language-server: $schema=../schemas/roster.schema.json
# The web team's access. Reviewed in pull requests.
resources:
  repo: [read, write]
roles:
  maintainer: [repo:write]
  reader: [repo:read]
  admin: {} # reviews access requests
tenants:
  acme: {}
users:
  # people
  mindy: # Mindy works on the web app
    tenants: [acme]
    roles:
      - { role: reader, on: repo:web-app } # from day one
  bob: { tenants: [acme], roles: [{ role: admin, tenant: acme }] } # the reviewer
resource_instances:
  repo:web-app: acme
  repo:api: acme
  repo:docs: acme
  repo:infra: acme
access_requests:
  default:
    reviewer_roles: [admin]
  oncall:
    reviewer_roles: [admin]
`;

describe.sequential('grants of approved access requests, end to end', { timeout: 180_000 }, () => {
  let env: Env;
  let offsetMs = 0;
  const outputs: string[] = [];
  const roster = async (...args: string[]): Promise<CliResult> => {
    const r = await env.roster(...args);
    outputs.push(r.stdout, r.stderr);
    return r;
  };
  const file = () => path.join(env.dir, 'roster.yaml');
  const config = () => readFileSync(file(), 'utf8');
  /** A request by `user` through `config`, approved by bob (or, with `admin`, the API key), `ago` ms before now. */
  async function approved(
    user: string,
    details: { role: string; resource_instance?: string },
    o: { config?: string; ago?: number; as?: 'bob' | 'admin'; role?: string } = {},
  ) {
    const cfg = o.config ?? 'default';
    const created = await env.server.call('POST', `/v2/facts/p/e/access_requests/${cfg}/user/${user}/tenant/acme`, {
      access_request_details: { tenant: 'acme', ...details },
      reason: 'please',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    offsetMs = -(o.ago ?? 0);
    const path =
      o.as === 'admin'
        ? `/v2/elements/p/e/config/${cfg}/access_requests/${created.body.id}/approve`
        : `/v2/facts/p/e/access_requests/${cfg}/user/bob/tenant/acme/${created.body.id}/approve`;
    const decided = await env.server.call('PUT', path, o.role ? { role: o.role } : {});
    offsetMs = 0;
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    return decided.body as { id: string; reviewed_at: string };
  }
  const assignmentsOf = async (user: string) =>
    (
      (await env.server.facts('GET', `/role_assignments?user=${user}&per_page=1000`)).body as {
        role: string;
        resource_instance?: string | null;
        tenant: string;
      }[]
    )
      .map((a) => `${a.role}@${a.resource_instance ?? a.tenant}`)
      .sort();

  let first: { id: string; reviewed_at: string };

  beforeAll(async () => {
    env = await startEnv({ now: () => new Date(Date.now() + offsetMs) });
    env.write('roster.yaml', CONFIG);
    const applied = await roster('apply', '--yes');
    expect(applied.code, applied.stderr).toBe(0);
  });
  afterAll(async () => {
    for (const out of outputs) expect(out).not.toContain(ORG_KEY);
    await env?.close();
  });

  it('approve, then plan, with and without --prune: the grant is held, listed with its request, not deleted; exit 0', async () => {
    first = await approved('mindy', { role: 'maintainer', resource_instance: 'repo:web-app' });
    const [plain, pruning, json, md] = await Promise.all([
      roster('plan', '--detailed-exitcode'),
      roster('plan', '--prune', '--detailed-exitcode'),
      roster('plan', '--prune', '--format', 'json'),
      roster('plan', '--format', 'markdown'),
    ]);
    for (const r of [plain, pruning]) {
      expect(r.code, r.stderr).toBe(0);
      expect(changeLines(r.stdout)).toEqual([]);
      expect(r.stdout).toContain('Held through approved access requests: 1 grant the configuration does not declare');
      expect(r.stdout).toContain(
        `  = assignment:mindy:maintainer@repo:web-app\n      request ${first.id}, approved ${first.reviewed_at} by bob (default)\n`,
      );
      expect(r.stdout).toContain('0 to create, 0 to update, 0 to delete.');
    }
    const plan = JSON.parse(json.stdout);
    expect(plan.changes).toEqual([]);
    expect(plan.held).toEqual({
      grants: [
        {
          id: 'assignment:mindy:maintainer@repo:web-app',
          kind: 'assignment',
          user: 'mindy',
          role: 'maintainer',
          tenant: 'acme',
          on: 'repo:web-app',
          request: { id: first.id, config: 'default', reviewer: 'bob', approvedAt: first.reviewed_at },
        },
      ],
      kept: [],
    });
    // The access section sees it as the live access it is: nobody gains or loses anything.
    expect(plan.access).toMatchObject({ users: 0, gains: 0, losses: 0 });
    expect(md.stdout).toContain(
      `| \`assignment:mindy:maintainer@repo:web-app\` | \`${first.id}\` (default) | ${first.reviewed_at} | bob | never |`,
    );
  });

  it('apply --prune keeps it', async () => {
    const applied = await roster('apply', '--prune', '--yes');
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('assignment:mindy:maintainer@repo:web-app');
    expect(await assignmentsOf('mindy')).toEqual(['maintainer@repo:web-app', 'reader@repo:web-app']);
  });

  it('an approval that chose another role is matched by that role (approved with the API key: no reviewer recorded)', async () => {
    await approved('mindy', { role: 'maintainer', resource_instance: 'repo:api' }, { as: 'admin', role: 'reader' });
    const r = await roster('plan', '--prune', '--format', 'json');
    const plan = JSON.parse(r.stdout);
    expect(plan.changes).toEqual([]);
    expect(
      plan.held.grants.map(
        (g: { id: string; request: { reviewer: string | null } }) => `${g.id} ${g.request.reviewer}`,
      ),
    ).toEqual(['assignment:mindy:maintainer@repo:web-app bob', 'assignment:mindy:reader@repo:api null']);
    expect((await roster('plan')).stdout).toContain('by an administrator (API key) (default)');
  });

  it('check --live sees held grants as the live access they are (offline, the configuration does not grant them)', async () => {
    env.write(
      'assert.yaml',
      `${config()}assertions:\n  - { user: mindy, has_role: maintainer, on: repo:web-app }\n  - { user: mindy, can: write, on: repo:web-app }\n`,
    );
    const [live, offline] = await Promise.all([
      roster('check', 'assert.yaml', '--live'),
      roster('check', 'assert.yaml'),
    ]);
    expect(live.code, live.stdout + live.stderr).toBe(0);
    expect(offline.code).toBe(1);
  });

  it('a `cannot` that fails through a held grant names the request, in the plan and in check --live', async () => {
    env.write('cannot.yaml', `${config()}assertions:\n  - { user: mindy, cannot: write, on: repo:web-app }\n`);
    const note = `held through access request ${first.id.slice(0, 8)}…, approved by bob at ${first.reviewed_at} (default); roster requests revoke ${first.id.slice(0, 8)} removes it`;
    const [plan, json, live] = await Promise.all([
      roster('plan', 'cannot.yaml'),
      roster('plan', 'cannot.yaml', '--format', 'json'),
      roster('check', 'cannot.yaml', '--live', '--format', 'json'),
    ]);
    expect(plan.stdout).toContain(
      `mindy can write on repo:web-app: one path grants it, held through access request ${first.id.slice(0, 8)}… (not in the configuration).`,
    );
    expect(plan.stdout).toContain(
      `mindy → maintainer on repo:web-app (direct) (maintainer grants repo:write); ${note}`,
    );
    expect(JSON.parse(json.stdout).access.assertions.failures[0].lines).toContain(
      `  mindy → maintainer on repo:web-app (direct) (maintainer grants repo:write); ${note}`,
    );
    expect(live.code).toBe(1);
    const failure = JSON.parse(live.stdout).results[0].failures[0];
    expect(failure.paths).toEqual([
      `mindy → maintainer on repo:web-app (direct) (maintainer grants repo:write); ${note}`,
    ]);
    expect(failure.heldThrough).toEqual([
      { id: first.id, config: 'default', reviewer: 'bob', approvedAt: first.reviewed_at },
    ]);
    // Offline, the configuration alone grants nothing of the kind: it passes, with no request read.
    expect((await roster('check', 'cannot.yaml')).code).toBe(0);
  });

  it('requests adopt --dry-run prints the edit and writes nothing', async () => {
    const before = config();
    const r = await roster('requests', 'adopt', '--dry-run');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Would adopt 2 grants of approved access requests into roster.yaml:');
    expect(r.stdout).toContain('\n--- roster.yaml\n+++ roster.yaml\n@@ ');
    expect(r.stdout).toContain(
      `+      # adopted from access request ${first.id}: approved ${first.reviewed_at} by bob`,
    );
    expect(r.stdout).toContain('+      - { role: maintainer, on: repo:web-app }');
    expect(r.stdout).toContain('+      - { role: reader, on: repo:api }');
    expect(config()).toBe(before);
  });

  it('requests adopt writes the grants into the file that declares the user, keeping every line and comment; then the plan is empty', async () => {
    const before = config();
    const r = await roster('requests', 'adopt');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Adopted 2 grants of approved access requests into roster.yaml:');
    const after = config();
    const added = after.split('\n').filter((l) => !before.split('\n').includes(l));
    expect(added).toEqual([
      `      # adopted from access request ${first.id}: approved ${first.reviewed_at} by bob`,
      '      - { role: maintainer, on: repo:web-app }',
      expect.stringMatching(
        /^ {6}# adopted from access request [0-9a-f-]{36}: approved \S+ by an administrator \(API key\)$/,
      ),
      '      - { role: reader, on: repo:api }',
    ]);
    // Every line of the file is still there, in order.
    expect(after.split('\n').filter((l) => !added.includes(l))).toEqual(before.split('\n'));
    const [valid, plan] = await Promise.all([
      runCli(['validate'], { cwd: env.dir }),
      roster('plan', '--prune', '--detailed-exitcode'),
    ]);
    expect(valid.code, valid.stdout).toBe(0);
    expect(plan.code, plan.stdout).toBe(0);
    expect(plan.stdout).toContain('No changes. The live environment matches the configuration.');
    expect(plan.stdout).not.toContain('Held through');
    expect((await roster('requests', 'adopt')).stdout).toBe(
      'No grants of approved access requests outside the configuration: nothing to adopt.\n',
    );
  });

  it('a grant of a user the configuration does not declare is held (the user is not pruned) and reported by adopt, not invented', async () => {
    await env.server.facts('POST', '/users', { key: 'ursula' });
    await env.server.facts('POST', '/tenants/acme/users', { key: 'ursula' });
    await approved('ursula', { role: 'reader', resource_instance: 'repo:docs' });
    const plan = await roster('plan', '--prune', '--detailed-exitcode');
    expect(plan.code).toBe(0);
    expect(changeLines(plan.stdout)).toEqual([]);
    expect(plan.stdout).toContain('  = assignment:ursula:reader@repo:docs');
    expect(plan.stdout).toContain('  ! user:ursula not deleted: it would remove assignment:ursula:reader@repo:docs');
    const before = config();
    const adopt = await roster('requests', 'adopt');
    expect(adopt.stdout).toContain('Nothing adopted.');
    expect(adopt.stdout).toContain(
      'assignment:ursula:reader@repo:docs: user "ursula" is not declared in the configuration',
    );
    expect(config()).toBe(before);
    // Revoked by someone else: gone from the plan, and never granted again.
    await env.server.facts('DELETE', '/role_assignments', {
      user: 'ursula',
      role: 'reader',
      tenant: 'acme',
      resource_instance: 'repo:docs',
    });
    const again = await roster('plan', '--prune', '--format', 'json');
    expect(JSON.parse(again.stdout).changes.map((c: { id: string }) => c.id)).toEqual(['user:ursula']);
  });

  it('grant_for: an expired grant is deleted, marked; a fresh one and an adopted one stay; apply revokes it and never grants it again', async () => {
    await env.server.facts('DELETE', '/users/ursula');
    // Approved through oncall: one adopted two hours ago, one two hours ago, one just now.
    await approved(
      'mindy',
      { role: 'maintainer', resource_instance: 'repo:infra' },
      { config: 'oncall', ago: 2 * 3_600_000 },
    );
    expect((await roster('requests', 'adopt')).stdout).toContain('Adopted 1 grant');
    const old = await approved(
      'mindy',
      { role: 'maintainer', resource_instance: 'repo:docs' },
      { config: 'oncall', ago: 2 * 3_600_000 },
    );
    const fresh = await approved('mindy', { role: 'reader', resource_instance: 'repo:infra' }, { config: 'oncall' });
    env.write(
      'roster.yaml',
      config().replace(
        '  oncall:\n    reviewer_roles: [admin]\n',
        '  oncall:\n    reviewer_roles: [admin]\n    grant_for: 1h\n',
      ),
    );

    const [plan, json] = await Promise.all([roster('plan', '--detailed-exitcode'), roster('plan', '--format', 'json')]);
    expect(plan.code).toBe(2);
    expect(changeLines(plan.stdout)).toEqual([
      `- assignment:mindy:maintainer@repo:docs expired access request (approved ${old.reviewed_at} by bob; grant_for 1h of oncall, expired ${new Date(Date.parse(old.reviewed_at) + 3_600_000).toISOString()}; request ${old.id})`,
    ]);
    expect(plan.stdout).toContain(
      `  = assignment:mindy:reader@repo:infra\n      request ${fresh.id}, approved ${fresh.reviewed_at} by bob (oncall); expires ${new Date(Date.parse(fresh.reviewed_at) + 3_600_000).toISOString()}\n`,
    );
    expect(plan.stdout).not.toContain('maintainer@repo:infra');
    expect(plan.stdout).toContain('- maintainer on repo:docs');
    expect(JSON.parse(json.stdout).changes[0].expired).toMatchObject({ request: { id: old.id }, grantFor: '1h' });

    const applied = await roster('apply', '--yes');
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(await assignmentsOf('mindy')).toEqual([
      'maintainer@repo:infra',
      'maintainer@repo:web-app',
      'reader@repo:api',
      'reader@repo:infra',
      'reader@repo:web-app',
    ]);
    const after = await roster('plan', '--prune', '--detailed-exitcode');
    expect(after.code, after.stdout).toBe(0);
    expect(changeLines(after.stdout)).toEqual([]);
  });

  it('adopt writes into the file of a directory that declares the user; --format json says what it would do', async () => {
    await approved('mindy', { role: 'maintainer', resource_instance: 'repo:api' });
    const text = config();
    const users = text.slice(text.indexOf('users:\n'), text.indexOf('resource_instances:\n'));
    mkdirSync(path.join(env.dir, 'split'));
    env.write('split/base.yaml', text.replace(users, ''));
    env.write('split/people.yaml', users);
    const [dry, json] = await Promise.all([
      roster('requests', 'adopt', 'split', '--dry-run'),
      roster('requests', 'adopt', 'split', '--dry-run', '--format', 'json'),
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`\n--- ${path.join('split', 'people.yaml')}\n`);
    expect(dry.stdout).toContain('+      - { role: maintainer, on: repo:api }');
    const out = JSON.parse(json.stdout);
    expect(out.dryRun).toBe(true);
    expect(out.adopted.map((g: { id: string }) => g.id)).toEqual(['assignment:mindy:maintainer@repo:api']);
    // The on-call grant has a lifetime (grant_for 1h): left out, and said why.
    expect(out.skipped.map((g: { id: string; reason: string }) => `${g.id}: ${g.reason.slice(0, 14)}`)).toEqual([
      'assignment:mindy:reader@repo:infra: has a lifetime',
    ]);
    expect(out.files.map((f: { file: string }) => f.file)).toEqual([path.join('split', 'people.yaml')]);
    expect(out.files[0].after).toContain('- { role: maintainer, on: repo:api }');
  });

  it('a bad grant_for is a file:line:column error and nothing is read or written', async () => {
    env.write('bad.yaml', config().replace('grant_for: 1h', 'grant_for: 1 hour'));
    const r = await roster('plan', 'bad.yaml');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/bad\.yaml:\d+:16: access_requests\.oncall\.grant_for: invalid duration "1 hour"/);
  });
});
