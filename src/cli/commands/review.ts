import { ConfigError } from '../../errors.js';
import { openTarget, type TargetOptions } from '../../usecases/target.js';
import { plural } from '../../words.js';
import { renderReview, whyNotInteractive } from '../../review/index.js';
import { repositoryScope } from '../../usecases/repository-scope.js';
import { checkActor } from '../../review/actor.js';
import { queueConfigs, readLifetimes } from '../../usecases/requests-queue.js';
import { useColor } from '../color.js';

export interface ReviewCommandOptions extends TargetOptions {
  user: string;
  tenant: string;
  /** Only this element configuration; absent: every user-management one, in one queue. */
  config?: string;
  readonly?: boolean;
}

/** `roster review`: the reviewer's terminal UI over the chosen service; never starts without a terminal. */
export async function reviewCommand(opts: ReviewCommandOptions): Promise<void> {
  const why = whyNotInteractive();
  if (why) {
    throw new ConfigError(`roster review needs an interactive terminal (${why})`, [
      {
        message: 'to list and decide access requests from scripts or CI, use roster requests',
        hint: `roster requests list --user ${opts.user} --tenant ${opts.tenant}`,
      },
    ]);
  }
  // Inside a repository, the environment its configuration names (no configuration path is taken here).
  const target = await openTarget(opts, await repositoryScope(opts, 'review'));
  try {
    // Before the UI starts: an unknown user or tenant is an error with the name meant, not an empty queue.
    const actor = await checkActor(target.client, opts.user, opts.tenant);
    const [configs, lifetimes] = await Promise.all([
      queueConfigs(target.client, opts.config),
      readLifetimes(target, opts.env),
    ]);
    const { log } = await renderReview({
      client: target.client,
      ...actor,
      configs,
      lifetimes,
      readonly: opts.readonly,
      color: useColor(),
      routeWaiting: target.routeWaiting,
    });
    process.stdout.write(
      `roster review: ${log.length === 0 ? 'no decision made' : `${plural(log.length, 'decision')} recorded`}\n`,
    );
  } finally {
    await target.close();
  }
}
