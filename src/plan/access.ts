/**
 * The plan's "Access changes" section: who gains and loses which role (or permission) on which instance,
 * and why, between the live state and the live state after the plan's changes (`liveAfter`). Pure. It is
 * derived data: the plan's checksum does not cover it (checksum.ts). Capped so that a plan touching
 * thousands of users stays readable; the counts say what was left out.
 */
import type { DesiredAssertion } from '../types/desired.js';
import { buildAccessGraph, type AccessGraph } from '../access/index.js';
import { factsFromState } from '../access/from-state.js';
import { derivationCache } from '../access/derive.js';
import { evaluateAssertions, type HeldLookup } from '../access/assertions.js';
import { failureLines, placeOf } from '../access/check-report.js';
import { describeTenantWide } from '../access/summary.js';
import type { LiveState } from '../types/live.js';
import type { Change } from './change.js';
import { liveAfter } from './after.js';
import { streamAccessSection } from './access-stream.js';
import { cell, codeCell } from './markdown.js';
import { count, plural } from '../words.js';

export interface PlanAccessSummary {
  /** "+37 users gain editor on document:roadmap via team:engineering". */
  line: string;
  sign: '+' | '-';
  subject: string;
  /** The instance; absent on a tenant-wide line, which covers `instances`. */
  instance?: string;
  /** Tenant-wide lines only: every instance the line covers, sorted (`tenant` is `via`). */
  instances?: string[];
  viaKind: 'direct' | 'tenant' | 'group' | 'derived';
  via: string;
  role?: string;
  userCount: number;
  /** The first `limits.usersPerLine` users, sorted. */
  users: string[];
}

export interface PlanAccessChange {
  sign: '+' | '-';
  subject: string;
  /** The instance; absent on a change through a tenant-wide role, which covers `instances`. */
  instance?: string;
  /**
   * A change held only through a tenant-wide role, named once per role and tenant: the instances it
   * covers (sorted), the tenant, and the role carrying the permission (permission view).
   */
  instances?: string[];
  tenant?: string;
  role?: string;
  /** Formatted granting paths, best first (at most `limits.pathsPerChange`). */
  paths: string[];
}

export interface PlanAccessAssertions {
  total: number;
  failed: number;
  /** Failing assertions on the state after the plan: where, what, and the lines that explain it. */
  failures: { place: string; name: string; lines: string[] }[];
}

export interface PlanAccess {
  level: 'role' | 'permission';
  /** Over every change, before capping. */
  users: number;
  gains: number;
  losses: number;
  summary: PlanAccessSummary[];
  /** Summary lines left out. */
  omittedSummary: number;
  /** Per user, sorted by user then instance and subject. */
  byUser: { user: string; changes: PlanAccessChange[] }[];
  /** Changes left out of `byUser`. */
  omittedChanges: number;
  assertions?: PlanAccessAssertions;
}

export interface PlanAccessLimits {
  summaryLines: number;
  usersPerLine: number;
  changes: number;
  pathsPerChange: number;
}

export const DEFAULT_ACCESS_LIMITS: PlanAccessLimits = { summaryLines: 50, usersPerLine: 10, changes: 200, pathsPerChange: 3 };

export interface PlanAccessInput {
  live: LiveState;
  changes: readonly Change[];
  /** The permission view (`document:write`) instead of roles. */
  permissions?: boolean;
  /** Evaluated on the state after the plan. */
  assertions?: readonly DesiredAssertion[];
  /** The plan's held grants (render-held.ts `heldLookup`): a failing `cannot` names the request behind it. */
  held?: HeldLookup;
  limits?: Partial<PlanAccessLimits>;
}

/** The graphs before and after the changes: exported for the bench and `check`'s use of a plan. */
export function accessGraphs(live: LiveState, changes: readonly Change[]): { before: AccessGraph; after: AccessGraph } {
  const derivations = derivationCache();
  return {
    before: buildAccessGraph(factsFromState(live), { derivations }),
    after: buildAccessGraph(factsFromState(liveAfter(live, changes)), { derivations }),
  };
}

export function planAccess(input: PlanAccessInput): PlanAccess {
  const limits = { ...DEFAULT_ACCESS_LIMITS, ...input.limits };
  // Nothing changes and nothing is asserted: no one gains or loses anything, without building the graphs
  // (a tenth of a second for 10,000 users, on every no-op plan).
  if (input.changes.length === 0 && !input.assertions?.length) {
    return { level: input.permissions === true ? 'permission' : 'role', users: 0, gains: 0, losses: 0, summary: [], omittedSummary: 0, byUser: [], omittedChanges: 0 };
  }
  const { before, after } = accessGraphs(input.live, input.changes);
  // Counted and summarised as the diff yields its changes, never held whole (access-stream.ts).
  const out: PlanAccess = streamAccessSection(before, after, input.permissions === true, limits);
  if (input.assertions && input.assertions.length > 0) {
    const report = evaluateAssertions(input.assertions, after, { held: input.held });
    out.assertions = {
      total: report.total,
      failed: report.failed,
      failures: report.results.filter((r) => !r.passed).map((r) => ({ place: placeOf(r), name: r.name, lines: failureLines(r, '') })),
    };
  }
  return out;
}

/** The section as text lines (the text renderer prints them after the changes). */
export function accessTextLines(a: PlanAccess): string[] {
  const lines = [`Access changes${a.level === 'permission' ? ' (permissions)' : ''}: ${headline(a)}`];
  for (const s of a.summary) lines.push(`  ${s.line}`, `      ${userList(s)}`);
  if (a.omittedSummary > 0) lines.push(`  … and ${plural(a.omittedSummary, 'more line', 'more lines')}`);
  if (a.byUser.length > 0) lines.push('', '  By user:');
  for (const u of a.byUser) {
    lines.push(`    ${u.user}`);
    for (const c of u.changes) {
      lines.push(`      ${c.sign} ${describeChange(c)}`);
      for (const p of c.paths) lines.push(`          ${p}`);
    }
  }
  if (a.omittedChanges > 0) lines.push(`    … and ${plural(a.omittedChanges, 'more change', 'more changes')} (see --format json for the counts)`);
  lines.push(...assertionLines(a));
  return lines;
}

/** The section as Markdown (a pull-request comment); the per-user detail folds away. */
export function accessMarkdownLines(a: PlanAccess): string[] {
  const out = [`#### Access changes${a.level === 'permission' ? ' (permissions)' : ''}`, '', headline(a), ''];
  for (const s of a.summary) out.push(`- \`${s.line}\`: ${userList(s)}`);
  if (a.omittedSummary > 0) out.push(`- … and ${a.omittedSummary} more`);
  if (a.byUser.length > 0) {
    out.push('', '<details><summary>By user, with the granting paths</summary>', '', '| user | change | paths |', '|---|---|---|');
    for (const u of a.byUser) {
      for (const c of u.changes) {
        const what = c.instances ? cell(describeChange(c)) : `${cell(c.subject)} on ${codeCell(c.instance!)}`;
        out.push(`| ${codeCell(u.user)} | ${c.sign} ${what} | ${c.paths.map(codeCell).join('<br>')} |`);
      }
    }
    if (a.omittedChanges > 0) out.push('', `… and ${a.omittedChanges} more changes.`);
    out.push('', '</details>');
  }
  if (a.assertions && a.assertions.failed > 0) {
    out.push('', `#### ❌ ${a.assertions.failed} of ${a.assertions.total} assertions fail`, '');
    for (const f of a.assertions.failures) out.push(`- **${f.name}** (${f.place})`, ...f.lines.map((l) => `  - \`${l.trim()}\``));
  }
  return out;
}

/** A change as one line: "editor on document:a", or "folder:read through auditor in acme, on 3 folders (folder:a, folder:b, folder:c)". */
function describeChange(c: PlanAccessChange): string {
  if (!c.instances) return `${c.subject} on ${c.instance}`;
  const listed = c.instances.length > 1 ? ` (${c.instances.slice(0, 3).join(', ')}${c.instances.length > 3 ? ', …' : ''})` : '';
  return `${describeTenantWide(c.subject, c.role, c.tenant!, c.instances)}${listed}`;
}

function headline(a: PlanAccess): string {
  if (a.users === 0) return 'none: no user gains or loses access.';
  return `${plural(a.users, 'user')}; ${count(a.gains)} gained, ${count(a.losses)} lost.`;
}

function userList(s: PlanAccessSummary): string {
  const more = s.userCount - s.users.length;
  return s.users.join(', ') + (more > 0 ? ` … (${more} more)` : '');
}

function assertionLines(a: PlanAccess): string[] {
  if (!a.assertions || a.assertions.failed === 0) return [];
  const lines = ['', `Assertions: ${a.assertions.failed} of ${a.assertions.total} fail on the state after this plan:`];
  for (const f of a.assertions.failures) lines.push(`  FAIL ${f.place ? f.place + ': ' : ''}${f.name}`, ...f.lines.map((l) => `    ${l}`));
  return lines;
}
