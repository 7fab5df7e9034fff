/**
 * Issue 21, cases 1 to 3, as a new user meets them: `roster plan` and `roster apply` through the CLI
 * against the real server, on a small company (3 tenants, users, groups nested 3 deep, roles on
 * instances). Offboarding shows who keeps access, and deletes them under `authoritative:`; a permission
 * added to a role lists each user who gains it; a group's deletion lists what goes with it, and the
 * delete limit counts that.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLiveState } from '../../src/api/read-live.js';
import { applyPlan } from '../../src/apply/apply.js';
import { planChanges } from '../../src/plan/plan.js';
import type { Plan } from '../../src/plan/types.js';
import { changeLines, loadDesired, ORG_KEY, startEnv, type Env } from '../apply/helpers.js';

const COMPANY = `
resources:
  document: [read, write, share]
  folder: [read, write]
roles:
  admin: [document:read, document:write, document:share, folder:read, folder:write]
  editor: [document:read, document:write]
  viewer: [document:read, folder:read]
tenants:
  acme: { name: Acme }
  globex: { name: Globex }
  initech: { name: Initech }
users:
  joan: { tenants: [acme], roles: [{ role: admin, tenant: acme }] }
  ann: { tenants: [acme] }
  bob: { tenants: [acme] }
  cy: { tenants: [acme] }
  dee: { tenants: [acme] }
  eve: { tenants: [acme] }
  gus: { tenants: [globex], roles: [{ role: editor, on: document:plans }] }
  ian: { tenants: [initech], roles: [viewer] }
resource_instances:
  document:roadmap: acme
  document:budget: acme
  folder:shared: acme
  document:plans: globex
  document:memo: initech
groups:
  team:company: { tenant: acme, roles: [{ role: viewer, on: folder:shared }] }
  team:product: { tenant: acme, members: [ann, bob], member_of: [team:company], roles: [{ role: editor, on: document:roadmap }] }
  team:design: { tenant: acme, members: [cy], member_of: [team:product] }
  team:finance:
    tenant: acme
    members: [dee, eve, ann]
    member_of: [team:company]
    roles: [{ role: editor, on: document:budget }, { role: viewer, on: document:roadmap }]
`;

const AUTHORITATIVE = (sections: string) => `authoritative: ${sections}\n`;
const withoutJoan = COMPANY.replace(/^ {2}joan: .*\n/m, '');
const withoutFinance = COMPANY.slice(0, COMPANY.indexOf('  team:finance:'));
const withShare = COMPANY.replace(
  'editor: [document:read, document:write]',
  'editor: [document:read, document:write, document:share]',
);
const renamed = COMPANY.replace('team:product: {', 'team:product-mgmt: {').replace(
  'member_of: [team:product] }',
  'member_of: [team:product-mgmt] }',
);

describe.sequential('the plan is the truth about access (real server)', { timeout: 300_000 }, () => {
  let env: Env;
  const outputs: string[] = [];
  const roster = async (...args: string[]) => {
    const r = await env.roster(...args);
    outputs.push(r.stdout, r.stderr);
    return r;
  };
  const json = (stdout: string) => JSON.parse(stdout) as Plan;

  beforeAll(async () => {
    env = await startEnv();
    const { client } = env.client();
    const result = await applyPlan(
      planChanges(await loadDesired(env.write('company.yaml', COMPANY)), await readLiveState(client), {
        project: 'p',
        environment: 'e',
      }),
      client,
    );
    expect(result.failed).toEqual([]);
  });
  afterAll(async () => {
    for (const out of outputs) expect(out).not.toContain(ORG_KEY);
    await env?.close();
  });

  it('case 1: a user removed from users: is listed with the access she keeps; authoritative deletes her and lists what she loses', async () => {
    env.write('offboard.yaml', withoutJoan);
    env.write('offboard-auth.yaml', AUTHORITATIVE('[users]') + withoutJoan);
    const [text, md, asJson, auth] = await Promise.all([
      roster('plan', 'offboard.yaml', '--detailed-exitcode'),
      roster('plan', 'offboard.yaml', '--format', 'markdown'),
      roster('plan', 'offboard.yaml', '--format', 'json'),
      roster('plan', 'offboard-auth.yaml', '--format', 'json'),
    ]);
    // Without the setting: no change, but never silence about joan.
    expect(text.code, text.stderr).toBe(0);
    expect(changeLines(text.stdout)).toEqual([]);
    expect(text.stdout).not.toContain('matches the configuration');
    expect(text.stdout).toMatch(/Live, not in the configuration: 1 object; 1 kept, with the access they grant/);
    expect(text.stdout).toMatch(
      /\? user:joan \(kept\)\n {6}admin on 3 instances \(document:budget, document:roadmap, folder:shared\) \(tenant-wide in acme\)/,
    );
    expect(md.stdout).toContain('| ? | `user:joan` | kept | admin on 3 instances');
    const kept = json(asJson.stdout).undeclared;
    expect(kept?.objects.map((o) => [o.id, o.fate])).toEqual([['user:joan', 'kept']]);

    // With authoritative: [users], the same configuration deletes her, with what goes with her.
    const plan = json(auth.stdout);
    expect(plan.authoritative).toEqual(['users']);
    expect(plan.prune).toBe(false);
    const del = plan.changes.find((c) => c.id === 'user:joan');
    expect(del?.action).toBe('delete');
    expect(del && 'cascade' in del ? del.cascade : undefined).toEqual([
      'assignment:joan:admin@acme',
      'tenant_user:joan@acme',
    ]);
    expect(plan.undeclared?.objects.map((o) => [o.id, o.fate])).toEqual([['user:joan', 'deleted']]);
    // Once for the role and tenant, not once per instance.
    expect(plan.access?.summary.map((s) => s.line)).toEqual([
      '-1 user loses admin tenant-wide in acme, on 2 documents and 1 folder',
    ]);
    expect(plan.access?.byUser.map((u) => u.user)).toEqual(['joan']);
  });

  it("case 1: a renamed group plans the old one's deletion under authoritative, and lists it without", async () => {
    env.write('renamed.yaml', renamed);
    env.write('renamed-auth.yaml', AUTHORITATIVE('true') + renamed);
    const [plain, auth] = await Promise.all([
      roster('plan', 'renamed.yaml', '--format', 'json'),
      roster('plan', 'renamed-auth.yaml'),
    ]);
    expect(json(plain.stdout).undeclared?.objects.map((o) => [o.id, o.fate])).toEqual([['group:team:product', 'kept']]);
    expect(json(plain.stdout).undeclared?.objects[0].access).toContain(
      'editor on document:roadmap to 3 users (ann, bob, cy)',
    );
    expect(changeLines(auth.stdout)).toContain('+ group:team:product-mgmt');
    expect(changeLines(auth.stdout)).toContain('- group:team:product');
    expect(auth.stdout.split('\n')[0]).toMatch(
      /^Plan for p\/e on 127.0.0.1:\d+ \(authoritative: resources, roles, tenants, users, resource_instances, groups\)$/,
    );
  });

  it('case 2: a permission added to a role lists each user who gains it, in text and Markdown', async () => {
    env.write('share.yaml', withShare);
    const [text, md] = await Promise.all([
      roster('plan', 'share.yaml'),
      roster('plan', 'share.yaml', '--format', 'markdown'),
    ]);
    expect(changeLines(text.stdout)).toEqual(['~ role:editor']);
    expect(text.stdout).toContain('permissions: +document:share');
    expect(text.stdout).not.toContain('Access changes: none');
    // Editors: ann, bob and cy (through team:design) on the roadmap; dee, eve, ann on the budget; gus on the plans.
    expect(text.stdout).toContain('Access changes: 6 users; 7 gained, 0 lost.');
    expect(text.stdout).toContain(
      '+3 users gain document:share on document:budget via team:finance (editor)\n      ann, dee, eve',
    );
    expect(text.stdout).toContain(
      '+3 users gain document:share on document:roadmap via team:product (editor)\n      ann, bob, cy',
    );
    expect(text.stdout).toContain(
      '+1 user gains document:share on document:plans via direct assignment (editor)\n      gus',
    );
    expect(md.stdout).not.toContain('none: no user gains or loses access');
    expect(md.stdout).toContain(
      '- `+3 users gain document:share on document:roadmap via team:product (editor)`: ann, bob, cy',
    );
  });

  it('case 3: a group deletion lists its cascade, the delete limit counts it, and a refused apply writes nothing', async () => {
    env.write('finance.yaml', AUTHORITATIVE('[groups]') + withoutFinance);
    const plan = await roster('plan', 'finance.yaml');
    expect(changeLines(plan.stdout)).toEqual(['- group:team:finance']);
    expect(plan.stdout).toContain(
      [
        '  - group:team:finance',
        '      with it: 3 memberships, 2 group grants, 1 group link',
        '        grant:team:finance:editor@document:budget',
        '        grant:team:finance:viewer@document:roadmap',
        '        link:team:finance@team:company',
        '        member:ann@team:finance',
        '        member:dee@team:finance',
        '        member:eve@team:finance',
      ].join('\n'),
    );
    expect(plan.stdout).toContain('0 to create, 0 to update, 1 to delete (and 6 that go with them).');
    expect(plan.stdout).toMatch(
      /Applying this plan deletes 1 object and 6 that go with them \(7 in all\); within the default delete limit of \d+\./,
    );

    // One deletion listed, seven objects removed: a limit of 6 refuses it, naming the total.
    const refused = await roster('apply', 'finance.yaml', '--yes', '--max-deletes', '6');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'the plan deletes 1 object and 6 that go with them (7 in all), more than the limit of 6',
    );
    expect(refused.stderr).toContain('--max-deletes 7');
    const { client } = env.client();
    expect((await readLiveState(client)).groups.get('team:finance')?.members).toEqual(['ann', 'dee', 'eve']);

    // Within the limit it goes, with exactly what the plan listed.
    const applied = await roster('apply', 'finance.yaml', '--yes', '--max-deletes', '7');
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const after = await readLiveState(client);
    expect(after.groups.has('team:finance')).toBe(false);
    expect(after.groups.get('team:company')?.memberOf).toEqual([]);
    const again = await roster('plan', 'finance.yaml', '--detailed-exitcode');
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain('No changes. The live environment matches the configuration.');
  });
});
