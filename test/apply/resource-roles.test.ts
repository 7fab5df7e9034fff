import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, type CliResult } from '../helpers/cli.js';
import { ENV_KEY } from '../helpers/server.js';
import { changeLines, startEnv, type Env } from './helpers.js';

/**
 * Resource roles end to end, through the CLI against the real server: the workspace example (resource
 * roles with `extends`, teams holding them on documents, nested teams) validates, applies, plans empty,
 * exports and round-trips; `explain` names `document#editor`; `/allowed` agrees with `check`; a role's
 * edit, a new resource role and a removed one are planned and applied with the public operations.
 */
describe.sequential('resource roles, end to end', { timeout: 120_000 }, () => {
  let env: Env;
  const EXAMPLE = readFileSync(path.join(ROOT, 'examples/workspace/roster.yaml'), 'utf8');
  const roster = (...args: string[]): Promise<CliResult> => env.roster(...args);

  beforeAll(async () => {
    env = await startEnv();
    env.write('roster.yaml', EXAMPLE);
  });
  afterAll(async () => env?.close());

  it('plans resource roles after their resource, each after the roles it extends, then applies', async () => {
    const plan = await roster('plan', 'roster.yaml');
    expect(plan.stderr).toBe('');
    const lines = changeLines(plan.stdout);
    const roles = lines.filter((l) => l.startsWith('+ resource_role:'));
    expect(roles).toEqual([
      '+ resource_role:document#viewer',
      '+ resource_role:folder#viewer',
      '+ resource_role:document#commenter',
      '+ resource_role:folder#editor',
      '+ resource_role:document#editor',
      '+ resource_role:document#owner',
    ]);
    expect(lines.indexOf('+ resource:document')).toBeLessThan(lines.indexOf(roles[0]));
    // Relations before the roles derived through them; derivations after both roles; tuples after the instances.
    expect(lines.filter((l) => /^\+ (relation|derivation|tuple):/.test(l))).toEqual([
      '+ relation:document#parent',
      '+ relation:folder#parent',
      '+ derivation:document#editor<folder#editor@parent',
      '+ derivation:document#viewer<folder#viewer@parent',
      '+ derivation:folder#editor<folder#editor@parent',
      '+ derivation:folder#viewer<folder#viewer@parent',
      '+ tuple:folder:company#parent@document:handbook',
      '+ tuple:folder:company#parent@folder:finance',
      '+ tuple:folder:finance#parent@folder:reports',
      '+ tuple:folder:reports#parent@document:budget',
    ]);
    const applied = await roster('apply', 'roster.yaml', '--yes');
    expect(applied.code).toBe(0);
    expect(applied.stderr).not.toMatch(/failed|error/i);
    const again = await roster('plan', 'roster.yaml', '--detailed-exitcode');
    expect(again.stdout).toContain('No changes.');
    expect(again.code).toBe(0);
  });

  it('the service reads them back in the public shapes', async () => {
    const r = await env.server.call('GET', '/v2/schema/p/e/resources/document/roles/editor');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      key: 'editor',
      name: 'Editor',
      resource: 'document',
      permissions: ['write'],
      extends: ['commenter'],
    });
  });

  it('explain names document#editor and the path through nested teams; /allowed agrees', async () => {
    const e = await roster('explain', 'dan', 'write', 'document:roadmap', 'roster.yaml');
    expect(e.stdout).toContain('document#editor');
    expect(e.stdout).toContain('team:finance');
    expect(e.stdout).toContain('team:product');
    const role = await roster('explain', 'cleo', 'editor', 'document:roadmap', 'roster.yaml');
    expect(role.stdout).toContain('document#editor');
    const checks = [
      { user: 'dan', action: 'write', key: 'roadmap', allow: true },
      { user: 'dan', action: 'delete', key: 'budget', allow: true },
      { user: 'cleo', action: 'delete', key: 'roadmap', allow: false },
      { user: 'cleo', action: 'read', key: 'handbook', allow: true },
      { user: 'eve', action: 'comment', key: 'handbook', allow: false },
      { user: 'ben', action: 'read', key: 'roadmap', allow: true },
      // derived through folders: fay is a viewer of folder:company, three folders above the budget
      { user: 'fay', action: 'read', key: 'budget', allow: true },
      { user: 'fay', action: 'write', key: 'budget', allow: false },
      { user: 'fay', action: 'read', key: 'roadmap', allow: false },
    ];
    const bulk = await env.server.call(
      'POST',
      '/allowed/bulk',
      {
        checks: checks.map((c) => ({
          user: { key: c.user },
          action: c.action,
          resource: { type: 'document', key: c.key, tenant: 'acme' },
        })),
      },
      { key: ENV_KEY },
    );
    expect(bulk.body.allow.map((a: { allow: boolean }) => a.allow)).toEqual(checks.map((c) => c.allow));
    const live = await roster('check', 'roster.yaml', '--live');
    expect(live.code).toBe(0);
  });

  it('explain prints a derived path; a tuple added shows in the access section a user gaining document:write through it', async () => {
    const e = await roster('explain', 'fay', 'read', 'document:budget', 'roster.yaml');
    expect(e.stdout).toContain(
      'folder#viewer on folder:company (direct); folder#viewer on folder:finance from folder#viewer via parent',
    );
    expect(e.stdout).toContain('document#viewer on document:budget from folder#viewer via parent');
    // The handbook is placed in folder:finance as well: team:finance edits that folder, so dan (a member)
    // gains write on the handbook, where team:product only made him a commenter.
    const moved = EXAMPLE.replace(
      '  document:handbook: { tenant: acme, relations: { parent: folder:company } }\n',
      '  document:handbook: { tenant: acme, relations: { parent: [folder:company, folder:finance] } }\n',
    );
    env.write('moved.yaml', moved);
    const plan = await roster('plan', 'moved.yaml', '--access-permissions', '--format', 'json');
    const value = JSON.parse(plan.stdout);
    expect(value.changes.map((c: { action: string; id: string }) => `${c.action} ${c.id}`)).toEqual([
      'create tuple:folder:finance#parent@document:handbook',
    ]);
    const dan = value.access.byUser.find((u: { user: string }) => u.user === 'dan');
    expect(dan.changes).toContainEqual(
      expect.objectContaining({ sign: '+', subject: 'document:write', instance: 'document:handbook' }),
    );
    expect(dan.changes.find((c: { subject: string }) => c.subject === 'document:write').paths[0]).toContain(
      'document#editor on document:handbook from folder#editor via parent',
    );
    const before = await env.server.call(
      'POST',
      '/allowed',
      { user: 'dan', action: 'write', resource: { type: 'document', key: 'handbook', tenant: 'acme' } },
      { key: ENV_KEY },
    );
    expect(before.body.allow).toBe(false);
    expect((await roster('apply', 'moved.yaml', '--yes')).code).toBe(0);
    const r = await env.server.call(
      'POST',
      '/allowed',
      { user: 'dan', action: 'write', resource: { type: 'document', key: 'handbook', tenant: 'acme' } },
      { key: ENV_KEY },
    );
    expect(r.body.allow).toBe(true);
    expect((await roster('apply', 'roster.yaml', '--yes')).code).toBe(0);
  });

  it('export writes the resource roles and plans back to no changes, with --prune too', async () => {
    const exported = await roster('export', '--out', 'exported');
    expect(exported.code).toBe(0);
    const text = readFileSync(path.join(env.dir, 'exported/roster.yaml'), 'utf8');
    expect(text).toContain('roles:');
    expect(text).toMatch(/editor:[^\n]*\n?[^\n]*extends: \[commenter\]/);
    for (const flags of [[], ['--prune']]) {
      const r = await roster('plan', 'exported', ...flags, '--detailed-exitcode');
      expect(r.stdout).toContain('No changes.');
    }
  });

  it('edits, adds and removes resource roles; the access section shows who gains and loses', async () => {
    const edited = EXAMPLE.replace(
      'commenter: { name: Commenter, permissions: [comment], extends: [viewer] }',
      'commenter: { name: Commenter, permissions: [comment, share], extends: [viewer] }',
    ).replace(
      '      owner: { name: Owner, description: Full control of one document., permissions: [share, delete], extends: [editor] }\n',
      '      owner: { name: Owner, description: Full control of one document., permissions: [share, delete], extends: [editor] }\n      auditor: [read]\n',
    );
    env.write('edited.yaml', edited);
    const plan = await roster('plan', 'edited.yaml', '--access-permissions');
    const lines = changeLines(plan.stdout);
    expect(lines).toEqual(['+ resource_role:document#auditor', '~ resource_role:document#commenter']);
    expect(plan.stdout).toContain('permissions: +share');
    expect(plan.stdout).toMatch(
      /cleo[^\n]*document:share[^\n]*document:handbook|document:share[^\n]*document:handbook/,
    );
    expect((await roster('apply', 'edited.yaml', '--yes')).code).toBe(0);
    expect((await roster('plan', 'edited.yaml', '--detailed-exitcode')).code).toBe(0);

    // Dropping auditor from the resource's list deletes it (the resource writes `roles`).
    const back = await roster('plan', 'roster.yaml');
    expect(changeLines(back.stdout)).toEqual([
      '~ resource_role:document#commenter',
      '- resource_role:document#auditor',
    ]);
    expect((await roster('apply', 'roster.yaml', '--yes')).code).toBe(0);
    const gone = await env.server.call('GET', '/v2/schema/p/e/resources/document/roles/auditor');
    expect(gone.status).toBe(404);
  });
});
