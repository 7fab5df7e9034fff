import type { Plan } from './types.js';
import { costLine, summaryLine } from './render-common.js';
import { describeFields } from './render-fields.js';
import { accessMarkdownLines } from './access.js';
import { replayMarkdownLines } from './render-replay.js';
import { readSummaryLine } from './render-read.js';
import { expiredNote, heldMarkdownLines } from './render-held.js';
import {
  describeCascade,
  deletionMode,
  deletionNote,
  undeclaredMarkdownLines,
  usedByNote,
} from './render-undeclared.js';
import { cell, codeCell } from './markdown.js';

/** The first line of every Markdown plan: a CI step finds its earlier comment by it and edits it. */
export const MARKDOWN_MARKER = '<!-- roster-plan -->';

/** The plan as a pull-request comment. Long plans fold into a <details> block. */
export function renderPlanMarkdown(plan: Plan): string {
  const out = [
    MARKDOWN_MARKER,
    `### Roster plan for \`${plan.project}/${plan.environment}\`${plan.target ? ` on \`${plan.target}\`` : ''}${deletionMode(plan)}`,
    '',
    ...(plan.read ? [`<sub>${readSummaryLine(plan.read)}</sub>`, ''] : []),
    `**${summaryLine(plan)}**`,
    '',
  ];
  // Said before the table: on a pull request, what the merge's apply will delete.
  const note = deletionNote(plan);
  if (note) out.push(`> ⚠️ ${note}`, '');
  if (plan.changes.length === 0)
    out.push(
      plan.held || plan.undeclared ? 'No changes.' : 'No changes. The live environment matches the configuration.',
      '',
    );
  else {
    const rows = plan.changes.map((c) => {
      const sign = c.action === 'create' ? '+' : c.action === 'update' ? '~' : '-';
      const detail =
        c.action === 'update'
          ? describeFields(c.fields) + (c.cascade ? `; with it: ${describeCascade(c.cascade)}` : '')
          : c.action === 'create' && c.replaces
            ? `replaces: ${describeFields(c.replaces)}` + (c.cascade ? `; with it: ${describeCascade(c.cascade)}` : '')
            : c.action === 'delete' && c.expired
              ? expiredNote(c.expired)
              : c.action === 'delete' && (c.cascade || c.usedBy)
                ? [usedByNote(c.usedBy), c.cascade ? `with it: ${describeCascade(c.cascade)}` : undefined]
                    .filter(Boolean)
                    .join('; ')
                : '';
      return `| ${sign} | ${codeCell(c.id)} | ${cell(detail)} |`;
    });
    const table = ['| | change | detail |', '|---|---|---|', ...rows];
    if (rows.length > 50) out.push('<details><summary>All changes</summary>', '', ...table, '', '</details>', '');
    else out.push(...table, '');
  }
  if (plan.undeclared) out.push(...undeclaredMarkdownLines(plan.undeclared), '');
  if (plan.held) out.push(...heldMarkdownLines(plan.held), '');
  if (plan.access) out.push(...accessMarkdownLines(plan.access), '');
  if (plan.replay) out.push(...replayMarkdownLines(plan.replay), '');
  const cost = costLine(plan);
  if (cost) out.push(cost, '');
  out.push(`<sub>checksum \`${plan.checksum}\`</sub>`);
  return out.join('\n') + '\n';
}
