import type { Change, ChangeFields } from '../change.js';
import type { AfterState } from './state.js';

/** What one change of kind K does to the state after the plan; `put` is a create or an update. */
export type Effect<K extends keyof ChangeFields> = (s: AfterState, c: Change, f: ChangeFields[K], put: boolean) => void;

export type Effects<K extends keyof ChangeFields = keyof ChangeFields> = { [P in K]: Effect<P> };
