import type { PlanReplay, ReplayedDecision } from './replay.js';
import { plural } from './render-common.js';

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

export function replayHeadline(r: PlanReplay): string {
  const window = `since ${r.since.slice(0, 16).replace('T', ' ')} UTC`;
  const read = `${plural(r.read, 'logged decision')} read in ${plural(r.requests, 'request')}`;
  const cut = r.truncated ? `; the newest ${r.read.toLocaleString('en-US')} of ${r.total.toLocaleString('en-US')} in the window: shorten --replay to read them all` : '';
  return `${r.changes.length.toLocaleString('en-US')} of ${plural(r.distinct, 'recent decision')} change (${window}; ${read}${cut})`;
}

function unreplayableLines(r: PlanReplay): string[] {
  const n = r.unreplayable.reduce((sum, u) => sum + u.decisions, 0);
  if (n === 0) return [];
  return [`Not replayed: ${plural(n, 'decision')}:`, ...r.unreplayable.map((u) => `  ${u.decisions.toLocaleString('en-US')}: ${u.reason} (e.g. ${u.examples.join(', ')})`)];
}

export function replayTextLines(r: PlanReplay): string[] {
  const lines = [`Recent decisions: ${replayHeadline(r)}${r.changes.length > 0 ? ':' : '.'}`];
  for (const d of r.changes.slice(0, LISTED)) lines.push(`  ${replayedLine(d, r.until)}`);
  if (r.changes.length > LISTED) lines.push(`  … and ${r.changes.length - LISTED} more (--format json lists them all)`);
  if (r.disagreements.length > 0) {
    lines.push(`The decision point's answers differ from the model of the live state on ${plural(r.disagreements.length, 'decision')}:`);
    for (const d of r.disagreements.slice(0, LISTED)) lines.push(`  ${disagreementLine(d, r.until)}`);
    if (r.disagreements.length > LISTED) lines.push(`  … and ${r.disagreements.length - LISTED} more (--format json lists them all)`);
  }
  lines.push(...unreplayableLines(r));
  return lines;
}

export function replayMarkdownLines(r: PlanReplay): string[] {
  const out = ['#### Recent decisions replayed', '', `${replayHeadline(r)}.`, ''];
  for (const d of r.changes.slice(0, LISTED)) out.push(`- \`${subject(d)}\` (${usage(d)}, last ${ago(d.last, r.until)}) would be **${d.after ? 'allowed' : 'denied'}**${d.why.length ? `: ${d.why.join('; ')}` : ''}`);
  if (r.changes.length > LISTED) out.push(`- … and ${r.changes.length - LISTED} more`);
  if (r.disagreements.length > 0) {
    out.push('', `> ⚠️ The decision point's answers differ from the model of the live state on ${plural(r.disagreements.length, 'decision')}:`, '');
    for (const d of r.disagreements.slice(0, LISTED)) out.push(`- ${disagreementLine(d, r.until)}`);
  }
  const skipped = unreplayableLines(r);
  if (skipped.length > 0) out.push('', skipped[0], ...skipped.slice(1).map((l) => `- ${l.trim()}`));
  return out;
}

function subject(d: ReplayedDecision): string {
  return `${d.user} ${d.action} ${d.resource}${d.tenant !== undefined ? ` in ${d.tenant}` : ''}`;
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
  const [n, unit] = s < 60 ? [s, 'second'] : s < 3600 ? [Math.round(s / 60), 'minute'] : s < 86_400 ? [Math.round(s / 3600), 'hour'] : [Math.round(s / 86_400), 'day'];
  return `${plural(n, unit)} ago`;
}
