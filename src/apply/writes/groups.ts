import { pathOf } from '../../api/index.js';
import { splitRef } from '../../types/refs.js';
import { create, del } from './common.js';
import type { Writers } from './writer.js';

/** Groups (the group write API): the group, its links to parent groups, its grants. */
export const GROUP_WRITERS: Writers<'group' | 'link' | 'grant'> = {
  async group(client, c, f) {
    const { schema } = client.paths;
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
  },

  async link(client, c, f) {
    const path = pathOf(client.paths.schema, 'groups', f.group, 'assign_group');
    if (c.action === 'create') return void (await client.put(path, { group_instance_key: f.parent }));
    return del(client, path, { group_instance_key: f.parent });
  },

  async grant(client, c, f) {
    const on = splitRef(f.on);
    const body = { role: f.role, resource: on.type, resource_instance: on.key, tenant: f.tenant };
    const path = pathOf(client.paths.schema, 'groups', f.group, 'roles');
    if (c.action === 'create') return create(() => client.post(path, body, { idempotent: true }));
    return del(client, path, body);
  },
};
