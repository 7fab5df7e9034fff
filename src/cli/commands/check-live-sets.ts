import type { AssertionSpec } from '../../access/assertions.js';
import { exactKey } from '../../access/exact.js';
import { permissionOn } from '../../access/queries.js';
import { readAuthorizedUsers, readUserPermissions } from '../../api/read-list-queries.js';
import { pdpOf } from '../../usecases/target.js';
import type { AccessState } from './access-state.js';

type Bag = Record<string, unknown>;

/**
 * `check --live`: the decision point's answer for each exact-set assertion, by `exactKey` (user keys
 * from POST /authorized_users; instance keys of the resource from POST /user-permissions).
 */
export async function readLiveSets(
  state: Extract<AccessState, { on: 'live' }>,
  assertions: readonly AssertionSpec[],
): Promise<Map<string, string[]>> {
  const pdp = pdpOf(state.target);
  const out = new Map<string, string[]>();
  for (const a of assertions) {
    if (a.check !== 'who_can' && a.check !== 'what_can') continue;
    const key = exactKey({ ...a, check: a.check });
    if (out.has(key)) continue;
    const passed = a.passed as { user?: Bag; resource?: Bag; context?: Bag } | undefined;
    if (a.check === 'who_can') {
      const type = a.on.slice(0, a.on.indexOf(':'));
      const action = (permissionOn(a.subject, type) ?? a.subject).slice(type.length + 1);
      const tenant = state.graph.tenantOf(a.on) ?? 'default';
      const q = { action, type, key: a.on.slice(type.length + 1), tenant, passed };
      out.set(key, await readAuthorizedUsers(pdp.client, state.target, q, pdp));
    } else {
      const q = { user: a.user ?? '', types: [a.on], passed };
      const instances = await readUserPermissions(pdp.client, state.target, q, a.subject, pdp);
      out.set(
        key,
        instances.filter((i) => i.startsWith(`${a.on}:`)).map((i) => i.slice(a.on.length + 1)),
      );
    }
  }
  return out;
}
