import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectListItems, type Shape } from '../../src/api/answer.js';
import { createClient, withSharedLists, type ApiClient } from '../../src/api/index.js';
import { readLiveState } from '../../src/api/read-live.js';
import { readRequestGrants } from '../../src/api/read-request-grants.js';
import {
  ACCESS_REQUEST_ITEM,
  ASSIGNMENT_ITEM,
  CONFIG_ITEM,
  GROUP_ITEM,
  GROUP_ROLE_ITEM,
  INSTANCE_ITEM,
  RESOURCE_ITEM,
  ROLE_ITEM,
  TENANT_ITEM,
  TUPLE_ITEM,
  USER_ITEM,
} from '../../src/api/shapes.js';
import type { DesiredState } from '../../src/types/desired.js';
import { planChanges } from '../../src/plan/plan.js';
import { checkActor } from '../../src/review/actor.js';
import { createReviewSource } from '../../src/review/index.js';
import { readConfigKeys } from '../../src/review/locate.js';
import { SPEC_FILE } from '../contract/openapi.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { populate } from './fixtures/populated.js';

/**
 * The item shapes (src/api/shapes.ts) refuse nothing valid: every item our server lists for a populated
 * environment passes; so does every item the public service could send instead, by its own schemas
 * (`permit-openapi.json`): any field they do not require left out or null, fields of its own added. And
 * every reader, through the client that checks the shapes, reads that environment.
 */
let server: TestServer;
let desired: DesiredState;
const clients: ApiClient[] = [];

beforeAll(async () => {
  server = await startTestServer();
  desired = await populate(server);
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.close();
  await server?.close();
});

/**
 * Each list: the path (with the query the plan reads it with), its shape, the public schema of its items,
 * and some of the fields that schema lets out which our server sends (the property below varies them all;
 * a list whose fields the public schema all requires has none).
 */
const LISTS: [string, string, Shape, string, string[]][] = [
  ['users', '/v2/facts/p/e/users', USER_ITEM, 'UserRead', ['email', 'first_name', 'attributes', 'associated_tenants']],
  ['tenants', '/v2/facts/p/e/tenants', TENANT_ITEM, 'TenantRead', ['description', 'attributes']],
  ['roles', '/v2/schema/p/e/roles', ROLE_ITEM, 'RoleRead', ['permissions', 'extends']],
  [
    'resources',
    '/v2/schema/p/e/resources',
    RESOURCE_ITEM,
    'ResourceRead',
    [
      'actions',
      'roles',
      'relations',
      'roles.viewer.permissions',
      'roles.viewer.granted_to',
      'roles.viewer.granted_to.users_with_role',
      'roles.viewer.granted_to.users_with_role.0.when',
      'relations.parent.relation_name',
      'roles.owner.description',
    ],
  ],
  ['resource instances', '/v2/facts/p/e/resource_instances', INSTANCE_ITEM, 'ResourceInstanceRead', ['attributes']],
  [
    'role assignments',
    '/v2/facts/p/e/role_assignments?per_page=1000',
    ASSIGNMENT_ITEM,
    'RoleAssignmentRead',
    ['resource_instance'],
  ],
  ['relationship tuples', '/v2/facts/p/e/relationship_tuples', TUPLE_ITEM, 'RelationshipTupleRead', []],
  ['groups (direct)', '/v2/schema/p/e/groups/direct', GROUP_ITEM, 'GroupReadSchema', ['group_resource_type_key']],
  ["team:product's roles", '/v2/schema/p/e/groups/team:product/roles', GROUP_ROLE_ITEM, 'GroupRoleReadSchema', []],
  ["team:finance's roles", '/v2/schema/p/e/groups/team:finance/roles', GROUP_ROLE_ITEM, 'GroupRoleReadSchema', []],
  ['element configurations', '/v2/elements/p/e/config', CONFIG_ITEM, 'ElementsConfigRead', []],
  [
    'access requests',
    '/v2/elements/p/e/config/default/access_requests',
    ACCESS_REQUEST_ITEM,
    'AccessRequestRead',
    ['requesting_user_id', 'reviewer_user_id', 'reviewed_at', 'reason', 'access_request_details.resource_instance'],
  ],
];

/** Fields Roster requires though the public schema lets them out: none (a role assignment's tenant is found from `tenant_id` when `tenant` is missing). */
const REQUIRED_BEYOND_PUBLIC = new Set<string>();

const doc = JSON.parse(readFileSync(SPEC_FILE, 'utf8')) as { components: { schemas: Record<string, any> } };
const resolve = (s: any): any =>
  s?.$ref ? resolve(doc.components.schemas[s.$ref.split('/').pop()]) : s?.allOf?.length === 1 ? resolve(s.allOf[0]) : s;

/** The places in `value` that its public schema does not require: `[path, schema name of the object holding it]`. */
function optionalPlaces(
  value: unknown,
  schema: any,
  name: string,
  at: (string | number)[] = [],
): [(string | number)[], string][] {
  const s = resolve(schema);
  if (!s || value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => optionalPlaces(v, s.items, name, [...at, i]));
  const own = schema?.$ref ? schema.$ref.split('/').pop() : name;
  return Object.entries(value).flatMap(([k, v]) => {
    const inner =
      s.properties?.[k] ??
      (s.patternProperties ? Object.values(s.patternProperties)[0] : undefined) ??
      (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
    const here: [(string | number)[], string][] =
      s.properties?.[k] && !(s.required ?? []).includes(k) && !REQUIRED_BEYOND_PUBLIC.has(`${own}:${k}`)
        ? [[[...at, k], own]]
        : [];
    return [...here, ...optionalPlaces(v, inner, own, [...at, k])];
  });
}

function without(value: unknown, path: (string | number)[], to: 'dropped' | 'null'): unknown {
  const copy = structuredClone(value) as Record<string | number, any>;
  let o = copy;
  for (const k of path.slice(0, -1)) o = o[k];
  const last = path[path.length - 1];
  if (to === 'dropped') delete o[last];
  else o[last] = null;
  return copy;
}

async function itemsOf(path: string): Promise<unknown[]> {
  const r = await server.call('GET', path.includes('per_page') ? path : `${path}?per_page=100`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return Array.isArray(r.body) ? r.body : r.body.data;
}

describe.each(LISTS)('%s', (_, path, shape, schema, varied) => {
  it('every item our server lists passes, in both answer forms', async () => {
    const items = await itemsOf(path);
    expect(items.length).toBeGreaterThan(0);
    expect(expectListItems(shape, 1)(items)).toBeUndefined();
    expect(expectListItems(shape, 1)({ data: items, total_count: items.length, page_count: 1 })).toBeUndefined();
  });

  it('any item the public service may send instead passes: optional fields left out or null, fields of its own added', async () => {
    const items = (await itemsOf(path)).map((item) => ({
      item,
      places: optionalPlaces(item, { $ref: `#/components/schemas/${schema}` }, schema),
    }));
    const found = new Set(items.flatMap((i) => i.places.map(([p]) => p.join('.'))));
    expect([...found].filter((p) => varied.includes(p)).sort()).toEqual([...varied].sort());
    const variants = fc.constantFrom(...items).chain(({ item, places }) =>
      fc.record({
        item: fc.constant(item),
        changes:
          places.length > 0
            ? fc
                .subarray(places.map(([p]) => p))
                .chain((ps) =>
                  fc.tuple(
                    ...ps.map((p) => fc.tuple(fc.constant(p), fc.constantFrom('dropped' as const, 'null' as const))),
                  ),
                )
            : fc.constant([]),
        extra: fc.dictionary(
          fc.string({ minLength: 1, maxLength: 8 }).map((k) => `x_${k}`),
          fc.jsonValue(),
          { maxKeys: 3 },
        ),
      }),
    );
    fc.assert(
      fc.property(variants, ({ item, changes, extra }) => {
        // Deepest first: a place is changed before the object holding it is left out or null.
        const sorted = [...changes].sort(([a], [b]) => b.length - a.length);
        const varied = { ...(sorted.reduce<unknown>((v, [p, to]) => without(v, p, to), item) as object), ...extra };
        expect(expectListItems(shape, 1)([varied]), JSON.stringify(varied)).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });
});

describe('every reader reads the populated environment through the checked lists', () => {
  const client = () => {
    const c = createClient({ baseUrl: server.url, apiKey: ORG_KEY, project: 'p', environment: 'e', retries: 0 });
    clients.push(c);
    return c;
  };

  it('the live state (nothing to plan) and the grant of the approved request, sharing their lists', async () => {
    const reader = withSharedLists(client());
    const [live, grants] = await Promise.all([readLiveState(reader), readRequestGrants(reader)]);
    // The approved grant is held, not planned away: the live state is the configuration's.
    expect(planChanges(desired, live, { project: 'p', environment: 'e', requestGrants: grants }).changes).toEqual([]);
    expect(grants).toMatchObject([
      {
        user: 'cleo',
        role: 'viewer',
        tenant: 'acme',
        on: 'document:budget',
        request: { config: 'default', reviewer: 'ada' },
      },
    ]);
  });

  it("the review's reads: the queue, the roles, a requester's assignments, the reviewers, the configurations, the actor", async () => {
    const c = client();
    const source = createReviewSource({ client: c, user: 'ada', tenant: 'acme' });
    const page = await source.listPage({}, 1, 100);
    expect(page.items.map((r) => `${r.requester} ${r.role} ${r.status}`).sort()).toEqual([
      'cleo viewer approved',
      'dan admin denied',
      'eve commenter pending',
    ]);
    expect((await source.readRoles()).map((r) => r.key)).toContain('admin');
    expect((await source.readRequester('ben')).assignments).toEqual([
      { role: 'owner', tenant: 'acme', resource_instance: 'document:roadmap' },
    ]);
    expect(await source.readReviewers()).toEqual({ roles: ['admin'], holders: ['ada'], complete: true });
    expect(await readConfigKeys(c)).toEqual(['default']);
    await expect(checkActor(c, 'nobody', 'acme')).rejects.toThrow('no user "nobody"');
  });
});
