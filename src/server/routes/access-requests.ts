import { findRoleNamed } from '../repo/role-scope.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerDeps } from '../context.js';
import { httpError, invalid } from '../errors.js';
import { envelope, parsePaging } from '../paging.js';
import { KEY, TEXT, strictObject } from '../schemas.js';
import type { Queryable } from '../store/db.js';
import { findKeyed, parseJson } from '../repo/common.js';
import { findElementsConfig } from '../repo/elements.js';
import { isUserInTenant } from '../repo/users.js';
import { findInstance, findInstanceOrNull } from '../repo/assignments.js';
import {
  accessRequestRead,
  findModerators,
  getRequest,
  listRequests,
  type RequestFilters,
} from '../repo/access-requests.js';
import { decideAccessRequest, loadVisibleRequest, type RequestBody } from '../repo/access-request-decide.js';
import { parseStatusFilter, reviewerRoles, type Transition } from '../domain/access-requests.js';
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
export const REVIEW = { anyOf: [strictObject({ reviewer_comment: TEXT, role: KEY }), { type: 'null' }] };
export const DENY = { anyOf: [strictObject({ reviewer_comment: TEXT }), { type: 'null' }] };
export const CANCEL = { anyOf: [strictObject({ reason: TEXT }), { type: 'null' }] };

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

interface Context {
  actorId: string;
  actorKey: string;
  tenant: { id: string; key: string };
  config: { id: string; roles_to_levels: string };
}

/**
 * Access requests under `/v2/facts/{p}/{e}/access_requests/{config}/user/{user}/tenant/{tenant}`. The
 * path user is the acting user. Decisions run in one transaction whose update is conditional on the
 * request still being pending, so of any number of concurrent decisions exactly one succeeds.
 */
export default async function accessRequestRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  const P = '/access_requests/:config/user/:user/tenant/:tenant';

  const context = async (q: Queryable, req: FastifyRequest): Promise<Context> => {
    const p = req.params as { config: string; user: string; tenant: string };
    const config = await findElementsConfig(q, req.env.envId, p.config);
    const actor = await findKeyed<{ id: string; key: string }>(q, 'users', req.env.envId, p.user, 'user');
    const tenant = await findKeyed<{ id: string; key: string }>(q, 'tenants', req.env.envId, p.tenant, 'tenant');
    return { actorId: actor.id, actorKey: actor.key, tenant, config };
  };

  app.post(P, { schema: { body: CREATE } }, async (req) => {
    const b = req.body as {
      access_request_details: {
        tenant?: string;
        role: string;
        resource?: string | null;
        resource_instance?: string | null;
      };
      reason?: string | null;
    };
    const d = b.access_request_details;
    const at = now().toISOString();
    // Random, not time-ordered (new-id.ts): reviewers name a request by the start of its id (roster
    // requests approve 3f2a9c1e), and requests filed in the same minute would share their first digits.
    const id = crypto.randomUUID();
    const row = await db.transaction(async (tx) => {
      const ctx = await context(tx, req);
      if (d.tenant && d.tenant !== ctx.tenant.key && d.tenant !== ctx.tenant.id) {
        throw httpError(
          'INVALID_INPUT',
          `access_request_details.tenant '${d.tenant}' differs from the path's tenant '${ctx.tenant.key}'`,
        );
      }
      // Details are stored as keys (a role or resource may be named by id): the read model and the
      // list filters speak keys.
      let resource = d.resource
        ? (await findKeyed<{ id: string; key: string }>(tx, 'resources', req.env.envId, d.resource, 'resource')).key
        : null;
      let instance: string | null = null;
      let on: { id: string; key: string } | undefined;
      if (d.resource_instance) {
        // `type:key`, a key of `resource`, or (as elsewhere in the API) an instance id.
        const given = d.resource_instance;
        const byId = given.includes(':') ? undefined : await findInstanceOrNull(tx, req.env.envId, given);
        const ref = given.includes(':') ? given : resource ? `${resource}:${given}` : byId ? given : null;
        if (!ref)
          throw invalid(
            ['body', 'access_request_details', 'resource'],
            'a resource_instance needs its resource (or the form type:key, or an instance id)',
          );
        const inst = byId ?? (await findInstance(tx, req.env.envId, ref));
        if (resource && inst.resource_key !== resource)
          throw httpError('INVALID_INPUT', `resource instance '${ref}' is not of resource '${resource}'`);
        if (inst.tenant_id !== ctx.tenant.id) {
          throw httpError(
            'MISMATCH_RESOURCE_INSTANCES_TENANTS',
            `resource instance '${ref}' is in tenant '${inst.tenant_key}', not '${ctx.tenant.key}'`,
          );
        }
        resource = inst.resource_key;
        instance = inst.key;
        on = { id: inst.resource_id, key: inst.resource_key };
      }
      // On an instance: its type's resource role of that key, else the top-level one (repo/role-scope.ts).
      const role = (await findRoleNamed(tx, req.env.envId, on, d.role)).key;
      if (!(await isUserInTenant(tx, ctx.actorId, ctx.tenant.id))) {
        throw httpError(
          'USER_NOT_IN_TENANT',
          `user '${ctx.actorKey}' is not in tenant '${ctx.tenant.key}' and so may not request access there`,
        );
      }
      await tx.run(
        `INSERT INTO access_requests (id, env_id, elements_config_id, requesting_user_id, tenant_id, role_key, resource_key, instance_key, reason,
           cancel_reason, status, reviewer_user_id, reviewed_at, reviewer_comment, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL, NULL, ?, ?)`,
        [
          id,
          req.env.envId,
          ctx.config.id,
          ctx.actorId,
          ctx.tenant.id,
          role,
          resource,
          instance,
          b.reason ?? null,
          at,
          at,
        ],
      );
      // "Relevant moderators are assigned to review": recorded now, so later role changes do not
      // silently hand a pending request to someone else.
      const roles = reviewerRoles(parseJson(ctx.config.roles_to_levels, {}));
      for (const m of await findModerators(tx, ctx.tenant.id, roles)) {
        await tx.run(`INSERT INTO access_request_moderators (request_id, user_id) VALUES (?, ?)`, [id, m]);
      }
      return (await getRequest(tx, req.env.envId, ctx.actorId, id))!;
    });
    return accessRequestRead(row, req.env);
  });

  app.get(P, async (req) => {
    const { filters, paging } = parseListQuery(
      req.query as Record<string, string | string[] | undefined>,
      req.headers as Record<string, string | string[] | undefined>,
    );
    const ctx = await context(db, req);
    const { rows, total } = await listRequests(db, req.env.envId, ctx.config.id, ctx.actorId, filters, paging);
    return envelope(
      rows.map((r) => accessRequestRead(r, req.env)),
      total,
      paging,
    );
  });

  app.get(`${P}/:id`, async (req) => {
    const ctx = await context(db, req);
    const { row } = await loadVisibleRequest(
      db,
      req.env.envId,
      ctx.config.id,
      { kind: 'user', id: ctx.actorId },
      (req.params as { id: string }).id,
    );
    return accessRequestRead(row, req.env);
  });

  const transition = (kind: Transition) => async (req: FastifyRequest) => {
    const body = (req.body ?? {}) as RequestBody;
    const at = now().toISOString();
    const result = await db.transaction(async (tx) => {
      const ctx = await context(tx, req);
      const id = (req.params as { id: string }).id;
      return {
        row: await decideAccessRequest(tx, {
          envId: req.env.envId,
          configId: ctx.config.id,
          actor: { kind: 'user', id: ctx.actorId },
          id,
          kind,
          body,
          at,
        }),
        actorId: ctx.actorId,
      };
    });
    return accessRequestRead(result.row, req.env);
  };

  app.patch(`${P}/:id/reviewer`, { schema: { body: REVIEW } }, transition('update'));
  app.put(`${P}/:id/approve`, { schema: { body: REVIEW } }, transition('approve'));
  app.put(`${P}/:id/deny`, { schema: { body: DENY } }, transition('deny'));
  app.put(`${P}/:id/cancel`, { schema: { body: CANCEL } }, transition('cancel'));
}

/**
 * The list's filters and paging. The specification puts them in headers, the public API in the query:
 * a query parameter wins. An empty value (`?status=`, a blank header, as clients send for "unset") is
 * no filter. The elements list (elements-access-requests.ts) passes no headers.
 */
export function parseListQuery(
  query: Record<string, string | string[] | undefined>,
  headers: Record<string, string | string[] | undefined> = {},
): { filters: RequestFilters; paging: Paging } {
  const given = (v: string | string[] | undefined) => v !== undefined && v !== '';
  // The first of `names` given in the query, else in the headers, with the name that carried it.
  const pickNamed = (...names: string[]): { name: string; value: string } | undefined => {
    for (const n of names) if (given(query[n])) return { name: n, value: single(query[n]!, ['query', n]) };
    for (const n of names) if (given(headers[n])) return { name: n, value: single(headers[n]!, ['header', n]) };
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
