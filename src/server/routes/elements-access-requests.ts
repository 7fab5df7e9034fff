import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerDeps } from '../context.js';
import { httpError } from '../errors.js';
import { envelope } from '../paging.js';
import { findElementsConfig } from '../repo/elements.js';
import { accessRequestRead, listRequests } from '../repo/access-requests.js';
import {
  decideAccessRequest,
  loadVisibleRequest,
  type RequestActor,
  type RequestBody,
} from '../repo/access-request-decide.js';
import type { Transition } from '../domain/access-requests.js';
import { CANCEL, CREATE, DENY, REVIEW, parseListQuery } from './access-requests.js';

/**
 * The public API's access-request operations, `/v2/elements/{p}/{e}/config/{elements_config_id}/access_requests`.
 * Their paths and bodies name no user: the caller is the API key, which acts as the environment's
 * administrator. It sees every request of the configuration and may approve, deny, update and cancel
 * them; a decision it takes records no reviewer (`reviewer_user_id` stays null). It may not create one:
 * a request is a user's, and the key is none. docs/access-requests.md, "The elements operations".
 * The rules, and the code that applies them, are those of the `/v2/facts/...` operations.
 */
export default async function elementsAccessRequestRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  const P = '/config/:key/access_requests';
  const ADMIN: RequestActor = { kind: 'administrator' };
  const configOf = (req: FastifyRequest) => findElementsConfig(db, req.env.envId, (req.params as { key: string }).key);

  app.post(P, { schema: { body: CREATE } }, async (req) => {
    const config = await configOf(req);
    throw httpError(
      'FORBIDDEN_ACCESS',
      `an access request is made by a user, and an API key is none: create it as the user with ` +
        `POST /v2/facts/${req.env.projectKey}/${req.env.envKey}/access_requests/${config.key}/user/{user}/tenant/{tenant}`,
    );
  });

  app.get(P, async (req) => {
    // The public list takes its filters in the query only (no headers), and ignores ones it does not know.
    const { filters, paging } = parseListQuery(req.query as Record<string, string | string[] | undefined>);
    const config = await configOf(req);
    const { rows, total } = await listRequests(db, req.env.envId, config.id, null, filters, paging);
    return envelope(
      rows.map((r) => accessRequestRead(r, req.env)),
      total,
      paging,
    );
  });

  app.get(`${P}/:id`, async (req) => {
    const config = await configOf(req);
    const { row } = await loadVisibleRequest(db, req.env.envId, config.id, ADMIN, (req.params as { id: string }).id);
    return accessRequestRead(row, req.env);
  });

  const transition = (kind: Transition) => async (req: FastifyRequest) => {
    const body = (req.body ?? {}) as RequestBody;
    const at = now().toISOString();
    const row = await db.transaction(async (tx) => {
      const config = await findElementsConfig(tx, req.env.envId, (req.params as { key: string }).key);
      return decideAccessRequest(tx, {
        envId: req.env.envId,
        configId: config.id,
        actor: ADMIN,
        id: (req.params as { id: string }).id,
        kind,
        body,
        at,
      });
    });
    return accessRequestRead(row, req.env);
  };

  app.patch(`${P}/:id/reviewer`, { schema: { body: REVIEW } }, transition('update'));
  app.put(`${P}/:id/approve`, { schema: { body: REVIEW } }, transition('approve'));
  app.put(`${P}/:id/deny`, { schema: { body: DENY } }, transition('deny'));
  app.put(`${P}/:id/cancel`, { schema: { body: CANCEL } }, transition('cancel'));
}
