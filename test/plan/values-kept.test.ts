/**
 * An attribute definition deleted while values remain (issue #41): `valuesKept` (pure) lists who keeps a
 * value the plan leaves in place, and `roster plan` warns at the section, file:line:column, against the
 * real server; a value the configuration writes is the rule attributeValuesDefined's to warn at.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateSources } from '../../src/config/index.js';
import { planChanges } from '../../src/plan/plan.js';
import { valuesKept } from '../../src/plan/values-kept.js';
import { emptyLiveState, type LiveState } from '../../src/types/live.js';
import { runCli } from '../helpers/cli.js';
import { ENV_KEY, startTestServer, type TestServer } from '../helpers/server.js';

function live(): LiveState {
  const l = emptyLiveState();
  l.userAttributes.set('level', { key: 'level', type: 'number' });
  l.tenantAttributes.set('tier', { key: 'tier', type: 'string' });
  l.resources.set('doc', { key: 'doc', name: 'doc', actions: ['read'], attributes: [{ key: 'secret', type: 'bool' }] });
  l.tenants.set('acme', { key: 'acme', name: 'acme', attributes: { tier: 'gold' } });
  l.users.set('alice', { key: 'alice', attributes: { level: 3 }, tenants: ['acme'], roles: [] });
  l.users.set('bob', { key: 'bob', attributes: { level: 1 }, tenants: ['acme'], roles: [] });
  l.users.set('carol', { key: 'carol', attributes: {}, tenants: ['acme'], roles: [] });
  l.resourceInstances.set('doc:a', { resource: 'doc', key: 'a', tenant: 'acme', attributes: { secret: true } });
  return l;
}

const plan = (yaml: string, prune = true) => {
  const loaded = validateSources([{ file: 'roster.yaml', text: yaml }]);
  expect(loaded.errors).toEqual([]);
  const l = live();
  return valuesKept(
    planChanges(loaded.desired!, l, { project: 'p', environment: 'e', prune }).changes,
    loaded.desired!,
    l,
  );
};

describe('valuesKept', () => {
  it('lists the live objects the plan leaves alone that keep a value of a deleted definition (in plan order)', () => {
    expect(
      plan('user_attributes: {}\ntenant_attributes: {}\nresources: { doc: { actions: [read], attributes: {} } }\n'),
    ).toEqual([
      { kind: 'tenant_attribute', key: 'tier', holders: ['acme'] },
      { kind: 'user_attribute', key: 'level', holders: ['alice', 'bob'] },
      { kind: 'resource_attribute', resource: 'doc', key: 'secret', holders: ['doc:a'] },
    ]);
  });

  it('leaves out objects the plan deletes or writes (their values are the configuration’s), and kept definitions', () => {
    expect(plan('user_attributes: { level: number }\n')).toEqual([]);
    // alice is declared (without the value: the plan removes it), bob deleted with --prune, carol has none.
    expect(
      plan(
        'user_attributes: {}\ntenants: { acme: { attributes: { tier: gold } } }\nusers: { alice: { tenants: [acme] } }\n',
      ),
    ).toEqual([]);
    // Without --prune, bob and carol stay: bob keeps his value.
    expect(
      plan(
        'authoritative: [user_attributes]\nuser_attributes: {}\ntenants: { acme: { attributes: { tier: gold } } }\nusers: { alice: { tenants: [acme] } }\n',
        false,
      ),
    ).toEqual([{ kind: 'user_attribute', key: 'level', holders: ['bob'] }]);
  });
});

describe('roster plan: a definition deleted while values remain (real server)', () => {
  let server: TestServer;
  let dir: string;
  const cli = (args: string[]) =>
    runCli([...args, '--api-url', server.url], { cwd: dir, env: { ROSTER_API_KEY: ENV_KEY } });

  beforeAll(async () => {
    server = await startTestServer();
    dir = mkdtempSync(path.join(os.tmpdir(), 'roster-values-kept-'));
    writeFileSync(
      path.join(dir, 'roster.yaml'),
      `
user_attributes: { level: number, team: string }
tenants: { acme: {} }
users:
  alice: { tenants: [acme], attributes: { level: 3, team: web } }
  bob: { tenants: [acme], attributes: { level: 1 } }
`,
    );
    const applied = await cli(['apply', 'roster.yaml', '--yes']);
    expect(applied.code, applied.stderr).toBe(0);
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('warns at the section that no longer declares it, naming who keeps a value', async () => {
    writeFileSync(path.join(dir, 'defs.yaml'), '# only the definitions\nuser_attributes:\n  team: string\n');
    const r = await cli(['plan', 'defs.yaml', '--prune']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('user_attribute:level');
    expect(r.stderr).toContain(
      'warning: defs.yaml:2:1: user_attributes: the plan deletes the definition of user attribute "level", but 2 users keep a value for it (alice, bob): the service keeps the values, and decisions ignore them (declare it again under user_attributes, or remove the values)',
    );
  });

  it('warns at a value the configuration writes for a key it does not define (validate too)', async () => {
    writeFileSync(
      path.join(dir, 'users.yaml'),
      `user_attributes: { team: string }
tenants: { acme: {} }
users:
  alice: { tenants: [acme], attributes: { level: 3, team: web } }
  bob: { tenants: [acme], attributes: { level: 1 } }
`,
    );
    const expected =
      'users.yaml:4:50: users.alice.attributes.level: attribute "level" of user "alice" has no definition (user_attributes does not declare it)';
    const plan = await cli(['plan', 'users.yaml', '--prune']);
    expect(plan.stderr).toContain(`warning: ${expected}`);
    expect(plan.stderr).not.toContain('the plan deletes the definition');
    const validate = await runCli(['validate', 'users.yaml'], { cwd: dir });
    expect(validate.stdout).toContain('users.yaml:4:50: warning: attribute "level" of user "alice" has no definition');
  });
});
