import type { Shape } from './answer.js';
import type { ApiClient, ListOptions } from './types.js';

/**
 * A view of `client` whose `listAll` reads each list once: a second call with the same path, page size,
 * query and headers gets the first call's answer (or its failure). For one plan, whose readers
 * (read-live.ts, read-request-grants.ts) both need the users and the element configurations: every
 * request saved is a round trip and a share of the rate limit. Everything else goes straight through.
 * The item shape is part of what is asked: a caller checking other fields does not get items checked
 * only for the first caller's (readers of one list pass the same shape, src/api/shapes.ts).
 */
export function withSharedLists(client: ApiClient): ApiClient {
  const lists = new Map<string, Promise<unknown[]>>();
  const shapes = new Map<Shape, number>();
  const shapeId = (item: Shape | undefined) =>
    item ? (shapes.get(item) ?? shapes.set(item, shapes.size + 1).get(item)!) : 0;
  return {
    ...client,
    listAll<T>(path: string, options: ListOptions = {}): Promise<T[]> {
      const key = JSON.stringify([
        path,
        options.perPage ?? 100,
        sorted(options.query),
        sorted(options.headers),
        shapeId(options.item),
      ]);
      let list = lists.get(key);
      if (!list) lists.set(key, (list = client.listAll<unknown>(path, options)));
      // Each caller gets its own array (the items are shared: readers do not change them).
      return list.then((items) => [...items] as T[]);
    },
  };
}

const sorted = (o: object | undefined) =>
  Object.entries(o ?? {})
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
