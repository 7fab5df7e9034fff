/**
 * Random attribute-based access on top of test/access/public-env.ts's environments: attribute definitions
 * of every type (users, tenants, both instance types), stored values on users, tenants and instances
 * (some under keys with no definition, some under a built-in key), user sets and resource sets whose
 * conditions use every operator, references within and across sides, `fk_resource_type`, nested
 * allOf/anyOf/not, parents, `context.*`; set rules on sets, on roles (`is_role`, `__autogen_<role>`) and on
 * resources (`is_resource`, `__autogen_<resource>`). Plain data drawn first, written as public API calls
 * (`abacWrites`) and, for the pure tests, as a state (`abacLiveParts`).
 */
import fc from 'fast-check';
import type { Json } from '../../src/access/conditions/index.js';
import { PUBLIC_POOLS as P, INSTANCE_TYPES, type Write } from './public-env.js';

export const USER_ATTRIBUTES = {
  level: 'number',
  dept: 'string',
  tags: 'array',
  active: 'bool',
  profile: 'json',
  since: 'time',
  docs: 'array',
  items: 'object_array',
} as const;
export const RESOURCE_ATTRIBUTES = {
  amount: 'number',
  class: 'string',
  labels: 'array',
  owner: 'string',
  meta: 'object',
} as const;
export const TENANT_ATTRIBUTES = { region: 'string' } as const;

const POOL: Record<string, fc.Arbitrary<Json>> = {
  level: fc.integer({ min: 0, max: 4 }),
  dept: fc.constantFrom('fin', 'legal', 'u1'),
  tags: fc.subarray(['a', 'b', 'c']),
  active: fc.boolean(),
  profile: fc.record({ kind: fc.constantFrom('a', 'b'), n: fc.integer({ min: 0, max: 2 }) }),
  since: fc.constantFrom('2024-01-01T00:00:00Z', '2025-06-01T00:00:00Z'),
  docs: fc.subarray(['d0', 'd1', 'd2', 'x']),
  items: fc.array(fc.record({ k: fc.integer({ min: 0, max: 2 }) }), { maxLength: 2 }),
  amount: fc.integer({ min: 0, max: 4 }),
  class: fc.constantFrom('a', 'b'),
  labels: fc.subarray(['a', 'b', 'c']),
  owner: fc.constantFrom('u0', 'u1', 'u2'),
  meta: fc.record({ kind: fc.constantFrom('a', 'b') }),
  region: fc.constantFrom('eu', 'us'),
  roles: fc.subarray(['viewer', 'admin']),
  secret: fc.constantFrom('a', 1),
};
const literal = (attr: string): fc.Arbitrary<Json> =>
  POOL[attr] ?? fc.oneof(fc.integer({ min: 0, max: 4 }), fc.constantFrom('a', 'b'));

const SCALAR_OPS = [
  'equals',
  'not-equals',
  'greater-than',
  'less-than',
  'greater-than-equals',
  'less-than-equals',
  'contains',
  'array_contains',
  'array_intersect',
  'array_subset',
  'array_superset',
  'in',
] as const;

/** A leaf on one of `attrs` (entity.attr), a literal from its pool (or an array of them for `in`), or a reference to one of `refs`. */
const scalarLeaf = (attrs: string[], refs: string[]) =>
  fc
    .record({
      attr: fc.constantFrom(...attrs),
      op: fc.constantFrom(...SCALAR_OPS),
      ref: fc.option(fc.constantFrom(...refs), { freq: 4 }),
      seed: fc.nat(),
    })
    .chain(({ attr, op, ref }) => {
      const name = attr.split('.')[1];
      const value: fc.Arbitrary<Json> = ref
        ? fc.constant({ ref })
        : op === 'in' || op === 'array_subset'
          ? fc.array(literal(name), { maxLength: 3 })
          : op === 'array_contains'
            ? literal(name === 'tags' || name === 'labels' ? 'class' : name)
            : literal(name);
      return value.map((v) => ({ [attr]: { [op]: v } }) as Json);
    });

const MATCH_LEAVES: Json[] = [
  { 'user.profile': { object_match: { match: { kind: { equals: 'a' } } } } },
  { 'user.items': { any_match: { match: { k: { 'greater-than': 0 } } } } },
  { 'user.items': { all_match: { match: { k: { 'less-than': 2 } } } } },
  { 'user.docs': { any_match: { match: { class: { equals: 'a' } }, fk_resource_type: 'document' } } },
  { 'resource.meta': { object_match: { match: { kind: { equals: { ref: 'user.dept' } } } } } },
];

const userSide = [
  'user.level',
  'user.dept',
  'user.tags',
  'user.active',
  'user.since',
  'user.key',
  'user.roles',
  'user.tenants',
  'tenant.region',
  'tenant.key',
];
const resourceSide = [
  'resource.amount',
  'resource.class',
  'resource.labels',
  'resource.owner',
  'resource.type',
  'tenant.region',
];

function tree(own: string[], other: string[]): fc.Arbitrary<Json> {
  const leaf = fc.oneof(
    { weight: 6, arbitrary: scalarLeaf(own, own) },
    { weight: 2, arbitrary: scalarLeaf(own, other) },
    { weight: 1, arbitrary: scalarLeaf(other, own) },
    { weight: 1, arbitrary: fc.constantFrom(...MATCH_LEAVES) },
    { weight: 1, arbitrary: scalarLeaf(['context.c'], own) },
  );
  // Often holding: everything, or a comparison most values pass (random trees alone rarely allow anything).
  const likely = fc.constantFrom<Json>(
    {},
    { 'user.level': { 'greater-than-equals': 1 } },
    { 'resource.amount': { 'less-than-equals': { ref: 'user.level' } } },
    { not: { 'resource.class': { equals: 'b' } } },
    { 'user.roles': { array_contains: 'admin' } },
    { 'tenant.region': { equals: 'eu' } },
    { anyOf: [{ 'user.dept': { in: ['fin', 'legal'] } }, { 'context.c': { 'greater-than': 2 } }] },
    { not: { 'context.c': { equals: 'fin' } } },
  );
  return fc.letrec<{ t: Json }>((tie) => ({
    t: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { weight: 2, arbitrary: likely },
      leaf,
      fc.array(tie('t'), { maxLength: 3 }).map((c) => ({ allOf: c })),
      fc.array(tie('t'), { maxLength: 2 }).map((c) => ({ anyOf: c })),
      tie('t').map((c) => ({ not: c })),
    ),
  })).t;
}

const storedAttrs = (keys: string[]) =>
  fc
    .subarray([...keys, 'secret'])
    .chain((ks) =>
      fc
        .tuple(...ks.map((k) => literal(k).map((v) => [k, v] as const)))
        .map((kv) => Object.fromEntries(kv) as Record<string, Json>),
    );

export interface AbacSpec {
  users: Record<string, Record<string, Json>>;
  tenants: Record<string, Record<string, Json>>;
  instances: Record<string, Record<string, Json>>;
  userSets: { key: string; conditions: Json; parent?: string }[];
  resourceSets: { key: string; resource: string; conditions: Json; parent?: string }[];
  rules: { userSet: string; isRole: boolean; resourceSet: string; isResource: boolean; permission: string }[];
}

const INSTANCES = [...P.documents, ...P.folders];

export const arbAbacSpec: fc.Arbitrary<AbacSpec> = fc
  .record({
    users: fc.tuple(...P.users.map(() => storedAttrs([...Object.keys(USER_ATTRIBUTES), 'roles']))),
    tenants: fc.tuple(...P.tenants.map(() => storedAttrs(Object.keys(TENANT_ATTRIBUTES)))),
    instances: fc.tuple(...INSTANCES.map(() => storedAttrs(Object.keys(RESOURCE_ATTRIBUTES)))),
    userSets: fc.array(fc.record({ conditions: tree(userSide, resourceSide), child: fc.boolean() }), {
      minLength: 1,
      maxLength: 4,
    }),
    resourceSets: fc.array(
      fc.record({
        type: fc.constantFrom(...INSTANCE_TYPES),
        conditions: tree(resourceSide, userSide),
        child: fc.boolean(),
      }),
      { minLength: 1, maxLength: 3 },
    ),
    rules: fc.array(
      fc.record({
        user: fc.nat(),
        role: fc.nat(3).map((n) => n === 0),
        roleKey: fc.constantFrom(...P.topRoles),
        resource: fc.nat(),
        autogen: fc.nat(3).map((n) => n === 0),
        type: fc.constantFrom(...INSTANCE_TYPES),
        action: fc.constantFrom(...P.actions),
      }),
      { minLength: 1, maxLength: 5 },
    ),
  })
  .map((d) => {
    const userSets = d.userSets.map((s, i) => ({
      key: `us${i}`,
      conditions: s.conditions,
      ...(s.child && i > 0 ? { parent: `us${i - 1}` } : {}),
    }));
    const resourceSets = d.resourceSets.map((s, i) => {
      const parent = s.child ? d.resourceSets.slice(0, i).findLastIndex((p) => p.type === s.type) : -1;
      return {
        key: `rs${i}`,
        resource: s.type,
        conditions: s.conditions,
        ...(parent >= 0 ? { parent: `rs${parent}` } : {}),
      };
    });
    const rules = d.rules.map((r) => {
      const rs = r.autogen ? undefined : resourceSets[r.resource % resourceSets.length];
      const type = rs?.resource ?? r.type;
      return {
        userSet: r.role ? r.roleKey : userSets[r.user % userSets.length].key,
        isRole: r.role,
        resourceSet: rs?.key ?? type,
        isResource: !rs,
        permission: `${type}:${r.action}`,
      };
    });
    return {
      users: Object.fromEntries(P.users.map((u, i) => [u, d.users[i]])),
      tenants: Object.fromEntries(P.tenants.map((t, i) => [t, d.tenants[i]])),
      instances: Object.fromEntries(INSTANCES.map((id, i) => [id, d.instances[i]])),
      userSets,
      resourceSets,
      rules,
    };
  });

/** The calls that write the spec, after public-env's (which made the resources, users, tenants and instances). */
export function abacWrites(spec: AbacSpec): Write[] {
  const w = (method: Write['method'], api: Write['api'], path: string, body: unknown): Write => ({
    method,
    api,
    path,
    body,
  });
  return [
    ...Object.entries(USER_ATTRIBUTES).map(([key, type]) => w('POST', 'schema', '/users/attributes', { key, type })),
    ...Object.entries(TENANT_ATTRIBUTES).map(([key, type]) =>
      w('POST', 'schema', '/resources/__tenant/attributes', { key, type }),
    ),
    ...INSTANCE_TYPES.flatMap((r) =>
      Object.entries(RESOURCE_ATTRIBUTES).map(([key, type]) =>
        w('POST', 'schema', `/resources/${r}/attributes`, { key, type }),
      ),
    ),
    ...Object.entries(spec.users).map(([key, attributes]) => w('PATCH', 'facts', `/users/${key}`, { attributes })),
    ...Object.entries(spec.tenants).map(([key, attributes]) => w('PATCH', 'facts', `/tenants/${key}`, { attributes })),
    ...Object.entries(spec.instances).map(([ref, attributes]) =>
      w('PATCH', 'facts', `/resource_instances/${ref}`, { attributes }),
    ),
    ...spec.userSets.map((s) =>
      w('POST', 'schema', '/condition_sets', {
        key: s.key,
        name: s.key,
        type: 'userset',
        conditions: s.conditions,
        ...(s.parent ? { parent_id: s.parent } : {}),
      }),
    ),
    ...spec.resourceSets.map((s) =>
      w('POST', 'schema', '/condition_sets', {
        key: s.key,
        name: s.key,
        type: 'resourceset',
        resource_id: s.resource,
        conditions: s.conditions,
        ...(s.parent ? { parent_id: s.parent } : {}),
      }),
    ),
    ...spec.rules.map((r) =>
      w('POST', 'facts', '/set_rules', {
        user_set: r.userSet,
        permission: r.permission,
        resource_set: r.resourceSet,
        ...(r.isRole ? { is_role: true } : {}),
        ...(r.isResource ? { is_resource: true } : {}),
      }),
    ),
  ];
}

/** Attributes a check may pass, and a context. */
export const arbPassed = fc.record({
  user: fc.option(storedAttrs(['level', 'dept', 'tags', 'roles']), { nil: undefined }),
  resource: fc.option(storedAttrs(['amount', 'class', 'type']), { nil: undefined }),
  context: fc.option(fc.record({ c: fc.oneof(fc.integer({ min: 0, max: 4 }), fc.constantFrom('a', 'fin')) }), {
    nil: undefined,
  }),
});
