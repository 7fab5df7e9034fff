/**
 * Renderers of a load result: text for terminals (source line and caret), JSON for tools, and GitHub
 * Actions annotations. Each takes the same plain value; nothing renders itself.
 */
import { readFileSync, statSync } from 'node:fs';
import type { ConfigProblem } from '../errors.js';
import { MAX_FILE_BYTES } from './read.js';
import { plural } from '../words.js';

type Shown = ConfigProblem & { endLine?: number; endColumn?: number };

export interface Findings {
  errors: Shown[];
  warnings: Shown[];
}

export interface TextOptions {
  /** ANSI colours; the command turns them on only on a TTY without NO_COLOR. */
  color?: boolean;
  /** The text of a file, to quote its lines; defaults to reading it from disk. */
  sourceOf?: (file: string) => string | undefined;
}

const MAX_SHOWN_LINE = 160;
/**
 * Problems shown one by one in text and annotations; the rest are counted ("and 129,800 more"). A
 * configuration with 130,000 errors has one or two mistakes repeated, and `--format json` lists them all.
 */
export const MAX_SHOWN_PROBLEMS = 200;

/** The first problems to show, and a line counting the others (undefined when all are shown). */
export function capProblems<T>(problems: T[], limit = MAX_SHOWN_PROBLEMS): { shown: T[]; more?: string } {
  if (problems.length <= limit) return { shown: problems };
  const rest = problems.length - limit;
  return {
    shown: problems.slice(0, limit),
    more: `and ${rest.toLocaleString('en-US')} more (--format json lists them all)`,
  };
}

export function renderText(findings: Findings, options: TextOptions = {}): string {
  const paint = painter(options.color ?? false);
  const sourceOf = options.sourceOf ?? cachedReader();
  const { shown, more } = capProblems([...findings.errors, ...findings.warnings]);
  const blocks = shown.map((p) => textBlock(p, paint, sourceOf));
  if (more) blocks.push(more);
  const summary =
    findings.errors.length === 0
      ? paint.green('configuration is valid') +
        (findings.warnings.length ? `, ${count(findings.warnings.length, 'warning')}` : '')
      : paint.red(`${count(findings.errors.length, 'error')}`) + `, ${count(findings.warnings.length, 'warning')}`;
  return [...blocks, summary].join('\n\n') + '\n';
}

function textBlock(p: Shown, paint: Painter, sourceOf: (file: string) => string | undefined): string {
  const severity = p.severity ?? 'error';
  const where = [p.file, p.line, p.column].filter((x) => x !== undefined).join(':');
  const label = severity === 'warning' ? paint.yellow('warning') : paint.red('error');
  const lines = [`${where ? paint.bold(where) + ': ' : ''}${label}: ${p.message}`];
  if (p.path) lines.push(`  ${paint.dim('at')} ${p.path}`);
  const text = p.file !== undefined && p.line !== undefined ? sourceOf(p.file) : undefined;
  if (text !== undefined && p.line !== undefined) lines.push(...quote(text, p, paint));
  if (p.hint) lines.push(`  ${paint.dim('hint:')} ${p.hint}`);
  return lines.join('\n');
}

/** The source line, and a caret line under the range the problem points at. */
function quote(text: string, p: Shown, paint: Painter): string[] {
  const line = sourceLine(text, p.line!);
  if (line === undefined) return [];
  const col = Math.max(1, p.column ?? 1);
  let end = p.endLine === p.line && p.endColumn !== undefined ? p.endColumn : line.trimEnd().length + 1;
  if (end <= col) end = col + 1;
  // Long lines (minified files) show a window around the column.
  const from = line.length > MAX_SHOWN_LINE ? Math.max(0, col - 1 - 60) : 0;
  const shown =
    (from > 0 ? '…' : '') + line.slice(from, from + MAX_SHOWN_LINE) + (line.length > from + MAX_SHOWN_LINE ? '…' : '');
  const pad = (from > 0 ? ' ' : '') + line.slice(from, col - 1).replace(/[^\t]/g, ' ');
  const width = Math.max(1, Math.min(end - col, from + MAX_SHOWN_LINE - (col - 1)));
  const gutter = String(p.line);
  return [
    `  ${paint.dim(`${gutter} |`)} ${shown}`,
    `  ${paint.dim(`${' '.repeat(gutter.length)} |`)} ${pad}${(p.severity === 'warning' ? paint.yellow : paint.red)('^'.repeat(width))}`,
  ];
}

function sourceLine(text: string, line: number): string | undefined {
  let start = 0;
  for (let n = 1; n < line; n++) {
    start = text.indexOf('\n', start) + 1;
    if (start === 0) return undefined;
  }
  const end = text.indexOf('\n', start);
  return text.slice(start, end < 0 ? undefined : end).replace(/\r$/, '');
}

function cachedReader(): (file: string) => string | undefined {
  const cache = new Map<string, string | undefined>();
  return (file) => {
    if (!cache.has(file)) {
      try {
        cache.set(file, statSync(file).size <= MAX_FILE_BYTES ? readFileSync(file, 'utf8') : undefined);
      } catch {
        cache.set(file, undefined);
      }
    }
    return cache.get(file);
  };
}

export function renderJson(findings: Findings): string {
  return (
    JSON.stringify(
      { valid: findings.errors.length === 0, errors: findings.errors, warnings: findings.warnings },
      null,
      2,
    ) + '\n'
  );
}

/** `::error file=…,line=…,col=…::message` workflow commands, one per problem. */
export function renderGithub(findings: Findings): string {
  const out: string[] = [];
  const { shown, more } = capProblems([...findings.errors, ...findings.warnings]);
  for (const p of shown) {
    const props: string[] = [];
    if (p.file !== undefined) props.push(`file=${escapeProperty(p.file)}`);
    if (p.line !== undefined) props.push(`line=${p.line}`);
    if (p.column !== undefined) props.push(`col=${p.column}`);
    if (p.endLine !== undefined) props.push(`endLine=${p.endLine}`);
    if (p.endColumn !== undefined && p.endLine === p.line) props.push(`endColumn=${p.endColumn}`);
    props.push(`title=${escapeProperty(`roster validate${p.path ? `: ${p.path}` : ''}`)}`);
    const message = p.message + (p.hint ? ` (${p.hint})` : '');
    out.push(`::${p.severity === 'warning' ? 'warning' : 'error'} ${props.join(',')}::${escapeData(message)}`);
  }
  if (more) out.push(more);
  out.push(
    findings.errors.length === 0
      ? 'configuration is valid'
      : `${count(findings.errors.length, 'error')}, ${count(findings.warnings.length, 'warning')}`,
  );
  return out.join('\n') + '\n';
}

function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function count(n: number, word: string): string {
  return plural(n, word);
}

type Paint = (s: string) => string;
interface Painter {
  red: Paint;
  yellow: Paint;
  green: Paint;
  bold: Paint;
  dim: Paint;
}

function painter(on: boolean): Painter {
  const code = (open: number, close: number): Paint => (on ? (s) => `\u001b[${open}m${s}\u001b[${close}m` : (s) => s);
  return { red: code(31, 39), yellow: code(33, 39), green: code(32, 39), bold: code(1, 22), dim: code(2, 22) };
}
