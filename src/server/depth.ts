import type { FastifyInstance } from 'fastify';
import { invalid } from './errors.js';

/** Deepest nesting of arrays and objects a JSON body may have. */
export const MAX_BODY_DEPTH = 100;

/**
 * JSON bodies nested deeper than MAX_BODY_DEPTH answer 422 before validation. JSON.parse reads any
 * depth, but the server later writes free-form values (attributes, settings) with JSON.stringify, which
 * recurses: a few thousand levels, well within the 4 MiB limit, overflowed the call stack and answered
 * 500 on every store. No value of the service needs more than a handful of levels.
 */
export function refuseDeepBodies(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (depthOver(request.body, MAX_BODY_DEPTH)) {
      throw invalid(['body'], `nested deeper than ${MAX_BODY_DEPTH} levels of arrays and objects`, 'too_deep');
    }
  });
}

/** Whether `value` nests arrays and objects deeper than `max`; walks without recursion. */
export function depthOver(value: unknown, max: number): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}
