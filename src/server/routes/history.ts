import type { FastifyInstance } from 'fastify';
import type { KeyScope, ServerDeps } from '../context.js';
import { httpError, invalid, notFound } from '../errors.js';
import { listHistory, readHistoryBody, type HistoryEvent, type HistoryFilter } from '../repo/api-history.js';
import type { EnvResolver } from '../auth.js';
import { pathParams, typed } from './typed.js';

/** As the public audit logs (routes/audit-logs.ts), a limited list: no page reaches past its 10,000th call. */
export const HISTORY_WINDOW = 10_000;

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const STRING = { type: 'string', maxLength: 2000 } as const;
const list = <const T extends object>(item: T) =>
  ({ anyOf: [item, { type: 'array', items: item, maxItems: 100 }] }) as const;
const SECONDS = { type: 'integer', minimum: 0, maximum: 253402300799 } as const;
const PAGING = {
  page: { type: 'integer', minimum: 1, maximum: 1_000_000 },
  per_page: { type: 'integer', minimum: 1, maximum: 100 },
} as const;
const ACTOR = {
  actor_id: list(STRING),
  actor_display_name: STRING,
  actor_type: list(STRING),
  project_id: list(STRING),
  env_id: list(STRING),
  timestamp_from: SECONDS,
  timestamp_until: SECONDS,
} as const;
const HISTORY_QUERY = {
  type: 'object',
  properties: {
    method: list(STRING),
    path: list(STRING),
    success: { type: 'boolean' },
    status_code: list({ type: 'integer', minimum: 0, maximum: 999 }),
    client_ip: list(STRING),
    ...ACTOR,
    ...PAGING,
  },
} as const;
const ACTIVITY_QUERY = { type: 'object', properties: { ...ACTOR, ...PAGING } } as const;
const EVENT_PARAMS = pathParams('event_id');

type Many<T> = T | T[] | undefined;
interface Query {
  method?: Many<string>;
  path?: Many<string>;
  success?: boolean;
  status_code?: Many<number>;
  client_ip?: Many<string>;
  actor_id?: Many<string>;
  actor_display_name?: string;
  actor_type?: Many<string>;
  project_id?: Many<string>;
  env_id?: Many<string>;
  timestamp_from?: number;
  timestamp_until?: number;
  page?: number;
  per_page?: number;
}

const listOf = <T>(v: Many<T>): T[] | undefined => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);

/** The public `APIHistoryEventRead` (additionalProperties: false): only its fields, none null. */
function eventRead(e: HistoryEvent, orgId: string) {
  return {
    id: e.id,
    timestamp: e.ts,
    timestamp_utc: e.ts,
    method: e.method,
    path: e.path,
    success: e.status >= 200 && e.status < 400,
    status: e.status,
    request_id: e.requestId,
    client_ip: e.clientIp,
    actor_type: e.actorType,
    actor_id: e.actorId,
    actor_display_name: e.actorName,
    org_id: orgId,
    ...(e.projectId !== null ? { project_id: e.projectId } : {}),
    ...(e.projectKey !== null ? { project_key: e.projectKey } : {}),
    ...(e.envId !== null ? { env_id: e.envId } : {}),
    ...(e.envKey !== null ? { env_key: e.envKey } : {}),
  };
}

/** The filter a query asks for; an environment-scoped key sees only its own environment's calls. */
async function filterOf(q: Query, scope: KeyScope, resolver: EnvResolver): Promise<HistoryFilter> {
  if (q.timestamp_from !== undefined && q.timestamp_until !== undefined && q.timestamp_until < q.timestamp_from)
    throw invalid(['query', 'timestamp_until'], 'must not be before timestamp_from');
  const f: HistoryFilter = {
    methods: listOf(q.method)?.map((m) => m.toUpperCase()),
    paths: listOf(q.path),
    success: q.success,
    statuses: listOf(q.status_code),
    clientIps: listOf(q.client_ip),
    actorTypes: listOf(q.actor_type),
    actorIds: listOf(q.actor_id)?.map((id) => id.toLowerCase()),
    actorName: q.actor_display_name,
    projects: listOf(q.project_id),
    envs: listOf(q.env_id),
    // Seconds: from the start of `timestamp_from`'s second, to the end of `timestamp_until`'s.
    from: q.timestamp_from !== undefined ? new Date(q.timestamp_from * 1000).toISOString() : undefined,
    to: q.timestamp_until !== undefined ? new Date((q.timestamp_until + 1) * 1000).toISOString() : undefined,
  };
  if (scope.kind === 'env') {
    const own = await resolver.resolve(scope.project, scope.env, scope);
    f.envs = f.envs === undefined || f.envs.some((e) => e === own.envId || e === own.envKey) ? [own.envId] : [];
  }
  return f;
}

function pageOf(q: Query): { page: number; perPage: number } {
  const page = q.page ?? 1;
  const perPage = q.per_page ?? 30;
  if ((page - 1) * perPage >= HISTORY_WINDOW)
    throw httpError(
      'BAD_REQUEST',
      `Max number of results for this API is ${HISTORY_WINDOW}: narrow the query's time window (timestamp_from, timestamp_until), or apply additional filters`,
    );
  return { page, perPage };
}

/**
 * The change history (../api-history.ts) as the public API log: `GET /v2/history` (newest first), the
 * bodies of one call, and `GET /v2/activity` (changes made in a web UI: roster serve has none, so it is
 * always empty). docs/server.md, "Change history".
 */
export default async function historyRoutes(base: FastifyInstance, deps: ServerDeps, resolver: EnvResolver) {
  const app = typed(base);
  const { db, orgId } = deps;
  const on = (req: { keyScope: { kind: string } }) => {
    // Off (roster serve --no-history): "no history", which readers take as "read everything", never "no change".
    if (!deps.apiHistory)
      throw httpError('NOT_FOUND', 'the change history is off on this server (roster serve --no-history)');
    if (deps.apiHistory.orgKeyOnly && req.keyScope.kind !== 'org')
      throw httpError(
        'FORBIDDEN_ACCESS',
        'only the organisation key may read the change history on this server (roster serve --history-org-key-only)',
      );
  };

  app.get('/v2/history', { schema: { querystring: HISTORY_QUERY } }, async (req) => {
    on(req);
    const q = req.query;
    const { page, perPage } = pageOf(q);
    const filter = await filterOf(q, req.keyScope, resolver);
    const { rows, total } = await listHistory(db, filter, {
      limit: Math.min(perPage, HISTORY_WINDOW - (page - 1) * perPage),
      offset: (page - 1) * perPage,
    });
    const reachable = Math.min(total, HISTORY_WINDOW);
    return {
      data: rows.map((r) => eventRead(r, orgId)),
      total_count: total,
      page_count: Math.ceil(reachable / perPage),
      pagination_count: reachable,
    };
  });

  for (const which of ['request', 'response'] as const) {
    app.get(`/v2/history/:event_id/${which}`, { schema: { params: EVENT_PARAMS } }, async (req, reply) => {
      on(req);
      const { event_id: id } = req.params;
      if (!UUID.test(id)) throw invalid(['path', 'event_id'], 'not a uuid', 'uuid_parsing');
      const found = await readHistoryBody(db, id.toLowerCase(), which);
      const scope = req.keyScope;
      const mine =
        found &&
        (scope.kind === 'org' || found.envId === (await resolver.resolve(scope.project, scope.env, scope)).envId);
      if (!found || !mine) throw notFound('history event', id);
      // The public answer is the body as a string (`format: binary`): the text as sent, "" for none.
      return reply.type('application/json').send(JSON.stringify(found.body ?? ''));
    });
  }

  app.get('/v2/activity', { schema: { querystring: ACTIVITY_QUERY } }, async (req) => {
    const q = req.query;
    const { perPage } = pageOf(q);
    await filterOf(q, req.keyScope, resolver);
    return { data: [], total_count: 0, page_count: Math.ceil(0 / perPage), pagination_count: 0 };
  });
}
