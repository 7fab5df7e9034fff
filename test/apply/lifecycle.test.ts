import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MARKDOWN_MARKER } from '../../src/plan/index.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { changeLines, ORG_KEY, startEnv, type Env } from './helpers.js';
import { SMALL } from './fixtures.js';

/**
 * The whole cycle against the real server, through the CLI as a user runs it: plan from empty, apply,
 * re-plan, edit, saved plans (and their refusal when stale or edited). One server; the steps build on
 * each other, so they run in order. Commands that only read run side by side. Pruning: prune.test.ts.
 */
// Spawned CLIs and a busy machine: a test may take well over the default 30 s.
describe.sequential('plan and apply, end to end', { timeout: 120_000 }, () => {
  let env: Env;
  const outputs: string[] = [];
  const roster = async (...args: string[]): Promise<CliResult> => {
    const r = await env.roster(...args);
    outputs.push(r.stdout, r.stderr);
    return r;
  };
  const checksumOf = (text: string) => text.match(/checksum `?([0-9a-f]{64})/)?.[1];
  /** SMALL, edited: viewer renamed, bob out of team:eng, carol added. */
  const EDITED = SMALL.replace('viewer: { name: Viewer,', 'viewer: { name: Reader,')
    .replace('members: [alice, bob]', 'members: [alice]')
    .replace('  bob: {', '  carol: { tenants: [acme] }\n  bob: {');

  beforeAll(async () => {
    env = await startEnv();
    env.write('roster.yaml', SMALL);
    env.write('edited.yaml', EDITED);
  });
  afterAll(async () => {
    // The key never appears in anything roster printed.
    for (const out of outputs) expect(out).not.toContain(ORG_KEY);
    await env?.close();
  });

  it('plans from empty (creates in dependency order, exit 2, one checksum in every format); refuses to apply without --yes', async () => {
    const [text, json, md, unconfirmed] = await Promise.all([
      roster('plan', '--detailed-exitcode'),
      roster('plan', '--format', 'json'),
      roster('plan', '--format', 'markdown'),
      roster('apply'),
    ]);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(2);
    expect(changeLines(text.stdout)).toEqual([
      '+ resource:document',
      '+ role:editor',
      '+ role:viewer',
      '+ tenant:acme',
      '+ user:alice',
      '+ user:bob',
      // each user is added to the tenant they declare, where a role or membership also puts them
      '+ tenant_user:alice@acme',
      '+ tenant_user:bob@acme',
      '+ instance:document:readme',
      '+ group:team:eng',
      '+ assignment:alice:viewer@acme',
      '+ member:alice@team:eng',
      '+ member:bob@team:eng',
      '+ grant:team:eng:editor@document:readme',
      '+ access_requests:default',
    ]);
    expect(text.stdout).toContain('15 to create, 0 to update, 0 to delete.');
    expect(json.code).toBe(0);
    const plan = JSON.parse(json.stdout);
    expect(plan.changes).toHaveLength(15);
    expect(md.stdout.startsWith(MARKDOWN_MARKER + '\n')).toBe(true);
    expect(checksumOf(text.stdout)).toBe(plan.checksum);
    expect(checksumOf(md.stdout)).toBe(plan.checksum);

    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toContain('pass --yes');
    // Nothing but the tenant `default` the environment came with.
    expect((await env.server.facts('GET', '/tenants')).body.map((t: { key: string }) => t.key)).toEqual(['default']);
  });

  it('applies; then the plan shows no changes, and an edit plans exactly the edit, with field-level before and after', async () => {
    const applied = await roster('apply', '--yes');
    expect(applied.stderr).not.toContain('FAILED');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/Applied 15 of 15 changes in [\d.]+s\.\n/);

    const [same, edit] = await Promise.all([
      roster('plan', '--detailed-exitcode'),
      roster('plan', 'edited.yaml', '--detailed-exitcode', '--out', 'plan.json'),
    ]);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('No changes.');
    expect(edit.code).toBe(2);
    expect(changeLines(edit.stdout)).toEqual([
      '~ role:viewer',
      '+ user:carol',
      // bob leaving team:eng stays in acme, which he declares: no tenant change (issue #15)
      '+ tenant_user:carol@acme',
      '- member:bob@team:eng',
    ]);
    expect(edit.stdout).toContain('  ~ role:viewer\n      name: "Viewer" → "Reader"\n');
  });

  it('saves the plan with --out (checksum and live fingerprint, no key, no URL) and applies exactly it with --plan', async () => {
    const file = JSON.parse(readFileSync(`${env.dir}/plan.json`, 'utf8'));
    expect(file.liveFingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(file.changes).toHaveLength(4);
    expect(JSON.stringify(file)).not.toContain(ORG_KEY);
    expect(JSON.stringify(file)).not.toContain(env.server.url);
    const applied = await roster('apply', '--plan', 'plan.json', '--yes');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain(`checksum ${file.checksum}`);
    expect(applied.stdout).toContain('Applied 4 of 4 changes');
    const users = (await env.server.facts('GET', '/users?per_page=100')).body;
    expect(users.data.find((u: { key: string }) => u.key === 'bob').associated_tenants).toEqual([
      { tenant: 'acme', roles: [], status: 'active' },
    ]);
  });

  it('refuses a saved plan once the live state changed (telling to plan again), and one edited after it was made', async () => {
    env.write('renamed.yaml', EDITED.replace('acme: { name: Acme }', 'acme: { name: Acme Inc. }'));
    const [stale, edited, converged] = await Promise.all([
      roster('plan', 'renamed.yaml', '--out', 'stale.json'),
      roster('plan', 'renamed.yaml', '--out', 'edited.json'),
      roster('plan', 'edited.yaml', '--detailed-exitcode'),
    ]);
    expect(converged.code).toBe(0);
    expect(changeLines(stale.stdout)).toEqual(['~ tenant:acme']);
    expect(edited.code).toBe(0);
    const plan = JSON.parse(readFileSync(`${env.dir}/edited.json`, 'utf8'));
    writeFileSync(
      `${env.dir}/edited.json`,
      JSON.stringify({
        ...plan,
        changes: [{ ...plan.changes[0], after: { ...plan.changes[0].after, name: 'Other' } }],
      }),
    );
    // Not only the changes: a plan moved to another environment is refused too.
    writeFileSync(`${env.dir}/moved.json`, JSON.stringify({ ...plan, project: 'q' }));
    expect((await env.server.facts('POST', '/tenants', { key: 'elsewhere', name: 'Made elsewhere' })).status).toBe(200);

    const [refusedStale, refusedEdited, refusedMoved, refusedFlags] = await Promise.all([
      roster('apply', '--plan', 'stale.json', '--yes'),
      roster('apply', '--plan', 'edited.json', '--yes'),
      roster('apply', '--plan', 'moved.json', '--yes'),
      runCli(['apply', '--plan', 'stale.json', '--yes', '--api-url', env.server.url, '--project', 'q', '--env', 'e'], {
        cwd: env.dir,
        env: { ROSTER_API_KEY: ORG_KEY },
      }),
    ]);
    expect(refusedStale.code).toBe(1);
    expect(refusedStale.stderr).toMatch(/stale: the live environment changed since it was made; run roster plan again/);
    for (const r of [refusedEdited, refusedMoved]) {
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/edited after it was made: it no longer matches its checksum; run roster plan again/);
    }
    expect(refusedFlags.code).toBe(1);
    expect(refusedFlags.stderr).toContain('the plan in stale.json is for p/e, not q/e');
    expect((await env.server.facts('GET', '/tenants/acme')).body.name).toBe('Acme');
  });
});
