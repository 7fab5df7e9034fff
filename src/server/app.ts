import Fastify, {
  type FastifyInstance,
  type FastifyError,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { isDatabaseUnavailable, isForeignKeyViolation, isUniqueViolation, type Db } from './store/db.js';
import { ERROR_CODES, HttpError, ValidationError } from './errors.js';
import { installValidators, toDetail } from './validation.js';
import { authenticate, buildKeyTable, EnvResolver, type KeyOptions } from './auth.js';
import type { ServerDeps } from './context.js';
import { registerRoutes } from './routes/index.js';
import { trackRouteMethods } from './allow.js';
import { redactingLogger } from './logging.js';
import { refuseNul } from './nul.js';
import { refuseDeepBodies } from './depth.js';
import { answerClientError } from './client-error.js';
import { drainBody, type DrainBounds } from './drain.js';
import { createDecisionLog, type DecisionLogOptions } from './decision-log.js';
import { installApiHistory, RAW_BODY, type ApiHistoryOptions } from './api-history.js';

export interface ServerOptions extends KeyOptions {
  db: Db;
  /** fastify's logger (pino) options; false for none. Request logs never contain keys. */
  logger?: FastifyServerOptions['logger'];
  now?: () => Date;
  /** Largest request body accepted, in bytes; larger answers 413. */
  bodyLimit?: number;
  /** How much of a body over the limit is read and discarded before the 413 (./drain.ts). */
  drainBounds?: DrainBounds;
  /**
   * Projects and environments (keys) to create at start unless they exist (`roster serve --create-env`,
   * the embedded default's own). Besides these and the environments of `envKeys`, only the public
   * `POST /v2/projects` and `POST /v2/projects/{p}/envs` create them.
   */
  environments?: { project: string; env: string }[];
  /** The decision log's retention and batching (decision-log.ts); false: no log. Default: on, with its defaults. */
  decisionLog?: DecisionLogOptions | false;
  /** The change history's retention (api-history.ts); false: none kept. Default: on, with its defaults. */
  apiHistory?: ApiHistoryOptions | false;
}

/** Health: 200 when the store answers, 503 when it does not (docs/deploy.md). */
export const HEALTH_PATH = '/healthz';

/**
 * Builds the /v2 service. `listen` lives in ./listen.ts: `roster serve`, the embedded default and the
 * tests are thin callers of this factory.
 */
export async function createServer(options: ServerOptions): Promise<FastifyInstance> {
  const app = newFastify(options);
  installValidators(app);
  const methodsAt = trackRouteMethods(app);
  parseJsonBodies(app);
  const deps = await buildDeps(app, options);
  const keys = buildKeyTable(options);
  const resolver = new EnvResolver(options.db, deps.orgId, deps.now);
  for (const k of [...(options.envKeys ?? []), ...(options.environments ?? [])])
    await resolver.ensure(k.project, k.env);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // The health check answers without a key: load balancers probe it, and it tells nothing about data.
    if (request.url === HEALTH_PATH && request.method === 'GET') return;
    request.keyScope = authenticate(request, keys);
  });
  // Before the routes: their preValidation hooks (environment lookup) and schemas come after it.
  refuseNul(app);
  refuseDeepBodies(app);
  app.setErrorHandler((err: FastifyError | HttpError | ValidationError, request, reply) =>
    answerError(err, request, reply, options.drainBounds),
  );
  app.setNotFoundHandler((request, reply) => answerNotFound(request, reply, methodsAt));

  await registerRoutes(app, deps, resolver);
  return app;
}

/** The fastify instance: its logger (keys redacted), body limit, request ids, and errors raised before any hook. */
function newFastify(options: ServerOptions): FastifyInstance {
  return Fastify({
    logger: redactingLogger(options.logger ?? false, [
      options.orgKey ?? '',
      ...(options.envKeys ?? []).map((k) => k.key),
    ]),
    bodyLimit: options.bodyLimit ?? 4 * 1024 * 1024,
    genReqId: () => crypto.randomUUID(),
    requestIdHeader: false,
    forceCloseConnections: true,
    // Paths carry keys (up to 256 characters) and `type:key` references (up to 513); fastify's default
    // of 100 would answer 414 in its own shape for a valid long key.
    routerOptions: { maxParamLength: 1024 },
    // Errors the router raises before any hook runs (a malformed %-escape, an over-long path
    // parameter) still answer in the public API's shapes.
    frameworkErrors: (err, request, reply) => routerError(err, request.id, reply as unknown as FastifyReply),
    // ... and so do those Node's HTTP parser raises before fastify has a request (a NUL in a header).
    clientErrorHandler: answerClientError,
  });
}

/**
 * JSON bodies through fastify's own parser (it rejects `__proto__` and `constructor.prototype` keys:
 * prototype poisoning), the text kept for the change history. An empty JSON body is no body: approve,
 * deny and cancel may be sent without one; routes whose schema requires a body still answer 422.
 */
function parseJsonBodies(app: FastifyInstance): void {
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, text, done) => {
    const body = String(text);
    if (body.trim() === '') return done(null, undefined);
    // The body as sent, for the change history (api-history.ts).
    (req as unknown as Record<symbol, string>)[RAW_BODY] = body;
    jsonParser(req, body, done);
  });
}

/** What the routes are given: the store, the clock, the organisation, the decision log and the change history. */
async function buildDeps(app: FastifyInstance, options: ServerOptions): Promise<ServerDeps> {
  const org = await options.db.get<{ value: string }>(`SELECT value FROM meta WHERE key = 'organization_id'`);
  const deps: ServerDeps = { db: options.db, now: options.now ?? (() => new Date()), orgId: org!.value };
  if (options.decisionLog !== false) {
    const log = createDecisionLog(options.db, deps.now, options.decisionLog ?? {}, (message) => app.log.warn(message));
    deps.decisionLog = log;
    // Before the store closes (listen.ts closes the app first): what is queued is written.
    app.addHook('onClose', async () =>
      log.close().catch((err: unknown) => app.log.error({ err }, 'decision log: final write failed')),
    );
  }
  if (options.apiHistory !== false) {
    const secrets = [options.orgKey ?? '', ...(options.envKeys ?? []).map((k) => k.key)];
    const history = installApiHistory(app, { ...deps, ...options.apiHistory, secrets });
    deps.apiHistory = history;
    app.addHook('onClose', () => history.close());
  }
  return deps;
}

/** Every error a request ends with, in the public API's shapes (ERROR_CODES; a 422 `detail` for validation). */
function answerError(
  err: FastifyError | HttpError | ValidationError,
  request: FastifyRequest,
  reply: FastifyReply,
  drainBounds: DrainBounds | undefined,
) {
  if (err instanceof HttpError) {
    return reply.status(err.status).send({
      id: request.id,
      title: ERROR_CODES[err.code].title,
      error_code: err.code,
      message: err.message,
      ...err.extra,
    });
  }
  if (err instanceof ValidationError) return reply.status(422).send({ detail: err.detail });
  const fe = err as FastifyError;
  if (fe.validation)
    return reply.status(422).send({ detail: toDetail(fe.validation as never, fe.validationContext ?? 'body') });
  if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    // Read the rest of the body first, so that clients still writing it can read the answer (drain.ts).
    return drainBody(request.raw, drainBounds).then(() => {
      send(reply, request.id, 'PAYLOAD_TOO_LARGE', 'request body is larger than the limit');
    });
  }
  if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return send(reply, request.id, 'UNSUPPORTED_MEDIA_TYPE', 'send JSON (content-type: application/json)');
  if (
    fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    err instanceof SyntaxError
  ) {
    return reply.status(422).send({ detail: [{ loc: ['body'], msg: 'body is not valid JSON', type: 'json_invalid' }] });
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return send(reply, request.id, 'BAD_REQUEST', fe.message);
  }
  // Races the routes' own checks cannot see (another process, on PostgreSQL, wrote between a read and
  // a write): the database's keys decide, and the answer says so rather than 500.
  if (isUniqueViolation(err))
    return send(reply, request.id, 'DUPLICATE_ENTITY', 'a concurrent request created the same entity first');
  if (isForeignKeyViolation(err))
    return send(reply, request.id, 'CONFLICT', 'a concurrent request deleted an entity this one refers to');
  if (isDatabaseUnavailable(err)) {
    // Nothing was done; the database should be back soon (a restart, a failover): ask to retry.
    request.log.warn({ err }, 'database unavailable');
    reply.header('retry-after', String(DATABASE_RETRY_AFTER_S));
    return send(
      reply,
      request.id,
      'SERVICE_UNAVAILABLE',
      'the database is unreachable; nothing was done, try again shortly',
    );
  }
  request.log.error({ err }, 'unexpected error');
  return send(
    reply,
    request.id,
    'UNEXPECTED_ERROR',
    'unexpected error; the request id identifies it in the server log',
  );
}

/** No route: 405 with `allow` when the path is served by other methods, else 404 ROUTE_NOT_FOUND. */
function answerNotFound(request: FastifyRequest, reply: FastifyReply, methodsAt: (path: string) => string[]) {
  const path = request.url.split('?')[0];
  const allow = methodsAt(path);
  if (allow.length > 0) {
    reply.header('allow', allow.join(', '));
    return send(
      reply,
      request.id,
      'METHOD_NOT_ALLOWED',
      `${request.method} is not served at ${path}; allowed: ${allow.join(', ')}`,
    );
  }
  return send(reply, request.id, 'ROUTE_NOT_FOUND', `no endpoint ${request.method} ${path}`);
}

function routerError(err: FastifyError, id: string, reply: FastifyReply) {
  // No hook has run: say the request id here as every other answer does.
  reply.header('x-request-id', id);
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return reply.status(422).send({
      detail: [{ loc: ['path'], msg: 'a path parameter is longer than 1024 characters', type: 'string_too_long' }],
    });
  }
  return send(reply, id, err.code === 'FST_ERR_BAD_URL' ? 'BAD_REQUEST' : 'UNEXPECTED_ERROR', err.message);
}

/** Seconds a client is asked to wait while the database is away. */
const DATABASE_RETRY_AFTER_S = 2;

function send(reply: FastifyReply, id: string, code: keyof typeof ERROR_CODES, message: string) {
  return reply.status(ERROR_CODES[code].status).send({ id, title: ERROR_CODES[code].title, error_code: code, message });
}
