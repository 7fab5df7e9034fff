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
      const ok = compiled(data) as boolean;
      validate.errors = compiled.errors;
      return ok;
    };
    validate.errors = undefined as ValidateFunction['errors'];
    return validate;
  });
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

