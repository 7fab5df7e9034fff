import type { ApiClient, ApiResponse, EnvPaths, HttpMethod } from '../api/index.js';
import {
  categorize,
  createPacer,
  PUBLIC_LIMITS,
  requestKind,
  type PacingCategory,
  type RateLimits,
  type RequestKind,
} from '../api/index.js';
import type { Plan, PlanCost } from '../plan/types.js';
import { applyPlan, type ApplyOptions } from './apply.js';

type Sent = { method: HttpMethod; path: string };

/**
 * What applying a plan costs against the public service: the requests `applyPlan` would send, counted
 * per rate-limit class, and how long the apply takes when every request waits for the client's own
 * pacer (src/api/pacing.ts) at the public limits. The apply itself runs, as `roster apply` runs it (wave
 * after wave, 8 changes at once), against a client that sends nothing and answers every request with
 * success, on a simulated clock: so batching and bulk sizes are exactly the real ones. Round trips come
 * on top; an apply whose requests all succeed takes at least this long.
 */
export async function estimateApply(
  plan: Plan,
  options: { limits?: RateLimits; bulkSize?: ApplyOptions['bulkSize']; concurrency?: number } = {},
): Promise<PlanCost> {
  const clock = simulatedClock();
  const pacer = createPacer({ limits: options.limits ?? PUBLIC_LIMITS, now: clock.now, sleep: clock.sleep });
  const { client, sent } = dryClient(plan, (r) => pacer.acquire(r.method, r.path));
  await clock.run(applyPlan(plan, client, { concurrency: options.concurrency ?? 8, bulkSize: options.bulkSize }));
  const byClass: Partial<Record<PacingCategory, number>> = {};
  const kinds: Partial<Record<RequestKind, number>> = {};
  for (const r of sent) {
    for (const c of categorize(r.method, r.path)) byClass[c] = (byClass[c] ?? 0) + 1;
    const k = requestKind(r.method, r.path);
    kinds[k] = (kinds[k] ?? 0) + 1;
  }
  return {
    requests: sent.length,
    byClass,
    kinds,
    seconds: Math.ceil(clock.now() / 1000),
    limits: options.limits ? 'given' : 'public',
  };
}

/** Seconds the client's pacer needs to send `requests` one after another at `limits`, on a simulated clock. */
export async function pacingSeconds(requests: { method: string; path: string }[], limits: RateLimits): Promise<number> {
  let clock = 0;
  const pacer = createPacer({ limits, now: () => clock, sleep: async (ms) => void (clock += ms) });
  for (const r of requests) await pacer.acquire(r.method, r.path);
  return Math.ceil(clock / 1000);
}

/** The requests `applyPlan` sends for `plan`, in the order of its waves, without sending any. */
export async function dryRun(plan: Plan, bulkSize?: number): Promise<Sent[]> {
  const { client, sent } = dryClient(plan, async () => {});
  // One change at a time keeps the order of the waves.
  await applyPlan(plan, client, { concurrency: 1, bulkSize });
  return sent;
}

/** A client for `plan`'s environment that records each request, waits for `before`, and answers success. */
function dryClient(plan: Plan, before: (r: Sent) => Promise<unknown>): { client: ApiClient; sent: Sent[] } {
  const sent: Sent[] = [];
  const enc = encodeURIComponent;
  const scope = `${enc(plan.project)}/${enc(plan.environment)}`;
  const paths: EnvPaths = {
    schema: `/v2/schema/${scope}`,
    facts: `/v2/facts/${scope}`,
    elements: `/v2/elements/${scope}`,
  };
  const send = async (method: HttpMethod, path: string) => {
    sent.push({ method, path });
    await before({ method, path });
  };
  const data = async <T>(method: HttpMethod, path: string): Promise<T> => {
    await send(method, path);
    return {} as T;
  };
  const client: ApiClient = {
    paths,
    async request<T>(method: HttpMethod, path: string): Promise<ApiResponse<T>> {
      await send(method, path);
      return {
        status: method === 'DELETE' ? 204 : 200,
        data: {} as T,
        headers: {},
        attempts: 1,
        alreadyExisted: false,
      };
    },
    get: (path) => data('GET', path),
    post: (path) => data('POST', path),
    async create(path) {
      await send('POST', path);
      return { alreadyExisted: false, data: {} as never };
    },
    put: (path) => data('PUT', path),
    patch: (path) => data('PATCH', path),
    delete: (path) => data('DELETE', path),
    listAll: async () => [],
    counters: () => ({ requests: sent.length, retries: 0, byMethod: {}, rateLimited: 0, alreadyExisted: 0 }),
    close: async () => {},
  };
  return { client, sent };
}

/**
 * A clock that only moves when everything waits on it: `sleep` registers a wake-up time; `run` lets all
 * ready work proceed, then jumps to the earliest wake-up, until the work is done.
 */
function simulatedClock() {
  let t = 0;
  const timers: { at: number; wake: () => void }[] = [];
  return {
    now: () => t,
    sleep: (ms: number) => new Promise<void>((wake) => void timers.push({ at: t + ms, wake })),
    async run(work: Promise<unknown>): Promise<void> {
      let settled = false;
      work.then(
        () => (settled = true),
        () => (settled = true),
      );
      for (;;) {
        await new Promise((r) => setImmediate(r));
        if (settled) return void (await work);
        if (timers.length === 0) throw new Error('the simulated apply stopped without finishing');
        const at = Math.min(...timers.map((x) => x.at));
        t = Math.max(t, at);
        for (const due of timers.filter((x) => x.at <= t)) {
          timers.splice(timers.indexOf(due), 1);
          due.wake();
        }
      }
    },
  };
}
