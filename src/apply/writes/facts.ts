import { pathOf, type ApiClient } from '../../api/index.js';
import type { Change } from '../../plan/change.js';
import { assignmentBody, tupleBody, userBody } from './bodies.js';
import { create, del, text } from './common.js';
import type { Writers } from './writer.js';

/** The facts: tenants, users, tenant memberships, instances, relationship tuples, role assignments. */
export const FACT_WRITERS: Writers<'tuple' | 'tenant' | 'user' | 'tenant_user' | 'instance' | 'assignment' | 'member'> =
  {
    async tuple(client, c, f) {
      const { facts } = client.paths;
      if (c.action === 'create')
        return void (await client.post(`${facts}/relationship_tuples`, tupleBody(f), { idempotent: true }));
      return del(client, `${facts}/relationship_tuples`, {
        subject: f.subject,
        relation: f.relation,
        object: f.object,
      });
    },

    async tenant(client, c, f) {
      const { facts } = client.paths;
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
    },

    // PUT replaces the whole user (fields left out are cleared), so it serves both create and update: safe
    // to retry, and converges after an interrupted apply.
    async user(client, c, f) {
      const { facts } = client.paths;
      if (c.action !== 'delete') return void (await client.put(pathOf(facts, 'users', f.key), userBody(f)));
      return del(client, pathOf(facts, 'users', f.key));
    },

    async tenant_user(client, c, f) {
      const { facts } = client.paths;
      if (c.action === 'create')
        return create(() =>
          client.post(pathOf(facts, 'tenants', f.tenant, 'users'), { key: f.user }, { idempotent: true }),
        );
      return del(client, pathOf(facts, 'tenants', f.tenant, 'users', f.user));
    },

    async instance(client, c, f) {
      const path = pathOf(client.paths.facts, 'resource_instances', `${f.resource}:${f.key}`);
      if (c.action === 'create') {
        if (c.replaces) await del(client, path);
        return create(() =>
          client.create(`${client.paths.facts}/resource_instances`, {
            key: f.key,
            resource: f.resource,
            tenant: f.tenant,
            attributes: f.attributes,
          }),
        );
      }
      if (c.action === 'update') return void (await client.patch(path, { attributes: f.attributes ?? {} }));
      return del(client, path);
    },

    assignment: writeAssignment,
    member: writeAssignment,
  };

/** A role assignment; a group membership is `member` on the group (assignmentBody). */
async function writeAssignment(client: ApiClient, c: Change): Promise<void> {
  const path = `${client.paths.facts}/role_assignments`;
  if (c.action === 'create') return create(() => client.create(path, assignmentBody(c)));
  return del(client, path, assignmentBody(c));
}
