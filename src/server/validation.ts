import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';

/**
 * Request validation. Bodies are checked strictly (no type coercion, unknown fields rejected by each
 * schema's `additionalProperties: false`, nothing silently removed); query strings, headers and path
 * parameters are coerced from strings.
 */
export function installValidators(app: FastifyInstance): void {
  const base = { allErrors: true, removeAdditional: false as const, useDefaults: true, strict: false };
  const bodyAjv = new Ajv({ ...base, coerceTypes: false });
  const otherAjv = new Ajv({ ...base, coerceTypes: true });
  // Compiled on first use: compiling every route's schemas up front cost ~200 ms at each start, which
  // the embedded default pays on every command that uses only a few routes.
  app.setValidatorCompiler(({ schema, httpPart }) => {
    let compiled: ValidateFunction | undefined;
    const validate = (data: unknown): boolean => {
      compiled ??= (httpPart === 'body' ? bodyAjv : otherAjv).compile(schema);
      if (httpPart === 'body') dropNullOptionals(schema, data);
      const ok = compiled(data) as boolean;
      validate.errors = compiled.errors;
      return ok;
    };
    validate.errors = undefined as ValidateFunction['errors'];
    return validate;
  });
}

type SchemaNode = {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  required?: readonly string[];
  items?: SchemaNode;
  anyOf?: readonly SchemaNode[];
  additionalProperties?: boolean | SchemaNode;
  /** The object is a map whose entries are declared (`roles_to_levels`): its entries are no fields. */
  'x-map'?: boolean;
};

const allowsNull = (s: SchemaNode | undefined): boolean =>
  !!s && (s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null')) || !!s.anyOf?.some(allowsNull));

/**
 * `null` for an optional body field means "not given" (api-notes, "Conventions": the public service is a
 * pydantic app, and its SDKs send explicit nulls, e.g. the Python SDK's `resource_instance: null`). Every
 * optional property whose value is `null`, at any depth the schema describes (objects, array items,
 * `anyOf` branches), is removed before the schema runs, so every route sees it as absent; a required
 * property keeps its `null`, which the schema refuses. A property whose own schema takes `null` keeps it.
 * Free-form objects (attributes, settings: no `properties`) are data and are left as they are.
 */
export function dropNullOptionals(schema: unknown, data: unknown): void {
  const s = schema as SchemaNode | undefined;
  if (!s || data === null || typeof data !== 'object') return;
  for (const branch of s.anyOf ?? []) dropNullOptionals(branch, data);
  if (Array.isArray(data)) {
    if (s.items) for (const item of data) dropNullOptionals(s.items, item);
    return;
  }
  const object = data as Record<string, unknown>;
  // A map's values (`roles: {key: RoleBlock}`) are objects of their own; the map's entries are not fields.
  const entries = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  for (const [name, value] of Object.entries(object)) {
    const sub = s.properties && Object.hasOwn(s.properties, name) ? s.properties[name] : undefined;
    if (!sub) {
      if (entries) dropNullOptionals(entries, value);
      continue;
    }
    if (value === null) {
      if (!s.required?.includes(name) && !allowsNull(sub) && !s['x-map']) delete object[name];
    } else dropNullOptionals(sub, value);
  }
}

export interface Detail {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/**
 * Where a problem is, in the public service's words: FastAPI starts `loc` with `body`, `query`, `path`
 * or `header` (its parameter kinds, the OpenAPI `in`), where fastify names the request parts `body`,
 * `querystring`, `params` and `headers`. Hand-written checks (nul.ts, the routes) use FastAPI's words.
 */
const LOC_OF_PART: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/** ajv errors in the public API's 422 shape: `{loc: ['body', 'key'], msg, type}`; `part` is fastify's validation context. */
export function toDetail(errors: ErrorObject[], part: string): Detail[] {
  const where = LOC_OF_PART[part] ?? part;
  return errors.map((e) => {
    const loc: (string | number)[] = [where, ...e.instancePath.split('/').filter(Boolean).map(unescape)];
    if (e.keyword === 'additionalProperties') loc.push(String(e.params.additionalProperty));
    if (e.keyword === 'required') loc.push(String(e.params.missingProperty));
    const msg =
      e.keyword === 'additionalProperties'
        ? `unknown field '${e.params.additionalProperty}'`
        : e.keyword === 'required'
          ? `field required`
          : e.keyword === 'pattern'
            ? `does not match ${e.params.pattern}`
            : (e.message ?? 'invalid');
    return { loc, msg, type: e.keyword };
  });
}

function unescape(s: string): string | number {
  const v = s.replace(/~1/g, '/').replace(/~0/g, '~');
  return /^\d+$/.test(v) ? Number(v) : v;
}
