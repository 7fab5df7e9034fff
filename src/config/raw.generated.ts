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
  authoritative?: boolean | ("resources" | "roles" | "tenants" | "users" | "resource_instances" | "groups" | "access_requests")[];
  /** Values that differ by environment, by name: `${name}` in a string value of any file of the configuration is replaced by the value (`$${` writes a literal `${`). Each variable is declared once, usually in each environment's folder; an unknown variable is an error at its place. Not sent to the service. See docs/config.md. */
  variables?: {
    [key: string]: string;
  };
  /** Warnings that are meant, by rule and object: an acknowledged warning is not printed. Not sent to the service. See docs/config.md. */
  acknowledge?: {
    /** Roles that may be given to nobody (the warning `role "x" is not given to any user or group`). */
    "unused-role"?: RawKey[];
    /** Groups that may have no members and no member groups (`type:key`, or `key` for the type `group`). */
    "empty-group"?: string[];
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
  /** Access the environment must (or must not) give, checked by `roster check` and `roster plan`. Not sent to the service. See docs/check.md. */
  assertions?: RawAssertion[];
}

/** One assertion: who (`user` or `users_in`), what (`can`, `cannot` or `has_role`) and `on` which instance. Exactly one of `user` / `users_in` and exactly one of `can` / `cannot` / `has_role`. */
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
  on: RawInstanceRef;
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

/** A resource type: its actions and, optionally, its resource roles. */
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
