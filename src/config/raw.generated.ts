// Generated from schemas/roster.schema.json by src/config/codegen.ts. Do not edit by hand:
// change the schema, then run `node --import tsx src/config/codegen.ts`.

/** One Roster configuration file: part of the authorization environment declared as code. Several files (or a directory of them) merge into one desired state. See docs/config.md. */
export interface RawConfig {
  /** Format version. Optional; when present it must be 1. */
  version?: 1;
  /** Project key or id the configuration applies to. A --project flag (or ROSTER_PROJECT) that names another is refused. */
  project?: RawKey;
  /** Environment key or id the configuration applies to. An --env flag (or ROSTER_ENV) that names another is refused. */
  environment?: RawKey;
  /** Deletion as the declared default: `true` (every section the configuration has) or a list of sections whose live objects the configuration does not declare are deleted by `roster plan` and `roster apply` without --prune, within the delete limit. See docs/config.md#authoritative. */
  authoritative?: boolean | ("resources" | "roles" | "tenants" | "users" | "resource_instances" | "groups" | "access_requests" | "user_attributes" | "tenant_attributes" | "user_sets" | "resource_sets" | "set_rules")[];
  /** Values that differ by environment, by name: a string, a number or a bool. A value of any file of the configuration that is exactly `${name}` becomes the variable's value, of its type (`"${max_size}"` the number 50); `${name}` within a longer string is replaced by the value as text (`$${` writes a literal `${`). Each variable is declared once, usually in each environment's folder; an unknown variable is an error at its place. Not sent to the service. See docs/config.md. */
  variables?: {
    [key: string]: string | number | boolean;
  };
  /** Warnings that are meant, by rule and object: an acknowledged warning is not printed. Not sent to the service. See docs/config.md. */
  acknowledge?: {
    /** Roles that may be given to nobody (the warning `role "x" is not given to any user or group`). */
    "unused-role"?: RawKey[];
    /** Groups that may have no members and no member groups (`type:key`, or `key` for the type `group`). */
    "empty-group"?: string[];
    /** User sets and resource sets whose conditions are meant to match every user (every instance of their resource) or nothing (the warning `user set "x" matches every user`). */
    "empty-set"?: RawSetKey[];
  };
  /** Resource types, by key. Each declares the actions that roles can permit on its instances. */
  resources?: {
    [key: string]: RawResource;
  };
  /** Roles, by key. A role lists permissions `resource:action`; it is given to users (tenant-wide or on an instance) and to groups (on an instance). */
  roles?: {
    [key: string]: RawRole;
  };
  /** Tenants, by key. Users, resource instances and groups each live in tenants. */
  tenants?: {
    [key: string]: RawTenant;
  };
  /** Users, by key (letters, digits and `| @ + - . _`). `alice: {}` or `alice:` declares a user with no details. */
  users?: {
    [key: string]: RawUser;
  };
  /** Resource instances, by `<resource>:<key>`, e.g. `document:readme`. Roles are given on them. */
  resource_instances?: {
    [key: string]: RawResourceInstance;
  };
  /** Groups, by `<group type>:<key>` (the type defaults to `group` when omitted). Members of a group hold the roles given to the group. */
  groups?: {
    [key: string]: RawGroup;
  };
  /** User-management element configurations, by key: which roles review access requests. */
  access_requests?: {
    [key: string]: RawAccessRequestConfig;
  };
  /** User attribute definitions (ABAC), by key: the type (`level: number`) or `{type, description}`. Conditions of user sets and resource sets name them as `user.<key>`; the built-in `key`, `email`, `first_name`, `last_name`, `roles` (and the generated `tenants`) are never declared. See docs/config.md, "Attribute-based access". */
  user_attributes?: RawAttributeDefinitions;
  /** Tenant attribute definitions (ABAC), by key: the type or `{type, description}`. Conditions name them as `tenant.<key>` (`tenant.key` is built in). */
  tenant_attributes?: RawAttributeDefinitions;
  /** User sets (ABAC), by key: the users whose attributes match the conditions. Set rules give them permissions on resource sets. A key is one set across `user_sets` and `resource_sets`. */
  user_sets?: {
    [key: string]: RawUserSet;
  };
  /** Resource sets (ABAC), by key: the instances of one resource whose attributes match the conditions. */
  resource_sets?: {
    [key: string]: RawResourceSet;
  };
  /** Set rules (ABAC): each item lets a user set (or the holders of a top-level role) do actions on a resource set (or on every instance of a resource), e.g. `{ user_set: senior-approvers, can: approve, resource_set: small-expenses }`. */
  set_rules?: RawSetRule[];
  /** Access the environment must (or must not) give, checked by `roster check` and `roster plan`. Not sent to the service. See docs/check.md. */
  assertions?: RawAssertion[];
}

/** One assertion: who (`user` or `users_in`), what (`can`, `cannot` or `has_role`) and `on` which instance. Exactly one of `user` / `users_in` and exactly one of `can` / `cannot` / `has_role`. Or an exact set: `{who_can: <action>, on: <instance>, exactly: [users]}`, or `{user, can: <action>, on_type: <resource>, exactly: [instance keys]}`. */
export interface RawAssertion {
  /** The user the assertion is about. */
  user?: RawUserKey;
  /** A group (`<group type>:<key>` or `<key>`): the assertion holds for every member, direct or through nested groups. */
  users_in?: RawGroupRef;
  /** An action (`write`) of the instance's resource, or `<resource>:<action>`, that must be allowed. */
  can?: RawAssertionAction;
  /** An action (`write`) of the instance's resource, or `<resource>:<action>`, that must be denied. */
  cannot?: RawAssertionAction;
  /** A role the user must hold on the instance (directly, tenant-wide or through groups). */
  has_role?: RawKey;
  /** The resource instance (or group) `<resource>:<key>` the assertion is about. */
  on?: RawInstanceRef;
  /** An action of the `on` instance's resource: the users who may do it must be `exactly` those listed. */
  who_can?: RawAssertionAction;
  /** A resource: with `user`, `can` and `exactly`, the instances of it the user may do the action on must be exactly those listed (keys). */
  on_type?: RawKey;
  /** The exact set: user keys (`who_can`) or instance keys of `on_type` (`user` + `can`); `roster check --update` rewrites it from the model. */
  exactly?: string[];
  /** Attributes the check passes at decision time (ABAC): `user` and `resource` attributes (merged over the stored ones, these winning) and the `context`. See docs/check.md. */
  with?: {
    /** User attributes passed in the check. */
    user?: RawAttributes;
    /** Resource attributes passed in the check. */
    resource?: RawAttributes;
    /** The check's context (`context.<key>` in conditions). */
    context?: RawAttributes;
  };
}

/** An action key, or `<resource>:<action>`. */
export type RawAssertionAction = string;

/** Letters, digits, `-` and `_`, at most 256 characters. */
export type RawKey = string;

/** Letters, digits and `| @ + - . _`, at most 256 characters. */
export type RawUserKey = string;

/** `<resource>:<key>` of a resource instance, e.g. `document:readme`. */
export type RawInstanceRef = string;

/** `<group type>:<key>` of a group, or `<key>` for the default type `group`. */
export type RawGroupRef = string;

/** `<resource>:<action>`, e.g. `document:read`. */
export type RawPermission = string;

/** Display name. Defaults to the key. */
export type RawName = string;

/** Free-text description. */
export type RawDescription = string;

/** Free-form attributes (a mapping), passed to the service as they are. */
export type RawAttributes = Record<string, unknown>;

/** Action keys of a resource, e.g. `[read, write, share]`. */
export type RawActionList = RawKey[];

/** A resource type: a mapping, or the short form `[read, write]` (its actions), or empty. */
export type RawResource = RawResourceObject | RawActionList | null;

/** A resource type: its actions and, optionally, its relations, resource roles and attribute definitions. */
export interface RawResourceObject {
  name?: RawName;
  description?: RawDescription;
  actions?: RawActionList;
  /** Relations: how instances of other resources relate to this one's instances, by key (`parent: folder`: a folder instance can be the `parent` of a document). Relationship tuples under `resource_instances` use them, and role derivations (`granted_to`) follow them. */
  relations?: {
    [key: string]: RawRelation;
  };
  /** Resource roles: roles defined on this resource type (`document#editor`), by key. A role held on an instance of this resource is its resource role of that key when it has one (docs/config.md, "Resource roles"). */
  roles?: {
    [key: string]: RawResourceRole;
  };
  /** Attribute definitions of the resource (ABAC), by key: the type (`amount: number`) or `{type, description}`. Written, the resource has exactly these; left out, its live definitions stay as they are. Conditions name them as `resource.<key>`. */
  attributes?: RawAttributeDefinitions;
}

/** A relation: the subject resource's key (`folder`), or a mapping. */
export type RawRelation = RawKey | {
  /** The resource whose instances are the relation's subjects. */
  subject: RawKey;
  name?: RawName;
  description?: RawDescription;
};

/** A role derivation: users holding `role` on an instance of `on` that is related to this one by the relation `via` hold this role here. */
export interface RawDerivation {
  /** A resource role of `on`. */
  role: RawKey;
  /** The resource the role is held on (the relation's subject). */
  on: RawKey;
  /** A relation of this resource whose subject is `on`. */
  via: RawKey;
  /** Conditions of the derivation. */
  when?: {
    /** Derive only for users who hold no role assigned directly on this instance. */
    no_direct_roles_on_object?: boolean;
  };
}

/** A resource role: a mapping, or the short form `[read, write]` (its permissions: actions of this resource), or empty. */
export type RawResourceRole = RawResourceRoleObject | RawActionList | null;

/** A resource role. */
export interface RawResourceRoleObject {
  name?: RawName;
  description?: RawDescription;
  /** Actions of this resource the role permits, e.g. `[read, write]`. */
  permissions?: RawActionList;
  /** Other roles of this resource whose permissions this role includes, e.g. `[viewer]`. */
  extends?: RawKey[];
  /** Role derivations: where else this role comes from, e.g. `[{ role: editor, on: folder, via: parent }]`. */
  granted_to?: RawDerivation[];
}

/** Permissions `<resource>:<action>` the role grants. */
export type RawPermissionList = RawPermission[];

/** A role: a mapping, or the short form `[document:read]` (its permissions), or empty. */
export type RawRole = RawRoleObject | RawPermissionList | null;

/** A role. */
export interface RawRoleObject {
  name?: RawName;
  description?: RawDescription;
  permissions?: RawPermissionList;
  /** Other top-level roles whose permissions this role includes (transitively), by key. Written, it is exactly the role's `extends` on the service; left out, the live `extends` stays as it is. See docs/config.md. */
  extends?: RawKey[];
}

/** A tenant: a mapping, or the short form `Acme Inc.` (its name), or empty. */
export type RawTenant = RawTenantObject | RawName | null;

/** A tenant. */
export interface RawTenantObject {
  name?: RawName;
  description?: RawDescription;
  attributes?: RawAttributes;
}

/** A user: a mapping, or empty (`alice: {}` or `alice:`). */
export type RawUser = RawUserObject | null;

/** A user. */
export interface RawUserObject {
  /** Email address. */
  email?: string;
  /** First name. */
  first_name?: string;
  /** Last name. */
  last_name?: string;
  attributes?: RawAttributes;
  /** Tenants the user belongs to. A role given in a tenant also places the user in it. */
  tenants?: RawKey[];
  /** Roles the user holds: `{role, tenant}` tenant-wide, `{role, on: type:key}` on an instance, or just the role key when the user is in exactly one tenant. */
  roles?: RawUserRole[];
}

/** A role held by a user: a mapping, or the role key alone (tenant-wide in the user's only tenant). */
export type RawUserRole = RawUserRoleObject | RawKey;

/** A role held by a user, tenant-wide or on one resource instance. */
export interface RawUserRoleObject {
  /** Role key. */
  role: RawKey;
  /** Tenant key. Optional when `on` is given (the instance's tenant) or when the user is in exactly one tenant. */
  tenant?: RawKey;
  /** Resource instance `<resource>:<key>` (or a group) the role is given on; omit for tenant-wide. */
  on?: RawInstanceRef;
}

/** A resource instance: a mapping, or the short form `acme` (its tenant). */
export type RawResourceInstance = RawResourceInstanceObject | RawKey;

/** A resource instance. */
export interface RawResourceInstanceObject {
  /** Tenant the instance belongs to. */
  tenant: RawKey;
  attributes?: RawAttributes;
  /** Relationship tuples with this instance as their object, by relation: `parent: folder:finance` (or a list). An instance that writes `relations` has exactly these. */
  relations?: {
    [key: string]: RawInstanceRef | RawInstanceRef[];
  };
}

/** A group: a resource instance of its group type that collects users and other groups of the same type and tenant. */
export interface RawGroup {
  /** Tenant of the group. It never changes once created. */
  tenant: RawKey;
  /** Users who are direct members of the group. */
  members?: RawUserKey[];
  /** Roles given to the group on resource instances of its tenant; every member (direct or through nested groups) holds them. */
  roles?: RawGroupRole[];
  /** Groups (same type, same tenant) this group is placed in: every member of this group is a member of those. */
  member_of?: RawGroupRef[];
}

/** A role given to a group on one resource instance. */
export interface RawGroupRole {
  /** Role key. */
  role: RawKey;
  /** Resource instance `<resource>:<key>` (or a group) in the group's tenant. */
  on: RawInstanceRef;
}

/** A user-management element configuration: the roles whose holders review access requests in their tenant. */
export interface RawAccessRequestConfig {
  name?: RawName;
  /** Roles whose holders (in the request's tenant) may approve or deny requests. */
  reviewer_roles: RawKey[];
  /** How long a grant of a request approved through this configuration lasts, unless the configuration declares it: a whole number and a unit, s, m, h or d (`45s`, `30m`, `12h`, `7d`). `roster plan` shows older grants as deletions and `roster apply` revokes them. See docs/plan.md. */
  grant_for?: string;
}

/** An attribute type: bool, number, string, time, array, json, object or object_array. */
export type RawAttributeType = "bool" | "number" | "string" | "time" | "array" | "json" | "object" | "object_array";

/** Letters, digits, `-` and `_`, at most 256 characters; `type` is reserved by the service. */
export type RawAttributeKey = string;

/** Attribute definitions, by key. */
export type RawAttributeDefinitions = {
  [key: string]: RawAttributeDefinition;
};

/** An attribute definition: its type (`number`), or a mapping with `type` and `description`. */
export type RawAttributeDefinition = RawAttributeType | RawAttributeDefinitionObject;

/** An attribute definition. */
export interface RawAttributeDefinitionObject {
  type: RawAttributeType;
  description?: RawDescription;
}

/** Letters, digits, `-` and `_`, at most 256 characters, not starting with `__autogen_` (the service's own sets). */
export type RawSetKey = string;

/** A user set: the users whose attributes match its conditions (and its parent's). */
export interface RawUserSet {
  name?: RawName;
  description?: RawDescription;
  conditions?: RawConditions;
  /** Another user set: this set applies its parent's conditions (and the parent's ancestors') and its own. */
  parent?: RawSetKey;
}

/** A resource set: the instances of `resource` whose attributes match its conditions (and its parent's). */
export interface RawResourceSet {
  /** The base resource: the set holds instances of it, and set rules on the set permit its actions. */
  resource: RawKey;
  name?: RawName;
  description?: RawDescription;
  conditions?: RawConditions;
  /** Another resource set of the same resource: this set applies its parent's conditions (and the parent's ancestors') and its own. */
  parent?: RawSetKey;
}

/** The set's conditions, as the service stores them: `{allOf: [...]}`, `{anyOf: [...]}`, `{not: {...}}` or one comparison `{<entity>.<attribute>: {<operator>: <value>}}`. `{}` (the default) matches everything. See docs/config.md, "Conditions". */
export type RawConditions = RawCondition;

/** A condition: exactly one of `allOf`, `anyOf`, `not`, or `<entity>.<attribute>` (entity: user, subject, resource, tenant, role, context) with a comparison. */
export interface RawCondition {
  /** Every condition of the list holds (`[]`: always true). */
  allOf?: RawCondition[];
  /** At least one condition of the list holds (`[]`: never true). */
  anyOf?: RawCondition[];
  /** The condition does not hold (a list: not all of them hold). */
  not?: RawCondition | RawCondition[];
  [key: string]: unknown;
}

/** One operator and its value, e.g. `{greater-than-equals: 3}` or `{less-than-equals: {ref: user.approval_limit}}`. */
export interface RawComparison {
  /** The attribute equals the value (deep JSON equality). */
  equals?: RawOperand;
  /** The attribute differs from the value (false when the attribute is missing). */
  "not-equals"?: RawOperand;
  /** The attribute is greater than the value (numbers; strings and times compare as text). */
  "greater-than"?: RawOperand;
  /** The attribute is less than the value. */
  "less-than"?: RawOperand;
  /** The attribute is greater than or equal to the value. */
  "greater-than-equals"?: RawOperand;
  /** The attribute is less than or equal to the value. */
  "less-than-equals"?: RawOperand;
  /** The value is a substring of the string attribute. */
  contains?: RawOperand;
  /** The value is an element of the list attribute. */
  array_contains?: RawOperand;
  /** The list attribute and the list value share an element. */
  array_intersect?: RawOperand;
  /** Every element of the list attribute is in the list value. */
  array_subset?: RawOperand;
  /** Every element of the list value is in the list attribute. */
  array_superset?: RawOperand;
  /** The attribute is one of the elements of the list value. */
  in?: RawOperand;
  /** The object attribute satisfies every comparison of `match`, by field. */
  object_match?: RawMatch;
  /** Some item of the list attribute satisfies every comparison of `match`. */
  any_match?: RawMatch;
  /** Every item of the list attribute satisfies every comparison of `match`. */
  all_match?: RawMatch;
  [key: string]: unknown;
}

/** A literal value, or `{ref: <entity>.<attribute>}`: another attribute's value. */
export type RawOperand = RawAttributeReference | unknown;

/** Another attribute: `{ref: user.approval_limit}`. */
export interface RawAttributeReference {
  /** `<entity>.<attribute>`. */
  ref: string;
}

/** `{match: {<field>: {<operator>: <value>}}, fk_resource_type?: <resource>}`. */
export interface RawMatch {
  /** Comparisons by field of the object (or of each item). */
  match: {
    [key: string]: RawComparison;
  };
  /** The attribute holds instance key(s) of this resource; `match` applies to those instances' attributes. */
  fk_resource_type?: RawKey;
}

/** A set rule: exactly one of `user_set` / `role`, exactly one of `resource_set` / `resource`, and `can`. */
export interface RawSetRule {
  /** The user set the rule is for. */
  user_set?: RawSetKey;
  /** A top-level role: the rule is for its holders (the role's autogenerated user set). */
  role?: RawKey;
  /** An action of the resource set's resource (`approve`, or `expense:approve`), or a list of them. */
  can: RawAssertionAction | RawAssertionAction[];
  /** The resource set the rule permits on. */
  resource_set?: RawSetKey;
  /** A resource: the rule permits on every instance of it (the resource's autogenerated resource set). */
  resource?: RawKey;
}
