/**
 * The workflow `roster init --environments A,B` writes (docs/ci.md, "Several environments"): a job that
 * finds the environments a change touches, then per environment a plan job (its own pull-request
 * comment, the marker naming the environment) and an apply job bound to the GitHub environment of the
 * same name (so that prod can require a reviewer, and hold its own key). The steps are those of the
 * one-environment workflow (templates/workflow.yml), with `--env`; the comment script is that
 * template's, unchanged, so both comment the same way.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { PACKAGE_ROOT } from './installed-from.js';

/** An environment key usable as a folder, a job id and a GitHub environment name. */
export const ENVIRONMENT_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/i;

export function environmentsWorkflow(environments: string[]): string {
  const script = commentScript();
  const indented = (text: string, by: string) =>
    text
      .trimEnd()
      .split('\n')
      .map((l) => (l ? by + l : l))
      .join('\n');
  const out: string[] = [HEADER, CHANGES(environments.join(' '))];
  for (const env of environments) out.push(PLAN(env, indented(script, ' '.repeat(12))));
  for (const env of environments) out.push(APPLY(env));
  for (const env of environments) out.push(EXPIRE(env));
  for (const env of environments) out.push(DRIFT(env));
  return `${out.join('\n')}`;
}

/**
 * The jobs of one environment, as environmentsWorkflow writes them: `roster init --environments ENV` on
 * an existing layout appends them to a workflow the user may have edited (src/usecases/init/add-environment.ts).
 */
export function environmentJobs(env: string): string {
  return [
    PLAN(
      env,
      commentScript()
        .trimEnd()
        .split('\n')
        .map((l) => (l ? ' '.repeat(12) + l : l))
        .join('\n'),
    ),
    APPLY(env),
    EXPIRE(env),
    DRIFT(env),
  ].join('\n');
}

/** The comment script of templates/workflow.yml (its plan job), its apply job's `reviewed` script, its drift job's `issue` script. */
function commentScript(job: 'plan' | 'apply' | 'drift' = 'plan', step = 'comment'): string {
  const wf = parse(readFileSync(path.join(PACKAGE_ROOT, 'templates', 'workflow.yml'), 'utf8')) as {
    jobs: Record<string, { steps: { name: string; with?: { script?: string } }[] }>;
  };
  const script = wf.jobs[job].steps.find((s) => s.name === step)?.with?.script;
  if (!script) throw new Error(`templates/workflow.yml has no ${step} script`);
  return script;
}

/** The `reviewed` script of templates/workflow.yml's apply job, indented for a job's steps. */
function reviewedScript(): string {
  return commentScript('apply', 'reviewed')
    .trimEnd()
    .split('\n')
    .map((l) => (l ? ' '.repeat(12) + l : l))
    .join('\n');
}

const PATHS = "['roster/**', 'package.json', 'package-lock.json', '.github/workflows/roster.yml']";

const HEADER = `# Roster, several environments: plan each environment a pull request touches (one comment per
# environment, updated on each push), apply each on merge. Written by \`roster init --environments\`;
# explained in node_modules/roster-authz/docs/ci.md. Needs the variable ROSTER_API_URL and the secret
# ROSTER_API_KEY (Settings > Secrets and variables > Actions): the plan jobs use the repository's (a key
# that reads every environment); each apply job runs in the GitHub environment of its name, whose own
# variable and secret, when set, take the place of the repository's. Every 15 minutes, an expire job per
# environment revokes the grants of approved access requests whose grant_for is over; once a day, a drift job
# per environment reports what drifted from the configuration, and who changed it, in one issue each.
name: roster
on:
  pull_request:
    paths: ${PATHS}
  push:
    branches: [main]
    paths: ${PATHS}
  schedule:
    - cron: '*/15 * * * *' # the expire jobs: how late a grant_for can be enforced (docs/review.md)
    - cron: '17 5 * * *' # the drift jobs, once a day (docs/ci.md, "Drift")
  workflow_dispatch: # the drift jobs, by hand (Actions > roster > Run workflow)

permissions:
  contents: read
  pull-requests: write

jobs:`;

const CHANGES = (environments: string) => `  changes:
    if: github.event_name != 'schedule'
    runs-on: ubuntu-latest
    outputs:
      environments: \${{ steps.changes.outputs.environments }}
    steps:
      - name: checkout
        uses: actions/checkout@v4
        with: { fetch-depth: 0 }
      - name: changes
        id: changes
        env:
          ROSTER_ENVIRONMENTS: ${environments}
          ROSTER_PR_BASE: \${{ github.event.pull_request.base.sha }}
          ROSTER_PUSH_BASE: \${{ github.event.before }}
        run: |
          # The environments this change touches: its folder roster/envs/<env>/ touches one; any other
          # path the workflow watches (roster/shared/, package.json, this file) touches them all.
          base="\${ROSTER_PR_BASE:-\${ROSTER_PUSH_BASE:-}}"
          if [ -n "$base" ] && git cat-file -e "$base^{commit}" 2>/dev/null; then
            changed=$(git diff --name-only "$base" HEAD)
          else
            changed=roster/ # a first push, or a base no longer in the history: every environment
          fi
          watched=$(printf '%s\\n' "$changed" | grep -E '^(roster/|package\\.json$|package-lock\\.json$|\\.github/workflows/roster\\.yml$)' || true)
          touched=()
          for env in $ROSTER_ENVIRONMENTS; do
            if printf '%s\\n' "$watched" | grep -v -e '^roster/envs/' -e '^$' | grep -q . || printf '%s\\n' "$watched" | grep -q "^roster/envs/$env/"; then
              touched+=("\\"$env\\"")
            fi
          done
          list=$(IFS=,; echo "\${touched[*]-}")
          echo "environments=[$list]" >> "$GITHUB_OUTPUT"
          echo "touched: [$list]"
`;

/** The steps every job starts with: the repository, Node and the locked install. */
const SETUP = `      - name: checkout
        uses: actions/checkout@v4
      - name: node
        uses: actions/setup-node@v4
        with: { node-version: 20, cache: npm }
      - name: install
        run: npm ci
`;

const PLAN = (env: string, script: string) => `  plan-${env}:
    needs: changes
    if: github.event_name == 'pull_request' && contains(fromJSON(needs.changes.outputs.environments), '${env}')
    runs-on: ubuntu-latest
    concurrency:
      group: roster-plan-${env}-\${{ github.event.pull_request.number }}
      cancel-in-progress: true
    steps:
${SETUP}      - name: validate
        run: npx --no roster validate roster/ --env ${env} --format github
      - name: plan
        id: plan
        # The key is given to this step only: never to \`npm ci\`, whose install scripts run third-party code.
        env:
          ROSTER_API_URL: \${{ vars.ROSTER_API_URL }}
          ROSTER_API_KEY: \${{ secrets.ROSTER_API_KEY }}
          ROSTER_PDP_URL: \${{ vars.ROSTER_PDP_URL }}
          ROSTER_REPLAY: \${{ vars.ROSTER_REPLAY }}
        run: |
          if [ -z "$ROSTER_API_URL" ]; then
            echo "::error::set the repository variable ROSTER_API_URL and the secret ROSTER_API_KEY (Settings > Secrets and variables > Actions)"
            exit 1
          fi
          replay=()
          if [ -n "$ROSTER_REPLAY" ]; then replay=("--replay=$ROSTER_REPLAY"); fi
          set +e
          npx --no roster plan roster/ --env ${env} --format markdown --detailed-exitcode \${replay[@]+"\${replay[@]}"} > plan.md
          code=$?
          set -e
          cat plan.md >> "$GITHUB_STEP_SUMMARY"
          echo "exitcode=$code" >> "$GITHUB_OUTPUT"
          if [ "$code" = 2 ]; then echo "has-changes=true"; else echo "has-changes=false"; fi >> "$GITHUB_OUTPUT"
          if [ "$code" != 0 ] && [ "$code" != 2 ] && [ ! -s plan.md ]; then exit "$code"; fi
      - name: comment
        uses: actions/github-script@v7
        env:
          ROSTER_PLAN_FILE: plan.md
          ROSTER_ENVIRONMENT: ${env}
        with:
          script: |
${script}
      - name: result
        if: steps.plan.outputs.exitcode != '0' && steps.plan.outputs.exitcode != '2'
        run: exit 1
`;

const APPLY = (env: string) => `  apply-${env}:
    needs: changes
    if: github.event_name == 'push' && contains(fromJSON(needs.changes.outputs.environments), '${env}')
    runs-on: ubuntu-latest
    environment: ${env} # its protection rules (required reviewers) and its own ROSTER_API_KEY apply
    concurrency: roster-apply-${env} # never two applies of one environment at once
    steps:
${SETUP}      - name: reviewed
        id: reviewed
        uses: actions/github-script@v7
        env:
          ROSTER_ENVIRONMENT: ${env}
        with:
          script: |
${reviewedScript()}
      - name: apply
        env:
          ROSTER_API_URL: \${{ vars.ROSTER_API_URL }}
          ROSTER_API_KEY: \${{ secrets.ROSTER_API_KEY }}
          ROSTER_PDP_URL: \${{ vars.ROSTER_PDP_URL }}
          ROSTER_REVIEWED_CHECKSUM: \${{ steps.reviewed.outputs.checksum }}
          ROSTER_REVIEWED_PR: \${{ steps.reviewed.outputs.pull-request }}
        run: |
          if [ -z "$ROSTER_API_URL" ]; then
            echo "::error::set the variable ROSTER_API_URL and the secret ROSTER_API_KEY (repository, or environment ${env})"
            exit 1
          fi
          set +e
          npx --no roster apply roster/ --env ${env} --yes | tee apply.log
          code=\${PIPESTATUS[0]}
          set -e
          # The plan applied is planned again from the live state: its checksum beside the reviewed one.
          applied=$(sed -n 's/^checksum //p' apply.log | head -n 1)
          echo "checksum reviewed (pull request #\${ROSTER_REVIEWED_PR:-?}, its plan comment for ${env}): \${ROSTER_REVIEWED_CHECKSUM:-none found}"
          echo "checksum applied: \${applied:-none (nothing was planned)}"
          if [ -n "$ROSTER_REVIEWED_CHECKSUM" ] && [ -n "$applied" ] && [ "$applied" != "$ROSTER_REVIEWED_CHECKSUM" ]; then
            echo "::warning::the plan applied to ${env} (checksum $applied) is not the one reviewed on pull request #$ROSTER_REVIEWED_PR (checksum $ROSTER_REVIEWED_CHECKSUM): main or the live state moved between them; this log shows what was applied"
          fi
          exit "$code"
`;

/** Scheduled, in the environment's GitHub environment (its key), never beside its apply. */
const EXPIRE = (env: string) => `  expire-${env}:
    if: github.event_name == 'schedule'
    runs-on: ubuntu-latest
    environment: ${env}
    concurrency: roster-apply-${env} # never beside an apply of ${env}
    steps:
${SETUP}      - name: expire
        env:
          ROSTER_API_URL: \${{ vars.ROSTER_API_URL }}
          ROSTER_API_KEY: \${{ secrets.ROSTER_API_KEY }}
        run: |
          if [ -z "$ROSTER_API_URL" ]; then
            echo "::error::set the variable ROSTER_API_URL and the secret ROSTER_API_KEY (repository, or environment ${env})"
            exit 1
          fi
          npx --no roster requests expire roster/ --env ${env}
`;

/** Scheduled once a day (and by hand), in the environment's GitHub environment (its key); its own issue. */
const DRIFT = (env: string) => `  drift-${env}:
    if: github.event_name == 'workflow_dispatch' || (github.event_name == 'schedule' && github.event.schedule == '17 5 * * *')
    runs-on: ubuntu-latest
    environment: ${env}
    concurrency: roster-apply-${env} # never beside an apply of ${env}
    permissions:
      contents: read
      issues: write
    steps:
${SETUP}      - name: drift
        id: drift
        env:
          ROSTER_API_URL: \${{ vars.ROSTER_API_URL }}
          ROSTER_API_KEY: \${{ secrets.ROSTER_API_KEY }}
        run: |
          if [ -z "$ROSTER_API_URL" ]; then
            echo "::error::set the variable ROSTER_API_URL and the secret ROSTER_API_KEY (repository, or environment ${env})"
            exit 1
          fi
          set +e
          npx --no roster drift roster/ --env ${env} --format markdown --detailed-exitcode > drift.md
          code=$?
          set -e
          cat drift.md >> "$GITHUB_STEP_SUMMARY"
          echo "exitcode=$code" >> "$GITHUB_OUTPUT"
          if [ "$code" != 0 ] && [ "$code" != 2 ]; then exit "$code"; fi
      - name: keep snapshot
        uses: actions/cache/save@v4
        with:
          path: .roster/snapshots
          key: roster-snapshot-${env}-\${{ github.run_id }}
      - name: issue
        uses: actions/github-script@v7
        env:
          ROSTER_DRIFT_FILE: drift.md
          ROSTER_DRIFT_EXITCODE: \${{ steps.drift.outputs.exitcode }}
          ROSTER_ENVIRONMENT: ${env}
        with:
          script: |
${commentScript('drift', 'issue')
  .trimEnd()
  .split('\n')
  .map((l) => (l ? ' '.repeat(12) + l : l))
  .join('\n')}
`;
