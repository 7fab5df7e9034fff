import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import { ReviewApp } from '../../src/review/ui/App.js';
import { createReviewController, createReviewSource } from '../../src/review/index.js';
import type { ApiClient } from '../../src/api/index.js';
import { ENV_KEY, ORG_KEY, type TestServer } from '../helpers/server.js';
import { runCli } from '../helpers/cli.js';
import { clientFor, fileRequest, startRecordedWorld, type RecordedWorld } from './world.js';

/**
 * One review queue across element configurations (issue 31), over the real server: `roster review`'s
 * screen (only the terminal is fake) and `roster requests list`. Configuration `oncall` (reviewers:
 * approver) beside the world's `default`.
 */

let world: RecordedWorld;
let server: TestServer;
let client: ApiClient;
let onDefault: string;
let onOncall: string;
beforeAll(async () => {
  world = await startRecordedWorld();
  server = world.server;
  client = clientFor(server);
  const made = await server.call('POST', '/v2/elements/p/e/config', {
    key: 'oncall',
    name: 'On call',
    elements_type: 'user_management',
    settings: {},
    roles_to_levels: { LEVEL_1: ['approver'] },
  });
  if (made.status >= 300) throw new Error(JSON.stringify(made.body));
  onDefault = await fileRequest(
    server,
    'dave',
    { role: 'viewer', resource: 'document', resource_instance: 'roadmap' },
    'onboarding',
  );
  const r = await server.facts('POST', '/access_requests/oncall/user/alice/tenant/acme', {
    access_request_details: { tenant: 'acme', role: 'editor', resource: 'document', resource_instance: 'readme' },
    reason: 'pager duty tonight',
  });
  if (r.status >= 300) throw new Error(JSON.stringify(r.body));
  onOncall = r.body.id;
});
afterAll(async () => {
  await client.close();
  await world.close();
});
afterEach(() => cleanup());

function mount(user: string) {
  const source = createReviewSource({ client, user, tenant: 'acme', config: 'default' });
  const controller = createReviewController({
    source,
    user,
    tenant: 'acme',
    order: 'newest',
    width: 100,
    configs: ['default', 'oncall'],
    lifetimes: { oncall: '12h' },
  });
  const ui = render(
    <ReviewApp
      store={controller}
      onKey={controller.key}
      onResize={controller.resize}
      now={() => Date.now()}
      color={false}
    />,
  );
  controller.dispatch({ type: 'start' });
  const until = async (text: string | RegExp) => {
    const end = Date.now() + 5000;
    for (;;) {
      const f = ui.lastFrame() ?? '';
      if (typeof text === 'string' ? f.replace(/\s+/g, ' ').includes(text) : text.test(f)) return f;
      if (Date.now() > end) throw new Error(`timed out waiting for ${text}; last frame:\n${f}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const press = async (...keys: string[]) => {
    for (const k of keys) {
      ui.stdin.write(k === 'enter' ? '\r' : k);
      await new Promise((r) => setTimeout(r, 15));
    }
    await controller.idle();
  };
  return { until, press, controller };
}

describe('one review queue across element configurations', { timeout: 120_000 }, () => {
  it('lists both configurations in one queue, each row naming its own, and decides through the right one', async () => {
    const ui = mount('bob');
    const f = await ui.until('1–2 of 2');
    expect(f).toMatch(/CONFIG/);
    expect(f).toMatch(/› alice\s+editor\s+document:readme\s+oncall\s+\S+\s+pending\s+pager duty tonight/);
    expect(f).toMatch(/dave\s+viewer\s+document:roadmap\s+default\s+\S+\s+pending\s+onboarding/);
    // The tab counts both; the details say the configuration with its lifetime.
    expect(f).toContain('[1 pending (2)]');
    await ui.press('enter');
    await ui.until('configuration: oncall (grant_for 12h: an approval lasts 12h)');
    await ui.press('\u001b');
    await ui.press('a', 'enter', 'y');
    await ui.until('approved alice');
    const oncall = await server.facts('GET', `/access_requests/oncall/user/bob/tenant/acme/${onOncall}`);
    expect(oncall.body).toMatchObject({ status: 'approved' });
    const other = await server.facts('GET', `/access_requests/default/user/bob/tenant/acme/${onDefault}`);
    expect(other.body).toMatchObject({ status: null });
  });

  it('a user who reviews nothing sees which roles review, not "no pending request"', async () => {
    const ui = mount('alice');
    // alice's own request was approved above: her pending tab is empty.
    await ui.until('you review no requests in acme (reviewer roles: approver)');
  });

  it("where the user is a tenant's only reviewer, the user's own requests are said to be undecidable", async () => {
    const ok = async (p: Promise<{ status: number; body: unknown }>) => {
      const r = await p;
      if (r.status >= 300) throw new Error(JSON.stringify(r.body));
    };
    await ok(server.facts('POST', '/tenants', { key: 'solo', name: 'Solo' }));
    await ok(server.facts('POST', '/role_assignments', { user: 'carol', role: 'approver', tenant: 'solo' }));
    const alone = await createReviewSource({ client, user: 'carol', tenant: 'solo' }).readReviewing([
      'default',
      'oncall',
    ]);
    expect(alone).toEqual({ roles: ['approver'], reviews: true, alone: ['default', 'oncall'] });
    expect(
      await createReviewSource({ client, user: 'bob', tenant: 'acme' }).readReviewing(['default', 'oncall']),
    ).toEqual({ roles: ['approver'], reviews: true });
    // Not a reviewer: nothing more is read.
    expect(await createReviewSource({ client, user: 'dave', tenant: 'acme' }).readReviewing(['default'])).toEqual({
      roles: ['approver'],
      reviews: false,
    });
  });

  it('roster requests list: one list across the configurations, with --config to narrow it', async () => {
    const cli = (args: string[]) =>
      runCli([...args, '--api-url', world.recorder.url, '--project', 'p', '--env', 'e'], {
        env: { ROSTER_API_KEY: ORG_KEY },
      });
    const text = await cli(['requests', 'list', '--user', 'bob', '--tenant', 'acme']);
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^ID\s+STATUS\s+REQUESTER\s+TENANT\s+ROLE\s+RESOURCE\/INSTANCE\s+CONFIG\s+LIFETIME\s+AGE\s+REASON$/,
    );
    expect(
      lines
        .slice(1, 3)
        .map((l) => l.split(/\s+/).slice(0, 8).join(' '))
        .sort(),
    ).toEqual(
      [
        `${onDefault} pending dave acme viewer document:roadmap default unknown`,
        `${onOncall} approved alice acme editor document:readme oncall unknown`,
      ].sort(),
    );
    expect(lines[3]).toBe('1–2 of 2 · page 1/1');
    // No configuration here: the lifetime is said to be unknown, and why.
    expect(lines[4]).toBe(
      'lifetime unknown: grant_for is not on the service, and no configuration of p/e here declares it',
    );
    const json = JSON.parse(
      (await cli(['requests', 'list', '--user', 'bob', '--tenant', 'acme', '--format', 'json', '--per-page', '1']))
        .stdout,
    );
    expect(json).toMatchObject({
      total_count: 2,
      page_count: 2,
      data: [{ elements_config: expect.stringMatching(/^(default|oncall)$/) }],
    });
    const narrow = JSON.parse(
      (await cli(['requests', 'list', '--user', 'bob', '--tenant', 'acme', '--config', 'oncall', '--format', 'json']))
        .stdout,
    );
    expect(narrow.data.map((r: { id: string }) => r.id)).toEqual([onOncall]);
  });

  it("the lifetime comes from the repository's configuration of that environment (grant_for is not on the service)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'roster-queue-'));
    const yaml = (env: string) =>
      `project: p\nenvironment: ${env}\nroles:\n  approver: {}\naccess_requests:\n  default: { reviewer_roles: [approver] }\n  oncall: { reviewer_roles: [approver], grant_for: 12h }\n`;
    const list = (...extra: string[]) =>
      runCli(
        [
          'requests',
          'list',
          '--user',
          'bob',
          '--tenant',
          'acme',
          '--api-url',
          world.recorder.url,
          '--project',
          'p',
          '--env',
          'e',
          ...extra,
        ],
        { cwd: dir, env: { ROSTER_API_KEY: ORG_KEY } },
      );
    writeFileSync(path.join(dir, 'roster.yaml'), yaml('e'));
    const text = await list();
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      new RegExp(`^${onOncall}\\s+approved\\s+alice\\s+acme\\s+editor\\s+document:readme\\s+oncall\\s+12h\\s`, 'm'),
    );
    // Declared without grant_for: its grants never expire, and the list says so.
    expect(text.stdout).toMatch(
      new RegExp(`^${onDefault}\\s+pending\\s+dave\\s+acme\\s+viewer\\s+document:roadmap\\s+default\\s+never\\s`, 'm'),
    );
    expect(text.stdout).not.toContain('lifetime unknown');
    const json = JSON.parse((await list('--format', 'json')).stdout);
    expect(json.data.find((r: { id: string }) => r.id === onOncall)).toMatchObject({
      elements_config: 'oncall',
      grant_for: '12h',
    });
    expect(json.data.find((r: { id: string }) => r.id === onDefault)).not.toHaveProperty('grant_for');
    // A configuration of another environment says nothing about this one's lifetimes.
    writeFileSync(path.join(dir, 'roster.yaml'), yaml('prod'));
    expect(JSON.parse((await list('--format', 'json')).stdout).data.some((r: object) => 'grant_for' in r)).toBe(false);
  });

  it('in the several-environments layout, without --env, the folder of the environment the key is scoped to gives the lifetimes (issue 41)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'roster-queue-layout-'));
    mkdirSync(path.join(dir, 'roster/shared'), { recursive: true });
    mkdirSync(path.join(dir, 'roster/envs/e'), { recursive: true });
    mkdirSync(path.join(dir, 'roster/envs/prod'), { recursive: true });
    writeFileSync(path.join(dir, 'roster/shared/roster.yaml'), 'roles:\n  approver: {}\n');
    writeFileSync(
      path.join(dir, 'roster/envs/e/roster.yaml'),
      'project: p\nenvironment: e\naccess_requests:\n  default: { reviewer_roles: [approver] }\n  oncall: { reviewer_roles: [approver], grant_for: 12h }\n',
    );
    writeFileSync(
      path.join(dir, 'roster/envs/prod/roster.yaml'),
      'project: p\nenvironment: prod\naccess_requests:\n  default: { reviewer_roles: [approver] }\n  oncall: { reviewer_roles: [approver], grant_for: 1h }\n',
    );
    // The key is scoped to p/e: no flag names the environment.
    const text = await runCli(
      ['requests', 'list', '--user', 'bob', '--tenant', 'acme', '--api-url', world.recorder.url],
      { cwd: dir, env: { ROSTER_API_KEY: ENV_KEY, ROSTER_ENV: undefined, ROSTER_PROJECT: undefined } },
    );
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      new RegExp(`^${onOncall}\\s+approved\\s+alice\\s+acme\\s+editor\\s+document:readme\\s+oncall\\s+12h\\s`, 'm'),
    );
    expect(text.stdout).toMatch(new RegExp(`^${onDefault}\\s.*\\sdefault\\s+never\\s`, 'm'));
  });
});
