import type { FastifyInstance } from 'fastify';
import type { EnvContext, ServerDeps } from '../context.js';
import { httpError, invalid, notFound } from '../errors.js';
import { getDecision, listDecisions, type StoredDecision } from '../repo/decision-log.js';
import { pathParams, typed } from './typed.js';

/** The public audit-log API's own bound: no page may reach past the 10,000th result. */
export const AUDIT_LOG_WINDOW = 10_000;

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const STRING = { type: 'string', maxLength: 500 } as const;
const LIST = { anyOf: [STRING, { type: 'array', items: STRING, maxItems: 100 }] } as const;
const QUERY = {
  type: 'object',
  properties: {
    pdp_id: { type: 'string', pattern: UUID.source },
    users: LIST,
    decision: { type: 'boolean' },
    resources: LIST,
    tenant: STRING,
    action: STRING,
    timestamp_from: { type: 'integer', minimum: 0, maximum: 253402300799 },
    timestamp_to: { type: 'integer', minimum: 0, maximum: 253402300799 },
    sort_by: { type: 'string', enum: ['None', 'timestamp'] },
    query: { type: 'string', enum: ['check', 'get_user_permissions', 'get_authorized_users', 'none'] },
    page: { type: 'integer', minimum: 1, maximum: 1_000_000 },
    per_page: { type: 'integer', minimum: 1, maximum: 100 },
  },
} as const;

const listOf = (v: string | string[] | undefined) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);

/** The public `AuditLogModel` (additionalProperties: false): only its fields. */
function auditLogRead(d: StoredDecision, env: EnvContext) {
  const input = d.input as { context?: unknown } | null;
  return {
    id: d.id,
    timestamp: d.ts,
    query: d.query,
    user_key: d.user,
    resource_type: d.type,
    ...(d.tenant !== null ? { tenant: d.tenant } : {}),
    action: d.action,
    decision: d.decision,
    org_id: env.orgId,
    project_id: env.projectId,
    env_id: env.envId,
    input: d.input,
    result: { allow: d.decision },
    context: input?.context ?? {},
  };
}

/**
 * `GET /v2/pdps/{p}/{e}/audit_logs[/{log_id}]`: the decision log (../decision-log.ts) in the public
 * shapes, newest first. Timestamps in the filters are Unix seconds (from inclusive, to inclusive of its
 * whole second). Only decisions are logged, so `query` other than `check` or `none` finds nothing, and
 * neither does a `pdp_id` (no PDP configurations here). docs/server.md, "Decision log".
 */
export default async function auditLogRoutes(base: FastifyInstance, { db, decisionLog }: ServerDeps) {
  const app = typed(base);
  app.get('/audit_logs', { schema: { querystring: QUERY } }, async (req) => {
    const q = req.query;
    const page = q.page ?? 1;
    const perPage = q.per_page ?? 30;
    if ((page - 1) * perPage >= AUDIT_LOG_WINDOW) {
      throw httpError(
        'BAD_REQUEST',
        `Max number of results for this API is ${AUDIT_LOG_WINDOW}: readjust the query's time window (timestamp_from, timestamp_to), or apply additional filters`,
      );
    }
    if (q.timestamp_from !== undefined && q.timestamp_to !== undefined && q.timestamp_to < q.timestamp_from) {
      throw invalid(['query', 'timestamp_to'], 'must not be before timestamp_from');
    }
    // Reads see every decision this process answered (its queue is written first).
    await decisionLog?.flush().catch(() => {});
    const nothing = (q.query !== undefined && q.query !== 'check' && q.query !== 'none') || q.pdp_id !== undefined;
    const { rows, total } = nothing
      ? { rows: [], total: 0 }
      : await listDecisions(
          db,
          {
            envId: req.env.envId,
            users: listOf(q.users),
            decision: q.decision,
            resources: listOf(q.resources),
            tenant: q.tenant,
            action: q.action,
            from: q.timestamp_from !== undefined ? new Date(q.timestamp_from * 1000).toISOString() : undefined,
            to: q.timestamp_to !== undefined ? new Date((q.timestamp_to + 1) * 1000).toISOString() : undefined,
          },
          // Never past the window, even on the last page that starts inside it.
          { limit: Math.min(perPage, AUDIT_LOG_WINDOW - (page - 1) * perPage), offset: (page - 1) * perPage },
        );
    const reachable = Math.min(total, AUDIT_LOG_WINDOW);
    return {
      data: rows.map((r) => auditLogRead(r, req.env)),
      total_count: total,
      page_count: Math.ceil(reachable / perPage),
      pagination_count: reachable,
    };
  });

  app.get('/audit_logs/:log_id', { schema: { params: pathParams('log_id') } }, async (req) => {
    const { log_id: id } = req.params;
    if (!UUID.test(id)) throw invalid(['path', 'log_id'], 'not a uuid', 'uuid_parsing');
    await decisionLog?.flush().catch(() => {});
    const d = await getDecision(db, req.env.envId, id.toLowerCase());
    if (!d) throw notFound('audit log', id);
    const read = auditLogRead(d, req.env);
    // The public DetailedAuditLogModel adds the raw decision (here in the GENERIC engine's form).
    const raw = {
      engine: 'GENERIC',
      timestamp: d.ts,
      decision: d.decision,
      decision_id: d.id,
      query: d.query,
      user_key: d.user,
      action: d.action,
      resource_type: d.type,
      ...(d.tenant !== null ? { tenant: d.tenant } : {}),
      input: d.input,
      result: read.result,
    };
    return { ...read, raw_data: raw };
  });
}
