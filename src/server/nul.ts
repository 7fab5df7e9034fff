import type { FastifyInstance } from 'fastify';
import { invalid } from './errors.js';

/**
 * NUL characters (U+0000) are refused at the door, before validation and before any route runs.
 *
 * Why here and not per route: PostgreSQL `text` cannot hold a NUL (it raises "invalid byte sequence"),
 * SQLite can. Without this check the same request answered 422 or 404 on SQLite and 500 on PostgreSQL,
 * depending on whether a route happened to validate the value before querying. No key, name, filter or
 * attribute of the service has a use for NUL, so every store answers the same 422
 * (`{detail: [{loc, msg, type: 'nul_character'}]}`, loc naming where the first one was found).
 *
 * Checked: decoded path parameters, query keys and values, JSON body strings and keys at any depth, and
 * header values (Node's HTTP parser already refuses raw NUL bytes in headers, answered 400 by
 * client-error.ts; this covers a server run with a lenient parser, `node --insecure-http-parser`).
 */
export function refuseNul(app: FastifyInstance): void {
  // preValidation: the body is parsed by now, and the route's schema has not yet run, so the answer does
  // not depend on whether a schema would have caught the value for some other reason first.
  app.addHook('preValidation', async (request) => {
    const loc =
      findNul(request.params, 'path') ??
      findNul(request.query, 'query') ??
      findNul(request.body, 'body') ??
      findNul(request.headers, 'header');
    if (loc) throw invalid(loc, 'must not contain a NUL character (\\u0000)', 'nul_character');
  });
}

/**
 * Where the first NUL in `value` is (strings and object keys, at any depth), as a `loc` starting with
 * `root`; undefined when there is none. Walks with an explicit stack, and builds the `loc` only for the
 * hit (each entry points at its parent): a JSON body within the size limit can nest a million levels
 * deep, deeper than the call stack allows, and copying the path at each level would be quadratic.
 */
export function findNul(value: unknown, root: string): (string | number)[] | undefined {
  interface Step {
    value: unknown;
    key: string | number;
    parent?: Step;
  }
  const locOf = (step: Step, last?: string): (string | number)[] => {
    const loc: (string | number)[] = [];
    for (let s: Step | undefined = step; s; s = s.parent) loc.push(s.key);
    loc.reverse();
    if (last !== undefined) loc.push(last);
    return loc;
  };
  const stack: Step[] = [{ value, key: root }];
  while (stack.length > 0) {
    const step = stack.pop()!;
    const v = step.value;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return locOf(step);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: step });
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      for (const [key] of entries) if (key.includes('\u0000')) return locOf(step, key);
      for (let i = entries.length - 1; i >= 0; i--)
        stack.push({ value: entries[i][1], key: entries[i][0], parent: step });
    }
  }
  return undefined;
}
