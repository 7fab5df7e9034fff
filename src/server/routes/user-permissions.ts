import type { FastifyInstance } from 'fastify';
import { NAMED, type DecisionPoint } from './decision-point.js';
import { userPermissions } from '../repo/user-permissions.js';
import { typed } from './typed.js';

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
export async function userPermissionRoutes(app: FastifyInstance, { db, envOf }: DecisionPoint) {
  typed(app).post('/user-permissions', { schema: { body: BODY, ...NAMED } }, async (req) => {
    const env = await envOf(req);
    const b = req.body;
    return userPermissions(db, env.envId, {
      user: b.user,
      tenants: b.tenants ?? undefined,
      resources: b.resources ?? undefined,
      resource_types: b.resource_types ?? undefined,
      context: b.context ?? undefined,
    });
  });
}
