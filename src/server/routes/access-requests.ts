import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { invalid } from '../errors.js';
import { envelope, parsePaging } from '../paging.js';
import { KEY, TEXT, strictObject } from '../schemas.js';
import { accessRequestRead, listRequests, type RequestFilters } from '../repo/access-requests.js';
import { decideAccessRequest, loadVisibleRequest } from '../repo/access-request-decide.js';
import { fileAccessRequest, requestContext } from '../repo/access-request-file.js';
import { parseStatusFilter } from '../domain/access-requests.js';
import { typed } from './typed.js';
import type { Paging } from '../paging.js';

const INSTANCE = { type: 'string', pattern: '^([A-Za-z0-9\\-_]+:)?[A-Za-z0-9\\-_]+$', maxLength: 513 } as const;
export const CREATE = strictObject(
  {
    // The public `AccessRequestDetails` also requires `resource`; the specification does not (a role in a
    // tenant, "optionally on a resource instance"): docs/server.md, deviations.
    access_request_details: strictObject({ tenant: KEY, role: KEY, resource: KEY, resource_instance: INSTANCE }, [
      'tenant',
      'role',
    ]),
    reason: TEXT,
  },
  ['access_request_details'],
);
// Text fields are strings, never `null`, as the public schemas type them. The whole body may be absent
// or `null` (no body): approve, deny and cancel need none.
export const REVIEW = { anyOf: [strictObject({ reviewer_comment: TEXT, role: KEY }), { type: 'null' }] } as const;
export const DENY = { anyOf: [strictObject({ reviewer_comment: TEXT }), { type: 'null' }] } as const;
export const CANCEL = { anyOf: [strictObject({ reason: TEXT }), { type: 'null' }] } as const;

/** A query parameter or header as text: a string, several (an array), or absent. */
function textOf(source: unknown, name: string): string | string[] | undefined {
  const v: unknown = typeof source === 'object' && source !== null ? Reflect.get(source, name) : undefined;
  if (typeof v === 'string') return v;
  return Array.isArray(v) ? v.map(String) : undefined;
}

/** A repeated query parameter (`?role=a&role=b`) arrives as an array: one value per filter, else 422. */
function single(value: string | string[], loc: string[]): string {
  if (Array.isArray(value)) throw invalid(loc, 'give this filter once');
  return value;
}

/** `requesting_user` names the requester by key; `requesting_user_id` by id or key (a key first, as every path does). */
function requesterFilter(given: { name: string; value: string } | undefined): RequestFilters['requester'] {
  if (!given) return undefined;
  return { user: given.value, byId: given.name === 'requesting_user_id' };
}

const PATH = {
  type: 'object',
  properties: { config: { type: 'string' }, user: { type: 'string' }, tenant: { type: 'string' } },
  required: ['config', 'user', 'tenant'],
} as const;
const ONE = {
  ...PATH,
  properties: { ...PATH.properties, id: { type: 'string' } },
  required: [...PATH.required, 'id'],
} as const;

/**
 * Access requests under `/v2/facts/{p}/{e}/access_requests/{config}/user/{user}/tenant/{tenant}`. The
 * path user is the acting user. Decisions run in one transaction whose update is conditional on the
 * request still being pending, so of any number of concurrent decisions exactly one succeeds.
 */
export default async function accessRequestRoutes(base: FastifyInstance, { db, now }: ServerDeps) {
  const app = typed(base);
  const P = '/access_requests/:config/user/:user/tenant/:tenant';

  app.post(P, { schema: { body: CREATE, params: PATH } }, async (req) => {
    const at = now().toISOString();
    // Random, not time-ordered (new-id.ts): reviewers name a request by the start of its id (roster
    // requests approve 3f2a9c1e), and requests filed in the same minute would share their first digits.
    const id = crypto.randomUUID();
    const { access_request_details: details, reason } = req.body;
    const row = await db.transaction(async (tx) => {
      const ctx = await requestContext(tx, req.env.envId, req.params);
      return fileAccessRequest(tx, req.env.envId, ctx, { id, details, reason, at });
    });
    return accessRequestRead(row, req.env);
  });

  app.get(P, { schema: { params: PATH } }, async (req) => {
    const { filters, paging } = parseListQuery(req.query, req.headers);
    const ctx = await requestContext(db, req.env.envId, req.params);
    const { rows, total } = await listRequests(db, req.env.envId, ctx.config.id, ctx.actorId, filters, paging);
    return envelope(
      rows.map((r) => accessRequestRead(r, req.env)),
      total,
      paging,
    );
  });

  app.get(`${P}/:id`, { schema: { params: ONE } }, async (req) => {
    const ctx = await requestContext(db, req.env.envId, req.params);
    const actor = { kind: 'user', id: ctx.actorId } as const;
    const { row } = await loadVisibleRequest(db, req.env.envId, ctx.config.id, actor, req.params.id);
    return accessRequestRead(row, req.env);
  });

  const routes = [
    ['PATCH', 'reviewer', 'update', REVIEW],
    ['PUT', 'approve', 'approve', REVIEW],
    ['PUT', 'deny', 'deny', DENY],
    ['PUT', 'cancel', 'cancel', CANCEL],
  ] as const;
  for (const [method, url, kind, body] of routes) {
    app.route({
      method,
      url: `${P}/:id/${url}`,
      schema: { body, params: ONE },
      handler: async (req) => {
        const at = now().toISOString();
        const row = await db.transaction(async (tx) => {
          const ctx = await requestContext(tx, req.env.envId, req.params);
          return decideAccessRequest(tx, {
            envId: req.env.envId,
            configId: ctx.config.id,
            actor: { kind: 'user', id: ctx.actorId },
            id: req.params.id,
            kind,
            body: req.body ?? {},
            at,
          });
        });
        return accessRequestRead(row, req.env);
      },
    });
  }
}

/**
 * The list's filters and paging. The specification puts them in headers, the public API in the query:
 * a query parameter wins. An empty value (`?status=`, a blank header, as clients send for "unset") is
 * no filter. The elements list (elements-access-requests.ts) passes no headers.
 */
export function parseListQuery(query: unknown, headers: unknown = {}): { filters: RequestFilters; paging: Paging } {
  // The first of `names` given in the query, else in the headers, with the name that carried it.
  const pickNamed = (...names: string[]): { name: string; value: string } | undefined => {
    for (const [from, where] of [
      [query, 'query'],
      [headers, 'header'],
    ] as const)
      for (const n of names) {
        const v = textOf(from, n);
        if (v !== undefined && v !== '') return { name: n, value: single(v, [where, n]) };
      }
    return undefined;
  };
  const pick = (...names: string[]): string | undefined => pickNamed(...names)?.value;
  const paging = parsePaging({ page: pick('page'), per_page: pick('per_page') });
  const statusText = pick('status');
  const status = statusText === undefined ? undefined : parseStatusFilter(statusText);
  if (statusText !== undefined && status === undefined) {
    throw invalid(
      ['query', 'status'],
      `unknown status '${statusText}': use pending (or null), approved, denied (deny), canceled (cancel)`,
    );
  }
  const filters: RequestFilters = {
    status,
    tenant: pick('tenant'),
    role: pick('role'),
    resource: pick('resource'),
    resourceInstance: pick('resource_instance_id', 'resource_instance'),
    requester: requesterFilter(pickNamed('requesting_user_id', 'requesting_user')),
  };
  return { filters, paging };
}
