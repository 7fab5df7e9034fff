import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateEnvironment, toYaml } from '../../bench/generate.js';
import { startProxy } from '../../bench/proxy.js';
import { createClient, type RateLimits } from '../../src/api/index.js';
import { readLiveState } from '../../src/api/read-live.js';
import { applyPlan } from '../../src/apply/apply.js';
import { dryRun, estimateApply } from '../../src/apply/estimate.js';
import { validateSources } from '../../src/config/index.js';
import { planChanges } from '../../src/plan/plan.js';
import { renderPlanText } from '../../src/plan/render-text.js';
import { ORG_KEY, startEnv, type Env } from './helpers.js';

const OPTIONS = { project: 'p', environment: 'e' };
const desired = (() => {
  const r = validateSources([
    {
      file: 'gen.yaml',
      text: toYaml(
        generateEnvironment({
          users: 40,
          groups: 8,
          maxDepth: 2,
          instances: 12,
          memberships: 60,
          tenants: 2,
          seed: 3,
        }) as never,
      ),
    },
  ]);
  if (!r.desired) throw new Error(JSON.stringify(r.errors.slice(0, 3)));
  return r.desired;
})();

/** The public limits scaled down to one second, so a test can meet them. */
const SCALED: RateLimits = {
  request: { limit: 40, windowMs: 1000 },
  write: { limit: 20, windowMs: 1000 },
  delete: { limit: 10, windowMs: 1000 },
  schemaWrite: { limit: 12, windowMs: 1000 },
  bulk: { limit: 3, windowMs: 1000 },
};

describe('the cost of an apply', { timeout: 120_000 }, () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv({ projects: ['dry', 'count', 'paced', 'unpaced'] });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('the dry run sends nothing and lists exactly the requests the real apply sends', async () => {
    const { client, requests } = env.client('dry');
    const plan = planChanges(desired, await readLiveState(client), { ...OPTIONS, project: 'dry' });
    const reads = requests.length;
    const dry = await dryRun(plan);
    expect(requests.length).toBe(reads);
    const result = await applyPlan(plan, client);
    expect(result.failed).toEqual([]);
    const real = requests
      .slice(reads)
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    expect(dry.map((r) => `${r.method} ${r.path}`).sort()).toEqual(real);
  });

  it('counts every class and the time the pacer needs; the plan text says it', async () => {
    const { client } = env.client('count');
    const plan = planChanges(desired, await readLiveState(client), { ...OPTIONS, project: 'count' });
    const cost = await estimateApply(plan);
    const dry = await dryRun(plan);
    expect(cost.requests).toBe(dry.length);
    expect(cost.byClass.request).toBe(dry.length);
    expect(cost.byClass.schemaWrite).toBe(
      dry.filter((r) => r.method !== 'GET' && r.path.includes('/v2/schema/')).length,
    );
    expect(cost.byClass.bulk).toBe(dry.filter((r) => /\/bulk(\/|$)/.test(r.path)).length);
    // Schema writes are the tightest public limit (40 a minute, 36 with our headroom, 3 at once).
    const schemaWrites = cost.byClass.schemaWrite!;
    expect(schemaWrites).toBeGreaterThan(3);
    expect(cost.seconds).toBeGreaterThanOrEqual(Math.floor(((schemaWrites - 3) * 60) / 33));
    expect(cost.seconds).toBeLessThanOrEqual(Math.ceil(((schemaWrites - 3) * 60) / 33) + 1);
    // Each request counted once, by its kind: the kinds add up to the requests (issue #41).
    const kinds = Object.entries(cost.kinds ?? {});
    expect(kinds.reduce((n, [, k]) => n + k, 0)).toBe(cost.requests);
    expect(cost.kinds?.['schema write']).toBe(schemaWrites);
    expect(renderPlanText({ ...plan, cost })).toContain(
      `Applying it: ${cost.requests.toLocaleString('en-US')} requests: `,
    );
    expect(renderPlanText({ ...plan, cost })).toMatch(
      /requests: \d+ schema writes(, \d+ [a-z ]+)*; about \d+ (s|min), paced to the public service's rate limits\.\n/,
    );
  });

  it('paced to the limits, an apply meets no 429 from a service enforcing them; unpaced, it does', async () => {
    const run = async (project: string, pacing: 'none' | RateLimits) => {
      const proxy = await startProxy({ upstream: env.server.url, limits: SCALED });
      const client = createClient({ baseUrl: proxy.url, apiKey: ORG_KEY, project, environment: 'e', pacing });
      try {
        const plan = planChanges(desired, await readLiveState(client), { ...OPTIONS, project });
        const result = await applyPlan(plan, client);
        expect(result.failed).toEqual([]);
        return { limited: proxy.limited(), retries: client.counters().retries };
      } finally {
        await client.close();
        await proxy.close();
      }
    };
    expect(await run('paced', SCALED)).toEqual({ limited: 0, retries: 0 });
    const unpaced = await run('unpaced', 'none');
    expect(unpaced.limited).toBeGreaterThan(0);
  });
});
