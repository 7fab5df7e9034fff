import { BOOLEAN, ID, listOf, OBJECT, optional, recordOf, STRING, type Shape } from './answer.js';
import { LEVELS } from './levels.js';

/**
 * What each item of the lists the plan reads must hold (`listAll(path, {item})`, answer.ts): only the
 * fields Roster reads from it, with the types it reads them as. A field one dialect may leave out, or
 * send as null (api-notes.md, "Client tolerance": a user without `first_name`, a role without
 * `description`, a group without `group_resource_type_key`), is optional. Readers that share a list
 * (read-live.ts and read-request-grants.ts, through shared-reads.ts) pass the same shape, which names
 * what either reads: the request-grant reader looks objects up by `id`.
 */

const TEXT = optional(STRING);

/** `GET /v2/facts/{p}/{e}/users`. */
export const USER_ITEM: Shape = {
  id: ID,
  key: STRING,
  email: TEXT,
  first_name: TEXT,
  last_name: TEXT,
  attributes: optional(OBJECT),
  associated_tenants: optional(listOf({ tenant: STRING })),
};

/** `GET /v2/facts/{p}/{e}/tenants`. */
export const TENANT_ITEM: Shape = { id: ID, key: STRING, name: STRING, description: TEXT, attributes: optional(OBJECT) };

/** `GET /v2/schema/{p}/{e}/roles` (top-level roles). */
export const ROLE_ITEM: Shape = { id: ID, key: STRING, name: STRING, description: TEXT, permissions: optional(listOf(STRING)), extends: optional(listOf(STRING)) };

/** A role derivation (`DerivedRoleRuleRead`), in `granted_to.users_with_role` of a resource role. */
const DERIVATION: Shape = {
  role: STRING,
  on_resource: STRING,
  linked_by_relation: STRING,
  when: optional({ no_direct_roles_on_object: optional(BOOLEAN) }),
};

/** A resource role (`ResourceRoleRead`), in `roles` of a resource; the entry's name is its key when `key` is missing. */
const RESOURCE_ROLE: Shape = {
  id: optional(ID),
  key: TEXT,
  name: TEXT,
  description: TEXT,
  permissions: optional(listOf(STRING)),
  extends: optional(listOf(STRING)),
  granted_to: optional({ users_with_role: optional(listOf(DERIVATION)) }),
};

/** A relation (`RelationBlockRead`), in `relations` of a resource: the subject is `resource` (or `subject_resource`). */
const RELATION: Shape = { resource: TEXT, subject_resource: TEXT, relation_name: TEXT, name: TEXT, description: TEXT };

/** `GET /v2/schema/{p}/{e}/resources`: the actions are read for their names only. */
export const RESOURCE_ITEM: Shape = {
  id: ID,
  key: STRING,
  name: STRING,
  description: TEXT,
  actions: optional(OBJECT),
  roles: optional(recordOf(RESOURCE_ROLE)),
  relations: optional(recordOf(RELATION)),
};

/** `GET /v2/facts/{p}/{e}/resource_instances`. */
export const INSTANCE_ITEM: Shape = { id: ID, key: STRING, resource: STRING, tenant: STRING, attributes: optional(OBJECT) };

/**
 * `GET /v2/facts/{p}/{e}/role_assignments`: `resource_instance` is `type:key`, absent for a tenant-wide role.
 * The public schema requires `tenant_id` and lets `tenant` (the key) out: the reader takes the key, or
 * finds it from the id among the tenants it read, and refuses an assignment that gives neither.
 */
export const ASSIGNMENT_ITEM: Shape = { user: STRING, role: STRING, tenant: TEXT, tenant_id: optional(ID), resource_instance: TEXT };

/** `GET /v2/facts/{p}/{e}/relationship_tuples`: subject and object are `type:key`. */
export const TUPLE_ITEM: Shape = { subject: STRING, relation: STRING, object: STRING };

/** `GET /v2/schema/{p}/{e}/groups/direct` (`GroupReadSchema`): the type defaults to `group`. */
export const GROUP_ITEM: Shape = { group_instance_key: STRING, group_tenant: STRING, group_resource_type_key: TEXT };

/** `GET /v2/schema/{p}/{e}/groups/{key}/roles` (`GroupRoleReadSchema`). */
export const GROUP_ROLE_ITEM: Shape = { key: STRING, resource: { key: STRING }, resource_instance: { key: STRING } };

/** `GET /v2/elements/{p}/{e}/config`: configurations of another `elements_type` are skipped. */
export const CONFIG_ITEM: Shape = { key: STRING, name: STRING, elements_type: TEXT, roles_to_levels: optional(LEVELS) };

/** `GET /v2/elements/{p}/{e}/config/{key}/access_requests` (`AccessRequestRead`), as the request-grant reader uses it. */
export const ACCESS_REQUEST_ITEM: Shape = {
  id: STRING,
  status: TEXT,
  requesting_user_id: TEXT,
  reviewer_user_id: TEXT,
  reviewed_at: TEXT,
  updated_at: STRING,
  access_request_details: { tenant: STRING, role: STRING, resource: TEXT, resource_instance: TEXT },
};
