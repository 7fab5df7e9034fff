import type { ApiClient } from '../../api/index.js';
import type { Change, ChangeFields } from '../../plan/change.js';

/** Carries out one change of kind K with the public API's operations. */
export type Writer<K extends keyof ChangeFields> = (client: ApiClient, c: Change, f: ChangeFields[K]) => Promise<void>;

/** One writer for each kind of change. */
export type Writers<K extends keyof ChangeFields = keyof ChangeFields> = { [P in K]: Writer<P> };
