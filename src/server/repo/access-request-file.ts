import type { Queryable } from '../store/db.js';
import { httpError, invalid } from '../errors.js';
import { findKeyed, parseJson } from './common.js';
import { findElementsConfig } from './elements.js';
import { isUserInTenant } from './users.js';
import { findInstance, findInstanceOrNull } from './assignments.js';
import { findRoleNamed } from './role-scope.js';
import { findModerators, getRequest, type AccessRequestRow } from './access-requests.js';
import { reviewerRoles } from '../domain/access-requests.js';

/** Where an access request acts: its element configuration, the acting user and the tenant (the path's). */
export interface RequestContext {
  actorId: string;
  actorKey: string;
  tenant: { id: string; key: string };
  config: { id: string; roles_to_levels: string };
}

/** The path's configuration, user and tenant, each by key or id (404 naming the missing one). */
export async function requestContext(
  q: Queryable,
  envId: string,
  p: { config: string; user: string; tenant: string },
): Promise<RequestContext> {
  const config = await findElementsConfig(q, envId, p.config);
  const actor = await findKeyed<{ id: string; key: string }>(q, 'users', envId, p.user, 'user');
  const tenant = await findKeyed<{ id: string; key: string }>(q, 'tenants', envId, p.tenant, 'tenant');
  return { actorId: actor.id, actorKey: actor.key, tenant, config };
}

/** The public `AccessRequestDetails`. */
export interface RequestDetails {
  tenant?: string;
  role: string;
  resource?: string | null;
  resource_instance?: string | null;
}

/**
 * Files the request `id` of the acting user: its role (on an instance, if named) checked, the user in
 * the tenant, the moderators recorded. Returns it as read.
 */
export async function fileAccessRequest(
  tx: Queryable,
  envId: string,
  ctx: RequestContext,
  r: { id: string; details: RequestDetails; reason?: string | null; at: string },
): Promise<AccessRequestRow> {
  const { id, details: d, reason, at } = r;
  if (d.tenant && d.tenant !== ctx.tenant.key && d.tenant !== ctx.tenant.id) {
    throw httpError(
      'INVALID_INPUT',
      `access_request_details.tenant '${d.tenant}' differs from the path's tenant '${ctx.tenant.key}'`,
    );
  }
  // Details are stored as keys (a role or resource may be named by id): the read model and the
  // list filters speak keys.
  let resource = d.resource
    ? (await findKeyed<{ id: string; key: string }>(tx, 'resources', envId, d.resource, 'resource')).key
    : null;
  let instance: string | null = null;
  let on: { id: string; key: string } | undefined;
  if (d.resource_instance) {
    // `type:key`, a key of `resource`, or (as elsewhere in the API) an instance id.
    const given = d.resource_instance;
    const byId = given.includes(':') ? undefined : await findInstanceOrNull(tx, envId, given);
    const ref = given.includes(':') ? given : resource ? `${resource}:${given}` : byId ? given : null;
    if (!ref)
      throw invalid(
        ['body', 'access_request_details', 'resource'],
        'a resource_instance needs its resource (or the form type:key, or an instance id)',
      );
    const inst = byId ?? (await findInstance(tx, envId, ref));
    if (resource && inst.resource_key !== resource)
      throw httpError('INVALID_INPUT', `resource instance '${ref}' is not of resource '${resource}'`);
    if (inst.tenant_id !== ctx.tenant.id) {
      throw httpError(
        'MISMATCH_RESOURCE_INSTANCES_TENANTS',
        `resource instance '${ref}' is in tenant '${inst.tenant_key}', not '${ctx.tenant.key}'`,
      );
    }
    resource = inst.resource_key;
    instance = inst.key;
    on = { id: inst.resource_id, key: inst.resource_key };
  }
  // On an instance: its type's resource role of that key, else the top-level one (repo/role-scope.ts).
  const role = (await findRoleNamed(tx, envId, on, d.role)).key;
  if (!(await isUserInTenant(tx, ctx.actorId, ctx.tenant.id))) {
    throw httpError(
      'USER_NOT_IN_TENANT',
      `user '${ctx.actorKey}' is not in tenant '${ctx.tenant.key}' and so may not request access there`,
    );
  }
  await tx.run(
    `INSERT INTO access_requests (id, env_id, elements_config_id, requesting_user_id, tenant_id, role_key, resource_key, instance_key, reason,
       cancel_reason, status, reviewer_user_id, reviewed_at, reviewer_comment, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL, NULL, ?, ?)`,
    [id, envId, ctx.config.id, ctx.actorId, ctx.tenant.id, role, resource, instance, reason ?? null, at, at],
  );
  // "Relevant moderators are assigned to review": recorded now, so later role changes do not
  // silently hand a pending request to someone else.
  const roles = reviewerRoles(parseJson(ctx.config.roles_to_levels, {}));
  for (const m of await findModerators(tx, ctx.tenant.id, roles)) {
    await tx.run(`INSERT INTO access_request_moderators (request_id, user_id) VALUES (?, ?)`, [id, m]);
  }
  return (await getRequest(tx, envId, ctx.actorId, id))!;
}
