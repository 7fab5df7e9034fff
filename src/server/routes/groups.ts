import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { httpError } from '../errors.js';
import { GROUP_TYPE } from '../../rules/names.js';
import { INSTANCE_REF, KEY, USER_KEY, strictObject } from '../schemas.js';
import type { Queryable } from '../store/db.js';
import { groupReads, type GroupRow } from '../repo/groups.js';
import { createGroup, deleteGroup, writeGroupGrant, writeGroupLink, writeMembership } from '../repo/group-writes.js';
import { pathParams, typed } from './typed.js';

// `[type:]key` (a group, or a group grant's instance), each part a key of at most 256 characters (a
// longer one would create a group, or its type, that no key-checked endpoint could name).
const TYPED_KEY = {
  type: 'string',
  pattern: '^([A-Za-z0-9\\-_]{1,256}:)?[A-Za-z0-9\\-_]{1,256}$',
  maxLength: 513,
} as const;
const CREATE = strictObject({ group_instance_key: TYPED_KEY, group_tenant: KEY, group_resource_type_key: KEY }, [
  'group_instance_key',
  'group_tenant',
]);
const GRANT = strictObject({ role: KEY, resource: KEY, resource_instance: TYPED_KEY, tenant: KEY }, [
  'role',
  'resource',
  'resource_instance',
  'tenant',
]);
const MEMBERSHIP = strictObject({ tenant: KEY }, ['tenant']);
const LINK = strictObject({ group_instance_key: INSTANCE_REF }, ['group_instance_key']);
const GROUP = pathParams('group');
const MEMBER = {
  type: 'object',
  properties: { group: { type: 'string' }, user: USER_KEY },
  required: ['group', 'user'],
} as const;

/**
 * Group writes under `/v2/schema/{p}/{e}`: create, delete, role on group (plural path and the
 * specification's singular `/group/...`), membership, and group of groups. Each is one transaction
 * around a repository write (repo/group-writes.ts); the answer is the group as read in it.
 */
export default async function groupRoutes(base: FastifyInstance, { db, now }: ServerDeps) {
  const app = typed(base);
  // A write's answer is read in its own transaction: it is ready when the transaction commits.
  // The group's row is the one the write found (or made): its own fields do not change with a write.
  const read = async (tx: Queryable, row: GroupRow | undefined) => row && (await groupReads(tx, [row]))[0];

  app.post('/groups', { schema: { body: CREATE } }, async (req) => {
    const b = req.body;
    const [type, key] = splitKey(b.group_instance_key, b.group_resource_type_key);
    const at = now().toISOString();
    return db.transaction(async (tx) =>
      read(tx, await createGroup(tx, req.env.envId, { type, key, tenant: b.group_tenant }, at)),
    );
  });

  app.delete('/groups/:group', { schema: { params: GROUP } }, async (req, reply) => {
    await db.transaction((tx) => deleteGroup(tx, req.env.envId, req.params.group));
    return reply.status(204).send();
  });

  for (const prefix of ['/groups', '/group']) {
    for (const remove of [false, true]) {
      app.route({
        method: remove ? 'DELETE' : 'POST',
        url: `${prefix}/:group/roles`,
        schema: { body: GRANT, params: GROUP },
        handler: async (req, reply) => {
          const at = now().toISOString();
          const answer = await db.transaction(async (tx) =>
            read(tx, await writeGroupGrant(tx, req.env.envId, req.params.group, req.body, at, remove)),
          );
          return answer ?? reply.status(204).send();
        },
      });
    }
  }

  for (const remove of [false, true]) {
    app.route({
      method: remove ? 'DELETE' : 'PUT',
      url: '/groups/:group/users/:user',
      // Adding checks the user's key; removing names any user there is (a 404 if none).
      schema: { body: MEMBERSHIP, params: remove ? pathParams('group', 'user') : MEMBER },
      handler: async (req, reply) => {
        const m = { group: req.params.group, user: req.params.user, tenant: req.body.tenant };
        const at = now().toISOString();
        const answer = await db.transaction(async (tx) =>
          read(tx, await writeMembership(tx, req.env.envId, m, at, remove)),
        );
        return answer ?? reply.status(204).send();
      },
    });
  }

  for (const remove of [false, true]) {
    app.route({
      method: remove ? 'DELETE' : 'PUT',
      url: '/groups/:group/assign_group',
      schema: { body: LINK, params: GROUP },
      handler: async (req, reply) => {
        const { group } = req.params;
        const at = now().toISOString();
        const answer = await db.transaction(async (tx) =>
          read(tx, await writeGroupLink(tx, req.env.envId, group, req.body.group_instance_key, at, remove)),
        );
        return answer ?? reply.status(204).send();
      },
    });
  }
}

function splitKey(groupKey: string, type?: string): [string, string] {
  const i = groupKey.indexOf(':');
  if (i >= 0) {
    const [t, k] = [groupKey.slice(0, i), groupKey.slice(i + 1)];
    if (type && type !== t)
      throw httpError(
        'INVALID_INPUT',
        `group_instance_key '${groupKey}' names type '${t}' but group_resource_type_key is '${type}'`,
      );
    return [t, k];
  }
  return [type ?? GROUP_TYPE, groupKey];
}
