import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { parsePaging } from '../paging.js';
import { PAGING_QUERY, strictObject } from '../schemas.js';
import { bumpAbacStamp } from '../repo/abac-stamp.js';
import { createRule, deleteRule, listRules, resolveRule, ruleRead } from '../repo/set-rules.js';
import { typed } from './typed.js';

const REF = { type: 'string', minLength: 1, maxLength: 513 } as const;
/** The public `ConditionSetRuleCreate` = `ConditionSetRuleRemove`. */
const BODY = strictObject(
  { user_set: REF, permission: REF, resource_set: REF, is_role: { type: 'boolean' }, is_resource: { type: 'boolean' } },
  ['user_set', 'permission', 'resource_set'],
);
const LIST_QUERY = {
  type: 'object',
  properties: { ...PAGING_QUERY.properties, user_set: REF, permission: REF, resource_set: REF },
} as const;

/**
 * Set rules: `/v2/facts/{p}/{e}/set_rules`. POST answers an array (the rule first), skipping one that
 * exists; DELETE takes the same body and skips an absent rule (api-notes).
 */
export default async function setRuleRoutes(base: FastifyInstance, { db, now }: ServerDeps) {
  const app = typed(base);
  app.get('/set_rules', { schema: { querystring: LIST_QUERY } }, async (req) => {
    const { rows } = await listRules(db, req.env.envId, req.query, parsePaging(req.query));
    return rows.map((r) => ruleRead(r, req.env));
  });

  app.post('/set_rules', { schema: { body: BODY } }, async (req) => {
    const rule = await db.transaction(async (tx) => {
      const rule = await createRule(
        tx,
        req.env.envId,
        await resolveRule(tx, req.env.envId, req.body),
        now().toISOString(),
      );
      await bumpAbacStamp(tx, req.env.envId);
      return rule;
    });
    return [ruleRead(rule, req.env)];
  });

  app.delete('/set_rules', { schema: { body: BODY } }, async (req, reply) => {
    await db.transaction(async (tx) => {
      await deleteRule(tx, req.env.envId, await resolveRule(tx, req.env.envId, req.body));
      await bumpAbacStamp(tx, req.env.envId);
    });
    return reply.status(204).send();
  });
}
