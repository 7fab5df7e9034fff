/** JSON-schema building blocks shared by the route modules. Lengths are bounded: no key over 256. */
export const KEY = { type: 'string', pattern: '^[A-Za-z0-9\\-_]+$', minLength: 1, maxLength: 256 } as const;
export const USER_KEY = { type: 'string', pattern: '^[A-Za-z0-9|@+\\-._]+$', minLength: 1, maxLength: 256 } as const;
/** `type:key` references of resource instances (and groups). */
export const INSTANCE_REF = {
  type: 'string',
  pattern: '^[A-Za-z0-9\\-_]{1,256}:[A-Za-z0-9\\-_]{1,256}$',
  maxLength: 513,
} as const;
export const NAME = { type: 'string', minLength: 1, maxLength: 1024 } as const;
export const TEXT = { type: 'string', maxLength: 10_000 } as const;
export const ATTRIBUTES = { type: 'object', maxProperties: 1000 } as const;
export const EMAIL = { type: 'string', maxLength: 320 } as const;
/** A user's first or last name. Optional text fields are strings, never `null`, as the public schemas type them. */
export const PERSON_NAME = { type: 'string', maxLength: 1024 } as const;

/** An object of exactly these properties. Generic so that the route's type provider sees each one's schema. */
export function strictObject<
  const P extends Record<string, object>,
  const R extends readonly (keyof P & string)[] = [],
>(properties: P, required: R = [] as unknown as R) {
  return { type: 'object', properties, required, additionalProperties: false } as const;
}

export const PAGING_QUERY = {
  type: 'object',
  properties: {
    page: { type: 'integer', minimum: 1 },
    per_page: { type: 'integer', minimum: 1 },
    include_total_count: { type: 'boolean' },
  },
} as const;

/** Paging and the public `search` (resources, roles and tenants lists). */
export const SEARCH_QUERY = {
  type: 'object',
  properties: { ...PAGING_QUERY.properties, search: { type: 'string', maxLength: 1024 } },
} as const;
