import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { EnvContext } from '../context.js';
import type { Db } from '../store/db.js';
import { userPermissions, type UserPermissionsQuery } from '../repo/user-permissions.js';

const KEYS = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 513 }, maxItems: 1000 } as const;
const BODY = {
  type: 'object',
  properties: {
    user: {
      anyOf: [
        { type: 'string', minLength: 1, maxLength: 256 },
        {
          type: 'object',
          properties: {
            key: { type: 'string', minLength: 1, maxLength: 256 },
            attributes: { type: ['object', 'null'] },
          },
          required: ['key'],
        },
      ],
    },
    tenants: { anyOf: [KEYS, { type: 'null' }] },
    resources: { anyOf: [KEYS, { type: 'null' }] },
    resource_types: { anyOf: [KEYS, { type: 'null' }] },
    context: { type: ['object', 'null'] },
  },
  required: ['user'],
} as const;

/** `POST /user-permissions` (the PDP's, as the SDKs' `getUserPermissions` calls it), in the caller's environment (routes/allowed.ts). */
export async function userPermissionRoutes(
  app: FastifyInstance,
  db: Db,
  envOf: (req: FastifyRequest) => Promise<EnvContext>,
  schemas: { querystring: object; headers: object },
) {
  app.post('/user-permissions', { schema: { body: BODY, ...schemas } }, async (req) => {
    const env = await envOf(req);
    const b = req.body as UserPermissionsQuery & {
      tenants?: string[] | null;
      resources?: string[] | null;
      resource_types?: string[] | null;
      context?: Record<string, unknown> | null;
    };
    return userPermissions(db, env.envId, {
      user: b.user,
      tenants: b.tenants ?? undefined,
      resources: b.resources ?? undefined,
      resource_types: b.resource_types ?? undefined,
      context: b.context ?? undefined,
    });
  });
}
