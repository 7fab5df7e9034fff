import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { ENV_KEY, ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { checkExchange, findOperation } from './openapi.js';
import { checkPdpExchange } from './pdp-schemas.js';

/**
 * The client's side of the public contract: a whole lifecycle through the CLI, as a user runs it (plan,
 * apply from empty, an edit, `apply --prune` deleting one object of every kind, export, `check --live`,
 * `explain --live`, `plan --replay`, every `roster requests` verb), against the real server with its recorder on. Every
 * request the CLI sent and every answer it got is then held against permit-openapi.json: a request or an
 * answer outside the public contract fails the test.
 *
 * The one family of calls outside that document is the policy decision point's `POST /allowed/bulk`
 * (`check --live`, `explain --live`), and its list queries `POST /authorized_users` and `POST /user-permissions`
 * (`who-can --live`, `what-can --live`): api-notes.md, "Policy decision" and "Decision point: list
 * queries", describes them (their bodies are held to those shapes below); the management API's
 * OpenAPI does not, since the public service serves it from its PDP.
 */
const PDP_PATHS = new Set(['/allowed', '/allowed/bulk', '/authorized_users', '/user-permissions']);

/** One of every kind: resources, roles, tenants, users (with a tenant-wide role and a bare tenant membership), instances, groups with members, grants and a link, an element configuration. */
const FULL = `version: 1
resources:
  document: { name: Document, description: Docs, actions: [read, write] }
  invoice: { name: Invoice, actions: [read] }
roles:
  viewer: { name: Viewer, description: Reads, permissions: [document:read] }
  editor: { name: Editor, permissions: [document:read, document:write] }
  clerk: { name: Clerk, permissions: [invoice:read] }
tenants:
  acme: { name: Acme, description: The first }
  globex: { name: Globex }
users:
  alice: { email: alice@acme.test, first_name: Alice, tenants: [acme], roles: [viewer] }
  bob: { email: bob@acme.test, tenants: [acme] }
  carol: { tenants: [acme], roles: [editor] }
  dave: { tenants: [acme, globex] }
resource_instances:
  document:readme: { tenant: acme }
  document:roadmap: { tenant: acme }
  invoice:q1: { tenant: globex }
groups:
  team:eng:
    tenant: acme
    members: [alice, bob]
    roles: [{ role: editor, on: document:readme }, { role: viewer, on: document:roadmap }]
  team:platform:
    tenant: acme
    members: [dave]
    member_of: [team:eng]
  team:finance:
    tenant: globex
    members: [dave]
    roles: [{ role: clerk, on: invoice:q1 }]
access_requests:
  default: { name: Default, reviewer_roles: [editor] }
  audit: { name: Audit, reviewer_roles: [viewer] }
`;

/** FULL edited: names, descriptions, attributes, a member moved, a grant's role changed. */
const EDITED = FULL.replace('viewer: { name: Viewer, description: Reads,', 'viewer: { name: Reader,')
  .replace('acme: { name: Acme, description: The first }', 'acme: { name: Acme Inc. }')
  .replace('document: { name: Document, description: Docs,', 'document: { name: Documents,')
  .replace('alice: { email: alice@acme.test, first_name: Alice,', 'alice: { email: alice@example.test,')
  .replace('members: [alice, bob]', 'members: [alice]')
  .replace(
    'default: { name: Default, reviewer_roles: [editor] }',
    'default: { name: Default reviews, reviewer_roles: [editor, viewer] }',
  );

/** EDITED without one object of every kind; `apply --prune` deletes them. */
const PRUNED = EDITED.replace('  invoice: { name: Invoice, actions: [read] }\n', '')
  .replace('  clerk: { name: Clerk, permissions: [invoice:read] }\n', '')
  .replace('  globex: { name: Globex }\n', '')
  .replace('  dave: { tenants: [acme, globex] }\n', '')
  .replace('  invoice:q1: { tenant: globex }\n', '')
  .replace(/ {2}team:finance:\n(?: {4}.*\n)+/, '')
  .replace('    members: [dave]\n    member_of: [team:eng]\n', '')
  .replace('    members: [alice]\n', '')
  .replace(', { role: viewer, on: document:roadmap }', '')
  .replace(
    'alice: { email: alice@example.test, tenants: [acme], roles: [viewer] }',
    'alice: { email: alice@example.test, tenants: [acme] }',
  )
  .replace('  audit: { name: Audit, reviewer_roles: [viewer] }\n', '');

describe.sequential(
  'the client speaks the public API: a whole lifecycle, recorded and checked',
  { timeout: 180_000 },
  () => {
    let server: TestServer;
    let dir: string;
    const outputs: string[] = [];
    const roster = async (...args: string[]): Promise<CliResult> => {
      const r = await runCli([...args, '--api-url', server.url, '--project', 'p', '--env', 'e'], {
        cwd: dir,
        env: { ROSTER_API_KEY: ORG_KEY },
        timeoutMs: 120_000,
      });
      outputs.push(r.stdout, r.stderr);
      return r;
    };
    const ok = async (...args: string[]) => {
      const r = await roster(...args);
      expect(r.stderr, `roster ${args.join(' ')}`).not.toMatch(/internal error/i);
      expect([0, 2], `roster ${args.join(' ')}: ${r.stderr}`).toContain(r.code);
      return r;
    };

    beforeAll(async () => {
      server = await startTestServer({ record: true });
      dir = mkdtempSync(path.join(os.tmpdir(), 'roster-contract-'));
      writeFileSync(path.join(dir, 'full.yaml'), FULL);
      writeFileSync(path.join(dir, 'edited.yaml'), EDITED);
      writeFileSync(path.join(dir, 'pruned.yaml'), PRUNED);
    });
    afterAll(async () => {
      for (const out of outputs) {
        expect(out).not.toContain(ORG_KEY);
        expect(out).not.toContain(ENV_KEY);
      }
      await server?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('plan, apply from empty, re-plan: no changes', async () => {
      expect((await ok('plan', 'full.yaml', '--detailed-exitcode')).code).toBe(2);
      await ok('apply', 'full.yaml', '--yes');
      const again = await ok('plan', 'full.yaml', '--detailed-exitcode');
      expect(again.stdout).toContain('No changes');
      expect(again.code).toBe(0);
    });

    it('an edit of every updatable kind, applied, converges', async () => {
      expect((await ok('plan', 'edited.yaml', '--detailed-exitcode')).code).toBe(2);
      await ok('apply', 'edited.yaml', '--yes');
      expect((await ok('plan', 'edited.yaml', '--detailed-exitcode')).code).toBe(0);
    });

    it('drift reads the change history and the bodies of the calls that wrote what differs', async () => {
      // The live state is edited.yaml's: against full.yaml every edit is drift, made by these applies.
      const r = await ok('drift', 'full.yaml', '--format', 'json', '--detailed-exitcode');
      expect(r.code).toBe(2);
      const report = JSON.parse(r.stdout);
      expect(report.history.read).toBe(true);
      expect(report.objects.filter((o: { cause?: unknown }) => o.cause).length).toBeGreaterThan(0);
    });

    it('export, check --live and explain --live read the live environment', async () => {
      // Reads of one live state, side by side; the replay after check --live, whose decisions it reads back.
      const [exported, replayed, explained, whoCan, whatCan] = await Promise.all([
        ok('export', '--out', '-'),
        // The decisions check --live and apply asked are in the decision log: the replay reads them back.
        ok('check', 'edited.yaml', '--live').then(() => ok('plan', 'edited.yaml', '--replay=1d')),
        ok('explain', 'dave', 'editor', 'document:readme', '--live', 'edited.yaml'),
        ok('who-can', 'write', 'document:readme', '--live', 'edited.yaml'),
        ok('what-can', 'dave', 'write', '--live', 'edited.yaml'),
      ]);
      expect(exported.stdout).toContain('team:platform');
      expect(replayed.stdout).toMatch(
        /Recent decisions: \d+ logged since .* UTC \(read in \d+ requests?\), asking \d+ distinct questions?/,
      );
      expect(explained.stdout).toContain('team:eng');
      expect(whoCan.stdout).toContain('dave');
      expect(whatCan.stdout).toContain('document:readme');
    });

    it('the list queries sent are the PDP documented bodies, with the ABAC flags on', () => {
      const sent = (p: string) => server.exchanges.filter((e) => e.path.split('?')[0] === p);
      const authorized = sent('/authorized_users');
      const permissions = sent('/user-permissions');
      expect(authorized.length).toBeGreaterThan(0);
      expect(permissions.length).toBeGreaterThan(0);
      for (const e of [...authorized, ...permissions]) expect(e.status).toBe(200);
      // Bodies and answers in the PDP's own shapes (pdp-schemas.ts, from permitio/PDP's schemas).
      expect([...authorized, ...permissions].flatMap(checkPdpExchange)).toEqual([]);
      for (const e of authorized)
        expect(e.body).toEqual({
          action: expect.any(String),
          resource: { type: expect.any(String), key: expect.any(String), tenant: expect.any(String) },
          context: { enable_abac_authorized_users: true },
        });
      for (const e of permissions)
        expect(e.body).toEqual({
          user: { key: expect.any(String) },
          resource_types: expect.arrayContaining([expect.any(String)]),
          context: { enable_abac_user_permissions: true },
        });
    });

    it('every roster requests verb', async () => {
      const as = (user: string, ...rest: string[]) => [
        'requests',
        ...rest,
        '--user',
        user,
        '--tenant',
        'acme',
        '--format',
        'json',
      ];
      // Three requests filed side by side; then the reads; then each request's own verbs, side by side with
      // the other requests' (each chain in its order).
      const [created, second, third] = (
        await Promise.all([
          ok(
            ...as(
              'carol',
              'create',
              '--role',
              'viewer',
              '--resource',
              'document',
              '--instance',
              'roadmap',
              '--reason',
              'release',
            ),
          ),
          ok(...as('alice', 'create', '--role', 'editor', '--resource', 'document', '--instance', 'roadmap')),
          ok(...as('carol', 'create', '--role', 'viewer')),
        ])
      ).map((r) => JSON.parse(r.stdout));
      const [, carols] = await Promise.all([
        ok(...as('carol', 'list', '--status', 'pending')),
        ok(...as('alice', 'list', '--requester', 'carol')),
      ]);
      expect(
        JSON.parse(carols.stdout)
          .data.map((r: { id: string }) => r.id)
          .sort(),
      ).toEqual([created.id, third.id].sort());
      await Promise.all([
        (async () => {
          await ok(...as('alice', 'get', created.id));
          await ok(...as('alice', 'update', created.id, '--comment', 'looking'));
          await ok(...as('alice', 'approve', created.id, '--comment', 'go'));
          // The grant removed again, through the public role-assignment removal.
          expect(JSON.parse((await ok(...as('alice', 'revoke', created.id))).stdout)).toMatchObject({
            revoked: true,
            grant: { user: 'carol', role: 'viewer', tenant: 'acme', resource_instance: 'document:roadmap' },
          });
        })(),
        ok(...as('carol', 'deny', second.id, '--comment', 'no')),
        ok(...as('carol', 'cancel', third.id, '--reason', 'not needed')),
      ]);
    });

    it('apply --prune deletes one object of every kind, then converges', async () => {
      const plan = await ok('plan', 'pruned.yaml', '--prune');
      for (const kind of [
        'resource:invoice',
        'role:clerk',
        'tenant:globex',
        'user:dave',
        'instance:invoice:q1',
        'group:team:finance',
        'link:team:platform',
        'grant:team:eng:viewer',
        'member:alice@team:eng',
        'assignment:alice:viewer',
        'access_requests:audit',
      ]) {
        expect(plan.stdout, kind).toContain(`- ${kind}`);
      }
      await ok('apply', 'pruned.yaml', '--prune', '--yes', '--max-deletes', '100');
      const after = await ok('plan', 'pruned.yaml', '--prune', '--detailed-exitcode');
      expect(after.code, after.stdout).toBe(0);
    });

    it('names the environment by key, and answers a mistyped one with the closest key (public project reads)', async () => {
      const mistyped = await runCli(['plan', 'pruned.yaml', '--api-url', server.url, '--project', 'p', '--env', 'ee'], {
        cwd: dir,
        env: { ROSTER_API_KEY: ORG_KEY },
      });
      outputs.push(mistyped.stdout, mistyped.stderr);
      expect(mistyped.code).toBe(1);
      expect(mistyped.stderr).toContain("did you mean 'e'?");
      const scoped = await runCli(['plan', 'pruned.yaml', '--api-url', server.url], {
        cwd: dir,
        env: { ROSTER_API_KEY: ENV_KEY },
      });
      outputs.push(scoped.stdout, scoped.stderr);
      expect(scoped.stdout.split('\n')[0]).toBe(`Plan for p/e on ${new URL(server.url).host}`);
    });

    it('every request it sent is a public operation with a valid body, and every answer fits the public schema', () => {
      const exchanges = server.exchanges.filter((e) => !PDP_PATHS.has(e.path.split('?')[0]));
      expect(exchanges.length).toBeGreaterThan(50);
      const problems = exchanges.flatMap((e) => checkExchange(e));
      expect(problems).toEqual([]);
      // The recorder saw the decision point too: nothing else is outside the document.
      expect(
        server.exchanges
          .filter((e) => !findOperation(e.method, e.path))
          .every((e) => PDP_PATHS.has(e.path.split('?')[0])),
      ).toBe(true);
      // It covered the lifecycle: bulk writes, every kind of delete, the reviewer verbs.
      const used = new Set(exchanges.map((e) => `${e.method} ${findOperation(e.method, e.path)!.template}`));
      for (const op of [
        'PUT /v2/facts/{proj_id}/{env_id}/bulk/users',
        'PUT /v2/facts/{proj_id}/{env_id}/bulk/resource_instances',
        'POST /v2/facts/{proj_id}/{env_id}/role_assignments/bulk',
        'DELETE /v2/facts/{proj_id}/{env_id}/role_assignments/bulk',
        'DELETE /v2/facts/{proj_id}/{env_id}/role_assignments',
        'DELETE /v2/elements/{proj_id}/{env_id}/{elements_config_id}',
        'DELETE /v2/schema/{proj_id}/{env_id}/groups/{group_instance_key}/assign_group',
        'DELETE /v2/schema/{proj_id}/{env_id}/groups/{group_instance_key}/roles',
        'PUT /v2/facts/{proj_id}/{env_id}/access_requests/{elements_config_id}/user/{user_id}/tenant/{tenant_id}/{access_request_id}/approve',
        'GET /v2/projects/{proj_id}',
        'GET /v2/projects/{proj_id}/envs/{env_id}',
        'GET /v2/projects/{proj_id}/envs',
        'GET /v2/pdps/{proj_id}/{env_id}/audit_logs',
        'GET /v2/history',
        'GET /v2/history/{event_id}/request',
      ]) {
        expect(used, op).toContain(op);
      }
    });
  },
);
