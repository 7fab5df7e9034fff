import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, UnsafePlanError } from '../../src/errors.js';
import type { ApplyEvent } from '../../src/apply/apply.js';
import type { Plan } from '../../src/plan/index.js';
import { runApply, type ApplyView } from '../../src/usecases/apply.js';
import { runPlan } from '../../src/usecases/plan.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { SMALL } from '../apply/fixtures.js';

/**
 * The plan and apply use cases (src/usecases/) called as functions, without a terminal or a process:
 * against the real server over HTTP, what they return and the events they emit, in order.
 */
describe.sequential('the plan and apply use cases, without a terminal', { timeout: 60_000 }, () => {
  let server: TestServer;
  let dir: string;
  let config: string;
  const where = () => ({ apiUrl: server.url, project: 'p', env: 'e', data: path.join(dir, '.roster') });

  /** A view recording what the apply emits; `confirm` answers `answer`. */
  const recorder = (answer: 'yes' | 'no' = 'yes') => {
    const seen: string[] = [];
    const events: ApplyEvent[] = [];
    const view: ApplyView = {
      warnings: (w) => void seen.push(`warnings ${w.length}`),
      plan: (p: Plan) => void seen.push(`plan ${p.changes.length}`),
      failingAllowed: (what) => void seen.push(`allowed: ${what}`),
      async confirm(p, at) {
        seen.push(`confirm ${p.project}/${p.environment} on ${at}`);
        if (answer === 'no') throw new UnsafePlanError('not confirmed: nothing was applied', '--yes');
      },
      async progress(total) {
        seen.push(`progress ${total}`);
        return { onEvent: (e) => void events.push(e), finish: async () => void seen.push('finish') };
      },
    };
    return { view, seen, events };
  };

  beforeAll(async () => {
    vi.stubEnv('ROSTER_API_KEY', ORG_KEY);
    server = await startTestServer();
    dir = mkdtempSync(path.join(os.tmpdir(), 'roster-usecases-'));
    config = path.join(dir, 'roster.yaml');
    writeFileSync(config, SMALL);
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('plans from empty: the plan value, with its access section, and the warnings emitted once', async () => {
    const warned: number[] = [];
    const plan = await runPlan({ ...where(), paths: [config], accessPermissions: false }, (w) => warned.push(w.length));
    expect(warned).toEqual([0]);
    expect(plan.summary).toMatchObject({ create: 15, update: 0, delete: 0 });
    expect(plan.changes.map((c) => c.id)).toContain('member:alice@team:eng');
    expect(plan.target).toBe(new URL(server.url).host);
    expect(plan.access?.users).toBeGreaterThan(0);
    // Planning wrote nothing.
    expect((await server.facts('GET', '/users')).body.data ?? []).toEqual([]);
  });

  it('refuses when the view does not confirm: the plan was shown, nothing was written', async () => {
    const { view, seen } = recorder('no');
    await expect(runApply({ ...where(), paths: [config] }, view)).rejects.toThrow(UnsafePlanError);
    expect(seen).toEqual(['warnings 0', 'plan 15', `confirm p/e on ${new URL(server.url).host}`]);
    expect((await server.facts('GET', '/users')).body.data ?? []).toEqual([]);
  });

  it('applies: events for every change, the outcome verified, the decision check and the snapshot line', async () => {
    const { view, seen, events } = recorder();
    const run = await runApply({ ...where(), paths: [config], decisionWaitMs: 0 }, view);
    expect(seen).toEqual([
      'warnings 0',
      'plan 15',
      `confirm p/e on ${new URL(server.url).host}`,
      'progress 15',
      'finish',
    ]);
    expect(events.filter((e) => e.type === 'done')).toHaveLength(15);
    expect(run.outcome.total).toBe(15);
    expect(run.outcome.result.done).toHaveLength(15);
    expect(run.outcome.result.failed).toEqual([]);
    expect(run.outcome.leftover?.ids).toEqual([]);
    expect(run.outcome.unverified).toBeUndefined();
    expect(run.outcome.decisions?.disagreements).toEqual([]);
    expect(run.decisions?.error).toBeUndefined();
    expect(run.snapshot).toMatch(/^snapshot after the apply: /);
    const users = (await server.facts('GET', '/users')).body.data.map((u: { key: string }) => u.key).sort();
    expect(users).toEqual(['alice', 'bob']);
  });

  it('then has nothing to apply: no confirmation, no progress, an outcome of 0', async () => {
    const { view, seen } = recorder('no');
    const run = await runApply({ ...where(), paths: [config] }, view);
    expect(seen).toEqual(['warnings 0', 'plan 0']);
    expect(run.outcome).toMatchObject({ total: 0, result: { done: [], failed: [] } });
  });

  it('keeps the error classes: a configuration error is a ConfigError, and nothing is asked', async () => {
    const broken = path.join(dir, 'broken.yaml');
    writeFileSync(broken, 'users:\n  alice: { tenants: [nowhere] }\n');
    const { view, seen } = recorder();
    const err = await runApply({ ...where(), paths: [broken] }, view).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(/nothing was written to the service/);
    expect(seen).toEqual([]);
  });
});
