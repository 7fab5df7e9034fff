import { pathOf, type ApiClient } from '../../api/index.js';
import { ID, optional, STRING } from '../../api/answer.js';
import { ApiError } from '../../errors.js';
import { conditionSetBody, setRuleBody } from './bodies.js';
import { create, del, text } from './common.js';
import type { Writers } from './writer.js';

/** Attribute-based access: condition sets (user sets, resource sets) and the set rules between them. */
export const ABAC_WRITERS: Writers<'condition_set' | 'set_rule'> = {
  async condition_set(client, c, f) {
    const path = pathOf(client.paths.schema, 'condition_sets', f.key);
    if (c.action === 'delete') return del(client, path);
    if (c.action === 'update') {
      // One update: the public PATCH overwrites each field given (`parent_id` cannot be removed: the
      // planner replaces a set leaving its parent).
      return void (await client.patch(path, {
        name: f.name,
        description: text(f.description),
        conditions: f.conditions ?? {},
        ...(f.parent ? { parent_id: f.parent } : {}),
      }));
    }
    if (c.replaces) await deleteSetTree(client, f.key);
    return create(() => client.create(`${client.paths.schema}/condition_sets`, conditionSetBody(f)));
  },

  async set_rule(client, c, f) {
    const path = `${client.paths.facts}/set_rules`;
    if (c.action === 'create') return void (await client.post(path, setRuleBody(f), { idempotent: true }));
    // Deleting an absent rule is skipped by the service (204), not an error.
    return del(client, path, setRuleBody(f));
  },
};

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
