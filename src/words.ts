/**
 * Counts in words, written once for every output (plan, apply, validate, check, review, requests):
 * numbers grouped by thousands (`9,904`), and the noun and verb agreeing with the count (`1 object
 * differs`, `2 objects differ`, `1 that goes with them`). Import these instead of writing
 * the noun's ending by hand from the count (test/cli/words.test.ts looks for such hand-made plurals).
 */

/** `9,904`: grouped by thousands, the same in every locale. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** `1 object`, `2 objects`, `9,117 changes`; `pluralNoun` for the irregular (`1 match`, `2 matches`). */
export function plural(n: number, noun: string, pluralNoun = `${noun}s`): string {
  return `${count(n)} ${n === 1 ? noun : pluralNoun}`;
}

/** The form agreeing with `n`: `agree(n, 'fails', 'fail')`, `agree(n, 'goes', 'go')`. */
export function agree(n: number, one: string, many: string): string {
  return n === 1 ? one : many;
}
