import { ApiError, ConfigError } from '../errors.js';
import type { ApiClient } from '../api/index.js';
import { didYouMean } from '../config/suggest.js';

/**
 * `roster requests create` refused with the service's NOT_FOUND: which of --role, --resource and
 * --instance names nothing, said as `--user caroll` is (review/actor.ts), with the name meant when one
 * is close. Read only after the refusal, so a create that succeeds costs no extra request. Undefined
 * when every flag names something (the refusal is then the service's to explain).
 */
export async function explainCreateRefusal(
  client: ApiClient,
  err: unknown,
  flags: { role: string; resource?: string; instance?: string },
): Promise<ConfigError | undefined> {
  if (!(err instanceof ApiError) || err.info.status !== 404) return undefined;
  const where = client.paths.facts.split('/').slice(-2).join('/');
  const keys = async (path: string, key: (row: Record<string, unknown>) => unknown) =>
    (await client.listAll<Record<string, unknown>>(path, { perPage: 100 }))
      .map(key)
      .filter((k): k is string => typeof k === 'string');
  const problems: { message: string; hint?: string }[] = [];
  const say = (flag: string, noun: string, given: string, known: string[]) => {
    const hint = didYouMean(given, known);
    problems.push({
      message: `${flag} ${given}: no ${noun} "${given}" in ${where}${hint ? ` (${hint})` : ''}`,
      ...(hint ? {} : { hint: `${noun}s there: ${known.slice(0, 8).join(', ')}${known.length > 8 ? ', …' : ''}` }),
    });
  };
  const roles = await keys(`${client.paths.schema}/roles`, (r) => r.key);
  if (!roles.includes(flags.role)) say('--role', 'role', flags.role, roles);
  const resources =
    flags.resource !== undefined || flags.instance?.includes(':')
      ? await keys(`${client.paths.schema}/resources`, (r) => r.key)
      : [];
  if (flags.resource !== undefined && !resources.includes(flags.resource))
    say('--resource', 'resource', flags.resource, resources);
  if (flags.instance !== undefined) {
    const instances = await keys(`${client.paths.facts}/resource_instances`, (r) =>
      typeof r.resource === 'string' ? `${r.resource}:${String(r.key)}` : undefined,
    );
    const given =
      flags.instance.includes(':') || flags.resource === undefined
        ? flags.instance
        : `${flags.resource}:${flags.instance}`;
    if (!instances.includes(given)) say('--instance', 'instance', given, instances);
  }
  if (problems.length === 0) return undefined;
  return new ConfigError(
    problems.map((p) => p.message).join('; '),
    problems.filter((p) => p.hint).map((p) => ({ message: p.hint! })),
  );
}
