/**
 * Reading one answer: the body under a size limit, and what a 2xx read answer must look like. A
 * hostile or broken service (an endless body, a truncated one, HTML from a proxy, JSON of another shape)
 * must end in a retry and then one clear error naming the request, never in an out-of-memory or an
 * "internal error".
 */

/** Larger than any page or bulk answer the API gives (a page holds at most 100 objects). */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

export class AnswerTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the answer was larger than ${Math.round(limit / 2 ** 20)} MB; stopped reading it`);
  }
}

/** The body as text, refusing to hold more than `limit` bytes (the stream is destroyed past it). */
export async function readBodyText(
  body: AsyncIterable<Buffer> & { destroy?: (err?: Error) => void },
  limit: number,
): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > limit) {
      const err = new AnswerTooLarge(limit);
      body.destroy?.(err);
      throw err;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

/** Parsed JSON, or the text itself when it is not JSON (error bodies may be plain text or HTML). */
export function parseBody(text: string): { body: unknown; json: boolean } {
  if (text === '') return { body: undefined, json: false };
  try {
    return { body: JSON.parse(text), json: true };
  } catch {
    return { body: text, json: false };
  }
}

/**
 * What is wrong with a 2xx answer to a read, or undefined when it is usable: reads always answer JSON,
 * and the caller may say which shape it needs (`expect`). Such answers are retried like failed ones:
 * a truncated or garbled body is a transport fault more often than a service that means it.
 */
export function malformedRead(
  parsed: { body: unknown; json: boolean },
  expect?: (body: unknown) => string | undefined,
): string | undefined {
  if (!parsed.json) {
    if (parsed.body === undefined) return 'an empty body where JSON was expected';
    const text = String(parsed.body).trimStart();
    if (text.startsWith('<')) return 'HTML where JSON was expected (a proxy or login page in front of the service?)';
    return 'a body that is not valid JSON (truncated or garbled)';
  }
  return expect?.(parsed.body);
}

/** A list page: an array, or the envelope `{data: [...]}`. */
export function expectListPage(body: unknown): string | undefined {
  if (Array.isArray(body)) return undefined;
  if (isObject(body) && Array.isArray(body.data)) return undefined;
  return `JSON of the wrong shape (${describeJson(body)}, where a list page, an array or {data: [...]}, was expected)`;
}

/**
 * A list page (`page`, for the message) whose every item has the fields of `item`: `listAll` passes it as
 * `expect` for each page, so a page with an item Roster cannot use (`null`, `{}`, a `key` that is a number)
 * is retried and then reported as MALFORMED_ANSWER naming the item (`data[3].key`), never read into a
 * TypeError further on.
 */
export function expectListItems(item: Shape, page: number): (body: unknown) => string | undefined {
  const rule = ruleOf(item);
  return (body) => {
    const wrong = expectListPage(body);
    if (wrong) return wrong;
    const [items, at] = Array.isArray(body) ? [body, ''] : [(body as { data: unknown[] }).data, 'data'];
    for (let i = 0; i < items.length; i++) {
      const problem = problemOf(items[i], rule, `${at}[${i}]`);
      if (problem) return `JSON of the wrong shape (page ${page}: ${problem})`;
    }
    return undefined;
  };
}

/** An object (a single resource). */
export function expectObject(body: unknown): string | undefined {
  if (isObject(body)) return undefined;
  return `JSON of the wrong shape (${describeJson(body)}, where an object was expected)`;
}

/**
 * What one field of an answer must be: `expected` says it in the error ("a string"). Only the fields the
 * caller uses are checked; others (and unknown ones) are left alone, as both dialects add fields of their
 * own. A container (a list, an object of named entries) also says what inside it is wrong (`within`,
 * called once `fits` holds), naming the place from `at` (`roles.editor.permissions[1]`).
 */
export interface FieldRule {
  expected: string;
  fits(value: unknown): boolean;
  within?(value: unknown, at: string): string | undefined;
}

/** The fields an answer (one object, or each item of a list) uses, by name; a nested shape is an object holding those fields. */
export interface Shape {
  [field: string]: FieldRule | Shape;
}

export const STRING: FieldRule = { expected: 'a string', fits: (v) => typeof v === 'string' };
/** An id: the public service sends strings; numbers are read too (readers turn them into strings). */
export const ID: FieldRule = {
  expected: 'a string or number',
  fits: (v) => typeof v === 'string' || typeof v === 'number',
};
export const BOOLEAN: FieldRule = { expected: 'true or false', fits: (v) => typeof v === 'boolean' };
/** Any object (attributes, whose values Roster keeps as they are). */
export const OBJECT: FieldRule = { expected: 'an object', fits: isObject };

/** A field that may be absent or null, or else fits `rule`. */
export function optional(rule: FieldRule | Shape): FieldRule {
  const r = ruleOf(rule);
  return {
    expected: `${r.expected}, null or nothing`,
    fits: (v) => v === undefined || v === null || r.fits(v),
    within: (v, at) => (v === undefined || v === null ? undefined : r.within?.(v, at)),
  };
}

/** A list whose every element fits `rule`. */
export function listOf(rule: FieldRule | Shape): FieldRule {
  const r = ruleOf(rule);
  return {
    expected: 'a list',
    fits: Array.isArray,
    within: (v, at) => {
      const list = v as unknown[];
      for (let i = 0; i < list.length; i++) {
        const problem = problemOf(list[i], r, `${at}[${i}]`);
        if (problem) return problem;
      }
      return undefined;
    },
  };
}

/** An object of named entries (a resource's `roles` by key), every value fitting `rule`. */
export function recordOf(rule: FieldRule | Shape): FieldRule {
  const r = ruleOf(rule);
  return {
    expected: 'an object of named entries',
    fits: isObject,
    within: (v, at) => {
      for (const [name, value] of Object.entries(v as Record<string, unknown>)) {
        const problem = problemOf(value, r, `${at}.${name}`);
        if (problem) return problem;
      }
      return undefined;
    },
  };
}

/**
 * An object with the fields of `shape` (src/api/README.md, "Malformed read answers"): a single-object
 * GET passes it as `expect`, so an answer it cannot use is retried and then reported as
 * MALFORMED_ANSWER naming the request, never read into a TypeError.
 */
export function expectFields(shape: Shape): (body: unknown) => string | undefined {
  const wanted = objectWith(shape);
  return (body) => {
    if (!isObject(body)) return `JSON of the wrong shape (${describeJson(body)}, where ${wanted} was expected)`;
    const wrong = fieldProblem(body, shape, '');
    return wrong && `JSON of the wrong shape (${wrong})`;
  };
}

/** What is wrong with `value` at `at` for `rule`, naming the innermost place. */
function problemOf(value: unknown, rule: FieldRule, at: string): string | undefined {
  if (!rule.fits(value))
    return `${at} is ${value === undefined ? 'missing' : describeJson(value)}, where ${rule.expected} was expected`;
  return rule.within?.(value, at);
}

function fieldProblem(body: Record<string, unknown>, shape: Shape, prefix: string): string | undefined {
  for (const [name, rule] of Object.entries(shape)) {
    const problem = problemOf(body[name], ruleOf(rule), prefix ? `${prefix}.${name}` : name);
    if (problem) return problem;
  }
  return undefined;
}

/** A nested shape as a rule: an object holding its fields. */
function ruleOf(rule: FieldRule | Shape): FieldRule {
  if (isRule(rule)) return rule;
  return {
    expected: objectWith(rule),
    fits: isObject,
    within: (v, at) => fieldProblem(v as Record<string, unknown>, rule, at),
  };
}

const isRule = (r: FieldRule | Shape): r is FieldRule => typeof (r as FieldRule).fits === 'function';
const objectWith = (shape: Shape) => `an object with ${Object.keys(shape).join(', ')}`;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `an object with keys ${Object.keys(value).slice(0, 5).join(', ') || '(none)'}`;
  return `a ${typeof value}`;
}
