/** What `roster requests adopt` prints: text (with the diff under --dry-run) or JSON. */
import type { Adoption } from '../plan/adopt.js';
import type { FileEdit } from '../usecases/adopt.js';

export type { FileEdit };
import { roleItemText } from '../config/edit-user-roles.js';
import { reviewerOf } from '../plan/render-held.js';
import type { GrantRequest } from '../types/live.js';
import { plural } from '../words.js';

const requestLine = (r: GrantRequest) =>
  `access request ${r.id}, approved ${r.approvedAt} by ${reviewerOf(r)} (${r.config})`;

export async function renderAdoptionText(a: Adoption, edits: FileEdit[], dryRun: boolean): Promise<string> {
  const lines: string[] = [];
  const unselected =
    a.unselected > 0 ? [`${plural(a.unselected, 'other held grant')} not selected (--request, --config).`] : [];
  if (a.adopt.length === 0 && a.skipped.length === 0) {
    return unselected.length > 0
      ? `Nothing adopted: no held grant matches the selection. ${unselected[0]}\n`
      : 'No grants of approved access requests outside the configuration: nothing to adopt.\n';
  }
  if (a.adopt.length > 0) {
    lines.push(
      `${dryRun ? 'Would adopt' : 'Adopted'} ${plural(a.adopt.length, 'grant')} of approved access requests into ${edits.map((e) => e.file).join(', ')}:`,
    );
    for (const g of a.adopt) {
      lines.push(
        `  + users.${g.user}.roles: ${roleItemText({ ...g, comment: '' })}`,
        `      ${requestLine(g.request)}`,
      );
    }
  } else lines.push('Nothing adopted.');
  if (a.skipped.length > 0) {
    lines.push('', `Not adopted (${a.skipped.length}):`);
    for (const s of a.skipped) lines.push(`  ${s.id}: ${s.reason}`, `      ${requestLine(s.request)}`);
  }
  if (unselected.length > 0) lines.push('', ...unselected);
  if (dryRun && edits.length > 0) {
    const { createTwoFilesPatch } = await import('diff');
    lines.push('', 'The edit (nothing was written; run without --dry-run to write it):', '');
    // Without the library's `Index:` and `====` header lines: `--- file` / `+++ file`, as git prints it.
    for (const e of edits) {
      const patch = createTwoFilesPatch(e.file, e.file, e.before, e.after, undefined, undefined, { context: 3 });
      lines.push(
        ...patch
          .trimEnd()
          .split('\n')
          .filter((l) => !l.startsWith('Index: ') && !/^=+$/.test(l)),
      );
    }
  } else if (edits.length > 0) {
    lines.push('', 'Review the change and commit it: with it, roster plan no longer lists these grants as held.');
  }
  return lines.join('\n') + '\n';
}

export function renderAdoptionJson(a: Adoption, edits: FileEdit[], dryRun: boolean): string {
  return (
    JSON.stringify(
      {
        dryRun,
        adopted: a.adopt.map((g) => ({
          id: g.id,
          user: g.user,
          role: g.role,
          tenant: g.tenant,
          ...(g.on ? { on: g.on } : {}),
          request: g.request,
        })),
        skipped: a.skipped,
        unselected: a.unselected,
        files: edits.map((e) => ({ file: e.file, ...(dryRun ? { after: e.after } : {}) })),
      },
      null,
      2,
    ) + '\n'
  );
}
