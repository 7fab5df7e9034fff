/**
 * The Markdown plan's tables stay tables whatever the keys (issue #31): `service|ci-bot` is a valid
 * user key (docs/config.md), and GitHub ends a cell at every unescaped `|`, in a code span too. Planned
 * by the CLI against the embedded default (the real server over HTTP).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { cell, codeCell } from '../../src/plan/markdown.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'roster-md-cells-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The cells of a table row, split at the pipes GitHub splits at (not the escaped ones). */
const cells = (row: string) => row.replace(/^\||\|$/g, '').split(/(?<!\\)\|/);

describe('Markdown table cells', () => {
  it('escape every pipe and turn line breaks into spaces', () => {
    expect(cell('a|b\nc')).toBe('a\\|b c');
    expect(codeCell('user:service|ci-bot')).toBe('`user:service\\|ci-bot`');
  });

  it(
    "a plan with `service|ci-bot` keeps every row of every table at its header's width",
    { timeout: 60_000 },
    async () => {
      writeFileSync(
        path.join(tmp, 'roster.yaml'),
        [
          'version: 1',
          'resources: { document: { name: Document, actions: [read] } }',
          'roles: { viewer: { name: Viewer, permissions: [document:read] } }',
          'tenants: { acme: { name: Acme } }',
          'users:',
          '  "service|ci-bot": { email: ci@acme.test, tenants: [acme], roles: [{ role: viewer, on: document:readme }] }',
          'resource_instances: { document:readme: { tenant: acme } }',
          '',
        ].join('\n'),
      );
      const r = await runCli(['plan', '--format', 'markdown'], {
        cwd: tmp,
        env: { ROSTER_API_URL: undefined, ROSTER_DATA_DIR: path.join(tmp, '.roster') },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('`user:service\\|ci-bot`');
      const lines = r.stdout.split('\n');
      let width = 0;
      for (const line of lines) {
        if (!line.startsWith('|')) {
          width = 0;
          continue;
        }
        if (width === 0) width = cells(line).length;
        else expect(cells(line), line).toHaveLength(width);
      }
    },
  );
});
