import { UnsafePlanError } from '../errors.js';
import type { Plan } from '../plan/index.js';
import type { ApplyView } from '../usecases/apply.js';
import { createLogProgress, interruptedLine } from '../apply/progress.js';
import { isCi } from '../ci.js';
import { writePlanText } from './render-plan.js';
import { printWarnings } from './report.js';
import { ask, isInteractive } from './prompt.js';
import { agree, plural } from '../words.js';

/**
 * How `roster apply` shows itself on a terminal or in a log (src/usecases/apply.ts emits, this renders):
 * the plan on `out`, the loud block of `--allow-failing-assertions`, the confirmation, the progress (Ink on
 * a terminal, lines in a log) and the summary of an apply interrupted by SIGINT or SIGTERM.
 */
export function applyView(opts: { yes?: boolean }, out: (text: string) => void): ApplyView {
  return {
    warnings: printWarnings,
    plan: (plan) => writePlanText(plan, out),
    failingAllowed(what, names) {
      const bar = '!'.repeat(78);
      const lines = names.map((n) => `!!   ${n}`);
      process.stderr.write(
        ['', bar, `!! WARNING: --allow-failing-assertions: applying although ${what}:`, ...lines, bar, ''].join('\n') +
          '\n',
      );
    },
    confirm: (plan, where) => confirm(plan, opts, where),
    async progress(total) {
      const live =
        process.stderr.isTTY === true && !isCi()
          ? (await import('./ui/apply-progress.js')).renderApplyProgress(total)
          : undefined;
      // Counted here too, whatever shows progress, for the summary of an interrupted apply.
      const log = createLogProgress(total, live ? () => {} : (line) => process.stderr.write(line + '\n'), Date.now);
      const onInterrupt = () => {
        void (live?.finish() ?? Promise.resolve()).finally(() => {
          process.stdout.write(`\n${interruptedLine(log.state)}\n`);
          process.exit(130);
        });
      };
      process.once('SIGINT', onInterrupt);
      process.once('SIGTERM', onInterrupt);
      return {
        onEvent(e) {
          log.onEvent(e);
          live?.onEvent(e);
        },
        async finish() {
          process.off('SIGINT', onInterrupt);
          process.off('SIGTERM', onInterrupt);
          await live?.finish();
        },
      };
    },
  };
}

/**
 * Anything non-interactive needs --yes; pruning on a terminal needs the environment's key typed. Both
 * prompts name the project and environment by key and where they are, and who gains and loses access.
 */
async function confirm(plan: Plan, opts: { yes?: boolean }, where: string): Promise<void> {
  if (opts.yes) return;
  if (!isInteractive())
    throw new UnsafePlanError('not on a terminal: pass --yes to apply without a confirmation', '--yes');
  const scope = `${plan.project}/${plan.environment} on ${where}`;
  const users = plan.access?.users;
  const access =
    users === undefined
      ? ''
      : users === 0
        ? " (nobody's access changes)"
        : ` (${plural(users, 'user')} ${agree(users, 'gains or loses', 'gain or lose')} access: see above)`;
  // Deleting what the configuration does not declare (--prune, or its `authoritative:`) needs the key typed.
  if ((plan.prune || (plan.authoritative?.length ?? 0) > 0) && plan.summary.delete > 0) {
    const answer = await ask(
      `This plan deletes ${plural(plan.summary.delete, 'object')} in ${scope}${access}. Type the environment's key (${plan.environment}) to apply: `,
    );
    if (answer !== plan.environment) throw new UnsafePlanError('not confirmed: nothing was applied', '--yes');
    return;
  }
  const answer = await ask(`Apply ${plural(plan.changes.length, 'change')} to ${scope}${access}? [y/N] `);
  if (!/^y(es)?$/i.test(answer)) throw new UnsafePlanError('not confirmed: nothing was applied', '--yes');
}
