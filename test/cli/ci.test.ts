import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isCi } from '../../src/ci.js';
import { isInteractive } from '../../src/cli/prompt.js';
import { whyNotInteractive } from '../../src/review/index.js';

/** `CI` is set only when non-empty and not `false`/`0` (any case); every reader asks `isCi`. */
const CASES: [string | undefined, boolean][] = [
  [undefined, false],
  ['', false],
  ['  ', false],
  ['false', false],
  ['FALSE', false],
  ['False', false],
  [' false ', false],
  ['0', false],
  ['true', true],
  ['TRUE', true],
  ['1', true],
  ['yes', true],
  ['woodpecker', true],
  ['00', true],
];

const tty = { isTTY: true, fd: 0 } as unknown as typeof process.stdin & typeof process.stdout;

/** Makes a stream look like a terminal until the test ends (vitest runs without one). */
const restore: (() => void)[] = [];
function asTerminal(stream: NodeJS.ReadStream | NodeJS.WriteStream): void {
  const own = Object.getOwnPropertyDescriptor(stream, 'isTTY');
  Object.defineProperty(stream, 'isTTY', { value: true, configurable: true });
  restore.push(() =>
    own ? Object.defineProperty(stream, 'isTTY', own) : delete (stream as { isTTY?: boolean }).isTTY,
  );
}

afterEach(() => {
  vi.unstubAllEnvs();
  for (const undo of restore.splice(0)) undo();
});

describe('CI', () => {
  it.each(CASES)('CI=%j: set is %s', (value, set) => {
    expect(isCi(value === undefined ? {} : { CI: value })).toBe(set);
  });

  it.each(CASES)('CI=%j: the review TUI refuses to start only when set', (value, set) => {
    expect(whyNotInteractive(value === undefined ? {} : { CI: value }, tty, tty)).toBe(set ? 'CI is set' : undefined);
  });

  it.each(CASES)('CI=%j: apply prompts on a terminal only when not set', (value, set) => {
    // The terminal is mocked: stdin and stderr are TTYs.
    asTerminal(process.stdin);
    asTerminal(process.stderr);
    if (value === undefined) vi.stubEnv('CI', undefined);
    else vi.stubEnv('CI', value);
    expect(isInteractive()).toBe(!set);
  });

  it('no other source file reads CI itself', () => {
    const src = path.resolve(__dirname, '../../src');
    const files = (readdirSync(src, { recursive: true }) as string[]).filter((f) => /\.tsx?$/.test(f) && f !== 'ci.ts');
    const readers = files.filter((f) =>
      /\benv\.CI\b|\benv\[['"]CI['"]\]/.test(readFileSync(path.join(src, f), 'utf8')),
    );
    expect(readers).toEqual([]);
  });
});
