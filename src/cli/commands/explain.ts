import { ConfigError } from '../../errors.js';
import { joinAbac } from '../../access/abac/explain.js';
import { meant, renderExplanation } from '../render-explain.js';
import { passedFromFlags, type AttributeFlags } from './check-attributes.js';
import { closeAccessState, openAccessState, type AccessStateOptions } from './access-state.js';
import { abacFromState } from '../../access/abac/model.js';

export interface ExplainCommandOptions extends AccessStateOptions, AttributeFlags {
  format: string;
}

const FORMATS = ['text', 'json'] as const;

/**
 * `roster explain USER ACTION|ROLE INSTANCE [PATH...] [--live]`: every path that gives the user the
 * role or permission on the instance, or, when none does, what would. Exit 0 for "can"/"has", 1 for
 * "cannot"/"lacks" (an unknown user, instance or action included: the notes say what was meant), so a
 * script can test the answer; `roster check` enforces many at once.
 */
export async function explainCommand(
  user: string,
  subject: string,
  instance: string,
  paths: string[],
  opts: ExplainCommandOptions,
): Promise<void> {
  if (!FORMATS.includes(opts.format as (typeof FORMATS)[number]))
    throw new ConfigError(`--format must be one of ${FORMATS.join(', ')}, got '${opts.format}'`);
  if (!instance.includes(':')) throw new ConfigError(`INSTANCE must be <resource>:<key>, got '${instance}'`);
  const passed = passedFromFlags(opts);
  const state = await openAccessState(paths, opts, 'explain', false);
  try {
    const source = state.on === 'desired' ? state.desired : state.live;
    const e = joinAbac(state.graph.explain(user, subject, instance), source, abacFromState(source), passed);
    const users = state.on === 'desired' ? state.desired.users : state.live.users;
    const of = state.on === 'live' ? 'the live environment' : 'the configuration';
    const facts = state.graph.facts;
    const notes: string[] = [];
    if (!users.has(user)) notes.push(`note: ${user} is not a user of ${of}${meant(user, users.keys())}.`);
    if (state.graph.tenantOf(instance) === null)
      notes.push(
        `note: ${instance} is not a resource instance or group of ${of}${meant(
          instance,
          facts.instances.map((i) => i.id),
        )}.`,
      );
    const type = instance.slice(0, instance.indexOf(':'));
    const declared = source.resources.get(type)?.actions ?? [];
    if (e.kind === 'permission' && e.missing?.roles.length === 0 && !e.abac?.rules.length && !subject.includes(':')) {
      // Neither a role nor an action any role or set rule grants: most likely a typo of one of them.
      const actions = facts.roles.flatMap((r) =>
        r.permissions.filter((p) => p.startsWith(`${type}:`)).map((p) => p.slice(type.length + 1)),
      );
      const known = declared.includes(subject)
        ? 'an action no role or set rule grants'
        : 'neither a role nor an action';
      notes.push(
        `note: ${subject} is ${known} on ${type}${meant(subject, [...facts.roles.map((r) => r.key), ...actions, ...declared])}.`,
      );
    }
    if (opts.format === 'json') process.stdout.write(JSON.stringify({ on: state.on, ...e, notes }, null, 2) + '\n');
    else process.stdout.write(renderExplanation(e, notes));
    // 2: not decided offline (a set rule waits for attributes the check would pass), neither yes nor no.
    if (!e.allowed) process.exitCode = e.undecided ? 2 : 1;
  } finally {
    await closeAccessState(state);
  }
}
