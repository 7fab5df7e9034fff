import { ConfigError } from '../../errors.js';
import type { QueryAbac } from '../../access/queries.js';
import { abacFromState } from '../../access/abac/model.js';
import type { AccessState } from './access-state.js';
import { didYouMean } from '../../config/suggest.js';

/** The state the graph was built from, for set rules (who-can, what-can, check). */
export function queryAbac(state: AccessState): QueryAbac {
  const source = state.on === 'desired' ? state.desired : state.live;
  return { state: source, view: abacFromState(source) };
}

/**
 * `--tenant` of who-can names the instance's tenant: a role is held on an instance in its own tenant,
 * so another tenant is refused rather than answered with nobody. An unlisted instance is refused too.
 */
export function sameTenant(state: AccessState, instance: string, tenant: string | undefined): void {
  const of = state.graph.tenantOf(instance);
  const where = state.on === 'live' ? 'the live environment' : 'the configuration';
  if (of === null) {
    const hint = didYouMean(
      instance,
      state.graph.facts.instances.map((i) => i.id),
    );
    throw new ConfigError(`${instance} is not a resource instance of ${where}${hint ? ` (${hint})` : ''}`);
  }
  if (tenant !== undefined && tenant !== of)
    throw new ConfigError(`${instance} is in tenant ${of}, not ${tenant}: a role on it is held in its own tenant`);
}
