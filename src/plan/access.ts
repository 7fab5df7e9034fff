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
import { abacMemo } from '../access/abac/graph.js';
import { abacFromState } from '../access/abac/model.js';
import { diffAbac, formatAbacLine, formatAbacUndecided, type AbacDiff } from '../access/abac/diff.js';
import type { LiveState } from '../types/live.js';
import type { Change } from './change.js';
import { liveAfter } from './after.js';
import { streamAccessSection } from './access-stream.js';
import { joinAbacByUser } from './access-by-user.js';
import type { PlanAccessChange, PlanAccessCore, PlanAccessLimits, PlanAccessSummary } from './access-shapes.js';
import { cell, codeCell } from './markdown.js';
import { agree, count, plural } from '../words.js';

export type { PlanAccessChange, PlanAccessCore, PlanAccessLimits, PlanAccessSummary };

export interface PlanAccessAssertions {
  total: number;
  failed: number;
  /** Failing assertions on the state after the plan: where, what, and the lines that explain it. */
  failures: { place: string; name: string; lines: string[] }[];
  /**
   * Assertions a set rule decides only with attributes the check passes at decision time (`context.*`):
   * neither passed nor failed offline (docs/check.md). Absent when none.
   */
  undecided?: { place: string; name: string; lines: string[] }[];
}

/**
 * What set rules (ABAC) grant and take away, one line per rule and per group of users gaining or losing
 * the permission on the same instances (never one line per user and instance).
 */
export interface PlanAbacLine {
  /** "+12 users gain expense:approve on 300 expenses: user set senior-approvers × resource set small-expenses, after bob's level changed". */
  line: string;
  sign: '+' | '-';
  permission: string;
  /** The set rule's key, and its sets. */
  rule: string;
  userSet: string;
  resourceSet: string;
  userCount: number;
  /** The first `limits.usersPerLine` users, sorted. */
  users: string[];
  instanceCount: number;
  /** The first `limits.usersPerLine` instances, sorted. */
  instances: string[];
  causes: string[];
}

/** A rule whose decisions depend on attributes only a check gives (`context.*`): not decided offline. */
export interface PlanAbacUndecided {
  line: string;
  permission: string;
  rule: string;
  userSet: string;
  resourceSet: string;
  attributes: string[];
  /** Users and instances whose decision through the rule may change with this plan. */
  users: number;
  instances: number;
  change: 'added' | 'removed' | 'kept';
}

export interface PlanAbac {
  /** Users with a gain or loss through set rules, (user, instance) pairs gained and lost: before capping. */
  users: number;
  gains: number;
  losses: number;
  lines: PlanAbacLine[];
  omittedLines: number;
  undecided: PlanAbacUndecided[];
}

export interface PlanAccess extends PlanAccessCore {
  /** Attribute-based access (set rules): present when either side has set rules. */
  abac?: PlanAbac;
  assertions?: PlanAccessAssertions;
}

export const DEFAULT_ACCESS_LIMITS: PlanAccessLimits = {
  summaryLines: 50,
  usersPerLine: 10,
  changes: 200,
  pathsPerChange: 3,
};

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
  /**
   * Given the graphs before and after the plan once the section is made, for work of the caller's on the
   * same graphs: apply's decision check samples its checks there instead of building them again.
   */
  withGraphs?: (before: AccessGraph, after: AccessGraph, abac?: AbacDiff) => void;
}

/** The graphs before and after the changes: exported for the bench and `check`'s use of a plan. */
export function accessGraphs(
  live: LiveState,
  changes: readonly Change[],
): { before: AccessGraph; after: AccessGraph; afterState: LiveState } {
  const derivations = derivationCache();
  const memo = abacMemo();
  const afterState = liveAfter(live, changes);
  return {
    before: buildAccessGraph(factsFromState(live), { derivations, abacMemo: memo }),
    after: buildAccessGraph(factsFromState(afterState), { derivations, abacMemo: memo }),
    afterState,
  };
}

export function planAccess(input: PlanAccessInput): PlanAccess {
  const limits = { ...DEFAULT_ACCESS_LIMITS, ...input.limits };
  // Nothing changes and nothing is asserted: no one gains or loses anything, without building the graphs
  // (a tenth of a second for 10,000 users, on every no-op plan).
  if (input.changes.length === 0 && !input.assertions?.length) {
    return {
      level: input.permissions === true ? 'permission' : 'role',
      users: 0,
      gains: 0,
      losses: 0,
      summary: [],
      omittedSummary: 0,
      byUser: [],
      omittedChanges: 0,
    };
  }
  const { before, after, afterState } = accessGraphs(input.live, input.changes);
  // Set rules (ABAC) first: their users join the count of users the section names.
  const abacDiff = before.abac || after.abac ? diffAbac(before, after) : undefined;
  const abac = abacDiff ? planAbac(abacDiff, limits) : undefined;
  // Counted and summarised as the diff yields its changes, never held whole (access-stream.ts).
  const streamed = streamAccessSection(
    before,
    after,
    input.permissions === true,
    limits,
    abac ? new Set(abac.users) : undefined,
  );
  const out: PlanAccess = {
    ...streamed,
    ...(abacDiff ? joinAbacByUser(streamed, abacDiff, limits) : {}),
    gains: streamed.gains + (abac?.gains ?? 0),
    losses: streamed.losses + (abac?.losses ?? 0),
    ...(abac ? { abac: abac.section } : {}),
  };
  if (input.assertions && input.assertions.length > 0) {
    // Decided as `roster check` decides them: set rules on the state after the plan, with each
    // assertion's `with:` attributes; one a rule leaves to decision time is counted apart.
    const report = evaluateAssertions(input.assertions, after, {
      held: input.held,
      abac: { state: afterState, view: abacFromState(afterState) },
    });
    const entry = (r: (typeof report.results)[number]) => ({
      place: placeOf(r),
      name: r.name,
      lines: failureLines(r, ''),
    });
    const undecided = report.results.filter((r) => r.status === 'undecided').map(entry);
    out.assertions = {
      total: report.total,
      failed: report.failed,
      failures: report.results.filter((r) => r.status === 'failed').map(entry),
      ...(undecided.length > 0 ? { undecided } : {}),
    };
  }
  input.withGraphs?.(before, after, abacDiff);
  return out;
}

/** The ABAC part of the section, capped like the summary. */
function planAbac(
  d: ReturnType<typeof diffAbac>,
  limits: PlanAccessLimits,
): { section: PlanAbac; users: string[]; gains: number; losses: number } {
  const lines = d.lines.slice(0, limits.summaryLines).map((l): PlanAbacLine => ({
    line: formatAbacLine(l),
    sign: l.sign,
    permission: l.permission,
    rule: l.via.rule,
    userSet: l.via.userSet,
    resourceSet: l.via.resourceSet,
    userCount: l.users.length,
    users: l.users.slice(0, limits.usersPerLine),
    instanceCount: l.instances.length,
    instances: l.instances.slice(0, limits.usersPerLine),
    causes: l.causes,
  }));
  const undecided = d.undecided.map((u): PlanAbacUndecided => ({
    line: formatAbacUndecided(u),
    permission: u.via.permission,
    rule: u.via.rule,
    userSet: u.via.userSet,
    resourceSet: u.via.resourceSet,
    attributes: u.attributes,
    users: u.users,
    instances: u.instances,
    change: u.change,
  }));
  return {
    section: {
      users: d.users.length,
      gains: d.gains,
      losses: d.losses,
      lines,
      omittedLines: d.lines.length - lines.length,
      undecided,
    },
    users: d.users,
    gains: d.gains,
    losses: d.losses,
  };
}

/** The section as text lines (the text renderer prints them after the changes). */
export function accessTextLines(a: PlanAccess): string[] {
  const lines = [`Access changes${a.level === 'permission' ? ' (permissions)' : ''}: ${headline(a)}`];
  for (const s of a.summary) lines.push(`  ${s.line}`, `      ${userList(s)}`);
  if (a.omittedSummary > 0) lines.push(`  … and ${plural(a.omittedSummary, 'more line', 'more lines')}`);
  lines.push(...abacTextLines(a.abac));
  if (a.byUser.length > 0) lines.push('', '  By user:');
  for (const u of a.byUser) {
    lines.push(`    ${u.user}`);
    for (const c of u.changes) {
      lines.push(`      ${c.sign} ${describeChange(c)}`);
      for (const p of c.paths) lines.push(`          ${p}`);
    }
  }
  if (a.omittedChanges > 0)
    lines.push(
      `    … and ${plural(a.omittedChanges, 'more change', 'more changes')} (see --format json for the counts)`,
    );
  lines.push(...assertionLines(a));
  return lines;
}

/** The section as Markdown (a pull-request comment); the per-user detail folds away. */
export function accessMarkdownLines(a: PlanAccess): string[] {
  const out = [`#### Access changes${a.level === 'permission' ? ' (permissions)' : ''}`, '', headline(a), ''];
  for (const s of a.summary) out.push(`- \`${s.line}\`: ${userList(s)}`);
  if (a.omittedSummary > 0) out.push(`- … and ${a.omittedSummary} more`);
  out.push(...abacMarkdownLines(a.abac));
  if (a.byUser.length > 0) {
    out.push(
      '',
      '<details><summary>By user, with the granting paths</summary>',
      '',
      '| user | change | paths |',
      '|---|---|---|',
    );
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
    for (const f of a.assertions.failures)
      out.push(`- **${f.name}** (${f.place})`, ...f.lines.map((l) => `  - \`${l.trim()}\``));
  }
  if (a.assertions?.undecided) {
    out.push('', `#### ${plural(a.assertions.undecided.length, 'assertion')} not decided offline`, '');
    for (const f of a.assertions.undecided)
      out.push(`- **${f.name}** (${f.place})`, ...f.lines.map((l) => `  - \`${l.trim()}\``));
  }
  return out;
}

/** Set rules' lines (text): what they grant and take away, then the rules not decided offline. */
function abacTextLines(abac: PlanAbac | undefined): string[] {
  if (!abac || (abac.lines.length === 0 && abac.undecided.length === 0)) return [];
  const lines = ['', `  Through set rules (attributes): ${abacHeadline(abac)}`];
  for (const l of abac.lines)
    lines.push(`  ${l.line}`, `      ${listed(l.users, l.userCount)}; on ${listed(l.instances, l.instanceCount)}`);
  if (abac.omittedLines > 0) lines.push(`  … and ${plural(abac.omittedLines, 'more line', 'more lines')}`);
  for (const u of abac.undecided) lines.push(`  ${u.line}`);
  return lines;
}

function abacMarkdownLines(abac: PlanAbac | undefined): string[] {
  if (!abac || (abac.lines.length === 0 && abac.undecided.length === 0)) return [];
  const out = ['', `**Through set rules (attributes):** ${abacHeadline(abac)}`, ''];
  for (const l of abac.lines)
    out.push(
      `- \`${l.line}\`: ${listed(l.users, l.userCount)}; on ${listed(
        l.instances.map((i) => `\`${i}\``),
        l.instanceCount,
      )}`,
    );
  if (abac.omittedLines > 0) out.push(`- … and ${abac.omittedLines} more`);
  for (const u of abac.undecided) out.push(`- \`${u.line}\``);
  return out;
}

function abacHeadline(abac: PlanAbac): string {
  if (abac.users === 0) return abac.undecided.length > 0 ? 'no decided change.' : 'none.';
  return `${plural(abac.users, 'user')}; ${count(abac.gains)} gained, ${count(abac.losses)} lost (user × instance).`;
}

function listed(items: readonly string[], total: number): string {
  const more = total - items.length;
  return items.join(', ') + (more > 0 ? ` … (${more} more)` : '');
}

/** A change as one line: "editor on document:a", or "folder:read through auditor in acme, on 3 folders (folder:a, folder:b, folder:c)". */
function describeChange(c: PlanAccessChange): string {
  if (!c.instances) return `${c.subject} on ${c.instance}`;
  if (c.rule !== undefined)
    return `${c.subject} on ${plural(c.instances.length, 'instance')} (${c.instances.slice(0, 3).join(', ')}${c.instances.length > 3 ? ', …' : ''})`;
  const n = c.instanceCount ?? c.instances.length;
  const listed = n > 1 ? ` (${c.instances.slice(0, 3).join(', ')}${n > 3 ? ', …' : ''})` : '';
  const tally = { count: n, byType: c.instancesByType ?? {}, first: c.instances };
  return `${describeTenantWide(c.subject, c.role, c.tenant!, c.instancesByType ? tally : c.instances)}${listed}`;
}

/**
 * "3 users; 5 gained, 0 lost.", or "none: no user gains or loses access." Set rules whose effect waits for
 * what a check passes (`context.*`) are said here too: "none" alone would read as nothing changing.
 */
function headline(a: PlanAccess): string {
  const n = a.abac?.undecided.length ?? 0;
  const undecided = `${plural(n, 'set rule')} ${agree(n, 'depends', 'depend')} on attributes a check passes (below)`;
  if (a.users === 0) return n > 0 ? `none decided offline; ${undecided}.` : 'none: no user gains or loses access.';
  return `${plural(a.users, 'user')}; ${count(a.gains)} gained, ${count(a.losses)} lost${n > 0 ? `; not decided offline: ${undecided}` : ''}.`;
}

function userList(s: PlanAccessSummary): string {
  const more = s.userCount - s.users.length;
  return s.users.join(', ') + (more > 0 ? ` … (${more} more)` : '');
}

function assertionLines(a: PlanAccess): string[] {
  if (!a.assertions) return [];
  const lines: string[] = [];
  if (a.assertions.failed > 0) {
    lines.push('', `Assertions: ${a.assertions.failed} of ${a.assertions.total} fail on the state after this plan:`);
    for (const f of a.assertions.failures)
      lines.push(`  FAIL ${f.place ? f.place + ': ' : ''}${f.name}`, ...f.lines.map((l) => `    ${l}`));
  }
  if (a.assertions.undecided) {
    lines.push(
      '',
      `Assertions not decided offline (a set rule waits for attributes the check passes): ${count(a.assertions.undecided.length)}`,
    );
    for (const f of a.assertions.undecided)
      lines.push(`  UNDECIDED ${f.place ? f.place + ': ' : ''}${f.name}`, ...f.lines.map((l) => `    ${l}`));
  }
  return lines;
}
