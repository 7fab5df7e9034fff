import { ConfigError } from '../errors.js';
import { parseDuration } from '../types/duration.js';
import type { Plan } from '../plan/index.js';
import type { LiveState } from '../types/live.js';
import type { PlanReplay } from '../plan/replay.js';
import type { Target } from './target.js';

/** `--replay` alone: the last 7 days (docs/plan.md, "Replaying recent decisions"). */
export const DEFAULT_REPLAY_WINDOW = '7d';

/**
 * `--replay[=SINCE]`: a duration back from now (`7d`, `12h`, `30m`) or a moment (`2026-11-01`,
 * `2026-11-01T09:00:00Z`). Pure but for the clock.
 */
export function parseReplaySince(value: string | true, now: Date): Date {
  const text = value === true ? DEFAULT_REPLAY_WINDOW : value.trim();
  const duration = parseDuration(text);
  if (duration.ok) return new Date(now.getTime() - duration.ms);
  if (/^\d{4}-\d{2}-\d{2}/.test(text) && !Number.isNaN(Date.parse(text))) {
    const at = new Date(Date.parse(text));
    if (at.getTime() >= now.getTime()) throw new ConfigError(`--replay=${text} is not in the past`);
    return at;
  }
  throw new ConfigError(
    `--replay takes a duration back from now (7d, 12h, 30m) or a date (2026-11-01, 2026-11-01T09:00:00Z), got '${text}'`,
  );
}

/**
 * Reads the window's decisions through the public audit-log API and decides each distinct one again on
 * the plan's before and after states (the access section's graphs, and the states set rules decide on).
 */
export async function replayPlan(options: {
  target: Target;
  live: LiveState;
  plan: Plan;
  since: Date;
  now: Date;
  max?: number;
}): Promise<PlanReplay> {
  const { readRecentDecisions } = await import('../api/read-audit-logs.js');
  const { accessGraphs } = await import('../plan/access.js');
  const { replayDecisions } = await import('../plan/replay.js');
  const { target, live, plan } = options;
  const read = await readRecentDecisions(target.client, target, {
    since: options.since,
    until: options.now,
    max: options.max,
  });
  const { before, after, afterState } = accessGraphs(live, plan.changes);
  // The actions of every resource type known before or after the plan.
  const actions = new Map<string, string[]>();
  for (const state of [live, afterState]) {
    for (const r of state.resources.values())
      actions.set(r.key, [...new Set([...(actions.get(r.key) ?? []), ...r.actions])]);
  }
  return replayDecisions({ read, before, after, states: { before: live, after: afterState }, actions });
}
