/**
 * Durations as the configuration writes them (`access_requests.<key>.grant_for`): a whole number and one
 * unit, `s`, `m`, `h` or `d`. Pure; the rule grantForDuration, the planner (src/plan/request-grants.ts) and the CLI's duration flags share it.
 */

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
type Unit = keyof typeof UNIT_MS;

/** Ten years: a longer lifetime means "never expires", which is said by leaving `grant_for` out. */
export const MAX_DURATION_MS = 3650 * UNIT_MS.d;

export const DURATION_FORMS = 'a whole number and a unit, s, m, h or d (45s, 30m, 12h, 7d)';

export type ParsedDuration = { ok: true; ms: number } | { ok: false; message: string; hint?: string };

export function parseDuration(text: string): ParsedDuration {
  const m = /^([0-9]+)([smhd])$/.exec(text);
  if (!m) {
    const hint = suggestion(text);
    return {
      ok: false,
      message: `invalid duration ${JSON.stringify(text)}: expected ${DURATION_FORMS}`,
      ...(hint ? { hint } : {}),
    };
  }
  const ms = Number(m[1]) * UNIT_MS[m[2] as Unit];
  if (ms === 0)
    return {
      ok: false,
      message: `a duration of ${text} would expire every grant at once`,
      hint: 'give a positive duration, or leave grant_for out for grants that never expire',
    };
  if (ms > MAX_DURATION_MS)
    return {
      ok: false,
      message: `duration ${text} is longer than ten years (3650d)`,
      hint: 'leave grant_for out for grants that never expire',
    };
  return { ok: true, ms };
}

/** `36h` for 129,600,000 ms: the largest unit that divides it, as the configuration would write it. */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm'] as const) if (ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  return `${Math.round(ms / 1000)}s`;
}

/** `12 hours`, `12H` or ` 12h`: the form meant, when it is clear. */
function suggestion(text: string): string | undefined {
  const m = /^\s*([0-9]+)\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hrs?|hours?|d|days?)\s*$/i.exec(text);
  return m ? `write ${m[1]}${m[2][0].toLowerCase()}` : undefined;
}
