import type { ApiClient } from '../api/index.js';
import { pathOf } from '../api/index.js';
import { ApiError } from '../errors.js';
import type { Change } from '../plan/types.js';
import { MEMBER_ROLE } from '../plan/live.js';

type F = Record<string, any>;

/** The role-assignment body of an `assignment` or `member` change (memberships are `member` on the group). */
export function assignmentBody(c: Change): F {
  const f = (c.action === 'delete' ? c.before : c.after) as F;
  if (c.kind === 'member') return { user: f.user, role: MEMBER_ROLE, tenant: f.tenant, resource_instance: f.group };
  return { user: f.user, role: f.role, tenant: f.tenant, ...(f.on ? { resource_instance: f.on } : {}) };
}

/** Deleting what is already gone (removed by a cascade, or by an earlier interrupted apply) is done. */
async function del(client: ApiClient, path: string, body?: unknown): Promise<void> {
  try {
    await client.delete(path, body === undefined ? {} : { body });
  } catch (err) {
    if (err instanceof ApiError && err.info.status === 404) return;
    throw err;
  }
}

const actions = (list: string[] = []) => Object.fromEntries(list.map((a) => [a, {}]));

/**
 * Carries out one change with the public API's forms (plural `/groups`, `/v2/facts/.../resource_instances`).
 * Creates go through `client.create`, so a retried create that meets 409 counts as done.
 */
export async function applyOne(client: ApiClient, c: Change): Promise<void> {
  const { schema, facts, elements } = client.paths;
  const f = (c.action === 'delete' ? c.before : c.after) as F;
  switch (c.kind) {
    case 'resource':
      if (c.action === 'create') return void (await client.create(`${schema}/resources`, { key: f.key, name: f.name, description: f.description, actions: actions(f.actions) }));
      if (c.action === 'update') return void (await client.patch(pathOf(schema, 'resources', f.key), { name: f.name, description: f.description ?? null, actions: actions(f.actions) }));
      return del(client, pathOf(schema, 'resources', f.key));
    case 'role':
      if (c.action === 'create') return void (await client.create(`${schema}/roles`, { key: f.key, name: f.name, description: f.description, permissions: f.permissions ?? [] }));
      if (c.action === 'update') return void (await client.patch(pathOf(schema, 'roles', f.key), { name: f.name, description: f.description ?? null, permissions: f.permissions ?? [] }));
      return del(client, pathOf(schema, 'roles', f.key));
    case 'tenant':
      if (c.action === 'create') return void (await client.create(`${facts}/tenants`, { key: f.key, name: f.name, description: f.description, attributes: f.attributes }));
      if (c.action === 'update') return void (await client.patch(pathOf(facts, 'tenants', f.key), { name: f.name, description: f.description ?? null, attributes: f.attributes ?? {} }));
      return del(client, pathOf(facts, 'tenants', f.key));
    case 'user': {
      const fields = { email: f.email ?? null, first_name: f.first_name ?? null, last_name: f.last_name ?? null, attributes: f.attributes ?? {} };
      // PUT upserts: safe to retry, and converges after an interrupted apply.
      if (c.action === 'create') return void (await client.put(pathOf(facts, 'users', f.key), { key: f.key, ...fields }));
      if (c.action === 'update') return void (await client.patch(pathOf(facts, 'users', f.key), fields));
      return del(client, pathOf(facts, 'users', f.key));
    }
    case 'tenant_user':
      if (c.action === 'create') return void (await client.post(pathOf(facts, 'tenants', f.tenant, 'users'), { key: f.user }, { idempotent: true }));
      return del(client, pathOf(facts, 'tenants', f.tenant, 'users', f.user));
    case 'instance':
      if (c.action === 'create') {
        if (c.replaces) await del(client, pathOf(facts, 'resource_instances', `${f.resource}:${f.key}`));
        return void (await client.create(`${facts}/resource_instances`, { key: f.key, resource: f.resource, tenant: f.tenant, attributes: f.attributes }));
      }
      if (c.action === 'update') return void (await client.patch(pathOf(facts, 'resource_instances', `${f.resource}:${f.key}`), { attributes: f.attributes ?? {} }));
      return del(client, pathOf(facts, 'resource_instances', `${f.resource}:${f.key}`));
    case 'group':
      if (c.action === 'create') {
        if (c.replaces) await del(client, pathOf(schema, 'groups', `${f.type}:${f.key}`));
        return void (await client.create(`${schema}/groups`, { group_instance_key: f.key, group_tenant: f.tenant, group_resource_type_key: f.type }));
      }
      return del(client, pathOf(schema, 'groups', `${f.type}:${f.key}`));
    case 'assignment':
    case 'member':
      if (c.action === 'create') return void (await client.create(`${facts}/role_assignments`, assignmentBody(c)));
      return del(client, `${facts}/role_assignments`, assignmentBody(c));
    case 'link':
      if (c.action === 'create') return void (await client.put(pathOf(schema, 'groups', f.group, 'assign_group'), { group_instance_key: f.parent }));
      return del(client, pathOf(schema, 'groups', f.group, 'assign_group'), { group_instance_key: f.parent });
    case 'grant': {
      const i = (f.on as string).indexOf(':');
      const body = { role: f.role, resource: f.on.slice(0, i), resource_instance: f.on.slice(i + 1), tenant: f.tenant };
      if (c.action === 'create') return void (await client.post(pathOf(schema, 'groups', f.group, 'roles'), body, { idempotent: true }));
      return del(client, pathOf(schema, 'groups', f.group, 'roles'), body);
    }
    case 'access_requests': {
      const levels = { LEVEL_1: f.reviewer_roles ?? [] };
      if (c.action === 'create') return void (await client.create(`${elements}/config`, { key: f.key, name: f.name, elements_type: 'user_management', roles_to_levels: levels }));
      if (c.action === 'update') return void (await client.patch(pathOf(elements, 'config', f.key), { name: f.name, roles_to_levels: levels }));
      return del(client, pathOf(elements, 'config', f.key));
    }
  }
}
