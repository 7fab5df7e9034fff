/**
 * What every write of apply shares: a delete of what is gone is done, a create of what is there is
 * done (AlreadyThere), and text fields are strings, never null.
 */
import type { ApiClient } from '../../api/index.js';
import { ApiError } from '../../errors.js';

export type F = Record<string, any>;

/** Deleting what is already gone (removed by a cascade, or by an earlier interrupted apply) is done. */
export async function del(client: ApiClient, path: string, body?: unknown): Promise<void> {
  try {
    await client.delete(path, body === undefined ? {} : { body });
  } catch (err) {
    if (err instanceof ApiError && err.info.status === 404) return;
    throw err;
  }
}

/**
 * Creating what already exists is done: another apply of the same configuration running at the same
 * time (or an earlier one whose answer was lost) created it. Whether it holds what this plan wanted is
 * checked after the apply (verify.ts), which reports a conflict when it does not.
 */
export class AlreadyThere extends Error {}

export async function create(send: () => Promise<unknown>): Promise<void> {
  try {
    // `client.create` resolves {alreadyExisted} for a 409 that met our own earlier attempt: done too.
    await send();
  } catch (err) {
    if (
      err instanceof ApiError &&
      err.info.status === 409 &&
      (err.info.errorCode === undefined || err.info.errorCode === 'DUPLICATE_ENTITY')
    )
      throw new AlreadyThere();
    throw err;
  }
}

/**
 * The public schemas type descriptions, emails and names as strings, never `null` (api-notes, "Client
 * tolerance"): an absent optional field is left out of a create, and cleared with `''` on an update (the
 * reader treats `''` as absent).
 */
export const text = (v: unknown): string => (typeof v === 'string' ? v : '');
