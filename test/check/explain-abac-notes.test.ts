/**
 * `roster explain` on attribute-based access says what a new user cannot guess (issue 39): why a tenant
 * attribute the tenant stores is not seen (tenant attributes count only for users with a role in the
 * tenant), and a misspelled action of a resource that only set rules grant gets a suggestion.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const CONFIG = `project: p
environment: e
tenant_attributes: { region: string }
resources:
  expense: { actions: [view, approve] }
roles: { clerk: [expense:view] }
tenants:
  acme: { attributes: { region: eu } }
  other: {}
users:
  dan: { tenants: [other] }
  eve: { roles: [{ role: clerk, tenant: acme }] }
  fay: { tenants: [acme] }     # in the tenant, with no role there: the tenant's attributes are not seen
resource_instances: { expense:x: acme }
user_sets:
  europeans: { conditions: { tenant.region: { equals: eu } } }
set_rules:
  - { user_set: europeans, can: approve, resource: expense }
`;

let dir: string;
const cli = (args: string[]) => runCli(args, { cwd: dir, env: { ROSTER_DATA_DIR: path.join(dir, '.roster') } });
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'roster-explain-notes-'));
  writeFileSync(path.join(dir, 'roster.yaml'), CONFIG);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('explain names what attributes a check does not see, and suggests actions', () => {
  it('a tenant attribute stored but not seen: the note says why', async () => {
    const r = await cli(['explain', 'dan', 'approve', 'expense:x', 'roster.yaml']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain(
      'tenant.region equals "eu" (tenant.region not seen: dan has no role in tenant acme, and tenant attributes count only for users with a role there)',
    );
    const fay = await cli(['explain', 'fay', 'approve', 'expense:x', 'roster.yaml']);
    expect(fay.stdout).toContain('tenant.region not seen: fay has no role in tenant acme');
    const eve = await cli(['explain', 'eve', 'approve', 'expense:x', 'roster.yaml']);
    expect(eve.code, eve.stderr).toBe(0);
    expect(eve.stdout).not.toContain('not seen');
  });

  it('check and the plan say it too, in a failing assertion', async () => {
    writeFileSync(
      path.join(dir, 'with-assertion.yaml'),
      CONFIG + 'assertions:\n  - { user: fay, can: approve, on: expense:x }\n',
    );
    const r = await cli(['check', 'with-assertion.yaml']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('tenant.region not seen: fay has no role in tenant acme');
  });

  it('a misspelled action that only set rules grant: did you mean', async () => {
    const r = await cli(['explain', 'eve', 'aprove', 'expense:x', 'roster.yaml']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('note: aprove is neither a role nor an action on expense (did you mean "approve"?)');
  });
});
