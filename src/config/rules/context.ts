/** What every semantic rule receives, and small helpers for their messages. */
import type { DesiredState } from '../desired.js';
import type { SourceIndex } from '../normalise.js';
import { problemAt, type Loc, type Problem, type ProblemOptions, type Segment } from '../source.js';
import { didYouMean } from '../suggest.js';

export interface RuleContext {
  desired: DesiredState;
  index: SourceIndex;
}

/** A semantic rule: pure, named, returns its problems (errors and warnings). */
export type Rule = (ctx: RuleContext) => Problem[];

/** A problem at an object of the index (`where` is its Loc) and a path below it. */
export function report(where: Loc | undefined, sub: Segment[], message: string, options?: ProblemOptions): Problem {
  // Every object in DesiredState came from a file, so its Loc exists; a missing one is a bug upstream.
  if (!where) return { message, severity: options?.severity ?? 'error', ...(options?.hint ? { hint: options.hint } : {}) };
  return problemAt(where, sub, message, options);
}

/** `unknown role "admn"` with a did-you-mean hint drawn from the known keys. */
export function unknown(kind: string, key: string, known: Iterable<string>, fallbackHint?: string): { message: string; options: ProblemOptions } {
  const hint = didYouMean(key, known) ?? fallbackHint;
  return { message: `unknown ${kind} "${key}"`, options: hint ? { hint } : {} };
}
