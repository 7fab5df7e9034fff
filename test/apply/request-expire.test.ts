import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult } from '../helpers/cli.js';
import { ORG_KEY, startEnv, type Env } from './helpers.js';

/**
 * `roster requests expire` (the scheduled job) and `roster requests adopt`'s handling of lifetimes,
 * through the CLI against the real server. The on-call configuration gives approvals a 5-second
 * lifetime. The server's clock is the one thing controlled (approvals are dated `at` ms from now), so no
 * assertion depends on how fast this machine runs the CLI: the expired grant was approved a minute
 * ago, the fresh ones ten minutes from now.
 */
const CONFIG = `resources:
  repo: [read, write]
roles:
  maintainer: [repo:write]
  reader: [repo:read]
  admin: {}
tenants:
  acme: {}
users:
  mindy: { tenants: [acme], roles: [{ role: reader, on: repo:web }] }
  bob: { tenants: [acme], roles: [{ role: admin, tenant: acme }] }
resource_instances:
  repo:web: acme
  repo:api: acme
  repo:docs: acme
  repo:infra: acme
access_requests:
  default:
    reviewer_roles: [admin]
  oncall:
    reviewer_roles: [admin]
    grant_for: 5s
`;

describe.sequential(
  'grant_for enforced by roster requests expire; adopt leaves lifetimes out',
  { timeout: 180_000 },
  () => {
    let env: Env;
    let offsetMs = 0;
    const outputs: string[] = [];
    const roster = async (...args: string[]): Promise<CliResult> => {
      const r = await env.roster(...args);
      outputs.push(r.stdout, r.stderr);
      return r;
    };
    const config = () => readFileSync(path.join(env.dir, 'roster.yaml'), 'utf8');
    /** mindy's request through `cfg` for `role` on `on`, approved by bob with the server's clock at now + `at`. */
    async function approved(cfg: string, role: string, on: string, at = 0) {
      const created = await env.server.call('POST', `/v2/facts/p/e/access_requests/${cfg}/user/mindy/tenant/acme`, {
        access_request_details: { tenant: 'acme', role, resource_instance: on },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      offsetMs = at;
      const decided = await env.server.call(
        'PUT',
        `/v2/facts/p/e/access_requests/${cfg}/user/bob/tenant/acme/${created.body.id}/approve`,
        {},
      );
      offsetMs = 0;
      expect(decided.status, JSON.stringify(decided.body)).toBe(200);
      return decided.body as { id: string; reviewed_at: string };
    }
    const mindy = async () =>
      (
        (await env.server.facts('GET', '/role_assignments?user=mindy&per_page=1000')).body as {
          role: string;
          resource_instance?: string | null;
          tenant: string;
        }[]
      )
        .map((a) => `${a.role}@${a.resource_instance ?? a.tenant}`)
        .sort();

    let expired: { id: string; reviewed_at: string };
    let fresh: { id: string };
    let kept: { id: string };
    let forever: { id: string };

    beforeAll(async () => {
      env = await startEnv({ now: () => new Date(Date.now() + offsetMs) });
      env.write('roster.yaml', CONFIG);
      const applied = await roster('apply', '--yes');
      expect(applied.code, applied.stderr).toBe(0);
      expired = await approved('oncall', 'maintainer', 'repo:docs', -60_000);
      fresh = await approved('oncall', 'maintainer', 'repo:infra', 600_000);
      kept = await approved('oncall', 'maintainer', 'repo:api', 600_000);
      forever = await approved('default', 'maintainer', 'repo:web');
    });
    afterAll(async () => {
      for (const out of outputs) expect(out).not.toContain(ORG_KEY);
      await env?.close();
    });

    it('adopt leaves grants with a lifetime out by default, and says why', async () => {
      const r = await roster('requests', 'adopt', '--dry-run');
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(
        'Would adopt 1 grant of approved access requests into roster.yaml:\n  + users.mindy.roles: { role: maintainer, on: repo:web }',
      );
      expect(r.stdout).toMatch(
        / {2}assignment:mindy:maintainer@repo:infra: has a lifetime: expires at \S+ \(grant_for 5s of oncall\); adopting it would make it permanent \(--with-lifetime adopts it anyway\)/,
      );
      expect(r.stdout).toContain('assignment:mindy:maintainer@repo:api: has a lifetime');
      expect(r.stdout).toMatch(/assignment:mindy:maintainer@repo:docs: expired at \S+ \(grant_for 5s of oncall\)/);
    });

    it('adopt filters by configuration and by request (a unique prefix); --with-lifetime adopts one with a lifetime', async () => {
      const byConfig = JSON.parse(
        (await roster('requests', 'adopt', '--dry-run', '--config', 'default', '--format', 'json')).stdout,
      );
      expect(byConfig.adopted.map((g: { id: string }) => g.id)).toEqual(['assignment:mindy:maintainer@repo:web']);
      expect(byConfig.skipped).toEqual([]);
      expect(byConfig.unselected).toBe(2);

      const unknown = await roster('requests', 'adopt', '--config', 'oncal');
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('did you mean "oncall"?');
      const nothing = await roster('requests', 'adopt', '--request', 'ffffffff');
      expect(nothing.code).toBe(1);
      expect(nothing.stderr).toContain('--request ffffffff: no grant');

      const before = config();
      const r = await roster('requests', 'adopt', '--request', kept.id.slice(0, 13), '--with-lifetime');
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(
        'Adopted 1 grant of approved access requests into roster.yaml:\n  + users.mindy.roles: { role: maintainer, on: repo:api }',
      );
      expect(r.stdout).toContain('2 other held grants not selected (--request, --config).');
      expect(config()).not.toBe(before);
      expect(config()).toContain(`# adopted from access request ${kept.id}`);
    });

    it('expire --dry-run lists the expired grant only and changes nothing', async () => {
      const r = await roster('requests', 'expire', '--dry-run');
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(
        'Would revoke 1 expired grant (nothing was changed; run without --dry-run to revoke):\n  - assignment:mindy:maintainer@repo:docs\n',
      );
      expect(r.stdout).toContain(`request ${expired.id}`);
      expect(await mindy()).toContain('maintainer@repo:docs');
    });

    it('expire revokes exactly the expired grant: fresh, adopted and lifetime-less grants stay, and no other change of the plan is made', async () => {
      // The configuration now also wants a tenant and a role for mindy that the live service lacks:
      // a plan would create them; expire must not.
      env.write('roster.yaml', config().replace('tenants:\n  acme: {}\n', 'tenants:\n  acme: {}\n  beta: {}\n'));
      const r = await roster('requests', 'expire');
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain('Revoked 1 of 1 expired grant:\n  - assignment:mindy:maintainer@repo:docs\n');
      expect(r.stdout).toContain(
        `grant_for 5s of oncall, expired ${new Date(Date.parse(expired.reviewed_at) + 5000).toISOString()}`,
      );
      expect(await mindy()).toEqual([
        'maintainer@repo:api',
        'maintainer@repo:infra',
        'maintainer@repo:web',
        'reader@repo:web',
      ]);
      expect((await env.server.facts('GET', '/tenants/beta')).status).toBe(404);

      const again = await roster('requests', 'expire', '--format', 'json');
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toEqual({ dryRun: false, grants: [], failed: [] });
      void fresh;
      void forever;
    });
  },
);
