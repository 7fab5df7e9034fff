import type { PlanReplay, ReplayedDecision } from './replay.js';
import { plural } from './render-common.js';
import { count } from '../words.js';

/** Decisions listed in each part; the JSON plan carries them all. */
const LISTED = 50;

/** "bob read document:q3 (allowed 14 times, last 2 days ago) would be denied: bob loses editor via team:eng". */
export function replayedLine(d: ReplayedDecision, until: string): string {
  const why = d.why.length > 0 ? `: ${d.why.join('; ')}` : '';
  return `${subject(d)} (${usage(d)}, last ${ago(d.last, until)}) would be ${d.after ? 'allowed' : 'denied'}${why}`;
}

/** "carol read document:d1 was allowed (3 times, last 1 hour ago); the model of the live state denies it". */
export function disagreementLine(d: ReplayedDecision, until: string): string {
  const why = d.why.length > 0 ? ` (${d.why.join('; ')})` : '';
  return `${subject(d)} was ${d.logged ? 'allowed' : 'denied'} by the decision point (last ${ago(d.last, until)}); the model of the live state ${d.before ? 'allows' : 'denies'} it${why}`;
}

/**
 * What was read, then what the plan does to it, keeping decisions (log entries) and the distinct
 * questions they ask apart (issue #41): "446 logged since 2026-11-18 09:00 UTC (read in 5 requests),
 * asking 273 distinct questions; the plan changes the answer to 7 of them". An empty window says so,
 * and how to read further back, instead of "0 of 0".
 */
export function replayHeadline(r: PlanReplay): string {
  const since = `since ${r.since.slice(0, 16).replace('T', ' ')} UTC`;
  const requests = `read in ${plural(r.requests, 'request')}`;
  if (r.read === 0) {
    // 30 days: what `roster serve` keeps by default (--decision-log-max-age).
    const longer =
      Date.parse(r.until) - Date.parse(r.since) < 30 * 86_400_000
        ? 'a longer window (--replay=30d)'
        : 'a longer window';
    return `none logged ${since} (${requests}), so there is nothing to replay; ${longer} reads further back`;
  }
  const logged = r.truncated
    ? `the newest ${count(r.read)} of ${count(r.total)} logged ${since} (${requests}; shorten --replay to read them all)`
    : `${count(r.read)} logged ${since} (${requests})`;
  const skipped = r.unreplayable.reduce((sum, u) => sum + u.decisions, 0);
  if (r.distinct === 0) return `${logged}, none of which can be replayed (below)`;
  const asking = `asking ${plural(r.distinct, 'distinct question')}${skipped > 0 ? ` (${plural(skipped, 'decision')} not replayable, below)` : ''}`;
  const n = r.changes.length;
  const verdict =
    r.distinct === 1
      ? n === 0
        ? 'the plan does not change its answer'
        : 'the plan changes its answer'
      : n === 0
        ? 'the plan changes none of their answers'
        : `the plan changes the answer to ${count(n)} of them`;
  return `${logged}, ${asking}; ${verdict}`;
}

function unreplayableLines(r: PlanReplay): string[] {
  const n = r.unreplayable.reduce((sum, u) => sum + u.decisions, 0);
  if (n === 0) return [];
  return [
    `Not replayed: ${plural(n, 'decision')}:`,
    ...r.unreplayable.map(
      (u) => `  ${u.decisions.toLocaleString('en-US')}: ${u.reason} (e.g. ${u.examples.join(', ')})`,
    ),
  ];
}

export function replayTextLines(r: PlanReplay): string[] {
  const lines = [`Recent decisions: ${replayHeadline(r)}${r.changes.length > 0 ? ':' : '.'}`];
  for (const d of r.changes.slice(0, LISTED)) lines.push(`  ${replayedLine(d, r.until)}`);
  if (r.changes.length > LISTED) lines.push(`  … and ${r.changes.length - LISTED} more (--format json lists them all)`);
  if (r.disagreements.length > 0) {
    lines.push(
      `The decision point's answers differ from the model of the live state on ${plural(r.disagreements.length, 'decision')}:`,
    );
    for (const d of r.disagreements.slice(0, LISTED)) lines.push(`  ${disagreementLine(d, r.until)}`);
    if (r.disagreements.length > LISTED)
      lines.push(`  … and ${r.disagreements.length - LISTED} more (--format json lists them all)`);
  }
  lines.push(...unreplayableLines(r));
  return lines;
}

export function replayMarkdownLines(r: PlanReplay): string[] {
  const headline = replayHeadline(r);
  const out = ['#### Recent decisions replayed', '', `${headline[0].toUpperCase()}${headline.slice(1)}.`, ''];
  for (const d of r.changes.slice(0, LISTED))
    out.push(
      `- \`${subject(d)}\` (${usage(d)}, last ${ago(d.last, r.until)}) would be **${d.after ? 'allowed' : 'denied'}**${d.why.length ? `: ${d.why.join('; ')}` : ''}`,
    );
  if (r.changes.length > LISTED) out.push(`- … and ${r.changes.length - LISTED} more`);
  if (r.disagreements.length > 0) {
    out.push(
      '',
      `> ⚠️ The decision point's answers differ from the model of the live state on ${plural(r.disagreements.length, 'decision')}:`,
      '',
    );
    for (const d of r.disagreements.slice(0, LISTED)) out.push(`- ${disagreementLine(d, r.until)}`);
  }
  const skipped = unreplayableLines(r);
  if (skipped.length > 0) out.push('', skipped[0], ...skipped.slice(1).map((l) => `- ${l.trim()}`));
  return out;
}

function subject(d: ReplayedDecision): string {
  return `${d.user} ${d.action} ${d.resource}${d.tenant !== undefined ? ` in ${d.tenant}` : ''}${withPassed(d)}`;
}

/** " with user.level = 1, context.urgent = true": what the check passed that a set rule reads. */
function withPassed(d: ReplayedDecision): string {
  if (!d.passed) return '';
  const items = (['user', 'resource', 'context'] as const).flatMap((entity) =>
    Object.entries(d.passed?.[entity] ?? {}).map(([k, v]) => `${entity}.${k} = ${JSON.stringify(v)}`),
  );
  return ` with ${items.join(', ')}`;
}

function usage(d: ReplayedDecision): string {
  if (d.allowedTimes === d.times) return `allowed ${times(d.times)}`;
  if (d.allowedTimes === 0) return `denied ${times(d.times)}`;
  return `allowed ${d.allowedTimes} of ${times(d.times)}`;
}

const times = (n: number) => (n === 1 ? 'once' : `${n.toLocaleString('en-US')} times`);

/** "2 days ago", measured from the replay's read time, so a plan renders the same every time. */
export function ago(at: string, until: string): string {
  const s = Math.max(0, Math.round((Date.parse(until) - Date.parse(at)) / 1000));
  const [n, unit] =
    s < 60
      ? [s, 'second']
      : s < 3600
        ? [Math.round(s / 60), 'minute']
        : s < 86_400
          ? [Math.round(s / 3600), 'hour']
          : [Math.round(s / 86_400), 'day'];
  return `${plural(n, unit)} ago`;
}
