import { pathOf, type ApiClient } from '../api/index.js';
import { expectFields, STRING, type Shape } from '../api/answer.js';
import { ApiError, ConfigError } from '../errors.js';
import { didYouMean } from '../config/suggest.js';

/**
 * The acting user and the tenant of `roster review` and `roster requests`, checked before anything else
 * (`GET .../users/{u}`, `GET .../tenants/{t}`): an unknown one is the user's to fix, said with the name
 * meant when one is close, instead of a queue that stays empty or a screen that offers to retry. On a
 * 404 the list is read once to find the name meant. Returns both keys (the flags may give ids).
 */
export async function checkActor(
  client: ApiClient,
  user: string,
  tenant: string,
): Promise<{ user: string; tenant: string }> {
  const [u, t] = await Promise.all([readKeyed(client, 'users', user), readKeyed(client, 'tenants', tenant)]);
  const problems: { message: string; hint?: string }[] = [];
  if (!u) problems.push(await unknown(client, 'users', 'user', '--user', user));
  if (!t) problems.push(await unknown(client, 'tenants', 'tenant', '--tenant', tenant));
  if (problems.length > 0)
    throw new ConfigError(
      problems.map((p) => p.message).join('; '),
      problems.filter((p) => p.hint).map((p) => ({ message: p.hint! })),
    );
  return { user: u!.key, tenant: t!.key };
}

/** A user or tenant, read alone or listed, is used for its key (answer.ts): any other answer is MALFORMED_ANSWER, not a TypeError. */
const KEY_SHAPE: Shape = { key: STRING };
const KEYED = expectFields(KEY_SHAPE);

async function readKeyed(
  client: ApiClient,
  list: 'users' | 'tenants',
  key: string,
): Promise<{ key: string } | undefined> {
  try {
    return await client.get<{ key: string }>(pathOf(client.paths.facts, list, key), { expect: KEYED });
  } catch (err) {
    if (err instanceof ApiError && err.info.status === 404) return undefined;
    throw err;
  }
}

async function unknown(
  client: ApiClient,
  list: 'users' | 'tenants',
  noun: string,
  flag: string,
  given: string,
): Promise<{ message: string; hint?: string }> {
  const known = (
    await client.listAll<{ key: string }>(`${client.paths.facts}/${list}`, { perPage: 100, item: KEY_SHAPE })
  ).map((x) => x.key);
  const hint = didYouMean(given, known);
  return {
    message: `${flag} ${given}: no ${noun} "${given}" in ${client.paths.facts.split('/').slice(-2).join('/')}${hint ? ` (${hint})` : ''}`,
    ...(hint ? {} : { hint: `${list} there: ${known.slice(0, 8).join(', ')}${known.length > 8 ? ', …' : ''}` }),
  };
}
