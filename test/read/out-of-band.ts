/**
 * Random changes another tool makes through the public API between a snapshot and a plan: creates,
 * updates and deletes of every kind of object (resources, roles and their permissions, resource roles,
 * derivations, relations, tenants, users, attribute definitions and values, instances, role
 * assignments, groups, memberships, links, group roles, tuples, condition sets, set rules). Each is
 * drawn as a kind and indexes, and made a call against what the environment holds when it is sent
 * (`callOf`): "the second user", not a key that may not exist. Refused calls are allowed: they change nothing.
 */
import fc from 'fast-check';
import type { LiveState } from '../../src/types/live.js';
import { PUBLIC_POOLS } from '../access/public-env.js';

export interface OobCall {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  api: 'schema' | 'facts';
  path: string;
  body?: unknown;
}

const KINDS = [
  'resource:create',
  'resource:update',
  'resource:delete',
  'role:create',
  'role:update',
  'role:delete',
  'role-permission:add',
  'role-permission:remove',
  'resource-role:create',
  'resource-role:delete',
  'derivation:add',
  'derivation:remove',
  'relation:delete',
  'tenant:create',
  'tenant:update',
  'tenant:delete',
  'user:create',
  'user:update',
  'user:delete',
  'user-attribute:create',
  'user-attribute:delete',
  'instance:create',
  'instance:update',
  'instance:delete',
  'assignment:create',
  'assignment:delete',
  'group:create',
  'group:delete',
  'membership:add',
  'membership:remove',
  'link:add',
  'group-role:add',
  'tuple:create',
  'tuple:delete',
  'condition-set:update',
  'condition-set:delete',
  'set-rule:delete',
] as const;
export type OobKind = (typeof KINDS)[number];

export interface OobDraw {
  kind: OobKind;
  a: number;
  b: number;
  c: number;
}

export const arbOutOfBand: fc.Arbitrary<OobDraw[]> = fc.array(
  fc.record({ kind: fc.constantFrom(...KINDS), a: fc.nat(50), b: fc.nat(50), c: fc.nat(50) }),
  { minLength: 1, maxLength: 6 },
);

const pick = <T>(list: readonly T[], i: number): T | undefined => (list.length ? list[i % list.length] : undefined);
const typeOf = (ref: string) => ref.slice(0, ref.indexOf(':'));
const keyOf = (ref: string) => ref.slice(ref.indexOf(':') + 1);

/** The call a draw makes against `live` (the state before it); undefined when there is nothing to act on. */
export function callOf(d: OobDraw, live: LiveState): OobCall | undefined {
  return draft(d, live) || undefined;
}

function draft(d: OobDraw, live: LiveState): OobCall | undefined | '' | false | null {
  const resources = [...live.resources.keys()];
  const roles = [...live.roles.keys()];
  const tenants = [...live.tenants.keys()];
  const users = [...live.users.keys()];
  const instances = [...live.resourceInstances.keys()];
  const groups = [...live.groups.keys()];
  const resource = pick(resources, d.a);
  const tenant = pick(tenants, d.b) ?? 't0';
  const user = pick(users, d.c) ?? 'u0';
  const instance = pick(instances, d.a);
  const group = pick(groups, d.b);
  const S = (method: OobCall['method'], path: string, body?: unknown): OobCall => ({
    method,
    api: 'schema',
    path,
    body,
  });
  const F = (method: OobCall['method'], path: string, body?: unknown): OobCall => ({
    method,
    api: 'facts',
    path,
    body,
  });
  const rr = resource ? (live.resources.get(resource)!.roles ?? []) : [];
  switch (d.kind) {
    case 'resource:create':
      return S('POST', '/resources', { key: `page${d.a % 3}`, name: 'page', actions: { read: {}, edit: {} } });
    case 'resource:update':
      return resource && S('PATCH', `/resources/${resource}`, { name: `renamed ${d.b}`, description: `d${d.c}` });
    case 'resource:delete':
      return resource && S('DELETE', `/resources/${resource}`);
    case 'role:create':
      return S('POST', '/roles', {
        key: `r${d.a % 4}`,
        name: 'r',
        permissions: [`document:${pick(PUBLIC_POOLS.actions, d.b)}`],
      });
    case 'role:update':
      return pick(roles, d.a) && S('PATCH', `/roles/${pick(roles, d.a)}`, { description: `x${d.b}` });
    case 'role:delete':
      return pick(roles, d.a) && S('DELETE', `/roles/${pick(roles, d.a)}`);
    case 'role-permission:add':
    case 'role-permission:remove': {
      const role = pick(roles, d.a);
      const permissions = [`${pick(['document', 'folder'], d.b)}:${pick(PUBLIC_POOLS.actions, d.c)}`];
      const method = d.kind === 'role-permission:add' ? 'POST' : 'DELETE';
      return role && S(method, `/roles/${role}/permissions`, { permissions });
    }
    case 'resource-role:create':
      return resource && S('POST', `/resources/${resource}/roles`, { key: `x${d.b % 3}`, name: 'x', permissions: [] });
    case 'resource-role:delete': {
      const role = pick(rr, d.b);
      return resource && role && S('DELETE', `/resources/${resource}/roles/${role.key}`);
    }
    case 'derivation:add':
    case 'derivation:remove': {
      const role = pick(rr, d.b);
      const from = pick(live.resources.get('folder')?.roles ?? [], d.c);
      const body = { role: from?.key ?? 'viewer', on_resource: 'folder', linked_by_relation: 'parent' };
      const method = d.kind === 'derivation:add' ? 'POST' : 'DELETE';
      return resource && role && S(method, `/resources/${resource}/roles/${role.key}/implicit_grants`, body);
    }
    case 'relation:delete': {
      const relation = pick(live.resources.get(resource ?? '')?.relations ?? [], d.b);
      return relation && S('DELETE', `/resources/${resource}/relations/${relation.key}`);
    }
    case 'tenant:create':
      return F('POST', '/tenants', { key: `t${2 + (d.a % 2)}`, name: 'new tenant' });
    case 'tenant:update':
      return F('PATCH', `/tenants/${tenant}`, { name: `T ${d.a}`, attributes: { region: `r${d.c % 3}` } });
    case 'tenant:delete':
      return F('DELETE', `/tenants/${tenant}`);
    case 'user:create':
      return F('POST', '/users', { key: `n${d.a % 3}`, email: `n${d.a % 3}@example.test` });
    case 'user:update':
      return F('PATCH', `/users/${user}`, { email: `${user}.${d.a}@example.test`, attributes: { level: d.b % 5 } });
    case 'user:delete':
      return F('DELETE', `/users/${user}`);
    case 'user-attribute:create':
      return S('POST', '/users/attributes', { key: `extra${d.a % 2}`, type: 'string' });
    case 'user-attribute:delete': {
      const attribute = pick([...live.userAttributes.keys()], d.a);
      return attribute && S('DELETE', `/users/attributes/${attribute}`);
    }
    case 'instance:create':
      return F('POST', '/resource_instances', {
        key: `n${d.a % 3}`,
        resource: pick(['document', 'folder'], d.b),
        tenant,
      });
    case 'instance:update':
      return instance && F('PATCH', `/resource_instances/${instance}`, { attributes: { size: d.b } });
    case 'instance:delete':
      return instance && F('DELETE', `/resource_instances/${instance}`);
    case 'assignment:create': {
      const on = d.c % 2 === 0 ? instance : undefined;
      const role = on
        ? (pick(live.resources.get(typeOf(on))?.roles ?? [], d.b)?.key ?? 'viewer')
        : (pick(roles, d.b) ?? 'viewer');
      const t = on ? live.resourceInstances.get(on)!.tenant : tenant;
      return F('POST', '/role_assignments', { user, role, tenant: t, ...(on ? { resource_instance: on } : {}) });
    }
    case 'assignment:delete': {
      const holder = pick(
        users.filter((u) => live.users.get(u)!.roles.length > 0),
        d.a,
      );
      const r = holder && pick(live.users.get(holder)!.roles, d.b);
      return (
        r &&
        F('DELETE', '/role_assignments', {
          user: holder,
          role: r.role,
          tenant: r.tenant,
          ...(r.on ? { resource_instance: r.on } : {}),
        })
      );
    }
    case 'group:create':
      return S('POST', '/groups', {
        group_instance_key: `g${5 + (d.a % 2)}`,
        group_resource_type_key: 'team',
        group_tenant: tenant,
      });
    case 'group:delete':
      return group && S('DELETE', `/groups/${group}`);
    case 'membership:add':
      return group && S('PUT', `/groups/${group}/users/${user}`, { tenant: live.groups.get(group)!.tenant });
    case 'membership:remove': {
      const member = group && pick(live.groups.get(group)!.members, d.c);
      return member && S('DELETE', `/groups/${group}/users/${member}`, { tenant: live.groups.get(group!)!.tenant });
    }
    case 'link:add': {
      const parent = pick(groups, d.c);
      return group && parent && S('PUT', `/groups/${group}/assign_group`, { group_instance_key: parent });
    }
    case 'group-role:add': {
      const on = pick(instances, d.c);
      const role = on && pick(live.resources.get(typeOf(on))?.roles ?? [], d.a);
      return (
        group &&
        on &&
        role &&
        S('POST', `/groups/${group}/roles`, {
          role: role.key,
          resource: typeOf(on),
          resource_instance: keyOf(on),
          tenant: live.groups.get(group)!.tenant,
        })
      );
    }
    case 'tuple:create': {
      const subject = pick([...instances.filter((i) => i.startsWith('folder:')), ...groups], d.b);
      const object = pick(instances, d.c);
      const relation = subject && typeOf(subject) === 'team' ? 'owner_team' : 'parent';
      return subject && object && F('POST', '/relationship_tuples', { subject, relation, object });
    }
    case 'tuple:delete': {
      const holders = instances.filter((i) => (live.resourceInstances.get(i)!.relations ?? []).length > 0);
      const object = pick(holders, d.a);
      const t = object && pick(live.resourceInstances.get(object)!.relations!, d.b);
      return t && F('DELETE', '/relationship_tuples', { subject: t.subject, relation: t.relation, object });
    }
    case 'condition-set:update': {
      const set = pick([...live.conditionSets.keys()], d.a);
      return set && S('PATCH', `/condition_sets/${set}`, { name: `renamed ${d.b}` });
    }
    case 'condition-set:delete': {
      const set = pick([...live.conditionSets.keys()], d.a);
      return set && S('DELETE', `/condition_sets/${set}`);
    }
    case 'set-rule:delete': {
      const rule = pick([...live.setRules.values()], d.a);
      return (
        rule &&
        F('DELETE', '/set_rules', {
          user_set: rule.userSet,
          permission: `${rule.resource}:${rule.action}`,
          resource_set: rule.resourceSet,
        })
      );
    }
  }
}
