import { newId } from '../new-id.js';
import type { Queryable } from '../store/db.js';
import type { EnvContext } from '../context.js';
import { duplicate, httpError, notFound } from '../errors.js';
import { BUILT_IN_USER_ATTRIBUTES } from '../../access/conditions/index.js';
import { envFields, findKeyedOrNull, parseJson, stableUuid } from './common.js';
import type { Attributes, ResourceRow } from './resources.js';
import { bumpAbacStamp } from './abac-stamp.js';

/**
 * Attribute definitions (api-notes "Attribute-based access"). A resource's live in its row
 * (`resources.attributes`, what `ResourceCreate.attributes` writes and `ResourceRead.attributes` shows);
 * those of the built-in resources `__user` (user attributes) and `__tenant` (tenant attributes, our
 * decision) in `builtin_attributes`. The built-in user attributes are read-only.
 */
export const BUILT_IN_RESOURCES = ['__user', '__tenant'] as const;
export type BuiltInResource = (typeof BUILT_IN_RESOURCES)[number];
const BUILT_IN_TYPES: Record<string, string> = {
  key: 'string',
  email: 'string',
  first_name: 'string',
  last_name: 'string',
  roles: 'array',
};

export type AttributeOwner =
  { kind: 'builtin'; key: BuiltInResource; id: string } | { kind: 'resource'; row: ResourceRow };

export interface AttributeBody {
  key?: string;
  type?: string;
  description?: string | null;
}

interface BuiltinRow {
  id: string;
  key: string;
  type: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

const builtinResourceId = (envId: string, key: string) => stableUuid(`${envId}:resource:${key}`);

/** The resource whose attributes a path names: `__user`, `__tenant`, or a resource by key or id (404). */
export async function attributeOwner(q: Queryable, envId: string, keyOrId: string): Promise<AttributeOwner> {
  for (const key of BUILT_IN_RESOURCES)
    if (keyOrId === key || keyOrId === builtinResourceId(envId, key))
      return { kind: 'builtin', key, id: builtinResourceId(envId, key) };
  const row = await findKeyedOrNull<ResourceRow>(q, 'resources', envId, keyOrId);
  if (!row) throw notFound('resource', keyOrId);
  return { kind: 'resource', row };
}

const ownerKey = (o: AttributeOwner) => (o.kind === 'builtin' ? o.key : o.row.key);
const ownerId = (o: AttributeOwner) => (o.kind === 'builtin' ? o.id : o.row.id);

/** The public `ResourceAttributeRead`s of a resource, built-ins first, then in creation order. */
export async function listAttributes(q: Queryable, env: EnvContext, owner: AttributeOwner) {
  const read = (
    a: { id: string; key: string; type: string; description?: string | null; created_at: string; updated_at: string },
    builtIn: boolean,
  ) => ({
    id: a.id,
    key: a.key,
    type: a.type,
    ...(a.description ? { description: a.description } : {}),
    resource_id: ownerId(owner),
    resource_key: ownerKey(owner),
    built_in: builtIn,
    ...envFields(env),
    created_at: a.created_at,
    updated_at: a.updated_at,
  });
  if (owner.kind === 'resource') {
    const attrs = parseJson<Attributes & Record<string, { created_at?: string; updated_at?: string }>>(
      owner.row.attributes,
      {},
    );
    return Object.entries(attrs)
      .filter(([, v]) => typeof v?.type === 'string')
      .map(([k, v]) =>
        read(
          {
            id: v.id ?? stableUuid(`${owner.row.id}:attribute:${k}`),
            key: k,
            type: v.type,
            description: v.description,
            created_at: v.created_at ?? owner.row.created_at,
            updated_at: v.updated_at ?? owner.row.updated_at,
          },
          false,
        ),
      );
  }
  const rows = await q.all<BuiltinRow>(
    `SELECT * FROM builtin_attributes WHERE env_id = ? AND resource_key = ? ORDER BY created_at, id`,
    [env.envId, owner.key],
  );
  const builtIns = owner.key === '__user' ? await builtInUserAttributes(q, env.envId) : [];
  return [...builtIns.map((b) => read(b, true)), ...rows.map((r) => read(r, false))];
}

async function builtInUserAttributes(q: Queryable, envId: string) {
  const env = await q.get<{ created_at: string }>(`SELECT created_at FROM environments WHERE id = ?`, [envId]);
  const at = env?.created_at ?? new Date(0).toISOString();
  return BUILT_IN_USER_ATTRIBUTES.map((key) => ({
    id: stableUuid(`${envId}:__user:attribute:${key}`),
    key,
    type: BUILT_IN_TYPES[key],
    description: `Built in attribute for ${key}`,
    created_at: at,
    updated_at: at,
  }));
}

/** One attribute by key or id, or 404. */
export async function getAttribute(q: Queryable, env: EnvContext, owner: AttributeOwner, keyOrId: string) {
  const found = (await listAttributes(q, env, owner)).find((a) => a.key === keyOrId || a.id === keyOrId);
  if (!found) throw notFound(`attribute of ${ownerKey(owner)}`, keyOrId);
  return found;
}

/** Creates a definition: the key `type` is reserved (422), a taken key 409. */
export async function createAttribute(
  tx: Queryable,
  env: EnvContext,
  owner: AttributeOwner,
  b: AttributeBody,
  at: string,
) {
  const key = b.key!;
  if (key === 'type')
    throw httpError(
      'INVALID_INPUT',
      "the attribute key 'type' is reserved: conditions read resource.type as the resource's key",
    );
  const existing = await listAttributes(tx, env, owner);
  if (existing.some((a) => a.key === key)) throw duplicate(`attribute of ${ownerKey(owner)}`, key);
  const id = newId();
  if (owner.kind === 'builtin') {
    await tx.run(
      `INSERT INTO builtin_attributes (id, env_id, resource_key, key, type, description, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, env.envId, owner.key, key, b.type!, b.description ?? null, at, at],
    );
  } else {
    await editResourceAttributes(
      tx,
      owner,
      (attrs) => ({
        ...attrs,
        [key]: {
          id,
          type: b.type!,
          ...(b.description ? { description: b.description } : {}),
          created_at: at,
          updated_at: at,
        },
      }),
      at,
    );
  }
  await bumpAbacStamp(tx, env.envId);
  return getAttribute(tx, env, await reread(tx, env.envId, owner), key);
}

/** Changes `type` and/or `description` (each when given); built-ins are read-only (422). */
export async function updateAttribute(
  tx: Queryable,
  env: EnvContext,
  owner: AttributeOwner,
  keyOrId: string,
  b: AttributeBody,
  at: string,
) {
  const found = await getAttribute(tx, env, owner, keyOrId);
  if (found.built_in)
    throw httpError('INVALID_INPUT', `'${found.key}' is a built-in user attribute: it cannot be changed`);
  if (owner.kind === 'builtin') {
    await tx.run(`UPDATE builtin_attributes SET type = ?, description = ?, updated_at = ? WHERE id = ?`, [
      b.type ?? found.type,
      b.description !== undefined ? b.description : (found.description ?? null),
      at,
      found.id,
    ]);
  } else {
    await editResourceAttributes(
      tx,
      owner,
      (attrs) => {
        const before = attrs[found.key] as Attributes[string] & { created_at?: string };
        const description = b.description !== undefined ? b.description : before.description;
        return {
          ...attrs,
          [found.key]: {
            id: found.id,
            type: b.type ?? before.type,
            ...(description ? { description } : {}),
            created_at: before.created_at ?? found.created_at,
            updated_at: at,
          },
        };
      },
      at,
    );
  }
  await bumpAbacStamp(tx, env.envId);
  return getAttribute(tx, env, await reread(tx, env.envId, owner), found.key);
}

/**
 * Deletes a definition (204 even when a condition uses it: that condition then evaluates as undefined,
 * as the public API describes). Built-ins: 422.
 */
export async function deleteAttribute(
  tx: Queryable,
  env: EnvContext,
  owner: AttributeOwner,
  keyOrId: string,
  at: string,
) {
  const found = await getAttribute(tx, env, owner, keyOrId);
  if (found.built_in)
    throw httpError('INVALID_INPUT', `'${found.key}' is a built-in user attribute: it cannot be deleted`);
  if (owner.kind === 'builtin') await tx.run(`DELETE FROM builtin_attributes WHERE id = ?`, [found.id]);
  else
    await editResourceAttributes(
      tx,
      owner,
      (attrs) => Object.fromEntries(Object.entries(attrs).filter(([k]) => k !== found.key)),
      at,
    );
  await bumpAbacStamp(tx, env.envId);
}

async function editResourceAttributes(
  tx: Queryable,
  owner: AttributeOwner & { kind: 'resource' },
  edit: (a: Record<string, unknown>) => Record<string, unknown>,
  at: string,
) {
  // Read-modify-write of one row's JSON: held against other processes (PostgreSQL) for the transaction.
  await tx.lock?.(`resource-attributes:${owner.row.id}`);
  const row = await tx.get<{ attributes: string }>(`SELECT attributes FROM resources WHERE id = ?`, [owner.row.id]);
  if (!row) throw notFound('resource', owner.row.key);
  await tx.run(`UPDATE resources SET attributes = ?, updated_at = ? WHERE id = ?`, [
    JSON.stringify(edit(parseJson(row.attributes, {}))),
    at,
    owner.row.id,
  ]);
}

async function reread(q: Queryable, envId: string, owner: AttributeOwner): Promise<AttributeOwner> {
  return owner.kind === 'builtin' ? owner : attributeOwner(q, envId, owner.row.id);
}

/** Which attribute keys have a definition: `__user` (built-ins included), `__tenant`, and each resource's. */
export interface DefinedAttributes {
  user: Set<string>;
  tenant: Set<string>;
  byResource: Map<string, Set<string>>;
}

export async function definedAttributes(q: Queryable, envId: string): Promise<DefinedAttributes> {
  const builtin = await q.all<{ resource_key: string; key: string }>(
    `SELECT resource_key, key FROM builtin_attributes WHERE env_id = ?`,
    [envId],
  );
  const resources = await q.all<{ key: string; attributes: string }>(
    `SELECT key, attributes FROM resources WHERE env_id = ?`,
    [envId],
  );
  return {
    user: new Set([
      ...BUILT_IN_USER_ATTRIBUTES,
      ...builtin.filter((b) => b.resource_key === '__user').map((b) => b.key),
    ]),
    tenant: new Set(builtin.filter((b) => b.resource_key === '__tenant').map((b) => b.key)),
    byResource: new Map(
      resources.map((r) => [
        r.key,
        new Set(
          Object.entries(parseJson<Attributes>(r.attributes, {}))
            .filter(([, v]) => typeof v?.type === 'string')
            .map(([k]) => k),
        ),
      ]),
    ),
  };
}
