import type { ApiClient, ApiResponse, EnvPaths, HttpMethod } from '../api/index.js';
import { categorize, createPacer, PUBLIC_LIMITS, type PacingCategory, type RateLimits } from '../api/index.js';
import type { Plan, PlanCost } from '../plan/types.js';
import { applyPlan, type ApplyOptions } from './apply.js';

/**
 * What applying a plan costs against the public service: the requests `applyPlan` would send (found by
 * running it against a client that sends nothing and answers every request with success, so batching
 * and bulk sizes are exactly the real ones), counted per rate-limit class, and the time the client's own
 * pacer (src/api/pacing.ts) needs to send them under the public limits, on a simulated clock. Round
 * trips come on top; an apply whose requests all succeed takes at least this long.
 */
export async function estimateApply(plan: Plan, options: { limits?: RateLimits; bulkSize?: ApplyOptions['bulkSize'] } = {}): Promise<PlanCost> {
  const sent = await dryRun(plan, options.bulkSize);
  const byClass: Partial<Record<PacingCategory, number>> = {};
  for (const r of sent) for (const c of categorize(r.method, r.path)) byClass[c] = (byClass[c] ?? 0) + 1;

  const seconds = await pacingSeconds(sent, options.limits ?? PUBLIC_LIMITS);
  return { requests: sent.length, byClass, seconds, limits: options.limits ? 'given' : 'public' };
}

/** Seconds the client's pacer needs to send `requests` in order at `limits`, on a simulated clock. */
export async function pacingSeconds(requests: { method: string; path: string }[], limits: RateLimits): Promise<number> {
  let clock = 0;
  const pacer = createPacer({ limits, now: () => clock, sleep: async (ms) => void (clock += ms) });
  for (const r of requests) await pacer.acquire(r.method, r.path);
  return Math.ceil(clock / 1000);
}

/** The requests `applyPlan` sends for `plan`, in order, without sending any. */
export async function dryRun(plan: Plan, bulkSize?: number): Promise<{ method: HttpMethod; path: string }[]> {
  const sent: { method: HttpMethod; path: string }[] = [];
  const enc = encodeURIComponent;
  const scope = `${enc(plan.project)}/${enc(plan.environment)}`;
  const paths: EnvPaths = { schema: `/v2/schema/${scope}`, facts: `/v2/facts/${scope}`, elements: `/v2/elements/${scope}` };
  const request = async <T>(method: HttpMethod, path: string): Promise<ApiResponse<T>> => {
    sent.push({ method, path });
    return { status: method === 'DELETE' ? 204 : 200, data: {} as T, headers: {}, attempts: 1, alreadyExisted: false };
  };
  const data = async <T>(method: HttpMethod, path: string): Promise<T> => {
    sent.push({ method, path });
    return {} as T;
  };
  const client: ApiClient = {
    paths,
    request: (method, path) => request(method, path),
    get: (path) => data('GET', path),
    post: (path) => data('POST', path),
    async create(path) {
      await request('POST', path);
      return { alreadyExisted: false, data: {} as never };
    },
    put: (path) => data('PUT', path),
    patch: (path) => data('PATCH', path),
    delete: (path) => data('DELETE', path),
    listAll: async () => [],
    counters: () => ({ requests: sent.length, retries: 0, byMethod: {}, rateLimited: 0, alreadyExisted: 0 }),
    close: async () => {},
  };
  // One change at a time keeps the order the real apply's waves follow.
  await applyPlan(plan, client, { concurrency: 1, bulkSize });
  return sent;
}
