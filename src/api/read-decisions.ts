import type { ApiClient } from './types.js';
import { checkKey, type AccessCheck } from '../types/checks.js';
import { splitRef } from '../types/refs.js';
import { ApiError, ConfigError, NoApiError } from '../errors.js';

/** Where the decisions are asked, for the message when that host serves none. */
export interface DecisionPointName {
  url: string;
  via?: '--pdp-url' | 'ROSTER_PDP_URL';
}

/** The service's limit on checks per POST /allowed/bulk. */
const BULK_MAX = 1000;

/**
 * Asks the live service, through POST /allowed/bulk (at most 1000 checks a request, requests in
 * parallel within the client's bound), whether each user may do each action. `project` and
 * `environment` go in the query: an organisation-wide key names no environment of its own.
 */
export async function readDecisions(
  client: ApiClient,
  scope: { project: string; environment: string },
  checks: readonly AccessCheck[],
  pdp?: DecisionPointName,
): Promise<Map<string, boolean>> {
  const chunks: AccessCheck[][] = [];
  for (let i = 0; i < checks.length; i += BULK_MAX) chunks.push(checks.slice(i, i + BULK_MAX));
  const answers = await Promise.all(
    chunks.map((chunk) =>
      client.post<{ allow: { allow: boolean }[] }>(
        '/allowed/bulk',
        {
          checks: chunk.map((c) => {
            const { type, key } = splitRef(c.instance);
            // The public check body (`user.attributes`, `resource.tenant`, `resource.attributes`, `context`): only what is given.
            const user = c.passed?.user !== undefined ? { key: c.user, attributes: c.passed.user } : { key: c.user };
            const resource = { type, key, ...(c.tenant !== undefined ? { tenant: c.tenant } : {}), ...(c.passed?.resource !== undefined ? { attributes: c.passed.resource } : {}) };
            return { user, action: c.action, resource, ...(c.passed?.context !== undefined ? { context: c.passed.context } : {}) };
          }),
        },
        { query: { project: scope.project, environment: scope.environment }, idempotent: true },
      ).catch((err: unknown) => {
        throw pdp ? noDecisionPoint(err, pdp) : err;
      }),
    ),
  );
  const out = new Map<string, boolean>();
  chunks.forEach((chunk, k) => chunk.forEach((c, j) => out.set(checkKey(c), answers[k].allow[j]?.allow === true)));
  return out;
}

/**
 * A host that answers 404 (or 405) to POST /allowed/bulk serves no decisions: the public API is such a
 * host (its PDP is another). One line naming the option, instead of the bare 404.
 */
export function noDecisionPoint(err: unknown, pdp: DecisionPointName): unknown {
  // The client says "no /v2 API" of any 404 that is not the service's NOT_FOUND: here it means no decisions.
  const answer = err instanceof NoApiError ? err.answer : err;
  if (!(answer instanceof ApiError) || (answer.info.status !== 404 && answer.info.status !== 405)) return err;
  const host = new URL(pdp.url).host;
  return pdp.via
    ? new ConfigError(`the decision point ${host} (${pdp.via}) does not serve POST /allowed/bulk (${answer.info.status}): give the URL of your policy decision point (PDP)`)
    : new ConfigError(`${host} does not serve decisions (POST /allowed/bulk answered ${answer.info.status}): name your policy decision point with --pdp-url URL (or ROSTER_PDP_URL), e.g. https://cloudpdp.api.permit.io or your PDP container`);
}
