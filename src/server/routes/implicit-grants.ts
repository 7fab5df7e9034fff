import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { KEY, strictObject } from '../schemas.js';
import type { Queryable } from '../store/db.js';
import { findKeyed } from '../repo/common.js';
import { findRoleOn } from '../repo/role-scope.js';
import { writeConditions, writeImplicitGrant } from '../repo/relations.js';
import { deleteImplicitGrant, listImplicitGrants, resolveRule, type RuleInput } from '../repo/derivation-writes.js';
import { pathParams, typed } from './typed.js';

/** The public `DerivationSettings` (`when`): `no_direct_roles_on_object`, false by default. */
export const WHEN = strictObject({ no_direct_roles_on_object: { type: 'boolean' } });
/** The public `DerivedRoleRuleCreate` / `DerivedRoleRuleDelete`. */
export const RULE = strictObject({ role: KEY, on_resource: KEY, linked_by_relation: KEY, when: WHEN }, [
  'role',
  'on_resource',
  'linked_by_relation',
]);
/** The public `DerivedRoleBlockEdit`: a role's `granted_to` in `RoleCreate`, `RoleUpdate`, `ResourceRoleCreate`, `ResourceRoleUpdate`. */
export const GRANTED_TO = strictObject({ users_with_role: { type: 'array', items: RULE, maxItems: 1000 }, when: WHEN });

const PARAMS = pathParams('resource', 'role');

/**
 * Role derivations (implicit grants): `/resources/{resource}/roles/{role}/implicit_grants` (POST, DELETE,
 * and GET, our addition so that derivations, the group machinery's among them, are readable) and
 * `.../implicit_grants/conditions` (PUT: the derived role's `when`, applying to all its rules).
 * Evaluated by /allowed (repo/derivations.ts).
 */
export default async function implicitGrantRoutes(base: FastifyInstance, { db, now }: ServerDeps) {
  const app = typed(base);
  const target = async (q: Queryable, envId: string, params: { resource: string; role: string }) => {
    const res = await findKeyed<{ id: string; key: string }>(q, 'resources', envId, params.resource, 'resource');
    return { res, role: await findRoleOn(q, envId, res, params.role) };
  };

  // The rule's roles, resource and relation, checked as every route that writes derivations checks them
  // (repo/derivation-writes.ts).
  const resolve = async (q: Queryable, envId: string, params: { resource: string; role: string }, rule: RuleInput) => {
    const { res, role } = await target(q, envId, params);
    return resolveRule(q, envId, res, role, rule);
  };

  app.get('/resources/:resource/roles/:role/implicit_grants', { schema: { params: PARAMS } }, async (req) => {
    const { res, role } = await target(db, req.env.envId, req.params);
    return listImplicitGrants(db, res.id, role.id);
  });

  app.post(
    '/resources/:resource/roles/:role/implicit_grants',
    { schema: { body: RULE, params: PARAMS } },
    async (req) => {
      const body = req.body;
      const g = await db.transaction(async (tx) => {
        const g = await resolve(tx, req.env.envId, req.params, body);
        // Posting a rule again updates its `when` (the rule is named by its role, resource and relation).
        await writeImplicitGrant(tx, req.env.envId, g, now().toISOString());
        return g;
      });
      // The public `DerivedRoleRuleRead`: the deriving role, its resource and the relation, by id and key.
      return {
        role_id: g.linkedRoleId,
        resource_id: g.onResourceId,
        relation_id: g.relationId,
        role: body.role,
        on_resource: body.on_resource,
        linked_by_relation: body.linked_by_relation,
        when: { no_direct_roles_on_object: body.when?.no_direct_roles_on_object === true },
      };
    },
  );

  // `when` in the body is accepted (public `DerivedRoleRuleDelete`) and does not narrow what is deleted.
  app.delete(
    '/resources/:resource/roles/:role/implicit_grants',
    { schema: { body: RULE, params: PARAMS } },
    async (req, reply) => {
      await db.transaction(async (tx) =>
        deleteImplicitGrant(tx, await resolve(tx, req.env.envId, req.params, req.body)),
      );
      return reply.status(204).send();
    },
  );

  app.put(
    '/resources/:resource/roles/:role/implicit_grants/conditions',
    { schema: { body: WHEN, params: PARAMS } },
    async (req) => {
      const noDirect = req.body.no_direct_roles_on_object === true;
      await db.transaction(async (tx) => {
        const { res, role } = await target(tx, req.env.envId, req.params);
        await writeConditions(tx, res.id, role.id, noDirect);
      });
      return { no_direct_roles_on_object: noDirect };
    },
  );
}
