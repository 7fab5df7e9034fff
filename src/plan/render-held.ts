/** How the renderers show grants of approved access requests: the held section, and expired deletions. */
import type { ExpiredGrant } from './change.js';
import type { HeldGrant, PlanHeld } from './request-grants.js';
import type { GrantRequest } from '../types/live.js';
import type { HeldLookup, HeldThrough } from '../access/assertions.js';
import { ids } from './identity.js';
import { cell, codeCell } from './markdown.js';
import { plural } from '../words.js';

export const HELD_TITLE = 'Held through approved access requests';

/** `bob`, or who approved when no user was recorded (the API key acting as administrator). */
export function reviewerOf(r: GrantRequest): string {
  return r.reviewer ?? 'an administrator (API key)';
}

/** The mark of an expired grant's deletion: `expired access request (approved … by …; …)`. */
export function expiredNote(e: ExpiredGrant): string {
  return `expired access request (approved ${e.request.approvedAt} by ${reviewerOf(e.request)}; grant_for ${e.grantFor} of ${e.request.config}, expired ${e.expiredAt}; request ${e.request.id})`;
}

function heldDetail(g: HeldGrant): string {
  const r = g.request;
  return `request ${r.id}, approved ${r.approvedAt} by ${reviewerOf(r)} (${r.config})${g.expiresAt ? `; expires ${g.expiresAt}` : ''}`;
}

function heading(h: PlanHeld): string {
  const n = h.grants.length;
  return `${plural(n, 'grant')} the configuration does not declare; not changes: kept until declared (roster requests adopt), revoked (roster requests revoke) or expired (grant_for)`;
}

/** The section as text lines (after the changes). `=` marks a held grant, `!` a deletion withheld for it. */
export function heldTextLines(h: PlanHeld): string[] {
  const lines = [`${HELD_TITLE}: ${heading(h)}`];
  for (const g of h.grants) lines.push(`  = ${g.id}`, `      ${heldDetail(g)}`);
  for (const k of h.kept) lines.push(`  ! ${k.id} not deleted: it would remove ${k.because.join(', ')}`);
  return lines;
}

export function heldMarkdownLines(h: PlanHeld): string[] {
  const out = [`#### ${HELD_TITLE}`, '', heading(h) + '.'];
  if (h.grants.length > 0) {
    out.push('', '| grant | request | approved | by | expires |', '|---|---|---|---|---|');
    for (const g of h.grants)
      out.push(
        `| ${codeCell(g.id)} | ${codeCell(g.request.id)} (${cell(g.request.config)}) | ${g.request.approvedAt} | ${cell(reviewerOf(g.request))} | ${g.expiresAt ?? 'never'} |`,
      );
  }
  if (h.kept.length > 0) out.push('');
  for (const k of h.kept)
    out.push(`- \`${k.id}\` is not deleted: it would remove ${k.because.map((b) => `\`${b}\``).join(', ')}`);
  return out;
}

/**
 * The lookup assertions use to name the request behind a failing path (src/access/assertions.ts): held
 * grants, and expired ones not revoked yet (they still grant), by user, role and instance or tenant.
 */
export function heldLookup(
  held: readonly Pick<HeldGrant, 'user' | 'role' | 'tenant' | 'on' | 'request'>[],
  expired: readonly { user: string; role: string; on: string; expired: ExpiredGrant }[] = [],
): HeldLookup {
  const by = new Map<string, HeldThrough>();
  for (const g of held) by.set(ids.assignment(g.user, g.role, g.on ?? g.tenant), { ...g.request });
  for (const e of expired)
    by.set(ids.assignment(e.user, e.role, e.on), { ...e.expired.request, expiredAt: e.expired.expiredAt });
  return (user, role, on) => by.get(ids.assignment(user, role, on));
}
