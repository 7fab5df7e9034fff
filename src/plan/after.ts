/**
 * The live state as it will be once a plan is applied: the plan's changes carried out on a copy of the
 * live state, with the service's cascades (src/server/store/migrations.ts: deleting a role, tenant,
 * user, instance or group deletes what hangs on it). Pure, copy-on-write: untouched users and groups
 * are shared with `live`. Used for the plan's access section, so it is exact by construction: the
 * "after" side of the access diff is what these changes make, whatever the configuration manages.
 */
import type { LiveState } from '../types/live.js';
import { fieldsOf, type Change, type ChangeFields } from './change.js';
import { ABAC_EFFECTS } from './after/abac.js';
import type { Effect, Effects } from './after/effect.js';
import { FACT_EFFECTS } from './after/facts.js';
import { SCHEMA_EFFECTS } from './after/schema.js';
import { AfterState } from './after/state.js';

/** One effect for every kind of change (a missing kind is a type error). */
const EFFECTS: Effects = { ...SCHEMA_EFFECTS, ...FACT_EFFECTS, ...ABAC_EFFECTS };

export function liveAfter(live: LiveState, changes: readonly Change[]): LiveState {
  const s = new AfterState(live);
  for (const c of changes) {
    const { kind, fields } = fieldsOf(c);
    (EFFECTS[kind] as Effect<keyof ChangeFields>)(s, c, fields as never, c.action !== 'delete');
  }
  return s.toLive();
}
