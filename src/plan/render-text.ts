import type { Change } from './change.js';
import type { Plan } from './types.js';
import { costLine, summaryLine } from './render-common.js';
import { describeFields, fieldLines } from './render-fields.js';
import { accessTextLines } from './access.js';
import { replayTextLines } from './render-replay.js';
import { readSummaryLine } from './render-read.js';
import { expiredNote, heldTextLines } from './render-held.js';
import { cascadeTextLines, deletionMode, deletionNote, undeclaredTextLines, usedByNote } from './render-undeclared.js';

export interface TextOptions {
  color?: boolean;
}

const paint = (on: boolean, code: number, s: string) => (on ? `\u001b[${code}m${s}\u001b[39m` : s);

/** The plan for a terminal: one line per change, `+` create, `~` update, `-` delete, then the summary. */
export function renderPlanText(plan: Plan, options: TextOptions = {}): string {
  return [...planTextPieces(plan, options)].join('');
}

/** Lines of changes per piece of `planTextPieces`. */
const PIECE_LINES = 2000;

/**
 * The same text in pieces (each a whole number of lines), to be written as they are made: the plan of an
 * apply from empty at ×10 the bench's environment is 455,097 lines, 20 MB (bench/scale.bench.ts), which
 * as one string, and its lines before it, is garbage of over 100 MB at the apply's peak of memory.
 */
export function* planTextPieces(plan: Plan, options: TextOptions = {}): Generator<string> {
  const color = options.color === true;
  let lines: string[] = [
    `Plan for ${plan.project}/${plan.environment}${plan.target ? ` on ${plan.target}` : ''}${deletionMode(plan)}`,
    ...(plan.read ? [readSummaryLine(plan.read)] : []),
    '',
  ];
  if (plan.changes.length === 0)
    lines.push(
      plan.held || plan.undeclared ? 'No changes.' : 'No changes. The live environment matches the configuration.',
    );
  for (const c of plan.changes) {
    lines.push(...changeLines(c, color));
    if (lines.length >= PIECE_LINES) {
      yield lines.join('\n') + '\n';
      lines = [];
    }
  }
  const note = deletionNote(plan);
  if (note) lines.push('', note);
  if (plan.undeclared) lines.push('', ...undeclaredTextLines(plan.undeclared));
  if (plan.held) lines.push('', ...heldTextLines(plan.held));
  if (plan.access) lines.push('', ...accessTextLines(plan.access));
  if (plan.replay) lines.push('', ...replayTextLines(plan.replay));
  lines.push('', summaryLine(plan));
  const cost = costLine(plan);
  if (cost) lines.push(cost);
  lines.push(`checksum ${plan.checksum}`);
  yield lines.join('\n') + '\n';
}

function changeLines(c: Change, color: boolean): string[] {
  switch (c.action) {
    case 'create':
      return [
        paint(color, 32, `  + ${c.id}${c.replaces ? ` (replaces: ${describeFields(c.replaces)})` : ''}`),
        ...cascadeTextLines(c.cascade).map((l) => paint(color, 31, l)),
      ];
    case 'update':
      return [
        paint(color, 33, `  ~ ${c.id}`),
        ...c.fields.flatMap(fieldLines).map((l) => paint(color, 33, `      ${l}`)),
        ...cascadeTextLines(c.cascade).map((l) => paint(color, 31, l)),
      ];
    case 'delete': {
      const used = usedByNote(c.usedBy);
      return [
        paint(color, 31, `  - ${c.id}${c.expired ? ` ${expiredNote(c.expired)}` : ''}`),
        ...(used ? [paint(color, 33, `      ${used}`)] : []),
        ...cascadeTextLines(c.cascade).map((l) => paint(color, 31, l)),
      ];
    }
  }
}
