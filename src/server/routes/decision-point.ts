import type { EnvContext, KeyScope } from '../context.js';
import type { Db } from '../store/db.js';

/**
 * What the decision point's routes share (/allowed, /allowed/bulk, the list queries, AuthZEN,
 * /user-permissions): the check body and how the caller names its environment. Schemas only, written
 * `as const` so that the type provider (routes/typed.ts) types the requests from them.
 */

/** Attributes and context passed in a check (ABAC, repo/abac-allowed.ts): JSON objects when present. */
export const PASSED = { type: ['object', 'null'] } as const;
const USER = {
  anyOf: [
    { type: 'string', minLength: 1, maxLength: 256 },
    {
      type: 'object',
      properties: { key: { type: 'string', minLength: 1, maxLength: 256 }, attributes: PASSED },
      required: ['key'],
    },
  ],
} as const;
const RESOURCE = {
  anyOf: [
    { type: 'string', minLength: 1, maxLength: 513 },
    {
      type: 'object',
      properties: {
        type: { type: 'string', minLength: 1, maxLength: 256 },
        key: { type: ['string', 'null'], maxLength: 256 },
        tenant: { type: ['string', 'null'], maxLength: 256 },
        attributes: PASSED,
      },
      required: ['type'],
    },
  ],
} as const;
// The SDKs send extra fields (sdk metadata): accepted and ignored, as the PDP does; attributes and context feed ABAC.
export const CHECK = {
  type: 'object',
  properties: {
    user: USER,
    action: { type: 'string', minLength: 1, maxLength: 256 },
    resource: RESOURCE,
    context: PASSED,
  },
  required: ['user', 'action', 'resource'],
} as const;
// An org key names its environment here; like path segments, a key or an id, never anything else
// (a repeated parameter or a free-form string would otherwise reach the store).
const SEGMENT = { type: 'string', pattern: '^[A-Za-z0-9\\-_]{1,256}$' } as const;
export const NAMED_QUERY = { type: 'object', properties: { project: SEGMENT, environment: SEGMENT } } as const;
export const NAMED_HEADERS = {
  type: 'object',
  properties: { 'x-roster-project': SEGMENT, 'x-roster-environment': SEGMENT },
} as const;
/** The schema parts naming the environment, for a route's `schema`. */
export const NAMED = { querystring: NAMED_QUERY, headers: NAMED_HEADERS } as const;

/** What a request says of its environment: the key's scope, and the query or headers naming one. */
export interface NamedEnv {
  keyScope: KeyScope;
  query: { project?: string; environment?: string };
  headers: { 'x-roster-project'?: string; 'x-roster-environment'?: string };
}

export interface DecisionPoint {
  db: Db;
  /** The environment a request decides in (routes/allowed.ts). */
  envOf: (req: NamedEnv) => Promise<EnvContext>;
}
