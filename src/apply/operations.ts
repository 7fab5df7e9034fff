import type { ApiClient } from '../api/index.js';
import { pathOf } from '../api/index.js';
import { expectFields, ID, optional, STRING } from '../api/answer.js';
import { AUTOGEN_SET_PREFIX } from '../types/abac.js';
import { CONFIG_SHAPE, levelsToWrite, type LevelsRead } from '../api/levels.js';
import { ApiError, InternalError } from '../errors.js';
import { fieldsOf, type Change, type ChangeFields } from '../plan/change.js';
import { MEMBER_ROLE } from '../types/names.js';
import { splitRef } from '../types/refs.js';

type F = Record<string, any>;

/** The role-assignment body of an `assignment` or `member` change (memberships are `member` on the group). */
export function assignmentBody(c: Change): F {
  const { kind, fields: f } = fieldsOf(c);
  if (kind === 'member') return { user: f.user, role: MEMBER_ROLE, tenant: f.tenant, resource_instance: f.group };
  if (kind !== 'assignment') throw new InternalError(`${c.id} is not a role assignment`);
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

/**
 * Creating what already exists is done: another apply of the same configuration running at the same
 * time (or an earlier one whose answer was lost) created it. Whether it holds what this plan wanted is
 * checked after the apply (verify.ts), which reports a conflict when it does not.
 */
export class AlreadyThere extends Error {}

async function create(send: () => Promise<unknown>): Promise<void> {
  try {
    // `client.create` resolves {alreadyExisted} for a 409 that met our own earlier attempt: done too.
    await send();
  } catch (err) {
    if (
      err instanceof ApiError &&
      err.info.status === 409 &&
      (err.info.errorCode === undefined || err.info.errorCode === 'DUPLICATE_ENTITY')
    )
      throw new AlreadyThere();
    throw err;
  }
}

const actions = (list: string[] = []) => Object.fromEntries(list.map((a) => [a, {}]));

/**
 * The public schemas type descriptions, emails and names as strings, never `null` (api-notes, "Client
 * tolerance"): an absent optional field is left out of a create, and cleared with `''` on an update (the
 * reader treats `''` as absent).
 */
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A user's fields as the public `UserCreate` takes them: absent ones left out. */
export function userBody(f: ChangeFields['user']): F {
  const body: F = { key: f.key, attributes: f.attributes ?? {} };
  for (const k of ['email', 'first_name', 'last_name'] as const) if (typeof f[k] === 'string') body[k] = f[k];
  return body;
}

/** A relationship tuple as the public `RelationshipTupleCreate`: the tenant lets the service create a missing instance. */
export const tupleBody = (f: ChangeFields['tuple']) => ({
  subject: f.subject,
  relation: f.relation,
  object: f.object,
  tenant: f.tenant,
});

/**
 * A configuration's levels after an update to `f.reviewer_roles`: the public PATCH replaces
 * `roles_to_levels` whole, so the configuration is read first and only its reviewer roles change
 * (levels.ts: a LEVEL_2 reviewer stays at LEVEL_2, LEVEL_3 and LEVEL_4 are kept).
 */
async function levelsAfterUpdate(
  client: ApiClient,
  path: string,
  f: ChangeFields['access_requests'],
): Promise<Record<string, string[]>> {
  const live = await client.get<{ roles_to_levels?: LevelsRead | null }>(path, { expect: expectFields(CONFIG_SHAPE) });
  return levelsToWrite(live.roles_to_levels, f.reviewer_roles ?? []);
}

/**
 * Carries out one change with the public API's forms (plural `/groups`, `/v2/facts/.../resource_instances`).
 * A create that meets 409 throws AlreadyThere, which the apply counts as done.
 */
export async function applyOne(client: ApiClient, c: Change): Promise<void> {
  const { schema, facts, elements } = client.paths;
  const { kind, fields: f } = fieldsOf(c);
  switch (kind) {
    case 'resource':
      if (c.action === 'create')
        return create(() =>
          client.create(`${schema}/resources`, {
            key: f.key,
            name: f.name,
            description: f.description,
            actions: actions(f.actions),
          }),
        );
      if (c.action === 'update')
        return void (await client.patch(pathOf(schema, 'resources', f.key), {
          name: f.name,
          description: text(f.description),
          actions: actions(f.actions),
        }));
      return del(client, pathOf(schema, 'resources', f.key));
    case 'resource_role': {
      // The public resource-role operations (`/resources/{r}/roles`): permissions are the resource's actions.
      const body = {
        name: f.name,
        description: f.description,
        permissions: f.permissions ?? [],
        extends: f.extends ?? [],
      };
      if (c.action === 'create')
        return create(() => client.create(pathOf(schema, 'resources', f.resource, 'roles'), { key: f.key, ...body }));
      if (c.action === 'update')
        return void (await client.patch(pathOf(schema, 'resources', f.resource, 'roles', f.key), {
          ...body,
          description: text(f.description),
        }));
      return del(client, pathOf(schema, 'resources', f.resource, 'roles', f.key));
    }
    case 'relation': {
      // The public API has no update of a relation: a new subject deletes it (and what rests on it) first.
      const path = pathOf(schema, 'resources', f.resource, 'relations');
      if (c.action === 'delete') return del(client, pathOf(schema, 'resources', f.resource, 'relations', f.key));
      if (c.action === 'create' && c.replaces)
        await del(client, pathOf(schema, 'resources', f.resource, 'relations', f.key));
      return create(() =>
        client.create(path, {
          key: f.key,
          name: f.name,
          subject_resource: f.subject,
          ...(f.description ? { description: f.description } : {}),
        }),
      );
    }
    case 'derivation': {
      const path = pathOf(schema, 'resources', f.resource, 'roles', f.role, 'implicit_grants');
      const rule = { role: f.from, on_resource: f.on, linked_by_relation: f.via };
      const when = { no_direct_roles_on_object: f.no_direct_roles_on_object === true };
      if (c.action === 'delete') return del(client, path, rule);
      // A changed `when` is the same rule with other settings: removed and added again.
      if (c.action === 'update') await del(client, path, rule);
      return void (await client.post(path, { ...rule, when }, { idempotent: true }));
    }
    case 'tuple':
      if (c.action === 'create')
        return void (await client.post(`${facts}/relationship_tuples`, tupleBody(f), { idempotent: true }));
      return del(client, `${facts}/relationship_tuples`, {
        subject: f.subject,
        relation: f.relation,
        object: f.object,
      });
    case 'role':
      // `extends` is always sent whole on an update: the change carries the role's whole `extends` (none when absent).
      if (c.action === 'create')
        return create(() =>
          client.create(`${schema}/roles`, {
            key: f.key,
            name: f.name,
            description: f.description,
            permissions: f.permissions ?? [],
            ...(f.extends?.length ? { extends: f.extends } : {}),
          }),
        );
      if (c.action === 'update')
        return void (await client.patch(pathOf(schema, 'roles', f.key), {
          name: f.name,
          description: text(f.description),
          permissions: f.permissions ?? [],
          extends: f.extends ?? [],
        }));
      return del(client, pathOf(schema, 'roles', f.key));
    case 'tenant':
      if (c.action === 'create')
        return create(() =>
          client.create(`${facts}/tenants`, {
            key: f.key,
            name: f.name,
            description: f.description,
            attributes: f.attributes,
          }),
        );
      if (c.action === 'update')
        return void (await client.patch(pathOf(facts, 'tenants', f.key), {
          name: f.name,
          description: text(f.description),
          attributes: f.attributes ?? {},
        }));
      return del(client, pathOf(facts, 'tenants', f.key));
    case 'user':
      // PUT replaces the whole user (fields left out are cleared), so it serves both create and update: safe
      // to retry, and converges after an interrupted apply.
      if (c.action !== 'delete') return void (await client.put(pathOf(facts, 'users', f.key), userBody(f)));
      return del(client, pathOf(facts, 'users', f.key));
    case 'tenant_user':
      if (c.action === 'create')
        return create(() =>
          client.post(pathOf(facts, 'tenants', f.tenant, 'users'), { key: f.user }, { idempotent: true }),
        );
      return del(client, pathOf(facts, 'tenants', f.tenant, 'users', f.user));
    case 'instance':
      if (c.action === 'create') {
        if (c.replaces) await del(client, pathOf(facts, 'resource_instances', `${f.resource}:${f.key}`));
        return create(() =>
          client.create(`${facts}/resource_instances`, {
            key: f.key,
            resource: f.resource,
            tenant: f.tenant,
            attributes: f.attributes,
          }),
        );
      }
      if (c.action === 'update')
        return void (await client.patch(pathOf(facts, 'resource_instances', `${f.resource}:${f.key}`), {
          attributes: f.attributes ?? {},
        }));
      return del(client, pathOf(facts, 'resource_instances', `${f.resource}:${f.key}`));
    case 'group':
      if (c.action === 'create') {
        if (c.replaces) await del(client, pathOf(schema, 'groups', `${f.type}:${f.key}`));
        return create(() =>
          client.create(`${schema}/groups`, {
            group_instance_key: f.key,
            group_tenant: f.tenant,
            group_resource_type_key: f.type,
          }),
        );
      }
      return del(client, pathOf(schema, 'groups', `${f.type}:${f.key}`));
    case 'assignment':
    case 'member':
      if (c.action === 'create') return create(() => client.create(`${facts}/role_assignments`, assignmentBody(c)));
      return del(client, `${facts}/role_assignments`, assignmentBody(c));
    case 'link':
      if (c.action === 'create')
        return void (await client.put(pathOf(schema, 'groups', f.group, 'assign_group'), {
          group_instance_key: f.parent,
        }));
      return del(client, pathOf(schema, 'groups', f.group, 'assign_group'), { group_instance_key: f.parent });
    case 'grant': {
      const on = splitRef(f.on);
      const body = { role: f.role, resource: on.type, resource_instance: on.key, tenant: f.tenant };
      if (c.action === 'create')
        return create(() => client.post(pathOf(schema, 'groups', f.group, 'roles'), body, { idempotent: true }));
      return del(client, pathOf(schema, 'groups', f.group, 'roles'), body);
    }
    case 'access_requests':
      if (c.action === 'create') {
        return create(() =>
          client.create(`${elements}/config`, {
            key: f.key,
            name: f.name,
            elements_type: 'user_management',
            settings: {},
            roles_to_levels: { LEVEL_1: f.reviewer_roles ?? [] },
          }),
        );
      }
      if (c.action === 'update') {
        const path = pathOf(elements, 'config', f.key);
        return void (await client.patch(path, {
          name: f.name,
          roles_to_levels: await levelsAfterUpdate(client, path, f),
        }));
      }
      // The public delete of an element configuration lives at `/v2/elements/{p}/{e}/{id}` (no `config`
      // segment); `/config/{id}` has GET and PATCH only.
      return del(client, pathOf(elements, f.key));
    case 'resource_attribute':
    case 'user_attribute':
    case 'tenant_attribute': {
      // The public `ResourceAttributeCreate` / `ResourceAttributeUpdate`; users' at `/users/attributes`,
      // tenants' on the built-in resource `__tenant` (api-notes).
      const base =
        kind === 'user_attribute'
          ? `${schema}/users/attributes`
          : pathOf(
              schema,
              'resources',
              kind === 'tenant_attribute' ? TENANT_RESOURCE : (f as ChangeFields['resource_attribute']).resource,
              'attributes',
            );
      if (c.action === 'create')
        return create(() =>
          client.create(base, { key: f.key, type: f.type, ...(f.description ? { description: f.description } : {}) }),
        );
      if (c.action === 'update')
        return void (await client.patch(pathOf(base, f.key), { type: f.type, description: text(f.description) }));
      return del(client, pathOf(base, f.key));
    }
    case 'condition_set':
      if (c.action === 'delete') return del(client, pathOf(schema, 'condition_sets', f.key));
      if (c.action === 'update') {
        // One update: the public PATCH overwrites each field given (`parent_id` cannot be removed: the
        // planner replaces a set leaving its parent).
        return void (await client.patch(pathOf(schema, 'condition_sets', f.key), {
          name: f.name,
          description: text(f.description),
          conditions: f.conditions ?? {},
          ...(f.parent ? { parent_id: f.parent } : {}),
        }));
      }
      if (c.replaces) await deleteSetTree(client, f.key);
      return create(() => client.create(`${schema}/condition_sets`, conditionSetBody(f)));
    case 'set_rule':
      if (c.action === 'create')
        return void (await client.post(`${facts}/set_rules`, setRuleBody(f), { idempotent: true }));
      // Deleting an absent rule is skipped by the service (204), not an error.
      return del(client, `${facts}/set_rules`, setRuleBody(f));
  }
}

/** The built-in resource whose attributes are the tenants' (api-notes, "Attribute-based access"). */
const TENANT_RESOURCE = '__tenant';

/** The public `ConditionSetCreate`: the base resource and the parent by key (`resource_id`, `parent_id` take keys or ids). */
export function conditionSetBody(f: ChangeFields['condition_set']): F {
  return {
    key: f.key,
    name: f.name,
    type: f.type,
    ...(f.description ? { description: f.description } : {}),
    conditions: f.conditions ?? {},
    ...(f.resource ? { resource_id: f.resource } : {}),
    ...(f.parent ? { parent_id: f.parent } : {}),
  };
}

/**
 * The public `ConditionSetRuleCreate` / `ConditionSetRuleRemove`. A rule on a role's or a resource's own
 * set (`__autogen_<key>`) names the role or resource with `is_role` / `is_resource`, the documented form.
 */
export function setRuleBody(f: ChangeFields['set_rule']): F {
  const role = f.user_set.startsWith(AUTOGEN_SET_PREFIX) ? f.user_set.slice(AUTOGEN_SET_PREFIX.length) : undefined;
  const resource = f.resource_set.startsWith(AUTOGEN_SET_PREFIX)
    ? f.resource_set.slice(AUTOGEN_SET_PREFIX.length)
    : undefined;
  return {
    user_set: role ?? f.user_set,
    permission: f.permission,
    resource_set: resource ?? f.resource_set,
    ...(role !== undefined ? { is_role: true } : {}),
    ...(resource !== undefined ? { is_resource: true } : {}),
  };
}

/**
 * Deletes a set that is replaced (its type, resource or parent cannot be updated). The service refuses to
 * delete a set with child sets (409): those (which the plan makes again after it, or deletes) are read
 * (`GET …/descendants`) and deleted deepest first. Only for a replacement: a plain deletion is ordered by
 * the plan (children first).
 */
async function deleteSetTree(client: ApiClient, key: string): Promise<void> {
  const path = pathOf(client.paths.schema, 'condition_sets', key);
  try {
    return await del(client, path);
  } catch (err) {
    if (!(err instanceof ApiError && err.info.status === 409)) throw err;
  }
  const below = await client.listAll<{ id: string | number; key: string; parent_id?: string | number | null }>(
    pathOf(path, 'descendants'),
    {
      perPage: 100,
      item: { id: ID, key: STRING, parent_id: optional(ID) },
    },
  );
  const byId = new Map(below.map((s) => [String(s.id), s]));
  const depth = (s: (typeof below)[number]): number => {
    let d = 0;
    for (
      let p = s.parent_id;
      p !== undefined && p !== null && byId.has(String(p)) && d <= below.length;
      p = byId.get(String(p))!.parent_id
    )
      d++;
    return d;
  };
  for (const s of [...below].sort((a, b) => depth(b) - depth(a)))
    await del(client, pathOf(client.paths.schema, 'condition_sets', s.key));
  await del(client, path);
}
