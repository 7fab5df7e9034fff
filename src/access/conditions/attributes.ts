import type { Bags } from './evaluate.js';
import { AttrSet, type Bag, type Json, type JsonObject, type Value } from './types.js';

/** Built-in user attributes (`built_in: true`): always defined. `roles` is generated per check. */
export const BUILT_IN_USER_ATTRIBUTES = ['key', 'email', 'first_name', 'last_name', 'roles'] as const;
/** Attributes the decision generates besides the built-ins: `user.tenants`, `resource.type`, `tenant.key`. */
export const GENERATED = { user: ['roles', 'tenants'], resource: ['type'], tenant: ['key'] } as const;

/** What is known about one check, as plain data (no storage rows). */
export interface CheckFacts {
  user: {
    key: string;
    /** The stored user, when there is one: its fields and stored attributes. */
    stored?: { email?: string | null; first_name?: string | null; last_name?: string | null; attributes: JsonObject };
    /** Top-level roles the user holds tenant-wide in the check's tenant. */
    rolesInTenant: string[];
    /** Tenants where the user has role assignments. */
    tenants: string[];
    /** `user.attributes` of the check. */
    passed?: JsonObject;
  };
  resource: { type: string; stored?: JsonObject; passed?: JsonObject };
  /** The check's tenant (`resource.tenant`, `default` when absent), its stored attributes, and whether the user has a role there. */
  tenant: { key: string; stored?: JsonObject; member: boolean };
  context?: JsonObject;
  /** Attributes of the roles in `user.rolesInTenant`. */
  roleAttributes?: JsonObject[];
  /** Attribute keys with a definition: stored values of other keys do not count. */
  defined: { user: ReadonlySet<string>; tenant: ReadonlySet<string>; resource: ReadonlySet<string> };
}

/**
 * The attributes a check sees (api-notes "Decision point"), later sources winning key by key with nested
 * objects merged (Rego's `object.union_n`):
 * - user: generated `roles`, `tenants` < the stored user (`key`, `email`, `first_name`, `last_name`, and
 *   stored attributes that have a definition) < the check's `user.attributes`;
 * - resource: `type` < the stored instance's defined attributes < the check's `resource.attributes`;
 * - tenant: only when the user has a role in it: `key` < its defined stored attributes;
 * - context: the check's `context`; roles: the held roles' attributes.
 */
export function checkAttributes(f: CheckFacts): Bags {
  const stored = f.user.stored;
  const storedUser: Bag = stored
    ? {
        key: f.user.key,
        ...(stored.email ? { email: stored.email } : {}),
        ...(stored.first_name ? { first_name: stored.first_name } : {}),
        ...(stored.last_name ? { last_name: stored.last_name } : {}),
        ...definedOnly(stored.attributes, f.defined.user),
      }
    : {};
  const user = mergeAll([
    { roles: new AttrSet(f.user.rolesInTenant), tenants: new AttrSet(f.user.tenants) },
    storedUser,
    f.user.passed ?? {},
  ]);
  const resource = mergeAll([
    { type: f.resource.type },
    definedOnly(f.resource.stored ?? {}, f.defined.resource),
    f.resource.passed ?? {},
  ]);
  const tenant = f.tenant.member
    ? mergeAll([{ key: f.tenant.key }, definedOnly(f.tenant.stored ?? {}, f.defined.tenant)])
    : {};
  return {
    user,
    resource,
    tenant,
    context: { ...(f.context ?? {}) },
    roles: (f.roleAttributes ?? []).map((r) => ({ ...r })),
  };
}

function definedOnly(attributes: JsonObject, defined: ReadonlySet<string>): Bag {
  return Object.fromEntries(Object.entries(attributes).filter(([k]) => defined.has(k)));
}

const isMergeable = (v: Value | undefined): v is Bag =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof AttrSet);

/** Rego's `object.union_n`: left to right, a later value wins, two objects under one key merge recursively. */
export function mergeAll(bags: Bag[]): Bag {
  const out: Bag = {};
  for (const b of bags) {
    for (const [k, v] of Object.entries(b)) {
      const before = out[k];
      out[k] = isMergeable(before) && isMergeable(v) ? mergeAll([before, v]) : v;
    }
  }
  return out;
}

/** Plain JSON objects only (what a check may pass as attributes or context); anything else is no attributes. */
export function asJsonObject(v: unknown): JsonObject | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as { [k: string]: Json }) : undefined;
}
