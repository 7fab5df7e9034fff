import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Queryable } from './store/db.js';

/**
 * Ids may come as 32 hex digits without dashes (api-notes, "Conventions": the Python SDK sends a uuid's
 * `.hex`, e.g. `resource_id`). Every id this server hands out is a dashed lowercase uuid, and every
 * lookup takes a key first, then an id. So a dashless id is rewritten, once, before any route runs, to
 * its dashed form in the path parameters and the body (at any depth) — unless the same text is the key
 * of something in the environment (keys may be 32 hex digits too: a key is looked up first everywhere,
 * and stays so). Creation keys (`key`, `*_key` fields) are never ids and are left alone.
 */
const DASHLESS = /^[0-9a-fA-F]{32}$/;

export const isDashless = (s: string): boolean => DASHLESS.test(s);

export function dashed(hex: string): string {
  const h = hex.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const KEYED = ['users', 'tenants', 'roles', 'resources', 'resource_instances', 'relations', 'elements_configs'];
const IS_KEY = KEYED.map((t) => `SELECT 1 AS x FROM ${t} WHERE env_id = ? AND key = ?`).join(' UNION ALL ');

/** Whether `text` is some object's key in the environment (then it names that object, not an id). */
async function isKey(q: Queryable, envId: string, text: string): Promise<boolean> {
  return !!(await q.get(
    `${IS_KEY} LIMIT 1`,
    KEYED.flatMap(() => [envId, text]),
  ));
}

type Slot = { holder: Record<string, unknown> | unknown[]; at: string | number; text: string };

/** Every string that looks like a dashless id, with where it sits. */
function candidates(value: unknown, holder: Slot['holder'] | undefined, at: string | number, out: Slot[]): void {
  if (typeof value === 'string') {
    if (holder && isDashless(value)) out.push({ holder, at, text: value });
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => candidates(v, value, i, out));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      // A creation key, or a group's key: never an id.
      if (k === 'key' || k.endsWith('_key')) continue;
      candidates(v, value as Record<string, unknown>, k, out);
    }
  }
}

/** Rewrites the dashless ids of an env-scoped request (paths other than the environment's, and the body). */
export async function canonicalIds(q: Queryable, envId: string, req: FastifyRequest): Promise<void> {
  const slots: Slot[] = [];
  const params = req.params as Record<string, unknown>;
  for (const [k, v] of Object.entries(params)) if (k !== 'proj' && k !== 'env') candidates(v, params, k, slots);
  candidates(req.body, undefined, '', slots);
  if (slots.length === 0) return;
  const keys = new Map<string, boolean>();
  for (const slot of slots) {
    if (!keys.has(slot.text)) keys.set(slot.text, await isKey(q, envId, slot.text));
    if (!keys.get(slot.text)) (slot.holder as Record<string | number, unknown>)[slot.at] = dashed(slot.text);
  }
}

/** Installs canonicalIds on a scope whose requests carry `req.env` (after its preValidation). */
export function installCanonicalIds(scope: FastifyInstance, db: Queryable): void {
  scope.addHook('preHandler', async (req) => {
    if (req.env) await canonicalIds(db, req.env.envId, req);
  });
}
