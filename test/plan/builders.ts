import {
  emptyDesiredState,
  SECTIONS,
  type DesiredAccessRequestConfig,
  type DesiredGroup,
  type DesiredResource,
  type DesiredResourceInstance,
  type DesiredRole,
  type DesiredState,
  type DesiredTenant,
  type DesiredUser,
  type DesiredUserRole,
  type Section,
} from '../../src/types/desired.js';
import { sortDesiredState } from '../../src/config/sort.js';
import { splitRef } from '../../src/types/refs.js';
import { emptyLiveState, type LiveState } from '../../src/types/live.js';
import type { Plan } from '../../src/plan/types.js';

/**
 * Small builders for planner tests: each test shows only what matters. `desired({...})` and `live({...})`
 * take the same lists; `desired` manages exactly the sections given (or `sections`), as a configuration
 * file with those sections would.
 */

export const aResource = (
  key: string,
  actions: string[] = ['read'],
  more: Partial<DesiredResource> = {},
): DesiredResource => ({ key, name: key, actions, ...more });

export const aRole = (key: string, permissions: string[] = [], more: Partial<DesiredRole> = {}): DesiredRole => ({
  key,
  name: key,
  permissions,
  ...more,
});

export const aTenant = (key: string, more: Partial<DesiredTenant> = {}): DesiredTenant => ({ key, name: key, ...more });

/** `roles` as `role@tenant` (tenant-wide) or `role@type:key` (on an instance in `tenant`, default the first tenant). */
export function aUser(
  key: string,
  more: { tenants?: string[]; roles?: (string | DesiredUserRole)[] } & Partial<
    Omit<DesiredUser, 'tenants' | 'roles'>
  > = {},
): DesiredUser {
  const tenants = more.tenants ?? [];
  const roles = (more.roles ?? []).map((r) => (typeof r === 'string' ? parseUserRole(r, tenants[0] ?? '') : r));
  return { ...more, key, tenants, roles };
}

function parseUserRole(text: string, tenant: string): DesiredUserRole {
  const [role, where] = text.split('@');
  return where.includes(':') ? { role, tenant, on: where } : { role, tenant: where };
}

export const anInstance = (
  ref: string,
  tenant: string,
  attributes?: Record<string, unknown>,
): DesiredResourceInstance => {
  const { type, key } = splitRef(ref);
  return { resource: type, key, tenant, ...(attributes ? { attributes } : {}) };
};

/** `roles` as `role@type:key`. */
export function aGroup(
  ref: string,
  more: { tenant?: string; members?: string[]; roles?: string[]; memberOf?: string[] } = {},
): DesiredGroup {
  const { type, key } = splitRef(ref);
  return {
    type,
    key,
    tenant: more.tenant ?? 'acme',
    members: more.members ?? [],
    roles: (more.roles ?? []).map((r) => ({ role: r.split('@')[0], on: r.split('@')[1] })),
    memberOf: more.memberOf ?? [],
  };
}

export const anAccessRequests = (
  key: string,
  reviewerRoles: string[] = [],
  name = key,
): DesiredAccessRequestConfig => ({ key, name, reviewerRoles });

export interface StateInput {
  resources?: DesiredResource[];
  roles?: DesiredRole[];
  tenants?: DesiredTenant[];
  users?: DesiredUser[];
  instances?: DesiredResourceInstance[];
  groups?: DesiredGroup[];
  accessRequests?: DesiredAccessRequestConfig[];
}

const FIELD_OF: Record<keyof StateInput, Section> = {
  resources: 'resources',
  roles: 'roles',
  tenants: 'tenants',
  users: 'users',
  instances: 'resource_instances',
  groups: 'groups',
  accessRequests: 'access_requests',
};

function fill(target: LiveState, input: StateInput): void {
  for (const r of input.resources ?? []) target.resources.set(r.key, structuredClone(r));
  for (const r of input.roles ?? []) target.roles.set(r.key, structuredClone(r));
  for (const t of input.tenants ?? []) target.tenants.set(t.key, structuredClone(t));
  for (const u of input.users ?? []) target.users.set(u.key, structuredClone(u));
  for (const i of input.instances ?? []) target.resourceInstances.set(`${i.resource}:${i.key}`, structuredClone(i));
  for (const g of input.groups ?? []) target.groups.set(`${g.type}:${g.key}`, structuredClone(g));
  for (const a of input.accessRequests ?? []) target.accessRequests.set(a.key, structuredClone(a));
}

/** A desired state managing the sections given as keys (even empty lists), or `sections`. */
export function desired(
  input: StateInput & { sections?: Section[]; project?: string; environment?: string } = {},
): DesiredState {
  const d = emptyDesiredState();
  fill(d, input);
  const given = (Object.keys(FIELD_OF) as (keyof StateInput)[])
    .filter((k) => input[k] !== undefined)
    .map((k) => FIELD_OF[k]);
  d.sections = new Set(input.sections ?? given);
  return sortDesiredState(d);
}

/** Every section, for "the configuration manages everything". */
export const ALL_SECTIONS: Section[] = [...SECTIONS];

/**
 * A live state as readLiveState returns it: a user's `tenants` also holds the tenants of their roles and
 * of the groups they are a member of (the service counts them in).
 */
export function live(input: StateInput = {}): LiveState {
  const l = emptyLiveState();
  fill(l, input);
  for (const u of l.users.values()) {
    const via = [
      ...u.roles.map((r) => r.tenant),
      ...[...l.groups.values()].filter((g) => g.members.includes(u.key)).map((g) => g.tenant),
    ];
    u.tenants = [...new Set([...u.tenants, ...via])].sort();
  }
  return l;
}

/** A desired state read back as live: what the service holds right after a complete apply. */
export function asLive(d: DesiredState): LiveState {
  return live({
    resources: [...d.resources.values()],
    roles: [...d.roles.values()],
    tenants: [...d.tenants.values()],
    users: [...d.users.values()],
    instances: [...d.resourceInstances.values()],
    groups: [...d.groups.values()],
    accessRequests: [...d.accessRequests.values()],
  });
}

/** `+id`, `~id`, `-id` in plan order: the compact expectation of a table row. */
export function brief(plan: Plan): string[] {
  return plan.changes.map((c) => `${c.action === 'create' ? '+' : c.action === 'update' ? '~' : '-'}${c.id}`);
}

export const OPTIONS = { project: 'p', environment: 'e' };
