/** `roster check` output: text, JSON and JUnit XML of an AssertionReport. Pure. */
import type { AssertionReport, AssertionResult } from './assertions.js';
import { count, plural } from '../words.js';

export const CHECK_FORMATS = ['text', 'json', 'junit'] as const;
export type CheckFormat = (typeof CHECK_FORMATS)[number];

export interface CheckRenderOptions {
  /** Passing assertions too (text and JSON; JUnit always lists every assertion). */
  verbose?: boolean;
  /** Where the answers came from, for the headings: `desired` (offline) or `live`. */
  on: 'desired' | 'live';
}

export function renderCheck(report: AssertionReport, format: CheckFormat, options: CheckRenderOptions): string {
  switch (format) {
    case 'text':
      return renderCheckText(report, options);
    case 'json':
      return renderCheckJson(report, options);
    case 'junit':
      return renderCheckJunit(report, options);
  }
}

/** `file:line` of an assertion, or its path when it has no position. */
export function placeOf(r: AssertionResult): string {
  const s = r.assertion.source;
  if (!s) return '';
  return s.line !== undefined ? `${s.file}:${s.line}` : `${s.file} ${s.path}`;
}

/** Failure lines of one result, indented: each user, why, and every granting path (or rule not decided offline). */
export function failureLines(r: AssertionResult, indent = '  '): string[] {
  const lines: string[] = [];
  for (const f of [...r.failures, ...(r.undecided ?? [])]) {
    lines.push(`${indent}${f.message}`);
    for (const p of f.paths) lines.push(`${indent}  ${p}`);
  }
  return lines;
}

const LABEL = { passed: 'PASS', failed: 'FAIL', undecided: 'UNDECIDED' } as const;

export function renderCheckText(report: AssertionReport, options: CheckRenderOptions): string {
  const lines: string[] = [];
  for (const r of report.results) {
    if (r.passed && !options.verbose) continue;
    const place = placeOf(r);
    const count = r.assertion.usersIn !== undefined ? ` (${plural(r.users.length, 'member')})` : '';
    lines.push(`${LABEL[r.status]} ${place ? place + ': ' : ''}${r.name}${count}`);
    lines.push(...failureLines(r, '  '));
  }
  if (lines.length > 0) lines.push('');
  const where = options.on === 'live' ? 'the live service' : 'the configuration';
  lines.push(
    report.total === 0
      ? `No assertions in the configuration.`
      : `${plural(report.total, 'assertion')} on ${where}: ${count(report.total - report.failed - report.undecided)} passed, ${count(report.failed)} failed${report.undecided > 0 ? `, ${count(report.undecided)} not decided offline` : ''}.`,
  );
  return lines.join('\n') + '\n';
}

export function renderCheckJson(report: AssertionReport, options: CheckRenderOptions): string {
  const results = report.results.filter((r) => options.verbose || !r.passed);
  return (
    JSON.stringify(
      {
        on: options.on,
        passed: report.passed,
        total: report.total,
        failed: report.failed,
        undecided: report.undecided,
        results,
      },
      null,
      2,
    ) + '\n'
  );
}

/** JUnit XML as CI systems read it: one testcase per assertion, a <failure> with the paths when it fails. */
export function renderCheckJunit(report: AssertionReport, options: CheckRenderOptions): string {
  const suite = `roster check (${options.on})`;
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(suite)}" tests="${report.total}" failures="${report.failed}">`,
    `  <testsuite name="${xml(suite)}" tests="${report.total}" failures="${report.failed}" errors="0" skipped="${report.undecided}">`,
  ];
  for (const r of report.results) {
    const s = r.assertion.source;
    const attrs = [`classname="${xml(s?.file ?? 'assertions')}"`, `name="${xml(r.name)}"`];
    if (s?.file) attrs.push(`file="${xml(s.file)}"`);
    if (s?.line !== undefined) attrs.push(`line="${s.line}"`);
    if (r.passed) {
      out.push(`    <testcase ${attrs.join(' ')}/>`);
      continue;
    }
    out.push(`    <testcase ${attrs.join(' ')}>`);
    if (r.status === 'undecided') {
      // Neither passed nor failed: a skipped test case, with what it waits for.
      out.push(`      <skipped message="${xml(r.undecided?.[0]?.message ?? 'not decided offline')}"/>`);
    } else {
      const first = r.failures[0]?.message ?? 'failed';
      out.push(
        `      <failure message="${xml(first)}" type="AssertionFailed">${xml(failureLines(r, '').join('\n'))}</failure>`,
      );
    }
    out.push('    </testcase>');
  }
  out.push('  </testsuite>', '</testsuites>');
  return out.join('\n') + '\n';
}

/**
 * A configuration that does not load, as a failed JUnit suite: a CI report step reading stdout gets a
 * failure to show (one testcase per problem, at its file and line), never an empty file.
 */
export function renderConfigErrorsJunit(
  message: string,
  problems: { file?: string; line?: number; column?: number; path?: string; message: string; hint?: string }[],
): string {
  const suite = 'roster check (configuration)';
  const cases = problems.length > 0 ? problems : [{ message }];
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(suite)}" tests="${cases.length}" failures="${cases.length}">`,
    `  <testsuite name="${xml(suite)}" tests="${cases.length}" failures="${cases.length}" errors="0" skipped="0">`,
  ];
  for (const p of cases) {
    const where =
      'file' in p && p.file ? [p.file, p.line, p.column].filter((x) => x !== undefined).join(':') : 'configuration';
    const attrs = [
      `classname="${xml(('file' in p && p.file) || 'configuration')}"`,
      `name="${xml(`${where}${'path' in p && p.path ? ` ${p.path}` : ''}`)}"`,
    ];
    if ('file' in p && p.file) attrs.push(`file="${xml(p.file)}"`);
    if ('line' in p && p.line !== undefined) attrs.push(`line="${p.line}"`);
    const detail = [p.message, ...('hint' in p && p.hint ? [`hint: ${p.hint}`] : [])].join('\n');
    out.push(
      `    <testcase ${attrs.join(' ')}>`,
      `      <failure message="${xml(p.message)}" type="ConfigurationInvalid">${xml(detail)}</failure>`,
      '    </testcase>',
    );
  }
  out.push('  </testsuite>', '</testsuites>');
  return out.join('\n') + '\n';
}

function xml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}
