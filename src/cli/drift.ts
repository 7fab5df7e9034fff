/**
 * The drift report's reads (docs/ci.md, "Drift"): the change history of the plan's environment since a
 * time, and the request bodies of the calls whose path does not name what they wrote. The attribution
 * itself is pure (src/plan/drift.ts).
 */
import { ApiError } from '../errors.js';
import { pathOf, type ApiClient } from '../api/index.js';
import { readHistoryBody, readHistorySince } from '../api/read-history.js';
import { callsNeedingBodies, type DriftHistory } from '../plan/drift.js';
import type { Plan } from '../plan/index.js';
import type { Target } from '../usecases/target.js';

/** Calls read at most: a drift job runs rarely, and a month of writes is usually far less. */
export const DRIFT_HISTORY_BUDGET = 10_000;
/** Request bodies read at most (one request each). */
export const DRIFT_BODIES = 200;

export async function readDriftHistory(options: {
  target: Target;
  plan: Plan;
  since: Date;
  budget?: number;
}): Promise<DriftHistory> {
  const { target, plan, since } = options;
  if (plan.changes.length === 0) return { read: true, events: [], bodies: new Map() };
  const client = target.client;
  const envId = await environmentId(client, target.project, target.environment);
  const read = await readHistorySince(client, {
    since,
    budget: options.budget ?? DRIFT_HISTORY_BUDGET,
    checkReach: false,
    ...(envId ? { envId } : {}),
  });
  if (!read.readable) return { read: false, reason: read.reason };
  // Without the environment's id, every environment's calls were read: keep this one's.
  const events = envId ? read.events : read.events.filter((e) => e.environment === target.environment);
  const bodies = new Map<string, unknown>();
  for (const id of callsNeedingBodies(plan.changes, events, DRIFT_BODIES)) {
    try {
      bodies.set(id, await readHistoryBody(client, id, 'request'));
    } catch (err) {
      // A body the key may not read, or one deleted since: that call names nothing more than its path.
      if (!(err instanceof ApiError && (err.info.status === 403 || err.info.status === 404))) throw err;
    }
  }
  return { read: true, events, bodies };
}

/** The environment's id (the history filters by id), or undefined when the key may not read it. */
async function environmentId(client: ApiClient, project: string, environment: string): Promise<string | undefined> {
  try {
    const env = await client.get<{ id?: unknown }>(pathOf('/v2/projects', project, 'envs', environment));
    return typeof env?.id === 'string' ? env.id : undefined;
  } catch (err) {
    if (err instanceof ApiError && (err.info.status === 403 || err.info.status === 404)) return undefined;
    throw err;
  }
}
