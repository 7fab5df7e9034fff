import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { SPEC_DEVIATIONS } from './deviations.js';

export { SPEC_DEVIATIONS, type Deviation } from './deviations.js';

/**
 * The public service's contract, `permit-openapi.json` ("Permit.io API" 2.0.0, OpenAPI 3.1), as checks
 * on one HTTP exchange. Used by the server's contract test and by the client's lifecycle tests: every
 * request a client sends and every answer a server gives is held against it.
 *
 *   findOperation(method, path)  the operation a concrete path names (or undefined)
 *   checkRequest({method, path, query, body})           problems with a request, [] when it is public
 *   checkResponse({method, path, status, body})         problems with an answer, [] when it is public
 *   checkExchange(exchange)                             both, for a recorded exchange (./recorder.ts)
 *
 * The only differences allowed are the specification's own, in ./deviations.ts (one table, the same as
 * in docs/server.md). `format` is not checked (ajv-formats is not a dependency).
 *
 * The document is the copy beside this file (CI has no ../shared); a test checks that it equals
 * ../shared/spec/permit-openapi.json wherever that exists.
 */
export const SPEC_FILE = new URL('./permit-openapi.json', import.meta.url);

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const SPEC_ID = 'permit-openapi';

/** Every answer that is not 2xx and that the operation does not describe has the server's error shape. */
const GENERIC_ERROR = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    title: { type: 'string' },
    error_code: { type: 'string' },
    message: { type: 'string' },
  },
  required: ['id', 'title', 'error_code', 'message'],
} as const;

export interface Operation {
  method: string;
  /** The path template, e.g. `/v2/facts/{proj_id}/{env_id}/users/{user_id}`. */
  template: string;
  /** Path parameters by name, decoded. */
  params: Record<string, string>;
  deprecated: boolean;
  /** The operation object of the document (after the deviations are applied). */
  spec: OperationObject;
  /** JSON pointer of the operation inside the document. */
  pointer: string;
}

interface ParameterObject {
  name: string;
  in: string;
  required?: boolean;
  schema?: object;
}
interface OperationObject {
  deprecated?: boolean;
  parameters?: ParameterObject[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: object }> };
  responses?: Record<string, { content?: Record<string, { schema?: object }> }>;
}

export interface RequestLike {
  method: string;
  /** The URL path (a `?query` on it is read too). */
  path: string;
  query?: Record<string, unknown>;
  /** The parsed JSON body; `undefined` when none was sent. */
  body?: unknown;
}

export interface ResponseLike {
  method: string;
  path: string;
  status: number;
  body?: unknown;
}

export type Exchange = RequestLike & { status: number; response?: unknown };

const doc = loadSpec();
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(doc, SPEC_ID);
// Query strings are text: declared types are compared after coercion, as the public service does.
const queryAjv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, coerceTypes: 'array' });
queryAjv.addSchema(doc, SPEC_ID);
const compiled = new Map<string, ValidateFunction>();

/** The document with the specification's deviations applied (each row of ./deviations.ts patches it). */
function loadSpec(): {
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, any> };
} {
  const d = JSON.parse(readFileSync(SPEC_FILE, 'utf8'));
  for (const row of SPEC_DEVIATIONS) row.apply(d);
  return d;
}

interface Template {
  template: string;
  segments: string[];
  methods: Set<string>;
}
const templates: Template[] = Object.entries(doc.paths).map(([template, item]) => ({
  template,
  segments: template.split('/').slice(1),
  methods: new Set(Object.keys(item).filter((m) => (METHODS as readonly string[]).includes(m))),
}));

const isParam = (segment: string) => segment.startsWith('{') && segment.endsWith('}');

/**
 * The operation `method path` names. Static segments win over parameters, segment by segment from the
 * left, as the public service routes: `/users/bulk` is the user `bulk`, `/bulk/users` its own path.
 */
export function findOperation(method: string, path: string): Operation | undefined {
  const m = method.toLowerCase();
  const segments = splitPath(path).split('/').slice(1).map(decodeSegment);
  let best: { t: Template; rank: number[] } | undefined;
  for (const t of templates) {
    if (!t.methods.has(m) || t.segments.length !== segments.length) continue;
    if (!t.segments.every((s, i) => (isParam(s) ? segments[i] !== '' : s === segments[i]))) continue;
    const rank = t.segments.map((s) => (isParam(s) ? 1 : 0));
    if (!best || compareRanks(rank, best.rank) < 0) best = { t, rank };
  }
  if (!best) return undefined;
  const params: Record<string, string> = {};
  best.t.segments.forEach((s, i) => {
    if (isParam(s)) params[s.slice(1, -1)] = segments[i];
  });
  const spec = doc.paths[best.t.template][m];
  return {
    method: m.toUpperCase(),
    template: best.t.template,
    params,
    deprecated: spec.deprecated === true,
    spec,
    pointer: `/paths/${escapePointer(best.t.template)}/${m}`,
  };
}

/** Problems with a request: not an operation, deprecated, undeclared or invalid query parameters, an invalid body. */
export function checkRequest(req: RequestLike): string[] {
  const op = findOperation(req.method, req.path);
  const where = `${req.method.toUpperCase()} ${splitPath(req.path)}`;
  if (!op) return [`${where}: no such operation in permit-openapi.json`];
  const problems: string[] = [];
  const say = (text: string) => problems.push(`${where} (${op.method} ${op.template}): ${text}`);
  if (op.deprecated) say('the operation is deprecated');

  const query = { ...queryOf(req.path), ...(req.query ?? {}) };
  const declared = (op.spec.parameters ?? []).map((p, i) => ({ p, i })).filter(({ p }) => p.in === 'query');
  for (const name of Object.keys(query))
    if (!declared.some(({ p }) => p.name === name)) say(`query parameter '${name}' is not declared`);
  for (const { p, i } of declared) {
    if (!(p.name in query)) {
      if (p.required) say(`query parameter '${p.name}' is required`);
      continue;
    }
    const validate = compile(queryAjv, `${op.pointer}/parameters/${i}/schema`);
    if (!validate(structuredClone(query[p.name])))
      say(`query parameter '${p.name}' ${describeErrors(validate.errors)}`);
  }

  const body = op.spec.requestBody;
  const schema = body?.content?.['application/json']?.schema;
  if (req.body === undefined) {
    if (body?.required) say('a JSON body is required');
  } else if (!schema) {
    say('the operation takes no body');
  } else {
    const validate = compile(ajv, `${op.pointer}/requestBody/content/application~1json/schema`);
    if (!validate(req.body)) say(`body ${describeErrors(validate.errors)}`);
  }
  return problems;
}

/**
 * Problems with an answer: a 2xx must be declared and fit its schema (no body for one declared without
 * content); a 422 fits the validation shape or the server's error shape; other statuses the operation
 * does not describe fit the server's error shape `{id, title, error_code, message}`.
 */
export function checkResponse(res: ResponseLike): string[] {
  const op = findOperation(res.method, res.path);
  const where = `${res.method.toUpperCase()} ${splitPath(res.path)} → ${res.status}`;
  if (!op) return [`${where}: no such operation in permit-openapi.json`];
  const say = (text: string) => [`${where} (${op.method} ${op.template}): ${text}`];
  const declared = op.spec.responses ?? {};
  const status = String(res.status);
  const content = declared[status]?.content?.['application/json'];
  if (res.status >= 200 && res.status < 300) {
    if (!declared[status])
      return say(`status ${status} is not declared (declared: ${Object.keys(declared).join(', ')})`);
    if (!content?.schema)
      return res.body === undefined ? [] : say('declared without content, but the answer has a body');
    const validate = compile(ajv, `${op.pointer}/responses/${status}/content/application~1json/schema`);
    return validate(res.body) ? [] : say(`answer ${describeErrors(validate.errors)}`);
  }
  if (res.status === 422 && content?.schema) {
    const validate = compileSchema(`422:${op.pointer}`, {
      anyOf: [
        {
          allOf: [{ $ref: `${SPEC_ID}#${op.pointer}/responses/422/content/application~1json/schema` }],
          required: ['detail'],
        },
        GENERIC_ERROR,
      ],
    });
    return validate(res.body) ? [] : say(`answer ${describeErrors(validate.errors)}`);
  }
  const validate = compileSchema('generic-error', GENERIC_ERROR);
  return validate(res.body) ? [] : say(`error answer ${describeErrors(validate.errors)}`);
}

/** Both checks for one recorded exchange. */
export function checkExchange(ex: Exchange): string[] {
  return [
    ...checkRequest(ex),
    ...checkResponse({ method: ex.method, path: ex.path, status: ex.status, body: ex.response }),
  ];
}

function compile(instance: InstanceType<typeof Ajv2020>, pointer: string): ValidateFunction {
  const key = `${instance === ajv ? 'b' : 'q'}${pointer}`;
  let v = compiled.get(key);
  if (!v) compiled.set(key, (v = instance.compile({ $ref: `${SPEC_ID}#${pointer}` })));
  return v;
}

function compileSchema(key: string, schema: object): ValidateFunction {
  let v = compiled.get(key);
  if (!v) compiled.set(key, (v = ajv.compile(schema)));
  return v;
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  // anyOf/oneOf failures list every branch: keep the deepest errors, which say what is wrong.
  const list = (errors ?? []).filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'allOf');
  const shown = (list.length ? list : (errors ?? [])).slice(0, 8).map((e) => {
    const at = e.instancePath || '/';
    const extra =
      e.keyword === 'additionalProperties'
        ? ` '${(e.params as { additionalProperty: string }).additionalProperty}'`
        : '';
    return `${at} ${e.message}${extra}`;
  });
  return `does not fit the schema: ${[...new Set(shown)].join('; ')}`;
}

const splitPath = (path: string) => path.split('?')[0];

function queryOf(path: string): Record<string, string | string[]> {
  const i = path.indexOf('?');
  const out: Record<string, string | string[]> = {};
  if (i < 0) return out;
  for (const [k, v] of new URLSearchParams(path.slice(i + 1))) {
    const had = out[k];
    out[k] = had === undefined ? v : [...[had].flat(), v];
  }
  return out;
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}
