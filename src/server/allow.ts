import type { FastifyInstance } from 'fastify';

/**
 * Which methods the app serves at a concrete path, so that a known path asked with another method
 * answers 405 METHOD_NOT_ALLOWED (with `Allow`) instead of a misleading 404. fastify's router only
 * answers "no route", so the route table is recorded here as it is built. Call before any route is
 * registered: `onRoute` hooks see only routes added after them.
 */
export function trackRouteMethods(app: FastifyInstance): (path: string) => string[] {
  const table: { pattern: RegExp; method: string }[] = [];
  app.addHook('onRoute', (route) => {
    const source = route.url
      .split('/')
      .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    for (const method of [route.method].flat()) table.push({ pattern: new RegExp(`^${source}$`), method });
  });
  return (path) => [...new Set(table.filter((r) => r.pattern.test(path)).map((r) => r.method))].sort();
}
