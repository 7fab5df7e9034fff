import { createInterface } from 'node:readline/promises';

/** Asks on the terminal; resolves to the trimmed answer. Only called when stdin and stderr are TTYs. */
export async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

export function isInteractive(): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true && !process.env.CI;
}
