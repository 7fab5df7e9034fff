/**
 * The change history: every write through /v2 (POST, PUT, PATCH, DELETE under /v2, bulk and facts routes
 * included), kept in the store and served as the public API log (`GET /v2/history`, routes/history.ts).
 * docs/server.md, "Change history".
 *
 * Written ahead, so that no write is ever missing from it: a call that passed its checks is written
 * (status 0, "in flight") before its handler runs, and given its status and answer before the answer is
 * sent. If the first row cannot be written, the call fails with nothing done (503 when the store is away);
 * if the answer cannot be recorded, the answer is still sent and the row keeps status 0. So a write is in
 * the history as soon as it can have changed anything, and always before its answer. Calls refused
 * before their handler (422, 403, 404 on the path) changed nothing: they are written once, with their
 * answer. Reads (GET) are not recorded: a plan reads thousands of pages, and a read changes nothing.
 * Calls without a valid key (401) are not recorded either: they are nobody's, and anyone could fill the log.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiHistory, KeyScope } from './context.js';
import type { Db } from './store/db.js';
import { monotonicIds } from './new-id.js';
import { stableUuid } from './repo/common.js';
import { finishHistoryEvent, insertHistoryEvent, pruneHistory, type HistoryRow } from './repo/api-history.js';

export interface ApiHistoryOptions {
  /** Calls older than this are deleted; default 30 days. */
  maxAgeMs?: number;
  /** At most this many calls are kept, the newest; default 100,000 (each keeps its bodies). */
  maxCount?: number;
  /**
   * Only the organisation key may read the history; an environment key gets 403, as a public service that
   * keeps its API log from environment keys would (`roster serve --history-org-key-only`).
   */
  orgKeyOnly?: boolean;
  /** How often the retention bound is enforced (after a write); default 1 minute. */
  pruneEveryMs?: number;
}

export const API_HISTORY_DEFAULTS: Required<ApiHistoryOptions> = {
  maxAgeMs: 30 * 86_400_000,
  maxCount: 100_000,
  pruneEveryMs: 60_000,
  orgKeyOnly: false,
};

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Where the content-type parser leaves the body as sent (app.ts), for the history. */
export const RAW_BODY = Symbol('rawBody');
type WithRaw = FastifyRequest & { [RAW_BODY]?: string; historyId?: string };

/** A write through /v2: recorded. The decision point's POSTs (`/allowed`, `/user-permissions`) are reads. */
export const isRecordedCall = (method: string, url: string) => WRITES.has(method) && url.startsWith('/v2/');

export function installApiHistory(
  app: FastifyInstance,
  options: { db: Db; now: () => Date; orgId: string; secrets: string[] } & ApiHistoryOptions,
): ApiHistory {
  const o = { ...API_HISTORY_DEFAULTS, ...options };
  const ids = monotonicIds();
  const hide = redactor(options.secrets);
  let lastPrune = 0;
  let pruning: Promise<unknown> | undefined;

  const rowOf = (req: WithRaw, status: number, responseBody: string | null): HistoryRow => {
    const at = o.now();
    const actor = actorOf(req.keyScope, o.orgId);
    const env = req.env as WithRaw['env'] | undefined;
    return {
      id: ids.next(at.getTime()),
      ts: at.toISOString(),
      method: req.method,
      path: hide(pathOf(req.url)),
      status,
      clientIp: req.ip ?? '',
      actorType: 'api_key',
      actorId: actor.id,
      actorName: actor.name,
      projectId: env?.projectId ?? null,
      projectKey: env?.projectKey ?? null,
      envId: env?.envId ?? null,
      envKey: env?.envKey ?? null,
      requestId: req.id,
      requestBody: req[RAW_BODY] !== undefined ? hide(req[RAW_BODY]) : null,
      responseBody,
    };
  };

  const prune = () =>
    pruneHistory(o.db, { before: new Date(o.now().getTime() - o.maxAgeMs).toISOString(), keep: o.maxCount });

  // After the routes' own preValidation (the environment is resolved) and validation: about to change data.
  app.addHook('preHandler', async (request) => {
    const req = request as WithRaw;
    if (!isRecordedCall(req.method, req.url) || !req.keyScope) return;
    const row = rowOf(req, 0, null);
    await insertHistoryEvent(o.db, row);
    req.historyId = row.id;
  });

  app.addHook('onSend', async (request, reply: FastifyReply, payload) => {
    const req = request as WithRaw;
    if (!isRecordedCall(req.method, req.url) || !req.keyScope) return payload;
    const answer = { status: reply.statusCode, responseBody: textOf(payload, hide) };
    const failed = (err: unknown) => req.log.warn({ err }, 'change history: could not record the answer');
    // A call refused before its handler (a body over the limit, a validation error) changed nothing:
    // recorded without holding its answer back (a 413 waits on a draining socket: drain.ts).
    if (!req.historyId) {
      void insertHistoryEvent(o.db, rowOf(req, answer.status, answer.responseBody)).catch(failed);
    } else {
      try {
        await finishHistoryEvent(o.db, req.historyId, answer);
      } catch (err) {
        // Never fails the call: its write is done, and its row says status 0.
        failed(err);
      }
    }
    if (!pruning && Date.now() - lastPrune >= o.pruneEveryMs) {
      lastPrune = Date.now();
      pruning = prune()
        .catch((err: unknown) => app.log.warn({ err }, 'change history: retention failed'))
        .finally(() => (pruning = undefined));
    }
    return payload;
  });

  return {
    prune,
    orgKeyOnly: options.orgKeyOnly === true,
    async close() {
      await pruning;
    },
  };
}

/**
 * Who made the call, as the service knows keys: by their scope (the organisation key, or the key of one
 * environment). The id is a uuid made from the scope, never from the key.
 */
export function actorOf(scope: KeyScope, orgId: string): { id: string; name: string } {
  if (scope.kind === 'org') return { id: stableUuid(`api_key:org:${orgId}`), name: 'organization API key' };
  return {
    id: stableUuid(`api_key:env:${orgId}:${scope.project}/${scope.env}`),
    name: `API key of ${scope.project}/${scope.env}`,
  };
}

/** The path without its query, each segment decoded (`doc%3Ad1` is `doc:d1`, as the keys are written). */
function pathOf(url: string): string {
  const path = url.split('?')[0];
  return path
    .split('/')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    })
    .join('/');
}

function textOf(payload: unknown, hide: (t: string) => string): string | null {
  if (typeof payload === 'string') return payload === '' ? null : hide(payload);
  if (Buffer.isBuffer(payload)) return payload.length === 0 ? null : hide(payload.toString('utf8'));
  return null;
}

/** Keys never reach the store: the service's own keys, and anything shaped like a Permit API key. */
export function redactor(secrets: string[]): (text: string) => string {
  const known = secrets.filter((s) => s.length >= 4);
  return (text) =>
    known.reduce((t, k) => (t.includes(k) ? t.split(k).join('***') : t), text).replace(/permit_key_\w+/g, '***');
}
