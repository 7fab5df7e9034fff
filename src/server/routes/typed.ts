import type { FastifyInstance } from 'fastify';
import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';

/**
 * The route modules' view of the app: `req.body`, `req.query` and `req.params` are typed from the route's
 * own JSON schemas (written `as const`), so a handler never casts them (test/structure/routes-no-sql.test.ts).
 * A type provider is types only: at run time this is the same instance.
 */
export const typed = (app: FastifyInstance) => app.withTypeProvider<JsonSchemaToTsProvider>();

/** The params schema of a path's own segments (`:group`, `:user`): strings, always present. */
export function pathParams<const K extends readonly string[]>(...names: K) {
  const properties = Object.fromEntries(names.map((n) => [n, { type: 'string' }]));
  return {
    type: 'object',
    properties: properties as { [P in K[number]]: { readonly type: 'string' } },
    required: names,
  } as const;
}
