/**
 * fast-check generators of small access environments, shared by the access-graph property tests and by
 * anyone checking another implementation (the server's `/allowed`) against the graph or `reference.ts`.
 * Names come from small pools so that facts collide often: the interesting cases (diamonds, cycles,
 * one user through several groups) need collisions.
 */
import fc from 'fast-check';
import type { AccessFacts, RoleFact } from '../../src/access/index.js';

export interface EnvPools {
  users: string[];
  /** Group keys `type:key`, all of one type by default (links across types are rejected by the service). */
  groups: string[];
  /** Listed instances are drawn from these; `unlisted` ones only appear in grants. */
  instances: string[];
  unlisted: string[];
  tenants: string[];
  roles: string[];
  actions: string[];
}

export const smallPools: EnvPools = {
  users: ['u0', 'u1', 'u2', 'u3', 'u4'],
  groups: ['team:g0', 'team:g1', 'team:g2', 'team:g3', 'team:g4', 'team:g5'],
  instances: ['document:d0', 'document:d1', 'document:d2', 'folder:f0', 'folder:f1'],
  unlisted: ['document:x9'],
  tenants: ['t0', 't1'],
  roles: ['viewer', 'editor', 'admin', 'owner'],
  actions: ['read', 'write', 'delete'],
};

export interface ArbFactsOptions {
  pools?: EnvPools;
  /** Links only go from a group to one later in `pools.groups`: no cycles. */
  acyclic?: boolean;
  /** Upper bound on each fact list's length. */
  maxFacts?: number;
}

const types = (p: EnvPools) => [...new Set([...p.instances, ...p.unlisted].map((i) => i.split(':')[0]))];
const anyInstance = (p: EnvPools) => fc.constantFrom(...p.instances, ...p.unlisted);

export function arbRoles(p: EnvPools = smallPools): fc.Arbitrary<RoleFact[]> {
  const permissions = types(p).flatMap((t) => p.actions.map((a) => `${t}:${a}`));
  return fc.tuple(
    ...p.roles.map((key) =>
      fc.record({
        key: fc.constant(key),
        permissions: fc.subarray(permissions, { maxLength: 3 }),
        // May be cyclic: the graph must tolerate it.
        extends: fc.subarray(
          p.roles.filter((r) => r !== key),
          { maxLength: 2 },
        ),
      }),
    ),
  );
}

export function arbLinks(p: EnvPools, acyclic: boolean, max: number): fc.Arbitrary<AccessFacts['links']> {
  const pair = fc
    .tuple(fc.nat(p.groups.length - 1), fc.nat(p.groups.length - 1))
    .filter(([a, b]) => a !== b && (!acyclic || a < b))
    .map(([a, b]) => ({ child: p.groups[a], parent: p.groups[b] }));
  return fc.array(pair, { maxLength: max });
}

/** A random small environment. */
export function arbAccessFacts(options: ArbFactsOptions = {}): fc.Arbitrary<AccessFacts> {
  const p = options.pools ?? smallPools;
  const max = options.maxFacts ?? 8;
  const user = fc.constantFrom(...p.users);
  const role = fc.constantFrom(...p.roles);
  const group = fc.constantFrom(...p.groups);
  return fc.record({
    roles: arbRoles(p),
    instances: fc
      .subarray(p.instances)
      .chain((ids) =>
        fc.tuple(...ids.map((id) => fc.record({ id: fc.constant(id), tenant: fc.constantFrom(...p.tenants) }))),
      )
      .map((xs) => [...xs]),
    tenantRoles: fc.array(fc.record({ user, role, tenant: fc.constantFrom(...p.tenants) }), { maxLength: 3 }),
    instanceRoles: fc.array(fc.record({ user, role, instance: anyInstance(p) }), { maxLength: max }),
    memberships: fc.array(fc.record({ user, group }), { maxLength: max }),
    links: arbLinks(p, options.acyclic ?? false, max),
    groupGrants: fc.array(fc.record({ group, role, instance: anyInstance(p) }), { maxLength: max }),
  });
}

/**
 * A random environment in the relationship model: roles held on instances are resource roles of the
 * instance's type (`document#editor`, with the pool role's permissions on that type), and random tuples
 * (`parent`, `owner`) between listed instances with random derivations between resource roles, with and
 * without `noDirect`. Tuples may form cycles and chains several levels deep.
 */
export function arbRebacFacts(options: ArbFactsOptions = {}): fc.Arbitrary<AccessFacts> {
  const p = options.pools ?? smallPools;
  const ts = types(p);
  const ids = ts.flatMap((t) => p.roles.map((r) => `${t}#${r}`));
  const relation = fc.constantFrom('parent', 'owner');
  const instance = fc.constantFrom(...p.instances);
  return fc
    .tuple(
      arbAccessFacts(options),
      fc.array(fc.record({ subject: instance, relation, object: instance }), { maxLength: 8 }),
      fc.array(
        fc.record({ role: fc.constantFrom(...ids), from: fc.constantFrom(...ids), relation, noDirect: fc.boolean() }),
        { maxLength: 6 },
      ),
    )
    .map(([f, relationships, derivations]) => {
      const qualified = (role: string, inst: string) => `${inst.split(':')[0]}#${role}`;
      return {
        ...f,
        roles: [
          ...f.roles,
          ...ts.flatMap((t) =>
            f.roles.map((r) => ({
              key: `${t}#${r.key}`,
              permissions: r.permissions.filter((x) => x.startsWith(`${t}:`)),
              extends: (r.extends ?? []).map((e) => `${t}#${e}`),
            })),
          ),
        ],
        instanceRoles: f.instanceRoles.map((r) => ({ ...r, role: qualified(r.role, r.instance) })),
        groupGrants: f.groupGrants.map((g) => ({ ...g, role: qualified(g.role, g.instance) })),
        relationships,
        derivations,
      };
    });
}

/** A question to ask of an environment: `action` is bare (`write`) or qualified (`document:write`). */
export interface AccessQuery {
  user: string;
  action: string;
  instance: string;
}

export function arbAccessQuery(p: EnvPools = smallPools): fc.Arbitrary<AccessQuery> {
  const qualified = types(p).flatMap((t) => p.actions.map((a) => `${t}:${a}`));
  return fc.record({
    user: fc.constantFrom(...p.users),
    action: fc.constantFrom(...p.actions, ...qualified),
    instance: anyInstance(p),
  });
}

/** A random part of `xs` and up to two of `add`. */
const keep = <T>(xs: readonly T[] = [], add: readonly T[] = []) =>
  fc
    .tuple(fc.subarray([...xs]), fc.subarray([...add], { maxLength: Math.min(2, add.length) }))
    .map(([a, b]) => [...a, ...b]);

/** The fact lists an edit changes, each kept in part from `before` and gaining a few of `extra`'s. */
const keptFacts = (before: AccessFacts, extra: AccessFacts) =>
  fc.record({
    tenantRoles: keep(before.tenantRoles, extra.tenantRoles),
    instanceRoles: keep(before.instanceRoles, extra.instanceRoles),
    memberships: keep(before.memberships, extra.memberships),
    links: keep(before.links, extra.links),
    groupGrants: keep(before.groupGrants, extra.groupGrants),
  });

/**
 * An environment and an edit of it: each fact list keeps a random subset of its facts and gains a few
 * new ones; role definitions change only sometimes (they force a full comparison in the permission view).
 */
export function arbFactsEdit(options: ArbFactsOptions = {}): fc.Arbitrary<[AccessFacts, AccessFacts]> {
  return fc
    .tuple(arbAccessFacts(options), arbAccessFacts(options), fc.boolean(), fc.boolean())
    .chain(([before, extra, newRoles, newInstances]) =>
      keptFacts(before, extra).map((kept): [AccessFacts, AccessFacts] => [
        before,
        {
          ...kept,
          roles: newRoles ? extra.roles : before.roles,
          instances: newInstances ? extra.instances : before.instances,
        },
      ]),
    );
}

/**
 * Two relationship-model environments, the second an edit of the first: each fact list (tuples and
 * derivations included) keeps a random part of the first's and gains up to two of another's; sometimes
 * the instances (and their tenants) change too. Role definitions stay: an edit of those compares everyone.
 */
export function arbRebacFactsEdit(options: ArbFactsOptions = {}): fc.Arbitrary<[AccessFacts, AccessFacts]> {
  return fc.tuple(arbRebacFacts(options), arbRebacFacts(options), fc.boolean()).chain(([before, extra, newInstances]) =>
    fc
      .tuple(
        keptFacts(before, extra),
        keep(before.relationships, extra.relationships),
        keep(before.derivations, extra.derivations),
      )
      .map(([kept, relationships, derivations]): [AccessFacts, AccessFacts] => [
        before,
        {
          ...kept,
          roles: before.roles,
          instances: newInstances ? extra.instances : before.instances,
          relationships,
          derivations,
        },
      ]),
  );
}
