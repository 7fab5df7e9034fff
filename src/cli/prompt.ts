import { createInterface } from 'node:readline/promises';
import { isCi } from '../ci.js';

/**
 * Asks on the terminal; resolves to the trimmed answer. Only called when stdin and stderr are TTYs.
 * Ctrl-D (end of input) and Ctrl-C at the prompt answer nothing, which every caller takes as "no".
 */
export async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(question)).trim();
  } catch (err) {
    // readline rejects the question with an AbortError on Ctrl-D and Ctrl-C; that used to surface as
    // "internal error (a bug in roster)" with exit 70. Not answering is declining.
    if ((err as { name?: unknown })?.name !== 'AbortError') throw err;
    process.stderr.write('\n');
    return '';
  } finally {
    rl.close();
  }
}

export function isInteractive(): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true && !isCi();
}
