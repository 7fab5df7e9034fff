/**
 * `roster init --environments ENV` in a repository that already has the several-environments layout:
 * adds ENV (its folder, and its plan, apply and expire jobs in the workflow) and changes nothing else.
 * The workflow may have been edited since `roster init` wrote it: when it is still exactly what init
 * wrote, it is written again for every environment; otherwise the new environment is added to the
 * `ROSTER_ENVIRONMENTS` list and its jobs appended under `jobs:`, the rest of the file kept as it is.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ConfigError } from '../../errors.js';
import { ENVS_DIR, layoutEnvironments } from '../config-paths.js';
import { environmentFiles } from './environments.js';
import { variablesFor } from './variables.js';
import { environmentJobs, environmentsWorkflow } from './workflow-environments.js';

export interface Addition {
  /** The environments the layout had. */
  existing: string[];
  files: { file: string; content: string; what: string }[];
  workflow: { content: string; what: string };
}

/** What adding `environments` to the layout in `dir` writes; undefined when `dir` has no layout yet. */
export function planAddition(dir: string, environments: string[], workflowFile: string): Addition | undefined {
  const envsDir = path.join(dir, 'roster', ENVS_DIR);
  if (!existsSync(envsDir)) return undefined;
  const existing = layoutEnvironments(path.join(dir, 'roster'));
  if (existing.length === 0) return undefined;
  const there = environments.filter((e) => existing.includes(e));
  if (there.length > 0) {
    throw new ConfigError(
      `roster/${ENVS_DIR}/ has ${there.join(', ')} already; nothing was written (the layout has ${existing.join(', ')}; --force writes the whole layout again)`,
    );
  }
  const files = environmentFiles(environments, (env) => variablesFor(path.join(dir, 'roster'), env, existing));
  const file = path.join(dir, workflowFile);
  const what = `+ the jobs of ${environments.join(', ')} (plan, apply, expire)`;
  if (!existsSync(file)) {
    return {
      existing,
      files,
      workflow: {
        content: environmentsWorkflow([...existing, ...environments]),
        what: 'plans each environment a pull request touches, applies each on merge, expires grants on a schedule',
      },
    };
  }
  const text = readFileSync(file, 'utf8');
  return { existing, files, workflow: { content: addJobs(text, environments, file), what } };
}

/** The workflow with the jobs of `environments` added; refused when it is not one `roster init --environments` wrote. */
export function addJobs(text: string, environments: string[], file: string): string {
  const listed = /^([ \t]+ROSTER_ENVIRONMENTS:[ \t]*)(.*)$/m.exec(text);
  const byHand = `add the jobs of ${environments.join(', ')} by hand (docs/ci.md, "Several environments"); nothing was written`;
  if (!listed)
    throw new ConfigError(
      `${file} has no ROSTER_ENVIRONMENTS list: it is not the workflow \`roster init --environments\` writes; ${byHand}`,
    );
  const inWorkflow = listed[2].trim().split(/\s+/).filter(Boolean);
  if (text === environmentsWorkflow(inWorkflow)) return environmentsWorkflow([...inWorkflow, ...environments]);
  const jobsAt = text.search(/^jobs:[ \t]*$/m);
  // The jobs are appended at the end of the file: only right when `jobs:` is its last top-level key.
  if (jobsAt < 0 || /^[^\s#]/m.test(text.slice(jobsAt + 'jobs:'.length))) {
    throw new ConfigError(`${file}: \`jobs:\` is not the last top-level key; ${byHand}`);
  }
  const withList = text.replace(listed[0], `${listed[1]}${[...inWorkflow, ...environments].join(' ')}`);
  const out = `${withList.replace(/\n*$/, '\n')}${environments.map((e) => `\n${environmentJobs(e)}`).join('')}`;
  let jobs: Record<string, unknown> | undefined;
  try {
    jobs = (parse(out) as { jobs?: Record<string, unknown> }).jobs;
  } catch {
    jobs = undefined;
  }
  const missing = environments
    .flatMap((e) => [`plan-${e}`, `apply-${e}`, `expire-${e}`])
    .filter((j) => !jobs || !(j in jobs));
  if (missing.length > 0)
    throw new ConfigError(`${file}: adding ${missing.join(', ')} would not give a valid workflow; ${byHand}`);
  return out;
}
