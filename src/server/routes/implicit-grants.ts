import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerDeps } from '../context.js';
import { notFound } from '../errors.js';
import { KEY, strictObject } from '../schemas.js';
import type { Queryable } from '../store/db.js';
import { findKeyed } from '../repo/common.js';
import { findRoleOn } from '../repo/role-scope.js';
import { dropUnderivedGroupGrants, writeConditions, writeImplicitGrant } from '../repo/relations.js';
import { resolveRule, type RuleInput } from '../repo/derivation-writes.js';

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

type RuleBody = RuleInput;

const whenOf = (noDirect: number | string | boolean) => ({ no_direct_roles_on_object: Number(noDirect) > 0 });

/**
 * Role derivations (implicit grants): `/resources/{resource}/roles/{role}/implicit_grants` (POST, DELETE,
 * and GET, our addition so that derivations, the group machinery's among them, are readable) and
 * `.../implicit_grants/conditions` (PUT: the derived role's `when`, applying to all its rules).
 * Evaluated by /allowed (repo/derivations.ts).
 */
export default async function implicitGrantRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  const target = async (q: Queryable, req: FastifyRequest) => {
    const { resource, role } = req.params as { resource: string; role: string };
    const res = await findKeyed<{ id: string; key: string }>(q, 'resources', req.env.envId, resource, 'resource');
    return { res, role: await findRoleOn(q, req.env.envId, res, role) };
  };

  // The rule's roles, resource and relation, checked as every route that writes derivations checks them
  // (repo/derivation-writes.ts).
  const resolve = async (q: Queryable, req: FastifyRequest) => {
    const { res, role } = await target(q, req);
    return { ...(await resolveRule(q, req.env.envId, res, role, req.body as RuleBody)), body: req.body as RuleBody };
  };

  app.get('/resources/:resource/roles/:role/implicit_grants', async (req) => {
    const { res, role } = await target(db, req);
    const rows = await db.all<{
      role_id: string;
      resource_id: string;
      relation_id: string;
      role: string;
      on_resource: string;
      linked_by_relation: string;
      no_direct: number;
    }>(
      `SELECT lr.id AS role_id, onr.id AS resource_id, rel.id AS relation_id, lr.key AS role, onr.key AS on_resource, rel.key AS linked_by_relation,
         g.no_direct_roles AS no_direct
       FROM implicit_grants g JOIN roles lr ON lr.id = g.linked_role_id JOIN resources onr ON onr.id = g.on_resource_id JOIN relations rel ON rel.id = g.relation_id
       WHERE g.resource_id = ? AND g.role_id = ? ORDER BY g.created_at, g.id`,
      [res.id, role.id],
    );
    return rows.map(({ no_direct, ...r }) => ({ ...r, when: whenOf(no_direct) }));
  });

  app.post('/resources/:resource/roles/:role/implicit_grants', { schema: { body: RULE } }, async (req) => {
    const g = await db.transaction(async (tx) => {
      const g = await resolve(tx, req);
      // Posting a rule again updates its `when` (the rule is named by its role, resource and relation).
      await writeImplicitGrant(tx, req.env.envId, g, now().toISOString());
      return g;
    });
    // The public `DerivedRoleRuleRead`: the deriving role, its resource and the relation, by id and key.
    return {
      role_id: g.linkedRoleId,
      resource_id: g.onResourceId,
      relation_id: g.relationId,
      role: g.body.role,
      on_resource: g.body.on_resource,
      linked_by_relation: g.body.linked_by_relation,
      when: { no_direct_roles_on_object: g.body.when?.no_direct_roles_on_object === true },
    };
  });

  // `when` in the body is accepted (public `DerivedRoleRuleDelete`) and does not narrow what is deleted.
  app.delete('/resources/:resource/roles/:role/implicit_grants', { schema: { body: RULE } }, async (req, reply) => {
    await db.transaction(async (tx) => {
      const g = await resolve(tx, req);
      const { changes } = await tx.run(
        `DELETE FROM implicit_grants WHERE resource_id = ? AND role_id = ? AND on_resource_id = ? AND linked_role_id = ? AND relation_id = ?`,
        [g.resourceId, g.roleId, g.onResourceId, g.linkedRoleId, g.relationId],
      );
      if (!changes) throw notFound('role derivation', `${g.keys.role} on ${g.keys.on_resource} by ${g.keys.relation}`);
      await dropUnderivedGroupGrants(tx, g);
    });
    return reply.status(204).send();
  });

  app.put('/resources/:resource/roles/:role/implicit_grants/conditions', { schema: { body: WHEN } }, async (req) => {
    const noDirect = (req.body as { no_direct_roles_on_object?: boolean }).no_direct_roles_on_object === true;
    await db.transaction(async (tx) => {
      const { res, role } = await target(tx, req);
      await writeConditions(tx, res.id, role.id, noDirect);
    });
    return { no_direct_roles_on_object: noDirect };
  });
}
