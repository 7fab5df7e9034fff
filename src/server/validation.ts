import { Ajv, type ErrorObject } from 'ajv';
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
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : otherAjv).compile(schema));
}

export interface Detail {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** ajv errors in the public API's 422 shape: `{loc: ['body', 'key'], msg, type}`. */
export function toDetail(errors: ErrorObject[], context: string): Detail[] {
  return errors.map((e) => {
    const loc: (string | number)[] = [context, ...e.instancePath.split('/').filter(Boolean).map(unescape)];
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

/**
 * Where `value` holds a string (or an object key) with the NUL character, as a `loc`; undefined when
 * nowhere. PostgreSQL cannot store NUL in text, so input carrying it is refused up front (422) on every
 * store alike, rather than failing in the database (a 500).
 */
export function nulAt(value: unknown, loc: (string | number)[]): (string | number)[] | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? loc : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const at = nulAt(value[i], [...loc, i]);
      if (at) return at;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  for (const [k, v] of Object.entries(value)) {
    if (k.includes('\u0000')) return [...loc, k];
    const at = nulAt(v, [...loc, k]);
    if (at) return at;
  }
  return undefined;
}
