import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { readTerraform, type TerraformResource } from '../helpers/terraform.js';

/**
 * Every policy template of permit-cli (test/fixtures/permit-cli), built through the /v2 API as its
 * Terraform would build it, exports to a configuration that `roster validate` accepts and that plans no
 * changes against the environment it came from (issue 39: fga-tradeoffs's export failed validation).
 */
const FIXTURES = path.join(ROOT, 'test/fixtures/permit-cli');
const TEMPLATES = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.tf'))
  .map((f) => f.replace(/\.tf$/, ''))
  .sort();

/** Creation order: what each kind refers to exists before it. */
const ORDER = [
  'permitio_resource',
  'permitio_user_attribute',
  'permitio_role',
  'permitio_relation',
  'permitio_role_derivation',
  'permitio_user_set',
  'permitio_resource_set',
  'permitio_condition_set_rule',
];

let server: TestServer;
let tmp: string;
beforeAll(async () => {
  server = await startTestServer({ environments: TEMPLATES.map((env) => ({ project: 'p', env })) });
  tmp = mkdtempSync(path.join(os.tmpdir(), 'roster-templates-'));
}, 60_000);
afterAll(async () => {
  await server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** The /v2 requests a template's resources make, in order. */
function requestsOf(env: string, resources: TerraformResource[]): { path: string; body: Record<string, unknown> }[] {
  const schema = `/v2/schema/p/${env}`;
  const of = (type: string) => resources.filter((r) => r.type === type).map((r) => r.attributes as Record<string, any>);
  const userSets = new Set(of('permitio_user_set').map((s) => s.key));
  const resourceSets = new Set(of('permitio_resource_set').map((s) => s.key));
  const named = (a: Record<string, any>) => ({
    key: a.key,
    name: a.name ?? a.key,
    ...(a.description ? { description: a.description } : {}),
  });
  const attributes = (map: Record<string, { type: string; description?: string }> = {}) =>
    Object.fromEntries(
      Object.entries(map).map(([k, v]) => [
        k,
        { type: v.type, ...(v.description ? { description: v.description } : {}) },
      ]),
    );
  const out: { path: string; body: Record<string, unknown> }[] = [];
  for (const type of ORDER) {
    for (const a of of(type)) {
      switch (type) {
        case 'permitio_resource':
          out.push({
            path: `${schema}/resources`,
            body: {
              ...named(a),
              actions: Object.fromEntries(
                Object.entries(a.actions ?? {}).map(([k, v]: [string, any]) => [k, { name: v?.name ?? k }]),
              ),
              attributes: attributes(a.attributes),
            },
          });
          break;
        case 'permitio_user_attribute':
          out.push({
            path: `${schema}/resources/__user/attributes`,
            body: { key: a.key, type: a.type, ...(a.description ? { description: a.description } : {}) },
          });
          break;
        case 'permitio_role':
          out.push({
            path: a.resource ? `${schema}/resources/${a.resource}/roles` : `${schema}/roles`,
            body: { ...named(a), permissions: a.permissions ?? [] },
          });
          break;
        case 'permitio_relation':
          out.push({
            path: `${schema}/resources/${a.object_resource}/relations`,
            body: { key: a.key, name: a.name ?? a.key, subject_resource: a.subject_resource },
          });
          break;
        case 'permitio_role_derivation':
          out.push({
            path: `${schema}/resources/${a.resource}/roles/${a.to_role}/implicit_grants`,
            body: { role: a.role, on_resource: a.on_resource, linked_by_relation: a.linked_by },
          });
          break;
        case 'permitio_user_set':
        case 'permitio_resource_set':
          out.push({
            path: `${schema}/condition_sets`,
            body: {
              ...named(a),
              type: type === 'permitio_user_set' ? 'userset' : 'resourceset',
              conditions: a.conditions,
              ...(a.resource ? { resource_id: a.resource } : {}),
            },
          });
          break;
        case 'permitio_condition_set_rule':
          // The templates name a role (or a resource) where a set is expected: the public flags say so.
          out.push({
            path: `/v2/facts/p/${env}/set_rules`,
            body: {
              user_set: a.user_set,
              permission: a.permission,
              resource_set: a.resource_set,
              ...(userSets.has(a.user_set) ? {} : { is_role: true }),
              ...(resourceSets.has(a.resource_set) ? {} : { is_resource: true }),
            },
          });
          break;
      }
    }
  }
  return out;
}

describe.sequential('permit-cli templates: built through the API, exported, validated', { timeout: 180_000 }, () => {
  it("reads every template: all of permit-cli's, fga-tradeoffs among them", () => {
    expect(TEMPLATES).toContain('fga-tradeoffs');
    expect(TEMPLATES.length).toBe(7);
  });

  it.each(TEMPLATES)('%s', async (template) => {
    const resources = readTerraform(readFileSync(path.join(FIXTURES, `${template}.tf`), 'utf8'));
    for (const { path: url, body } of requestsOf(template, resources)) {
      const r = await server.call('POST', url, body);
      expect(r.status, `${url} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
    }
    const env = {
      ROSTER_API_KEY: ORG_KEY,
      ROSTER_API_URL: undefined,
      ROSTER_ENV: undefined,
      ROSTER_PROJECT: undefined,
    };
    const target = ['--api-url', server.url, '--project', 'p', '--env', template];
    const out = path.join(tmp, template);
    const exported = await runCli(['export', ...target, '--out', out], { env });
    expect(exported.code, exported.stderr).toBe(0);
    // What `roster validate` runs, in process (a command fewer per template).
    const validated = await loadConfig([out]);
    expect(validated.errors.map((e) => `${e.path}: ${e.message}`)).toEqual([]);
    const plan = await runCli(['plan', out, ...target, '--detailed-exitcode'], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stderr).not.toContain('error:');
  });
});
