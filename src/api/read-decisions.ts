import type { ApiClient } from './types.js';
import { checkKey, type AccessCheck } from '../types/checks.js';
import { splitRef } from '../types/refs.js';

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
            return { user: { key: c.user }, action: c.action, resource: { type, key } };
          }),
        },
        { query: { project: scope.project, environment: scope.environment }, idempotent: true },
      ),
    ),
  );
  const out = new Map<string, boolean>();
  chunks.forEach((chunk, k) => chunk.forEach((c, j) => out.set(checkKey(c), answers[k].allow[j]?.allow === true)));
  return out;
}
