import type { ApiClient } from '../api/index.js';
import { fieldsAs, type Change } from '../plan/change.js';
import { assignmentBody, tupleBody, userBody } from './operations.js';

/**
 * Changes the API can carry many at a time. Memberships and role assignments go through the bulk
 * role-assignment endpoint; users and instances through the public bulk endpoints `/bulk/users` and
 * `/bulk/resource_instances` (note the order: `bulk` first; `.../users/bulk` would name the user `bulk`).
 * PUT creates or replaces, so a repeated call converges. Changes with the same batch key share calls.
 */
export function batchKey(c: Change): string | undefined {
  switch (c.kind) {
    case 'assignment':
    case 'member':
      return c.action === 'delete' ? 'assignments:delete' : 'assignments:create';
    case 'user':
      return c.action === 'delete' ? 'users:delete' : 'users:put';
    case 'tuple':
      return c.action === 'delete' ? 'tuples:delete' : 'tuples:create';
    case 'instance':
      // A replacing create deletes first: one at a time.
      return c.action === 'create' && !c.replaces
        ? 'instances:put'
        : c.action === 'delete'
          ? 'instances:delete'
          : undefined;
    default:
      return undefined;
  }
}

export async function sendBatch(client: ApiClient, key: string, chunk: Change[]): Promise<void> {
  const { facts } = client.paths;
  switch (key) {
    case 'assignments:create':
      return void (await client.post(`${facts}/role_assignments/bulk`, chunk.map(assignmentBody), {
        idempotent: true,
      }));
    case 'assignments:delete':
      return void (await client.delete(`${facts}/role_assignments/bulk`, { body: chunk.map(assignmentBody) }));
    case 'users:put':
      return void (await client.put(`${facts}/bulk/users`, {
        operations: chunk.map((c) => userBody(fieldsAs(c, 'user'))),
      }));
    case 'users:delete':
      return void (await client.delete(`${facts}/bulk/users`, {
        body: { idents: chunk.map((c) => fieldsAs(c, 'user').key) },
      }));
    case 'instances:put':
      return void (await client.put(`${facts}/bulk/resource_instances`, {
        operations: chunk.map((c) => {
          const f = fieldsAs(c, 'instance');
          return { key: f.key, resource: f.resource, tenant: f.tenant, attributes: f.attributes ?? {} };
        }),
      }));
    case 'tuples:create':
      return void (await client.post(
        `${facts}/relationship_tuples/bulk`,
        { operations: chunk.map((c) => tupleBody(fieldsAs(c, 'tuple'))) },
        { idempotent: true },
      ));
    case 'tuples:delete':
      return void (await client.delete(`${facts}/relationship_tuples/bulk`, {
        body: {
          idents: chunk
            .map((c) => fieldsAs(c, 'tuple'))
            .map((f) => ({ subject: f.subject, relation: f.relation, object: f.object })),
        },
      }));
    case 'instances:delete':
      return void (await client.delete(`${facts}/bulk/resource_instances`, {
        body: { idents: chunk.map((c) => fieldsAs(c, 'instance')).map((f) => `${f.resource}:${f.key}`) },
      }));
    default:
      throw new Error(`unknown batch ${key}`);
  }
}
