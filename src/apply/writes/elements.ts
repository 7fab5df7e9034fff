import { pathOf, type ApiClient } from '../../api/index.js';
import { expectFields } from '../../api/answer.js';
import { CONFIG_SHAPE, levelsToWrite, type LevelsRead } from '../../api/levels.js';
import type { ChangeFields } from '../../plan/change.js';
import { create, del } from './common.js';
import type { Writers } from './writer.js';

/** Access requests: the element configuration that names who reviews. */
export const ELEMENT_WRITERS: Writers<'access_requests'> = {
  async access_requests(client, c, f) {
    const { elements } = client.paths;
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
  },
};

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
