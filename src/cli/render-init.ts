import path from 'node:path';
import type { PackageJson } from '../usecases/init/package-json.js';
import { PACKAGE_NAME } from '../usecases/init/package-json.js';
import { WORKFLOW_FILE, type LiveTarget } from '../usecases/init.js';

/** The next steps `roster init` prints under what it wrote (cli/commands/init.ts). */
export function nextSteps(
  dir: string,
  pkg: PackageJson,
  denied: string[],
  environments?: string[],
  existing?: string[],
  live?: LiveTarget & { apiUrl?: string },
  broken?: string,
): string[] {
  const at = path.relative(process.cwd(), dir);
  const cd = at === '' ? '' : `cd ${/^[\w./-]+$/.test(at) ? at : JSON.stringify(at)} && `;
  const deps = { ...(pkg.dependencies as object), ...(pkg.devDependencies as object) } as Record<string, unknown>;
  const declared = deps[PACKAGE_NAME];
  const spec = typeof declared === 'string' ? declared : undefined;
  const steps: string[] = [];
  const toCommit = ['roster/', '.github/', '.gitignore', 'package.json', 'package-lock.json'];
  const notes: string[] = denied.map(
    (key) =>
      `warning: package.json's allowScripts denies ${key}; the embedded default and \`roster serve\` need its install script`,
  );
  if (spec === undefined) {
    steps.push(
      `${cd}npm install --save-dev ROSTER   (ROSTER: a git URL, or a tarball in this repository; see Roster's README)`,
    );
  } else {
    steps.push(`${cd}npm install   (writes package-lock.json, from which CI installs with npm ci)`);
    const tarball = spec.startsWith('file:') ? path.resolve(dir, spec.slice('file:'.length)) : undefined;
    if (tarball && path.relative(dir, tarball).startsWith('..')) {
      notes.push(
        `note: package.json installs Roster from ${tarball}, outside this repository, where CI cannot reach it: commit the tarball, or install Roster from a git URL`,
      );
    } else if (tarball) {
      // CI installs from the lock file, which names the tarball: it must be in the commit too.
      toCommit.push(path.relative(dir, tarball).split(path.sep).join('/'));
    }
  }
  if (broken)
    steps.push(
      `${cd}npm rebuild better-sqlite3   (its install script has not run, so the embedded default cannot start: ${broken})`,
    );
  if (environments && existing) {
    steps.push(
      `${cd}npx --no roster validate roster/ && npx --no roster plan roster/ --env ${environments[0]}   (against the embedded default in ./.roster)`,
    );
    steps.push(
      `on GitHub, Settings > Environments: create ${environments.join(', ')}; in each, the secret ROSTER_API_KEY (a key scoped to it, for its apply, expire and drift jobs) and any protection rules`,
    );
  } else if (environments) {
    steps.push(
      `${cd}npx --no roster validate roster/ && npx --no roster plan roster/ --env ${environments[0]}   (against the embedded default in ./.roster)`,
    );
    steps.push(
      'on GitHub, Settings > Secrets and variables > Actions: add the variable ROSTER_API_URL and the secret ROSTER_API_KEY (a key that reads every environment, for the plans)',
    );
    steps.push(
      `on GitHub, Settings > Environments: create ${environments.join(', ')}; in each, the secret ROSTER_API_KEY (a key scoped to it, for its apply, expire and drift jobs) and any protection rules (required reviewers for ${environments[environments.length - 1]})`,
    );
  } else if (live?.kind === 'remote') {
    // The plan the next step suggests reads the environment the export came from, not the embedded default.
    const flag = live.apiUrl ? ` --api-url ${live.apiUrl}` : '';
    const scope = live.named
      ? `${live.project}/${live.environment}, as roster/roster.yaml names it`
      : `${live.project}/${live.environment}, the key's environment`;
    steps.push(
      `${cd}npx --no roster validate roster/ && npx --no roster plan roster/${flag}   (against ${live.where}, ${scope}; ${live.apiUrl ? 'ROSTER_API_KEY' : 'ROSTER_API_URL and ROSTER_API_KEY'} as for this init: it plans no changes)`,
    );
    steps.push(
      'on GitHub, Settings > Secrets and variables > Actions: add the variable ROSTER_API_URL and the secret ROSTER_API_KEY (a key scoped to one environment)',
    );
  } else {
    steps.push(
      `${cd}npx --no roster validate roster/ && npx --no roster plan roster/   (against the embedded default in ./.roster)`,
    );
    steps.push(
      'on GitHub, Settings > Secrets and variables > Actions: add the variable ROSTER_API_URL and the secret ROSTER_API_KEY (a key scoped to one environment)',
    );
  }
  steps.push(
    `commit (${toCommit.join(' ')}) and open a pull request: its plan appears as a comment; merging to main applies it (another branch: edit \`branches:\` in ${WORKFLOW_FILE})`,
  );
  return ['Next steps:', ...steps.map((s, i) => `  ${i + 1}. ${s}`), ...notes];
}
