import type { ApiClient, EnvPaths, ListOptions, Query } from '../api/index.js';
import type { SnapshotList } from './snapshot.js';

/**
 * The readers of the live state (src/api/read-live.ts, read-request-grants.ts) read only lists
 * (`listAll`). A snapshot keeps those lists as answered; an incremental read hands the same readers a
 * client whose `listAll` answers from the snapshot the lists no change touched, and asks the service for
 * the others. The live state is then built by the very code a full read runs: equal by construction when
 * the lists are.
 */

/** The family of a list: what the change history's paths are mapped to (touched.ts). */
export type ListFamily =
  | 'resources'
  | 'roles'
  | 'user_attributes'
  | 'tenant_attributes'
  | 'condition_sets'
  | 'groups'
  | 'tenants'
  | 'users'
  | 'role_assignments'
  | 'resource_instances'
  | 'relationship_tuples'
  | 'set_rules'
  | 'elements'
  | 'access_requests';

/** The family of a list path of `paths`; undefined for a list this does not know (never served from a snapshot). */
export function familyOf(paths: EnvPaths, listPath: string): ListFamily | undefined {
  const under = (prefix: string) => (listPath.startsWith(`${prefix}/`) ? listPath.slice(prefix.length + 1) : undefined);
  const schema = under(paths.schema);
  if (schema !== undefined) {
    if (schema === 'resources') return 'resources';
    if (schema === 'roles') return 'roles';
    if (schema === 'users/attributes' || schema === 'resources/__user/attributes') return 'user_attributes';
    if (schema === 'resources/__tenant/attributes') return 'tenant_attributes';
    if (schema === 'condition_sets') return 'condition_sets';
    if (schema === 'groups/direct' || /^groups\/[^/]+\/roles$/.test(schema)) return 'groups';
    return undefined;
  }
  const facts = under(paths.facts);
  if (facts !== undefined) {
    const families: Record<string, ListFamily> = {
      tenants: 'tenants',
      users: 'users',
      role_assignments: 'role_assignments',
      resource_instances: 'resource_instances',
      relationship_tuples: 'relationship_tuples',
      set_rules: 'set_rules',
    };
    return families[facts];
  }
  const elements = under(paths.elements);
  if (elements === 'config') return 'elements';
  if (elements !== undefined && /^config\/[^/]+\/access_requests$/.test(elements)) return 'access_requests';
  return undefined;
}

const listKey = (path: string, query: [string, string][]) => JSON.stringify([path, query]);

/** The query as the snapshot keys it: sorted, values as text (the page size is not part of what a list holds). */
function queryOf(query: Query | undefined): [string, string][] {
  return Object.entries(query ?? {})
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]): [string, string] => [k, Array.isArray(v) ? v.join(',') : String(v)])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export interface ListReader {
  client: ApiClient;
  /** Every list read through `client`, from the service or the snapshot: the next snapshot. */
  lists(): SnapshotList[];
  /** The lists asked of the service, by family, and the items they held. */
  fresh(): { families: ListFamily[]; objects: number };
}

/**
 * A view of `client` whose `listAll` records what it answers, and answers from `cached` (a snapshot's
 * lists) every list whose family `stale` does not name. A list the snapshot does not hold is read.
 */
export function listReader(
  client: ApiClient,
  cached: SnapshotList[] = [],
  stale: (family: ListFamily) => boolean = () => true,
): ListReader {
  const known = new Map(cached.map((l) => [listKey(l.path, l.query), l.items]));
  const recorded = new Map<string, SnapshotList>();
  const freshFamilies = new Set<ListFamily>();
  let freshObjects = 0;
  const view: ApiClient = {
    ...client,
    async listAll<T>(path: string, options: ListOptions = {}): Promise<T[]> {
      const query = queryOf(options.query);
      const key = listKey(path, query);
      const family = familyOf(client.paths, path);
      const hit = family && !stale(family) ? known.get(key) : undefined;
      let items: unknown[];
      if (hit) items = hit;
      else {
        items = await client.listAll<unknown>(path, options);
        if (family) freshFamilies.add(family);
        freshObjects += items.length;
      }
      if (family) recorded.set(key, { path, query, items });
      return [...items] as T[];
    },
  };
  return {
    client: view,
    lists: () => [...recorded.values()],
    fresh: () => ({ families: [...freshFamilies].sort(), objects: freshObjects }),
  };
}
