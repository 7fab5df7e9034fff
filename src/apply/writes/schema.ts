import { pathOf, type ApiClient } from '../../api/index.js';
import type { Change } from '../../plan/change.js';
import { create, del, text } from './common.js';
import type { Writers } from './writer.js';

const actions = (list: string[] = []) => Object.fromEntries(list.map((a) => [a, {}]));

/** The built-in resource whose attributes are the tenants' (api-notes, "Attribute-based access"). */
const TENANT_RESOURCE = '__tenant';

/** The schema: resources, their roles, relations and derivations, top-level roles, attribute definitions. */
export const SCHEMA_WRITERS: Writers<
  | 'resource'
  | 'resource_role'
  | 'relation'
  | 'derivation'
  | 'role'
  | 'resource_attribute'
  | 'user_attribute'
  | 'tenant_attribute'
> = {
  async resource(client, c, f) {
    const { schema } = client.paths;
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
  },

  // The public resource-role operations (`/resources/{r}/roles`): permissions are the resource's actions.
  async resource_role(client, c, f) {
    const { schema } = client.paths;
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
  },

  // The public API has no update of a relation: a new subject deletes it (and what rests on it) first.
  async relation(client, c, f) {
    const { schema } = client.paths;
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
  },

  async derivation(client, c, f) {
    const path = pathOf(client.paths.schema, 'resources', f.resource, 'roles', f.role, 'implicit_grants');
    const rule = { role: f.from, on_resource: f.on, linked_by_relation: f.via };
    const when = { no_direct_roles_on_object: f.no_direct_roles_on_object === true };
    if (c.action === 'delete') return del(client, path, rule);
    // A changed `when` is the same rule with other settings: removed and added again.
    if (c.action === 'update') await del(client, path, rule);
    return void (await client.post(path, { ...rule, when }, { idempotent: true }));
  },

  // `extends` is always sent whole on an update: the change carries the role's whole `extends` (none when absent).
  async role(client, c, f) {
    const { schema } = client.paths;
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
  },

  // The public `ResourceAttributeCreate` / `ResourceAttributeUpdate`; users' at `/users/attributes`,
  // tenants' on the built-in resource `__tenant` (api-notes).
  resource_attribute: (client, c, f) =>
    writeAttribute(client, c, f, pathOf(client.paths.schema, 'resources', f.resource, 'attributes')),
  user_attribute: (client, c, f) => writeAttribute(client, c, f, `${client.paths.schema}/users/attributes`),
  tenant_attribute: (client, c, f) =>
    writeAttribute(client, c, f, pathOf(client.paths.schema, 'resources', TENANT_RESOURCE, 'attributes')),
};

async function writeAttribute(
  client: ApiClient,
  c: Change,
  f: { key: string; type: string; description?: string },
  base: string,
): Promise<void> {
  if (c.action === 'create')
    return create(() =>
      client.create(base, { key: f.key, type: f.type, ...(f.description ? { description: f.description } : {}) }),
    );
  if (c.action === 'update')
    return void (await client.patch(pathOf(base, f.key), { type: f.type, description: text(f.description) }));
  return del(client, pathOf(base, f.key));
}
