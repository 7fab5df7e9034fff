/**
 * Random environments written the way another tool writes them: a list of public API calls
 * (permit-openapi.json only), not a configuration. They reach what a configuration cannot state or
 * never states: top-level roles with `extends` set after the roles, a group given `member` on another group, cyclic links
 * (the service refuses the link that would close a cycle, but not a `member` grant that closes one),
 * cross-tenant links, grants and memberships (refused), derivations from `team#member`, a role key that
 * is both a top-level role and a resource role. Some calls are refused; the tests read back what the
 * service kept and never count a refusal as state.
 */
import fc from 'fast-check';
import type { HttpClient } from '../helpers/server.js';

export const PUBLIC_POOLS = {
  users: ['u0', 'u1', 'u2', 'u3', 'u4'],
  tenants: ['t0', 't1'],
  documents: ['document:d0', 'document:d1', 'document:d2'],
  folders: ['folder:f0', 'folder:f1', 'folder:f2'],
  groups: ['team:g0', 'team:g1', 'team:g2', 'team:g3'],
  actions: ['read', 'write', 'delete'],
  /** `viewer` is also a resource role key: which one a role on an instance names is the server's rule. */
  topRoles: ['viewer', 'admin', 'auditor'],
  resourceRoles: ['viewer', 'editor', 'owner'],
} as const;

export const INSTANCE_TYPES = ['document', 'folder'] as const;
/** Where each type's relations lead: `parent` from a folder, `owner_team` from a team. */
const RELATIONS = { parent: 'folder', owner_team: 'team' } as const;

export interface Write {
  method: 'POST' | 'PUT' | 'PATCH';
  /** Under /v2/schema/p/e (`schema`) or /v2/facts/p/e (`facts`). */
  api: 'schema' | 'facts';
  path: string;
  body: unknown;
}

const P = PUBLIC_POOLS;
const typeOf = (ref: string) => ref.slice(0, ref.indexOf(':'));
const keyOf = (ref: string) => ref.slice(ref.indexOf(':') + 1);
const instances = [...P.documents, ...P.folders];
const permissions = [...INSTANCE_TYPES.flatMap((t) => P.actions.map((a) => `${t}:${a}`)), 'team:read'];

/** Every `type:key` a check may name: instances, groups, and one that was never created. */
export const CHECKED_INSTANCES = [...instances, ...P.groups, 'document:x9'];

const arbTopRoles = fc.tuple(
  ...P.topRoles.map((key) =>
    fc.record({
      key: fc.constant(key),
      permissions: fc.subarray(permissions, { maxLength: 3 }),
      extends: fc.subarray(
        P.topRoles.filter((r) => r !== key),
        { maxLength: 2 },
      ),
    }),
  ),
);
/** Each type declares some of the resource role keys, `extends` possibly cyclic (the service refuses a cycle). */
const arbResourceRoles = fc.tuple(
  ...INSTANCE_TYPES.map((type) =>
    fc.subarray([...P.resourceRoles]).chain((keys) =>
      fc.tuple(
        ...keys.map((key) =>
          fc.record({
            type: fc.constant(type),
            key: fc.constant(key),
            permissions: fc.subarray([...P.actions]),
            extends: fc.subarray(
              keys.filter((k) => k !== key),
              { maxLength: Math.min(2, keys.length - 1) },
            ),
          }),
        ),
      ),
    ),
  ),
);
/** `type#role <- on#from via relation`: from a folder role through `parent`, from `team#member` through `owner_team`. */
const arbDerivations = fc.array(
  fc.record({
    type: fc.constantFrom(...INSTANCE_TYPES),
    /** Picks among the roles the type declares (and `from` among the folder's). */
    role: fc.nat(),
    via: fc.constantFrom('parent', 'owner_team'),
    from: fc.nat(),
    noDirect: fc.boolean(),
  }),
  { maxLength: 4 },
);

const user = fc.constantFrom(...P.users);
const tenant = fc.constantFrom(...P.tenants);
const group = fc.constantFrom(...P.groups);
const anyRole = fc.constantFrom(...P.topRoles, ...P.resourceRoles);
const instance = fc.constantFrom(...instances);

/** The calls that write facts, in a random order (it decides which link of a cycle is refused). */
const arbFactWrites = (tenantOf: Map<string, string>) =>
  fc
    .tuple(
      fc.array(fc.record({ subject: fc.constantFrom(...P.folders, ...P.groups), object: instance }), { maxLength: 8 }),
      fc.array(fc.record({ user, group, wrongTenant: fc.nat(9).map((n) => n < 2) }), { maxLength: 8 }),
      fc.array(fc.record({ child: group, parent: group }), { maxLength: 5 }),
      fc.array(fc.record({ child: group, parent: group }), { maxLength: 3 }),
      fc.array(fc.record({ group, role: anyRole, on: fc.constantFrom(...instances, ...P.groups) }), { maxLength: 6 }),
      fc.array(fc.record({ user, role: fc.constantFrom(...P.topRoles), tenant }), { maxLength: 3 }),
      fc.array(fc.record({ user, role: anyRole, on: fc.constantFrom(...instances, ...P.groups) }), { maxLength: 8 }),
      // Often, the case the issue names: a group linked into a group that owns an instance, with a member.
      fc.option(fc.record({ child: group, parent: group, object: instance, user }), { freq: 2 }),
    )
    .chain(([tuples0, memberships0, links0, memberGrants, groupRoles, tenantRoles, instanceRoles, linked]) => {
      const [tuples, memberships, links] = [[...tuples0], [...memberships0], [...links0]];
      if (linked) {
        tuples.push({ subject: linked.parent, object: linked.object });
        links.push({ child: linked.child, parent: linked.parent });
        memberships.push({ user: linked.user, group: linked.child, wrongTenant: false });
      }
      const other = (t: string) => P.tenants.find((x) => x !== t)!;
      const writes: Write[] = [
        ...tuples.map((t): Write => {
          const relation = typeOf(t.subject) === 'team' ? 'owner_team' : 'parent';
          return {
            method: 'POST',
            api: 'facts',
            path: '/relationship_tuples',
            body: { subject: t.subject, relation, object: t.object },
          };
        }),
        ...memberships.map((m): Write => {
          const t = tenantOf.get(m.group)!;
          return {
            method: 'PUT',
            api: 'schema',
            path: `/groups/${m.group}/users/${m.user}`,
            body: { tenant: m.wrongTenant ? other(t) : t },
          };
        }),
        ...links.map((l): Write => ({
          method: 'PUT',
          api: 'schema',
          path: `/groups/${l.child}/assign_group`,
          body: { group_instance_key: l.parent },
        })),
        ...memberGrants.map((l): Write => groupRole(l.child, 'member', l.parent, tenantOf)),
        ...groupRoles.map((g): Write => groupRole(g.group, g.role, g.on, tenantOf)),
        ...tenantRoles.map((r): Write => ({
          method: 'POST',
          api: 'facts',
          path: '/role_assignments',
          body: { user: r.user, role: r.role, tenant: r.tenant },
        })),
        ...instanceRoles.map((r): Write => ({
          method: 'POST',
          api: 'facts',
          path: '/role_assignments',
          body: { user: r.user, role: r.role, tenant: tenantOf.get(r.on), resource_instance: r.on },
        })),
      ];
      return fc.shuffledSubarray(writes, { minLength: writes.length });
    });

function groupRole(g: string, role: string, on: string, tenantOf: Map<string, string>): Write {
  // The group's tenant: a grant on an instance of the other tenant is refused, as it should be.
  return {
    method: 'POST',
    api: 'schema',
    path: `/groups/${g}/roles`,
    body: { role, resource: typeOf(on), resource_instance: keyOf(on), tenant: tenantOf.get(g) },
  };
}

/** A random environment as the list of calls that write it, in order. */
export const arbPublicEnv: fc.Arbitrary<Write[]> = fc
  .tuple(
    arbTopRoles,
    arbResourceRoles,
    arbDerivations,
    // Mostly one tenant, so that tuples, links and grants are taken more often than refused.
    fc.tuple(...[...instances, ...P.groups].map(() => fc.nat(3).map((n) => P.tenants[n === 0 ? 1 : 0]))),
  )
  .chain(([topRoles, perType, derivations, tenants]) => {
    const tenantOf = new Map([...instances, ...P.groups].map((id, i) => [id, tenants[i]]));
    return arbFactWrites(tenantOf).map((facts) => {
      const resourceRoles = perType.flat();
      const declared = (type: string) => resourceRoles.filter((r) => r.type === type).map((r) => r.key);
      const writes: Write[] = [
        {
          method: 'POST',
          api: 'schema',
          path: '/resources',
          body: { key: 'team', name: 'team', actions: { read: {} } },
        },
        ...INSTANCE_TYPES.map((key): Write => ({
          method: 'POST',
          api: 'schema',
          path: '/resources',
          body: { key, name: key, actions: Object.fromEntries(P.actions.map((a) => [a, {}])) },
        })),
        ...INSTANCE_TYPES.flatMap((t) =>
          Object.entries(RELATIONS).map(([key, subject]): Write => ({
            method: 'POST',
            api: 'schema',
            path: `/resources/${t}/relations`,
            body: { key, name: key, subject_resource: subject },
          })),
        ),
        // Roles first, `extends` after: an `extends` naming a role not yet written would be refused.
        ...topRoles.map((r): Write => ({
          method: 'POST',
          api: 'schema',
          path: '/roles',
          body: { key: r.key, name: r.key, permissions: r.permissions },
        })),
        ...resourceRoles.map((r): Write => ({
          method: 'POST',
          api: 'schema',
          path: `/resources/${r.type}/roles`,
          body: { key: r.key, name: r.key, permissions: r.permissions },
        })),
        ...topRoles
          .filter((r) => r.extends.length > 0)
          .map((r): Write => ({
            method: 'PATCH',
            api: 'schema',
            path: `/roles/${r.key}`,
            body: { extends: r.extends },
          })),
        ...resourceRoles
          .filter((r) => r.extends.length > 0)
          .map((r): Write => ({
            method: 'PATCH',
            api: 'schema',
            path: `/resources/${r.type}/roles/${r.key}`,
            body: { extends: r.extends },
          })),
        ...P.tenants.map((key): Write => ({
          method: 'POST',
          api: 'facts',
          path: '/tenants',
          body: { key, name: key },
        })),
        ...P.users.map((key): Write => ({ method: 'POST', api: 'facts', path: '/users', body: { key } })),
        ...instances.map((id): Write => ({
          method: 'POST',
          api: 'facts',
          path: '/resource_instances',
          body: { key: keyOf(id), resource: typeOf(id), tenant: tenantOf.get(id) },
        })),
        ...P.groups.map((id): Write => ({
          method: 'POST',
          api: 'schema',
          path: '/groups',
          body: { group_instance_key: keyOf(id), group_resource_type_key: 'team', group_tenant: tenantOf.get(id) },
        })),
        // After the groups: `member` (what `team#member` names) is made with the first group.
        // Only between roles the resources declare: `roster serve` also takes a top-level role of the key
        // at either end (repo/role-scope.ts), which the public model and the configuration have no word for.
        ...derivations.flatMap((d): Write[] => {
          const [roles, froms] = [declared(d.type), declared('folder')];
          if (roles.length === 0 || (d.via === 'parent' && froms.length === 0)) return [];
          const from = d.via === 'owner_team' ? 'member' : froms[d.from % froms.length];
          const body = {
            role: from,
            on_resource: RELATIONS[d.via as keyof typeof RELATIONS],
            linked_by_relation: d.via,
            ...(d.noDirect ? { when: { no_direct_roles_on_object: true } } : {}),
          };
          return [
            {
              method: 'POST',
              api: 'schema',
              path: `/resources/${d.type}/roles/${roles[d.role % roles.length]}/implicit_grants`,
              body,
            },
          ];
        }),
        ...facts,
      ];
      // A counterexample prints as the calls, one a line: enough to replay it by hand.
      return Object.assign(writes, { [fc.toStringMethod]: () => `\n${writes.map(describeWrite).join('\n')}\n` });
    });
  });

export interface Written {
  /** Calls the service took (2xx) and refused (4xx), in order. */
  taken: Write[];
  refused: { write: Write; status: number; body: unknown }[];
}

/** Sends the calls in order. A 5xx is never an answer to any input: it fails at once, naming the call. */
export async function writeEnv(http: HttpClient, writes: readonly Write[]): Promise<Written> {
  const out: Written = { taken: [], refused: [] };
  for (const w of writes) {
    const r = await http[w.api](w.method, w.path, w.body);
    if (r.status >= 500)
      throw new Error(
        `${w.method} ${w.path} ${JSON.stringify(w.body)} answered ${r.status}: ${JSON.stringify(r.body)}`,
      );
    if (r.status < 300) out.taken.push(w);
    else out.refused.push({ write: w, status: r.status, body: r.body });
  }
  return out;
}

/** A call as one line, for failure messages. */
export const describeWrite = (w: Write) => `${w.method} ${w.path} ${JSON.stringify(w.body)}`;
