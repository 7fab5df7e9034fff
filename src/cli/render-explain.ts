import type { Explanation } from '../access/index.js';
import { abacLines, type JoinedExplanation } from '../access/abac/explain.js';
import { formatPath } from '../access/paths.js';
import { didYouMean } from '../config/suggest.js';
import { plural } from '../words.js';

/** How `roster explain` prints an explanation (cli/commands/explain.ts), and its notes. */
/** ` (did you mean "x"?)` when a known name is close, else nothing. */
export function meant(name: string, known: Iterable<string>): string {
  const hint = didYouMean(name, known);
  return hint ? ` (${hint})` : '';
}

export function renderExplanation(
  e: Explanation & Partial<Pick<JoinedExplanation, 'abac' | 'undecided'>>,
  notes: string[] = [],
): string {
  const what = e.kind === 'role' ? `role ${e.subject}` : (e.permission ?? e.subject);
  const verb =
    e.kind === 'role' ? (e.allowed ? 'has' : 'lacks') : e.allowed ? 'can' : e.undecided ? 'may or may not' : 'cannot';
  const lines = [`${e.user} ${verb} ${what} on ${e.instance}${e.undecided ? ': not decided offline' : ''}`];
  const rules = e.abac?.rules ?? [];
  if (e.allowed) {
    const allowing = rules.filter((r) => r.outcome === 'holds');
    lines.push(`${plural(e.via.length + allowing.length, 'path')}:`);
    for (const v of e.via)
      lines.push(
        `  ${formatPath(e.user, v.path, v.role, e.instance)}${e.kind === 'permission' ? ` (${v.role} grants ${e.permission})` : ''}`,
      );
    lines.push(...abacLines({ ...e.abac!, rules: allowing }).map((l) => `  ${l}`));
  } else {
    if (e.missing) lines.push(`  ${e.missing.message}`);
    if (rules.length > 0) {
      const attributes = e.abac!.exact ? ' (decided on the attributes given)' : '';
      lines.push(`  Set rules granting ${e.permission}${attributes}:`, ...abacLines(e.abac!).map((l) => `    ${l}`));
    }
  }
  lines.push(...notes);
  return lines.join('\n') + '\n';
}
