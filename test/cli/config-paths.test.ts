/** Which files a command reads in a directory of several environments (src/usecases/config-paths.ts). */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configPaths, isLayout, layoutEnvironments } from '../../src/usecases/config-paths.js';
import { ConfigError } from '../../src/errors.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'roster-paths-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
function tree(files: string[]): string {
  const dir = path.join(tmp, `t${++n}`);
  for (const f of files) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), 'version: 1\n');
  }
  return dir;
}
const problemsOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return { message: err.message, problems: err.problems };
    throw err;
  }
  throw new Error('no error');
};

describe('configPaths in the several-environments layout', () => {
  it('a directory holding envs/ is shared/ plus the folder of --env', () => {
    const dir = tree(['shared/a.yaml', 'envs/staging/b.yaml', 'envs/prod/c.yaml']);
    expect(isLayout(dir)).toBe(true);
    expect(layoutEnvironments(dir)).toEqual(['prod', 'staging']);
    expect(configPaths([dir], 'plan', 'prod')).toEqual([path.join(dir, 'shared'), path.join(dir, 'envs/prod')]);
  });

  it('shared/ is optional; other paths pass through unchanged', () => {
    const dir = tree(['envs/dev/a.yaml', 'other/x.yaml']);
    expect(configPaths([path.join(dir, 'envs/dev'), path.join(dir, 'other/x.yaml')], 'plan', 'dev')).toEqual([
      path.join(dir, 'envs/dev'),
      path.join(dir, 'other/x.yaml'),
    ]);
    const noShared = tree(['envs/dev/a.yaml']);
    expect(configPaths([noShared], 'plan', 'dev')).toEqual([path.join(noShared, 'envs/dev')]);
  });

  it.each([
    ['no --env', undefined, /holds one folder per environment: dev, prod; name one with --env$/],
    ['an unknown environment', 'qa', /has no folder for the environment "qa": dev, prod$/],
  ])('%s is an error naming the environments', (_name, env, message) => {
    const dir = tree(['shared/a.yaml', 'envs/dev/a.yaml', 'envs/prod/a.yaml']);
    expect(problemsOf(() => configPaths([dir], 'plan', env)).message).toMatch(message);
  });

  it('a file outside shared/ and envs/ is an error, not silently unread', () => {
    const dir = tree(['roster.yaml', 'shared/a.yaml', 'envs/dev/a.yaml', '.hidden/x.yaml']);
    const { problems } = problemsOf(() => configPaths([dir], 'plan', 'dev'));
    expect(problems.map((p) => p.file)).toEqual([path.join(dir, 'roster.yaml')]);
  });
});
