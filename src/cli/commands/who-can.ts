import { ConfigError } from '../../errors.js';
import { QUERY_FORMATS, type QueryFormat, renderWhoCan } from '../../access/query-report.js';
import { passedFromFlags, type AttributeFlags } from './check-attributes.js';
import { closeAccessState, openAccessState, type AccessStateOptions } from './access-state.js';
import { queryAbac, sameTenant } from './query-state.js';
import { whoCan } from '../../access/queries.js';
import { liveWhoCan } from './query-live.js';

export interface WhoCanCommandOptions extends AccessStateOptions, AttributeFlags {
  format: string;
  tenant?: string;
}

/**
 * `roster who-can ACTION TYPE:KEY [PATH...] [--live]`: every user who may do the action on the instance,
 * each with the ways in; from the configuration, or with --live the decision point's POST
 * /authorized_users (the ways then from the live state). Exit 0 (a list, even empty, is an answer).
 */
export async function whoCanCommand(
  action: string,
  instance: string,
  paths: string[],
  opts: WhoCanCommandOptions,
): Promise<void> {
  if (!QUERY_FORMATS.includes(opts.format as QueryFormat))
    throw new ConfigError(`--format must be one of ${QUERY_FORMATS.join(', ')}, got '${opts.format}'`);
  if (!/^[^:]+:[^:]+$/.test(instance)) throw new ConfigError(`TYPE:KEY must be <resource>:<key>, got '${instance}'`);
  const passed = passedFromFlags(opts);
  // One user's attributes cannot be passed for a list of users (POST /authorized_users takes none either).
  if (passed?.user !== undefined)
    throw new ConfigError('who-can lists users: it passes resource attributes and context, not user attributes');
  const state = await openAccessState(paths, opts, 'who-can', false);
  try {
    sameTenant(state, instance, opts.tenant);
    const abac = queryAbac(state);
    let result = whoCan(state.graph, action, instance, { abac, passed });
    if (state.on === 'live') {
      result = await liveWhoCan(state, result, { abac, passed, tenant: opts.tenant });
    }
    process.stdout.write(renderWhoCan(result, opts.format as QueryFormat, state.on));
  } finally {
    await closeAccessState(state);
  }
}
