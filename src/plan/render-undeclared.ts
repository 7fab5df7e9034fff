/**
 * How the renderers show what a plan deletes beyond its lines: the cascade under each deletion, the
 * live objects the configuration does not declare (undeclared.ts), and the header's word on what the
 * plan deletes and why (--prune, or the configuration's `authoritative:`).
 */
import type { Plan } from './types.js';
import type { PlanUndeclared, UndeclaredObject } from './undeclared.js';
import { defaultMaxDeletes, deletesOf, describeDeletes } from './safety.js';
import { codeCell } from './markdown.js';
import { count, plural } from '../words.js';

export const UNDECLARED_TITLE = 'Live, not in the configuration';

/** Identities shown under a deletion; the JSON plan has them all. */
const CASCADE_LISTED = 8;

const CASCADE_KINDS: [prefix: string, one: string, many: string][] = [
  ['member:', 'membership', 'memberships'],
  ['grant:', 'group grant', 'group grants'],
  ['link:', 'group link', 'group links'],
  ['assignment:', 'role assignment', 'role assignments'],
  ['tenant_user:', 'tenant presence', 'tenant presences'],
  ['instance:', 'instance', 'instances'],
  ['group:', 'group', 'groups'],
  ['access_request:', 'access request', 'access requests'],
  ['resource_attribute:', 'attribute definition', 'attribute definitions'],
  ['condition_set:', 'resource set', 'resource sets'],
  ['set_rule:', 'set rule', 'set rules'],
];

/** `12 memberships, 3 group grants, 1 group link`. */
export function describeCascade(cascade: readonly string[]): string {
  return CASCADE_KINDS.map(([prefix, one, many]) => {
    const n = cascade.filter((id) => id.startsWith(prefix)).length;
    return n === 0 ? '' : `${n} ${n === 1 ? one : many}`;
  })
    .filter(Boolean)
    .join(', ');
}

/** Lines under a deletion in the text plan: the counts, then the first identities. */
export function cascadeTextLines(cascade: readonly string[] | undefined): string[] {
  if (!cascade || cascade.length === 0) return [];
  const more = cascade.length - CASCADE_LISTED;
  return [
    `      with it: ${describeCascade(cascade)}`,
    ...cascade.slice(0, CASCADE_LISTED).map((id) => `        ${id}`),
    ...(more > 0 ? [`        … and ${more} more (see --format json)`] : []),
  ];
}

/**
 * The warning under an attribute definition's deletion whose attribute conditions still use: the service
 * deletes it anyway and those conditions then evaluate it as undefined, silently.
 */
export function usedByNote(usedBy: readonly string[] | undefined): string | undefined {
  if (!usedBy || usedBy.length === 0) return undefined;
  return `warning: still used by the conditions of ${plural(usedBy.length, 'set')} (${usedBy.join(', ')}); once deleted, the attribute evaluates as undefined there and those conditions fail`;
}

/** The header's note: why this plan deletes what the configuration does not declare, if it does. */
export function deletionMode(plan: Plan): string {
  if (plan.prune) return ' (with --prune)';
  if (plan.authoritative && plan.authoritative.length > 0) return ` (authoritative: ${plan.authoritative.join(', ')})`;
  return '';
}

/**
 * One sentence saying what applying deletes, and whether the default delete limit lets it: a pull
 * request's reviewer learns it before the merge applies it. Undefined when nothing is deleted.
 */
export function deletionNote(plan: Plan): string | undefined {
  const d = deletesOf(plan);
  if (d.total === 0) return undefined;
  const what = describeDeletes(d);
  const max = defaultMaxDeletes(plan);
  if (max === undefined) return `Applying this plan deletes ${what}.`;
  const limit =
    d.total <= max
      ? `within the default delete limit of ${count(max)}`
      : `over the default delete limit of ${count(max)}: apply refuses it unless --max-deletes ${d.total} is given`;
  return `Applying this plan deletes ${what}; ${limit}.`;
}

function heading(u: PlanUndeclared): string {
  const kept = u.total - u.deleted;
  const parts = [
    ...(u.deleted > 0 ? [`${count(u.deleted)} deleted by this plan`] : []),
    ...(kept > 0
      ? [
          `${count(kept)} kept, with the access they grant (--prune, or \`authoritative:\` in the configuration, deletes them)`,
        ]
      : []),
  ];
  return `${plural(u.total, 'object')}; ${parts.join('; ')}`;
}

const FATE: Record<UndeclaredObject['fate'], string> = {
  deleted: 'deleted',
  kept: 'kept',
  held: 'kept: it holds grants of approved access requests',
};

// Not `-`: a deletion's own line is `  - id`, and an undeclared object is listed once more here.
const MARK: Record<UndeclaredObject['fate'], string> = { deleted: 'x', kept: '?', held: '=' };

function accessOf(o: UndeclaredObject): string[] {
  if (o.access.length === 0) return ['grants no access'];
  return [...o.access, ...(o.omittedAccess > 0 ? [`… and ${o.omittedAccess} more`] : [])];
}

/** The section as text lines: `x` deleted, `?` kept, `=` kept for approved requests. */
export function undeclaredTextLines(u: PlanUndeclared): string[] {
  const lines = [`${UNDECLARED_TITLE}: ${heading(u)}`];
  for (const o of u.objects) {
    lines.push(`  ${MARK[o.fate]} ${o.id} (${FATE[o.fate]})`);
    for (const a of accessOf(o)) lines.push(`      ${a}`);
  }
  if (u.omitted > 0) lines.push(`  … and ${u.omitted} more (see --format json for the counts)`);
  return lines;
}

export function undeclaredMarkdownLines(u: PlanUndeclared): string[] {
  const out = [
    `#### ${UNDECLARED_TITLE}`,
    '',
    heading(u) + '.',
    '',
    '| | object | | access it grants now |',
    '|---|---|---|---|',
  ];
  for (const o of u.objects)
    out.push(`| ${MARK[o.fate]} | ${codeCell(o.id)} | ${FATE[o.fate]} | ${accessOf(o).map(escape).join('<br>')} |`);
  if (u.omitted > 0) out.push('', `… and ${u.omitted} more.`);
  return out;
}

function escape(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
