import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPEC_FILE, checkRequest, checkResponse, findOperation, type Exchange } from '../contract/openapi.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { DEPRECATED, driveLifecycle } from './public-lifecycle.js';

/**
 * What the public service refuses, the server refuses (422), so that a client tested against the server
 * cannot come to depend on input the public service would not take. Each accepted request of the
 * lifecycle (./public-lifecycle.ts) is the base of probes: one field set to `null`, a required field left
 * out, a field of the wrong type, at any depth the public request schema describes. The public schema
 * (with the specification's deviations, test/contract/deviations.ts) is the oracle: a probe it accepts is
 * not sent, every probe it refuses must be answered 422 in the validation shape.
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Schema = {
  $ref?: string;
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema | boolean;
};
interface Probe {
  what: string;
  body: Json;
  /** For a `null` probe of a field the schema declares: whether it is required, and the body with it left out. */
  field?: { required: boolean; absent: Json };
}

const components = (JSON.parse(readFileSync(SPEC_FILE, 'utf8')) as { components: { schemas: Record<string, Schema> } })
  .components.schemas;

/** A schema with `$ref` followed and `allOf` merged: enough to know which properties an object has. */
function resolve(schema: Schema | undefined): Schema {
  if (!schema) return {};
  if (schema.$ref) return resolve(components[schema.$ref.split('/').pop()!]);
  if (!schema.allOf) return schema;
  const parts = schema.allOf.map(resolve);
  return {
    properties: Object.assign({}, schema.properties, ...parts.map((p) => p.properties)),
    required: [...(schema.required ?? []), ...parts.flatMap((p) => p.required ?? [])],
    items: schema.items ?? parts.find((p) => p.items)?.items,
    additionalProperties:
      schema.additionalProperties ??
      parts.find((p) => typeof p.additionalProperties === 'object')?.additionalProperties,
  };
}

/** Every single-field mutation of `value` (described by `schema`), as the whole body it makes. */
function probesOf(
  value: Json,
  schema: Schema | undefined,
  rebuild: (v: Json | undefined) => Json,
  at: string,
): Probe[] {
  const s = resolve(schema);
  if (Array.isArray(value)) {
    return value.length === 0
      ? []
      : probesOf(
          value[0],
          s.items,
          (v) => rebuild(v === undefined ? value.slice(1) : [v, ...value.slice(1)]),
          `${at}[0]`,
        );
  }
  if (value === null || typeof value !== 'object') return [];
  const object = value;
  const set = (name: string, v: Json | undefined) => {
    const copy = { ...object };
    if (v === undefined) delete copy[name];
    else copy[name] = v;
    return rebuild(copy);
  };
  const names = new Set([...Object.keys(s.properties ?? {}), ...Object.keys(object)]);
  return [...names].flatMap((name) => {
    const path = `${at}.${name}`;
    const given = object[name];
    // A field the schema declares (a map's entries, `actions: {read: {}}`, and free-form data are no fields).
    const declared = Object.hasOwn(s.properties ?? {}, name);
    const field = declared ? { required: (s.required ?? []).includes(name), absent: set(name, undefined) } : undefined;
    const own: Probe[] = [{ what: `${path} = null`, body: set(name, null), ...(field ? { field } : {}) }];
    if (given !== undefined) {
      own.push({ what: `${path} left out`, body: set(name, undefined) });
      own.push({ what: `${path} of another type`, body: set(name, typeof given === 'string' ? 1 : 'text') });
    }
    const entries = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    const deeper =
      given === undefined ? [] : probesOf(given, s.properties?.[name] ?? entries, (v) => set(name, v), path);
    return [...own, ...deeper];
  });
}

let s: TestServer;
let accepted: Exchange[];
beforeAll(async () => {
  s = await startTestServer({ record: true });
  await driveLifecycle(s);
  const opOf = (ex: Exchange) => findOperation(ex.method, ex.path);
  accepted = s.exchanges.splice(0).filter((ex) => {
    const op = opOf(ex);
    return (
      ex.status < 300 &&
      ex.body !== undefined &&
      op &&
      !DEPRECATED.includes(`${op.method} ${op.template}`) &&
      checkRequest(ex).length === 0
    );
  });
});
afterAll(() => s.close());

describe('roster serve refuses what the public API refuses', () => {
  it('the lifecycle gives probes for the operations that take a body', () => {
    expect(accepted.length).toBeGreaterThan(60);
  });

  it('answers 422 in the validation shape to every body the public request schema refuses', async () => {
    const failures: string[] = [];
    const seen = new Set<string>();
    let sent = 0;
    for (const ex of accepted) {
      const op = findOperation(ex.method, ex.path)!;
      const schema = op.spec.requestBody?.content?.['application/json']?.schema as Schema | undefined;
      const url = ex.path + queryString(ex.query);
      for (const probe of probesOf(ex.body as Json, schema, (v) => v as Json, 'body')) {
        const key = `${ex.method} ${url} ${JSON.stringify(probe.body)}`;
        // `null` for an optional field is "not given" (api-notes, "Conventions"): the next test holds it.
        if (probe.field && !probe.field.required) continue;
        if (seen.has(key) || checkRequest({ method: ex.method, path: url, body: probe.body }).length === 0) continue;
        seen.add(key);
        sent++;
        const res = await s.call(ex.method, url, probe.body);
        const shapeProblems = checkResponse({ method: ex.method, path: url, status: res.status, body: res.body });
        const validationShape = Array.isArray((res.body as { detail?: unknown } | undefined)?.detail);
        if (res.status !== 422 || !validationShape || shapeProblems.length) {
          failures.push(`${op.method} ${op.template}: ${probe.what} → ${res.status} ${JSON.stringify(res.body)}`);
        }
      }
    }
    expect(sent).toBeGreaterThan(200);
    expect(failures).toEqual([]);
  });
});

describe('null for an optional field is the field not given (api-notes, "Conventions")', () => {
  it('every optional field of every accepted body, at any depth, takes null as absent; required ones refuse it', async () => {
    const failures: string[] = [];
    const seen = new Set<string>();
    let nulls = 0;
    let required = 0;
    for (const ex of accepted) {
      const op = findOperation(ex.method, ex.path)!;
      const schema = op.spec.requestBody?.content?.['application/json']?.schema as Schema | undefined;
      const url = ex.path + queryString(ex.query);
      for (const probe of probesOf(ex.body as Json, schema, (v) => v as Json, 'body')) {
        if (!probe.field) continue;
        const key = `${ex.method} ${url} ${JSON.stringify(probe.body)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const res = await s.call(ex.method, url, probe.body);
        // A public field this server does not serve is refused whatever its value (docs/server.md).
        if (res.status === 422 && res.body?.detail?.every((d: { type: string }) => d.type === 'additionalProperties'))
          continue;
        if (probe.field.required) {
          // A required field: null is refused, in the validation shape.
          required++;
          if (res.status !== 422 || !Array.isArray(res.body?.detail))
            failures.push(`${op.method} ${op.template}: ${probe.what} (required) → ${res.status}`);
          continue;
        }
        nulls++;
        if (res.status !== 422) continue;
        // Refused with null: only right when the body without the field is refused too, for the same reason.
        const without = await s.call(ex.method, url, probe.field.absent);
        if (without.status !== 422)
          failures.push(
            `${op.method} ${op.template}: ${probe.what} → 422 ${JSON.stringify(res.body)}, left out → ${without.status}`,
          );
      }
    }
    expect(nulls).toBeGreaterThan(100);
    expect(required).toBeGreaterThan(20);
    expect(failures).toEqual([]);
  });
});

function queryString(query: Record<string, unknown> | undefined): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) for (const one of [v].flat()) params.append(k, String(one));
  const text = params.toString();
  return text ? `?${text}` : '';
}
