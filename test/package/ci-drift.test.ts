/**
 * The drift job of the workflow `roster init` writes (docs/ci.md, "Drift"): its schedule, its full read
 * and the cache it leaves, and its issue script, run against a GitHub stand-in: one issue, opened on
 * drift, updated in place on the next run, closed with a comment once nothing drifted.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DRIFT_MARKER } from '../../src/plan/render-drift.js';
import { runGitHubScript, stepNamed, workflow } from './ci-steps.js';

const DAILY = '17 5 * * *';

describe('the drift job', () => {
  const wf = workflow();
  const job = wf.jobs.drift as (typeof wf.jobs)[string] & { permissions?: unknown };

  it('runs once a day on its own schedule (and by hand), never on a pull request or a push', () => {
    expect(wf.on.schedule).toContainEqual({ cron: DAILY });
    expect(wf.on).toHaveProperty('workflow_dispatch');
    expect(job.if).toBe(
      `github.event_name == 'workflow_dispatch' || (github.event_name == 'schedule' && github.event.schedule == '${DAILY}')`,
    );
    // Never beside an apply; the only job that may write issues.
    expect(job.concurrency).toBe('roster-apply');
    expect(job.permissions).toEqual({ contents: 'read', issues: 'write' });
    for (const [name, j] of Object.entries(wf.jobs))
      if (name !== 'drift') expect((j as { permissions?: unknown }).permissions, name).toBeUndefined();
  });

  it('reports drift in Markdown, failing only on an error, and saves the snapshot its full read left', () => {
    const names = job.steps.map((s) => s.name);
    expect(names).toEqual(['checkout', 'node', 'install', 'drift', 'keep snapshot', 'issue']);
    const drift = stepNamed(job.steps, 'drift');
    expect(drift.run).toContain('npx --no roster drift roster/ --format markdown --detailed-exitcode > drift.md');
    expect(drift.run).toContain('if [ "$code" != 0 ] && [ "$code" != 2 ]; then exit "$code"; fi');
    expect(stepNamed(job.steps, 'keep snapshot')).toMatchObject({
      uses: 'actions/cache/save@v4',
      with: { path: '.roster/snapshots', key: 'roster-snapshot-${{ github.run_id }}' },
    });
    expect(stepNamed(job.steps, 'issue').env).toEqual({
      ROSTER_DRIFT_FILE: 'drift.md',
      ROSTER_DRIFT_EXITCODE: '${{ steps.drift.outputs.exitcode }}',
    });
  });
});

interface Issue {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  labels: string[];
  comments: string[];
  pull_request?: object;
}

/** The part of Octokit the issue script uses, over issues kept in memory. */
function fakeIssues(initial: Issue[] = []) {
  const issues = [...initial];
  const calls: string[] = [];
  let next = 100;
  const find = (n: number) => issues.find((i) => i.number === n)!;
  const github = {
    paginate: async (fn: (p: unknown) => Promise<{ data: unknown[] }>, params: unknown) => (await fn(params)).data,
    rest: {
      issues: {
        listForRepo: async (p: { labels: string; state: string }) => {
          calls.push(`list ${p.labels} ${p.state}`);
          return {
            data: issues.filter((i) => i.state === p.state && i.labels.includes(p.labels)).map((i) => ({ ...i })),
          };
        },
        create: async (p: { title: string; body: string; labels: string[] }) => {
          calls.push(`create ${p.title}`);
          issues.push({ number: next++, title: p.title, body: p.body, state: 'open', labels: p.labels, comments: [] });
        },
        update: async (p: { issue_number: number; body?: string; state?: 'closed' }) => {
          calls.push(`update ${p.issue_number}${p.state ? ` ${p.state}` : ''}`);
          Object.assign(
            find(p.issue_number),
            p.body !== undefined ? { body: p.body } : {},
            p.state ? { state: p.state } : {},
          );
        },
        createComment: async (p: { issue_number: number; body: string }) => {
          calls.push(`comment ${p.issue_number}`);
          find(p.issue_number).comments.push(p.body);
        },
      },
    },
  };
  return { github, issues, calls };
}

describe('the issue script', () => {
  const script = stepNamed(workflow().jobs.drift.steps, 'issue').with!.script;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'roster-drift-issue-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const report = (text: string) => {
    const file = path.join(dir, `drift-${Math.random().toString(36).slice(2)}.md`);
    writeFileSync(file, text);
    return file;
  };
  const run = (gh: ReturnType<typeof fakeIssues>, env: Record<string, string>) =>
    runGitHubScript(script, { env, github: gh.github });

  it('opens one issue on drift, updates it on the next run, closes it once nothing drifted', async () => {
    const other = {
      number: 1,
      title: 'Roster: drift',
      body: 'a pull request',
      state: 'open' as const,
      labels: ['roster-drift'],
      comments: [],
      pull_request: {},
    };
    const gh = fakeIssues([other]);
    const first = `${DRIFT_MARKER}\n### Roster drift: p/e\n\n| ~ | \`role:viewer\` |\n`;
    await run(gh, { ROSTER_DRIFT_FILE: report(first), ROSTER_DRIFT_EXITCODE: '2' });
    expect(gh.calls).toEqual(['list roster-drift open', 'create Roster: drift']);
    const opened = gh.issues.find((i) => i.number === 100)!;
    expect(opened).toMatchObject({ title: 'Roster: drift', body: first, labels: ['roster-drift'], state: 'open' });

    const second = `${DRIFT_MARKER}\n### Roster drift: p/e\n\n| - | \`user:alice\` |\n`;
    await run(gh, { ROSTER_DRIFT_FILE: report(second), ROSTER_DRIFT_EXITCODE: '2' });
    expect(gh.calls.slice(2)).toEqual(['list roster-drift open', 'update 100']);
    expect(opened.body).toBe(second);

    await run(gh, { ROSTER_DRIFT_FILE: report(`${DRIFT_MARKER}\nNo drift.\n`), ROSTER_DRIFT_EXITCODE: '0' });
    expect(gh.calls.slice(4)).toEqual(['list roster-drift open', 'comment 100', 'update 100 closed']);
    expect(opened).toMatchObject({ state: 'closed', body: second });
    expect(opened.comments[0]).toMatch(/^No drift any more/);
    // A pull request with the same label and title is never taken for the issue.
    expect(gh.issues.find((i) => i.number === 1)).toEqual(other);

    // Nothing drifted and no issue open: nothing to do.
    await run(gh, { ROSTER_DRIFT_FILE: report(''), ROSTER_DRIFT_EXITCODE: '0' });
    expect(gh.calls.slice(7)).toEqual(['list roster-drift open']);
    // Drift again: a new issue (the closed one keeps its history).
    await run(gh, { ROSTER_DRIFT_FILE: report(first), ROSTER_DRIFT_EXITCODE: '2' });
    expect(gh.calls.slice(8)).toEqual(['list roster-drift open', 'create Roster: drift']);
  });

  it('keeps one issue per environment, by its title', async () => {
    const gh = fakeIssues();
    for (const env of ['dev', 'prod', 'dev'])
      await run(gh, {
        ROSTER_DRIFT_FILE: report(`${DRIFT_MARKER}\n${env}\n`),
        ROSTER_DRIFT_EXITCODE: '2',
        ROSTER_ENVIRONMENT: env,
      });
    expect(gh.issues.map((i) => [i.title, i.body])).toEqual([
      ['Roster: drift in dev', `${DRIFT_MARKER}\ndev\n`],
      ['Roster: drift in prod', `${DRIFT_MARKER}\nprod\n`],
    ]);
  });

  it('cuts a report longer than an issue allows at a line', async () => {
    const gh = fakeIssues();
    const lines = Array.from(
      { length: 3000 },
      (_, i) => `| - | \`user:user-${String(i).padStart(5, '0')}\` | deleted |`,
    );
    await run(gh, { ROSTER_DRIFT_FILE: report(`${DRIFT_MARKER}\n${lines.join('\n')}\n`), ROSTER_DRIFT_EXITCODE: '2' });
    const body = gh.issues[0].body;
    expect(body.length).toBeLessThanOrEqual(65536);
    expect(body).toMatch(
      /deleted \|\n\n_The report is longer than an issue allows: the whole report is in the job summary._\n$/,
    );
  });
});
