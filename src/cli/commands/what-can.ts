import { ConfigError } from '../../errors.js';
import { QUERY_FORMATS, type QueryFormat, renderWhatCan } from '../../access/query-report.js';
import { passedFromFlags, type AttributeFlags } from './check-attributes.js';
import { closeAccessState, openAccessState, type AccessStateOptions } from './access-state.js';
import { queryAbac } from './query-state.js';
import { whatCan } from '../../access/queries.js';
import { liveWhatCan } from './query-live.js';

export interface WhatCanCommandOptions extends AccessStateOptions, AttributeFlags {
  format: string;
  type?: string;
  tenant?: string;
}

/**
 * `roster what-can USER ACTION [--type TYPE] [PATH...] [--live]`: every instance on which the user may do
 * the action, each with the ways in; from the configuration, or with --live the decision point's POST
 * /user-permissions (the ways then from the live state). Exit 0.
 */
export async function whatCanCommand(
  user: string,
  action: string,
  paths: string[],
  opts: WhatCanCommandOptions,
): Promise<void> {
  if (!QUERY_FORMATS.includes(opts.format as QueryFormat))
    throw new ConfigError(`--format must be one of ${QUERY_FORMATS.join(', ')}, got '${opts.format}'`);
  const passed = passedFromFlags(opts);
  const state = await openAccessState(paths, opts, 'what-can', false);
  try {
    const abac = queryAbac(state);
    const options = { abac, passed, type: opts.type, tenant: opts.tenant };
    let result = whatCan(state.graph, user, action, options);
    if (state.on === 'live') {
      result = await liveWhatCan(state, result, options);
    }
    process.stdout.write(renderWhatCan(result, opts.format as QueryFormat, state.on));
  } finally {
    await closeAccessState(state);
  }
}
