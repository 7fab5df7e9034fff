/**
 * Changes: a closed union keyed by a stable identity, each kind with fields of its own. The planner
 * builds every change through the constructors below, so a misspelled or missing field fails the
 * compiler (drizzle-kit's `prepareStatement`); readers switch on the kind of `fieldsOf(c)` and get that
 * kind's fields. The fields are the plan's JSON as it has always been (docs/plan.md, "The plan value"):
 * the types only say what each kind holds.
 */
import { InternalError } from '../errors.js';
import type { GrantRequest } from '../types/live.js';
import { defined, type FieldChange } from './compare.js';

export type { FieldChange };

/** Object kinds, in dependency order: a kind only refers to kinds before it. */
export const KINDS = [
  'resource',
  'resource_attribute',
  'relation',
  'resource_role',
  'derivation',
  'role',
  'user_attribute',
  'tenant_attribute',
  'condition_set',
  'set_rule',
  'tenant',
  'user',
  'tenant_user',
  'instance',
  'group',
  'tuple',
  'assignment',
  'member',
  'link',
  'grant',
  'access_requests',
] as const;
export type Kind = (typeof KINDS)[number];

type Attributes = Record<string, unknown>;

/**
 * The fields of each kind of change: its `after` (create, update) or `before` (update, delete), in the
 * service's words (`first_name`, `reviewer_roles`). References to other objects are `type:key`.
 */
export interface ChangeFields {
  resource: { key: string; name: string; description?: string; actions: string[] };
  /** A relation of the object resource `resource`, whose subjects are instances of `subject`. */
  relation: { resource: string; key: string; name: string; description?: string; subject: string };
  resource_role: {
    resource: string;
    key: string;
    name: string;
    description?: string;
    permissions: string[];
    extends: string[];
  };
  /** `resource#role` is held by whoever holds `from` on an `on` instance related by `via`. */
  derivation: {
    resource: string;
    role: string;
    from: string;
    on: string;
    via: string;
    no_direct_roles_on_object?: boolean;
  };
  role: { key: string; name: string; description?: string; permissions: string[]; extends?: string[] };
  tenant: { key: string; name: string; description?: string; attributes?: Attributes };
  user: { key: string; email?: string; first_name?: string; last_name?: string; attributes?: Attributes };
  /** A user's presence in a tenant. */
  tenant_user: { user: string; tenant: string };
  /** A deletion's `before` is the live instance as read: with its tuples (`relations`) when it has any. */
  instance: {
    resource: string;
    key: string;
    tenant: string;
    attributes?: Attributes;
    relations?: { relation: string; subject: string }[];
  };
  group: { type: string; key: string; tenant: string };
  /** `object` (an instance of the relation's resource) is related to `subject` by `relation`. */
  tuple: { subject: string; relation: string; object: string; tenant: string };
  /** A user's role: on the instance or group `on`, or tenant-wide when `on` is absent. */
  assignment: { user: string; role: string; tenant: string; on?: string };
  /** A user in a group (the service's `member` role on the group). */
  member: { user: string; group: string; tenant: string };
  /** A group linked into the group `parent`: its members are members of the parent. */
  link: { group: string; parent: string };
  /** A group's role on the instance or group `on`. */
  grant: { group: string; role: string; on: string; tenant: string };
  access_requests: { key: string; name: string; reviewer_roles: string[] };
  /** An attribute definition of the resource `resource` (ABAC). */
  resource_attribute: { resource: string; key: string; type: string; description?: string };
  /** A user attribute definition (the built-in resource `__user`). */
  user_attribute: { key: string; type: string; description?: string };
  /** A tenant attribute definition (the built-in resource `__tenant`). */
  tenant_attribute: { key: string; type: string; description?: string };
  /**
   * A user set (`userset`) or a resource set (`resourceset`, on the resource `resource`): its conditions
   * as the service stores them, its parent set by key. Only name, description, conditions and parent can
   * be updated; another type or resource replaces the set.
   */
  condition_set: {
    key: string;
    type: string;
    name: string;
    description?: string;
    resource?: string;
    conditions: Record<string, unknown>;
    parent?: string;
  };
  /** A set rule: the user set may do `permission` (`resource:action`) on the resource set (`__autogen_<role|resource>` for a role's or a resource's own set). */
  set_rule: { user_set: string; permission: string; resource_set: string };
}

interface ChangeBase<K extends Kind> {
  /** Stable identity: `group:team:eng`, `member:alice@team:eng`, `assignment:bob:admin@acme`. */
  id: string;
  kind: K;
  /** Identities of other changes in this plan that must succeed first. */
  dependsOn: string[];
}

export interface CreateChangeOf<K extends Kind> extends ChangeBase<K> {
  action: 'create';
  after: ChangeFields[K];
  /** The live object exists with a field that cannot be updated (an instance's or group's tenant): delete it first. */
  replaces?: FieldChange[];
  /**
   * A replacement's deletion takes with it (cascade.ts), by identity, sorted: the set rules on a replaced
   * condition set that the plan does not make again. Absent when nothing goes with it.
   */
  cascade?: string[];
}

export interface UpdateChangeOf<K extends Kind> extends ChangeBase<K> {
  action: 'update';
  before: ChangeFields[K];
  after: ChangeFields[K];
  fields: FieldChange[];
  /**
   * What the service deletes because of this update (cascade.ts), by identity, sorted: the set rules
   * that need an action a resource update removes. Absent when nothing goes with it.
   */
  cascade?: string[];
}

/** Why an expired grant's deletion is planned: the newest approval, and the lifetime it had. */
export interface ExpiredGrant {
  request: GrantRequest;
  grantFor: string;
  expiredAt: string;
}

export interface DeleteChangeOf<K extends Kind> extends ChangeBase<K> {
  action: 'delete';
  before: ChangeFields[K];
  /** An assignment an approved access request made, deleted because it outlived its `grant_for`. */
  expired?: ExpiredGrant;
  /**
   * What the service deletes with it (cascade.ts), by identity, sorted: memberships, grants, links,
   * role assignments, tenant presence, instances, approved access requests. Each identity appears under
   * one deletion only, and never when the plan deletes it itself. Absent when nothing goes with it.
   */
  cascade?: string[];
  /**
   * An attribute definition's deletion: keys of the condition sets (live, or declared) whose conditions
   * still use the attribute. The service deletes it anyway, and those conditions then evaluate it as
   * undefined (false), silently: the plan warns. Absent when none does.
   */
  usedBy?: string[];
}

/** A change of one kind. */
export type ChangeOf<K extends Kind> = CreateChangeOf<K> | UpdateChangeOf<K> | DeleteChangeOf<K>;

// Unions over kinds, so that narrowing `kind` narrows the fields.
export type CreateChange = { [K in Kind]: CreateChangeOf<K> }[Kind];
export type UpdateChange = { [K in Kind]: UpdateChangeOf<K> }[Kind];
export type DeleteChange = { [K in Kind]: DeleteChangeOf<K> }[Kind];
export type Change = CreateChange | UpdateChange | DeleteChange;

/** A kind with its fields: switching on `kind` narrows `fields`. */
export type KindFields = { [K in Kind]: { kind: K; fields: ChangeFields[K] } }[Kind];

/**
 * A change's kind and fields (`after`, or `before` for a deletion), for a `switch` on the kind:
 * `const { kind, fields: f } = fieldsOf(c); switch (kind) { case 'member': f.group ... }`.
 */
export function fieldsOf(c: Change): KindFields {
  return { kind: c.kind, fields: c.action === 'delete' ? c.before : c.after } as KindFields;
}

/** The fields of a change that must be of kind `kind` (one of a batch of that kind); another kind is a bug. */
export function fieldsAs<K extends Kind>(c: Change, kind: K): ChangeFields[K] {
  if (c.kind !== kind) throw new InternalError(`${c.id} is a change of kind ${c.kind}, not ${kind}`);
  return (c.action === 'delete' ? c.before : c.after) as ChangeFields[K];
}

/**
 * Fields `F` for a change of kind `K`, with no field that kind does not have. TypeScript checks excess
 * fields only on an object literal written as the argument itself, not on one a lambda returns or a Map
 * holds (how the planner builds most fields): there a misspelled optional field (`descripton`) would pass
 * as an extra one. Taking `F` as inferred and mapping its extra fields to `never` refuses them everywhere.
 */
export type Exact<K extends Kind, F> = F & { [P in Exclude<keyof F, keyof ChangeFields[K]>]: never };

// The constructors. Undefined fields are dropped (`defined`), so the JSON carries only what is set; the
// order of the keys is the plan's JSON order, which the checksum and saved plans rely on.

/** A creation: `createChange('member', id, { user, group, tenant })`. */
export function createChange<K extends Kind, F extends ChangeFields[K]>(
  kind: K,
  id: string,
  after: Exact<K, F>,
  replaces?: FieldChange[],
): CreateChangeOf<K> {
  return { action: 'create', kind, id, after: defined(after), dependsOn: [], ...(replaces ? { replaces } : {}) };
}

/** An update from `before` to `after`, with the fields that differ. */
export function updateChange<K extends Kind, B extends ChangeFields[K], A extends ChangeFields[K]>(
  kind: K,
  id: string,
  before: Exact<K, B>,
  after: Exact<K, A>,
  fields: FieldChange[],
): UpdateChangeOf<K> {
  return { action: 'update', kind, id, before: defined(before), after: defined(after), fields, dependsOn: [] };
}

/** A deletion of what `before` describes. */
export function deleteChange<K extends Kind, F extends ChangeFields[K]>(
  kind: K,
  id: string,
  before: Exact<K, F>,
): DeleteChangeOf<K> {
  return { action: 'delete', kind, id, before: defined(before), dependsOn: [] };
}
