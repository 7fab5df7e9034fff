import { pathOf, type ApiClient } from '../api/index.js';
import { isEnvelope } from '../api/paging.js';
import { CONFIG_SHAPE, reviewerRolesOf, type LevelsRead } from '../api/levels.js';
import { expectFields, expectListItems, ID, listOf, optional, STRING, type Shape } from '../api/answer.js';
import { ASSIGNMENT_ITEM, RESOURCE_ITEM } from '../api/shapes.js';
import { resourceRolesOf, type ResourceRead } from '../api/read-live.js';
import type { RequesterFacts, RoleInfo, SetRulesRead } from './impact.js';

/**
 * The review's reads of the environment around a request (source.ts): its roles, its set rules, a
 * requester's assignments, who reviews in a tenant. Each reads only what it names.
 */

const CONDITION_SET_ITEM: Shape = { key: STRING, type: optional(STRING), id: optional(ID), parent_id: optional(ID) };
const SET_RULE_ITEM: Shape = { user_set: STRING, permission: STRING, resource_set: STRING };
const ROLE_ITEM: Shape = {
  id: optional(ID),
  key: STRING,
  name: optional(STRING),
  permissions: optional(listOf(STRING)),
  extends: optional(listOf(STRING)),
};

export interface Reviewers {
  roles: string[];
  /** Tenant-wide holders of a reviewer role, at most two (`complete`: every one). */
  holders: string[];
  complete: boolean;
}

/** Reviewers looked for until this many are found: enough to tell "nobody" and "only the requester" apart from "someone else". */
const ENOUGH_REVIEWERS = 2;

/** Every role of the environment, top-level and resource roles, with their permissions. */
export async function readRoles(client: ApiClient): Promise<RoleInfo[]> {
  // Top-level roles, and each resource's own roles (with their derivations): a role named on an
  // instance is the resource role of its type when there is one, as the service resolves it.
  const [roles, resources] = await Promise.all([
    client.listAll<Record<string, unknown>>(`${client.paths.schema}/roles`, {
      firstPageQuery: { include_total_count: true },
      item: ROLE_ITEM,
    }),
    client.listAll<ResourceRead>(`${client.paths.schema}/resources`, {
      firstPageQuery: { include_total_count: true },
      item: RESOURCE_ITEM,
    }),
  ]);
  const topLevelIds = new Set(roles.flatMap((r) => (typeof r.id === 'string' ? [r.id] : [])));
  return [
    ...roles.map((r) => ({
      key: String(r.key),
      name: typeof r.name === 'string' ? r.name : undefined,
      permissions: Array.isArray(r.permissions) ? r.permissions.map(String) : [],
      extends: Array.isArray(r.extends) ? r.extends.map(String) : [],
    })),
    ...resources.flatMap((res) => resourceRolesOf(res, topLevelIds).map((r) => ({ ...r, resource: res.key }))),
  ];
}

/** The environment's user sets, resource sets and set rules. */
export async function readSetRules(client: ApiClient): Promise<SetRulesRead> {
  const [sets, rules] = await Promise.all([
    client.listAll<Record<string, unknown>>(`${client.paths.schema}/condition_sets`, {
      firstPageQuery: { include_total_count: true },
      item: CONDITION_SET_ITEM,
    }),
    client.listAll<Record<string, unknown>>(`${client.paths.facts}/set_rules`, { item: SET_RULE_ITEM }),
  ]);
  // `parent_id` is an id in the public read model: named by key through the same list.
  const keyOf = new Map(sets.flatMap((c) => (c.id !== undefined ? [[String(c.id), String(c.key)] as const] : [])));
  return {
    sets: sets.map((c) => {
      const resource = (c.resource as { key?: unknown } | undefined)?.key;
      const parent =
        c.parent_id !== undefined && c.parent_id !== null
          ? (keyOf.get(String(c.parent_id)) ?? String(c.parent_id))
          : undefined;
      return {
        key: String(c.key),
        type: c.type === 'resourceset' ? ('resourceset' as const) : ('userset' as const),
        conditions:
          typeof c.conditions === 'object' && c.conditions !== null ? (c.conditions as Record<string, unknown>) : {},
        ...(typeof resource === 'string' ? { resource } : {}),
        ...(parent !== undefined ? { parent } : {}),
      };
    }),
    rules: rules.map((r) => {
      const permission = String(r.permission);
      const colon = permission.indexOf(':');
      return {
        userSet: String(r.user_set),
        resourceSet: String(r.resource_set),
        resource: permission.slice(0, colon),
        action: permission.slice(colon + 1),
      };
    }),
  };
}

/** Whether `user` holds a reviewer role of `configs` tenant-wide in `tenant`, and where the user reviews alone. */
export async function readReviewing(
  client: ApiClient,
  user: string,
  tenant: string,
  configs: readonly string[],
): Promise<{ roles: string[]; reviews: boolean; alone?: string[] }> {
  const [levels, mine] = await Promise.all([
    Promise.all(
      configs.map((c) =>
        client.get<{ roles_to_levels?: LevelsRead }>(pathOf(client.paths.elements, 'config', c), {
          expect: expectFields(CONFIG_SHAPE),
        }),
      ),
    ),
    readRequester(client, user, { tenant }),
  ]);
  const holds = (roles: string[]) =>
    mine.assignments.some((a) => a.tenant === tenant && a.resource_instance === null && roles.includes(a.role));
  const perConfig = levels.map((l) => reviewerRolesOf(l.roles_to_levels));
  const roles = [...new Set(perConfig.flat())].sort();
  // Where the user reviews, whether anyone else does: if not, nobody can decide the user's own requests
  // there. Read only for a reviewer, and only until a second holder is found (readReviewers).
  const alone: string[] = [];
  await Promise.all(
    configs.map(async (c, i) => {
      if (!holds(perConfig[i])) return;
      const r = await readReviewers(client, tenant, c);
      if (r.complete && r.holders.length === 1 && r.holders[0] === user) alone.push(c);
    }),
  );
  return { roles, reviews: holds(roles), ...(alone.length > 0 ? { alone: alone.sort() } : {}) };
}

/** The configuration's reviewer roles and, until two are found, their tenant-wide holders in `tenant`. */
export async function readReviewers(client: ApiClient, tenant: string, configKey: string): Promise<Reviewers> {
  const config = await client.get<{ roles_to_levels?: LevelsRead }>(
    pathOf(client.paths.elements, 'config', configKey),
    { expect: expectFields(CONFIG_SHAPE) },
  );
  const roles = reviewerRolesOf(config.roles_to_levels);
  const holders = new Set<string>();
  // Page by page, stopping once enough holders are known: a tenant with 5,000 admins costs one read.
  for (const role of roles) {
    for (let page = 1; holders.size < ENOUGH_REVIEWERS; page++) {
      const raw = await client.get<unknown>(`${client.paths.facts}/role_assignments`, {
        query: { role, tenant, page, per_page: 100 },
        expect: expectListItems(ASSIGNMENT_ITEM, page),
      });
      const rows = (isEnvelope(raw) ? raw.data : (raw as unknown[])) as Record<string, unknown>[];
      for (const a of rows) if (!a.resource_instance && holders.size < ENOUGH_REVIEWERS) holders.add(String(a.user));
      if (rows.length < 100) break;
    }
    if (holders.size >= ENOUGH_REVIEWERS) return { roles, holders: [...holders], complete: false };
  }
  return { roles, holders: [...holders], complete: true };
}

/** `key`'s role assignments (every tenant, or only `only.tenant`'s). */
export async function readRequester(
  client: ApiClient,
  key: string,
  only: { tenant?: string } = {},
): Promise<RequesterFacts> {
  const query = { user: key, ...(only.tenant ? { tenant: only.tenant } : {}) };
  const rows = await client.listAll<Record<string, unknown>>(`${client.paths.facts}/role_assignments`, {
    perPage: 1000,
    query,
    firstPageQuery: { include_total_count: true },
    item: ASSIGNMENT_ITEM,
  });
  return {
    user: key,
    assignments: rows.map((a) => ({
      role: String(a.role),
      tenant: String(a.tenant ?? ''),
      resource_instance:
        typeof a.resource_instance === 'string' && a.resource_instance !== '' ? a.resource_instance : null,
    })),
  };
}
