import { AUTOGEN_SET_PREFIX } from '../../types/abac.js';
import { InternalError } from '../../errors.js';
import { fieldsOf, type Change, type ChangeFields } from '../../plan/change.js';
import { MEMBER_ROLE } from '../../types/names.js';
import type { F } from './common.js';

/** The request bodies of apply's writes, in the public schemas' shapes (also sent in bulk: batches.ts). */

/** The role-assignment body of an `assignment` or `member` change (memberships are `member` on the group). */
export function assignmentBody(c: Change): F {
  const { kind, fields: f } = fieldsOf(c);
  if (kind === 'member') return { user: f.user, role: MEMBER_ROLE, tenant: f.tenant, resource_instance: f.group };
  if (kind !== 'assignment') throw new InternalError(`${c.id} is not a role assignment`);
  return { user: f.user, role: f.role, tenant: f.tenant, ...(f.on ? { resource_instance: f.on } : {}) };
}

/** A user's fields as the public `UserCreate` takes them: absent ones left out. */
export function userBody(f: ChangeFields['user']): F {
  const body: F = { key: f.key, attributes: f.attributes ?? {} };
  for (const k of ['email', 'first_name', 'last_name'] as const) if (typeof f[k] === 'string') body[k] = f[k];
  return body;
}

/** A relationship tuple as the public `RelationshipTupleCreate`: the tenant lets the service create a missing instance. */
export const tupleBody = (f: ChangeFields['tuple']) => ({
  subject: f.subject,
  relation: f.relation,
  object: f.object,
  tenant: f.tenant,
});

/** The public `ConditionSetCreate`: the base resource and the parent by key (`resource_id`, `parent_id` take keys or ids). */
export function conditionSetBody(f: ChangeFields['condition_set']): F {
  return {
    key: f.key,
    name: f.name,
    type: f.type,
    ...(f.description ? { description: f.description } : {}),
    conditions: f.conditions ?? {},
    ...(f.resource ? { resource_id: f.resource } : {}),
    ...(f.parent ? { parent_id: f.parent } : {}),
  };
}

/**
 * The public `ConditionSetRuleCreate` / `ConditionSetRuleRemove`. A rule on a role's or a resource's own
 * set (`__autogen_<key>`) names the role or resource with `is_role` / `is_resource`, the documented form.
 */
export function setRuleBody(f: ChangeFields['set_rule']): F {
  const role = f.user_set.startsWith(AUTOGEN_SET_PREFIX) ? f.user_set.slice(AUTOGEN_SET_PREFIX.length) : undefined;
  const resource = f.resource_set.startsWith(AUTOGEN_SET_PREFIX)
    ? f.resource_set.slice(AUTOGEN_SET_PREFIX.length)
    : undefined;
  return {
    user_set: role ?? f.user_set,
    permission: f.permission,
    resource_set: resource ?? f.resource_set,
    ...(role !== undefined ? { is_role: true } : {}),
    ...(resource !== undefined ? { is_resource: true } : {}),
  };
}
