import type { ApiClient } from './types.js';
import { checkKey, type AccessCheck } from '../types/checks.js';
import { splitRef } from '../types/refs.js';
import { ApiError, ConfigError, NoApiError } from '../errors.js';
import { BOOLEAN, expectFields, listOf } from './answer.js';

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
      client
        .post<{ allow: { allow: boolean }[] }>(
          '/allowed/bulk',
          {
            checks: chunk.map((c) => {
              const { type, key } = splitRef(c.instance);
              // The public check body (`user.attributes`, `resource.tenant`, `resource.attributes`, `context`): only what is given.
              const user = c.passed?.user !== undefined ? { key: c.user, attributes: c.passed.user } : { key: c.user };
              const resource = {
                type,
                key,
                ...(c.tenant !== undefined ? { tenant: c.tenant } : {}),
                ...(c.passed?.resource !== undefined ? { attributes: c.passed.resource } : {}),
              };
              return {
                user,
                action: c.action,
                resource,
                ...(c.passed?.context !== undefined ? { context: c.passed.context } : {}),
              };
            }),
          },
          {
            query: { project: scope.project, environment: scope.environment },
            idempotent: true,
            expect: decisionsFor(chunk.length),
          },
        )
        .catch((err: unknown) => {
          throw pdp ? noDecisionPoint(err, pdp) : err;
        }),
    ),
  );
  const out = new Map<string, boolean>();
  chunks.forEach((chunk, k) => chunk.forEach((c, j) => out.set(checkKey(c), answers[k].allow[j]?.allow === true)));
  return out;
}

/** The answer of one bulk request: one decision per check asked, else it is not a decision point's (retried, then MALFORMED_ANSWER). */
const DECISIONS = expectFields({ allow: listOf({ allow: BOOLEAN }) });
function decisionsFor(asked: number): (body: unknown) => string | undefined {
  return (body) => {
    const wrong = DECISIONS(body);
    if (wrong) return wrong;
    const got = (body as { allow: unknown[] }).allow.length;
    return got === asked ? undefined : `JSON of the wrong shape (${got} decisions for ${asked} checks)`;
  };
}

/**
 * What a host that is not a decision point answers, said as such, naming the option (or the default)
 * that sent the checks there, in one line: a 404 or 405 (the public API is such a host: its PDP is
 * another), an HTML page (a web server, a sign-in proxy: never pasted into the message), or JSON that
 * is not decisions. Anything else (a 5xx in JSON, a refused connection, a 401) is left as it is.
 */
export function noDecisionPoint(err: unknown, pdp: DecisionPointName, operation = 'POST /allowed/bulk'): unknown {
  // The client says "no /v2 API" of any 404 that is not the service's NOT_FOUND: here it means no decisions.
  const answer = err instanceof NoApiError ? err.answer : err;
  if (!(answer instanceof ApiError)) return err;
  const { status, errorCode, detail } = answer.info;
  const page = detail !== undefined && /^\s*</.test(detail);
  const what =
    status === 404 || status === 405
      ? page
        ? `${status}, an HTML page`
        : String(status)
      : page
        ? `${status}, an HTML page`
        : errorCode === 'MALFORMED_ANSWER' && status !== 0
          ? `${status}, ${detail?.startsWith('HTML') ? 'an HTML page' : 'an answer that is not decisions'}`
          : undefined;
  if (what === undefined) return err;
  const host = new URL(pdp.url).host;
  return pdp.via
    ? new ConfigError(
        `the decision point ${host} (${pdp.via}) does not serve ${operation} (${what}): give the URL of your policy decision point (PDP)`,
      )
    : new ConfigError(
        `${host} does not serve decisions (${operation} answered ${what}): name your policy decision point with --pdp-url URL (or ROSTER_PDP_URL), e.g. https://cloudpdp.api.permit.io or your PDP container`,
      );
}
