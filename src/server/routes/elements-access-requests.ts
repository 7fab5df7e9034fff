import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { httpError } from '../errors.js';
import { envelope } from '../paging.js';
import { findElementsConfig } from '../repo/elements.js';
import { accessRequestRead, listRequests } from '../repo/access-requests.js';
import { decideAccessRequest, loadVisibleRequest, type RequestActor } from '../repo/access-request-decide.js';
import { CANCEL, CREATE, DENY, REVIEW, parseListQuery } from './access-requests.js';
import { pathParams, typed } from './typed.js';

/**
 * The public API's access-request operations, `/v2/elements/{p}/{e}/config/{elements_config_id}/access_requests`.
 * Their paths and bodies name no user: the caller is the API key, which acts as the environment's
 * administrator. It sees every request of the configuration and may approve, deny, update and cancel
 * them; a decision it takes records no reviewer (`reviewer_user_id` stays null). It may not create one:
 * a request is a user's, and the key is none. docs/access-requests.md, "The elements operations".
 * The rules, and the code that applies them, are those of the `/v2/facts/...` operations.
 */
const KEY_PARAM = pathParams('key');
const ONE = pathParams('key', 'id');

export default async function elementsAccessRequestRoutes(base: FastifyInstance, { db, now }: ServerDeps) {
  const app = typed(base);
  const P = '/config/:key/access_requests';
  const ADMIN: RequestActor = { kind: 'administrator' };

  app.post(P, { schema: { body: CREATE, params: KEY_PARAM } }, async (req) => {
    const config = await findElementsConfig(db, req.env.envId, req.params.key);
    throw httpError(
      'FORBIDDEN_ACCESS',
      `an access request is made by a user, and an API key is none: create it as the user with ` +
        `POST /v2/facts/${req.env.projectKey}/${req.env.envKey}/access_requests/${config.key}/user/{user}/tenant/{tenant}`,
    );
  });

  app.get(P, { schema: { params: KEY_PARAM } }, async (req) => {
    // The public list takes its filters in the query only (no headers), and ignores ones it does not know.
    const { filters, paging } = parseListQuery(req.query);
    const config = await findElementsConfig(db, req.env.envId, req.params.key);
    const { rows, total } = await listRequests(db, req.env.envId, config.id, null, filters, paging);
    return envelope(
      rows.map((r) => accessRequestRead(r, req.env)),
      total,
      paging,
    );
  });

  app.get(`${P}/:id`, { schema: { params: ONE } }, async (req) => {
    const config = await findElementsConfig(db, req.env.envId, req.params.key);
    const { row } = await loadVisibleRequest(db, req.env.envId, config.id, ADMIN, req.params.id);
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
          const config = await findElementsConfig(tx, req.env.envId, req.params.key);
          return decideAccessRequest(tx, {
            envId: req.env.envId,
            configId: config.id,
            actor: ADMIN,
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
