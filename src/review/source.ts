import { pathOf, type ApiClient } from '../api/index.js';
import { ApiError } from '../errors.js';
import { isEnvelope } from '../api/paging.js';
import { CONFIG_SHAPE, reviewerRolesOf, type LevelsRead } from '../api/levels.js';
import { expectFields, expectListItems, ID, listOf, optional, STRING, type Shape } from '../api/answer.js';
import { ASSIGNMENT_ITEM, RESOURCE_ITEM } from '../api/shapes.js';
import { readLiveState, resourceRolesOf, type ResourceRead } from '../api/read-live.js';
import type { LiveState } from '../types/live.js';
import { readAccessRequest, type AccessRequest } from './request.js';
import type { FeedQuery } from './paging.js';
import type { RequesterFacts, RoleInfo, SetRulesRead } from './impact.js';

/**
 * The review's reads and writes over the /v2 client: access requests of one acting user in one tenant
 * under one element configuration, the environment's roles and a requester's role assignments. Thin:
 * it builds paths and bodies and reads answers in either dialect; errors are the client's `ApiError`.
 */
export interface ReviewSource {
  readonly user: string;
  readonly tenant: string;
  listPage(
    query: FeedQuery,
    page: number,
    perPage: number,
  ): Promise<{ items: AccessRequest[]; total?: number; raw: unknown }>;
  get(id: string): Promise<AccessRequest>;
  create(input: CreateInput): Promise<AccessRequest>;
  approve(id: string, body?: { comment?: string; role?: string }): Promise<AccessRequest>;
  deny(id: string, body?: { comment?: string }): Promise<AccessRequest>;
  update(id: string, body: { comment?: string; role?: string }): Promise<AccessRequest>;
  cancel(id: string, body?: { reason?: string }): Promise<AccessRequest>;
  /** Every role of the environment, top-level and resource roles, with their permissions. */
  readRoles(): Promise<RoleInfo[]>;
  /**
   * The environment's user sets, resource sets and set rules (two lists, read once with the roles): what a
   * role grant changes through attribute-based access, for the impact view.
   */
  readSetRules(): Promise<SetRulesRead>;
  /**
   * The whole environment as `roster plan` reads it (`readLiveState`): what the full "If approved" compares
   * with the requested grant added. Read once a request's details are first shown, not with the queue.
   */
  readLive(): Promise<LiveState>;
  /** The requester's role assignments (every tenant, or only `tenant`'s; callers pick the request's). */
  readRequester(user: string, o?: { tenant?: string }): Promise<RequesterFacts>;
  /**
   * The configuration's reviewer roles (LEVEL_1, LEVEL_2) and users who hold one tenant-wide in the
   * tenant: read until two are found, which is all a warning needs (nobody, or only the requester).
   */
  readReviewers(config?: string): Promise<Reviewers>;
  /** Whether the acting user holds a reviewer role of `configs` (default: the source's) tenant-wide in the tenant. */
  readReviewing(configs?: readonly string[]): Promise<{ roles: string[]; reviews: boolean; alone?: string[] }>;
}

export interface Reviewers {
  roles: string[];
  /** Tenant-wide holders of a reviewer role, at most two (`complete`: every one). */
  holders: string[];
  complete: boolean;
}

/** Reviewers looked for until this many are found: enough to tell "nobody" and "only the requester" apart from "someone else". */
const ENOUGH_REVIEWERS = 2;

export interface CreateInput {
  role: string;
  resource?: string;
  /** A key, or `type:key`. */
  instance?: string;
  reason?: string;
}

export interface SourceOptions {
  client: ApiClient;
  user: string;
  tenant: string;
  /** The element configuration (key or id); default `default`. */
  config?: string;
}

/**
 * What reads must hold (answer.ts): a user read is used for its key; an access request, read alone or as
 * an item of a page, for its id, role, date and status (readAccessRequest reads the rest leniently); a
 * role of the environment for its key and lists; a role assignment for its user, role and place.
 */
const KEYED = expectFields({ key: STRING });
const ACCESS_REQUEST_SHAPE: Shape = {
  id: ID,
  access_request_details: { role: STRING },
  created_at: STRING,
  status: optional(STRING),
};
const ACCESS_REQUEST = expectFields(ACCESS_REQUEST_SHAPE);
const CONDITION_SET_ITEM: Shape = { key: STRING, type: optional(STRING), id: optional(ID), parent_id: optional(ID) };
const SET_RULE_ITEM: Shape = { user_set: STRING, permission: STRING, resource_set: STRING };
const ROLE_ITEM: Shape = {
  id: optional(ID),
  key: STRING,
  name: optional(STRING),
  permissions: optional(listOf(STRING)),
  extends: optional(listOf(STRING)),
};

/** The API's status filter, in the public spelling (our server accepts both). */
const STATUS_QUERY = { pending: 'pending', approved: 'approved', denied: 'denied', canceled: 'canceled' } as const;

export function createReviewSource(o: SourceOptions): ReviewSource {
  const { client, user, tenant } = o;
  const own = o.config ?? 'default';
  const baseOf = (config: string) =>
    pathOf(client.paths.facts, 'access_requests', config, 'user', user, 'tenant', tenant);
  // A queue across configurations: each request is decided through the configuration it was listed in.
  const configOf = new Map<string, string>();
  const one = (id: string, ...rest: string[]) => pathOf(baseOf(configOf.get(id) ?? own), id, ...rest);
  // The public read model names users by id: each id is looked up once (`GET /users/{id}`); the lookup
  // itself is kept, so lists read at the same time (read-ahead, the two lists of `decided`) share it.
  const keys = new Map<string, string>();
  const lookups = new Map<string, Promise<void>>();
  const lookUp = (id: string) => {
    let pending = lookups.get(id);
    if (!pending) {
      pending = client.get<{ key: string }>(pathOf(client.paths.facts, 'users', id), { expect: KEYED }).then(
        (u) => void keys.set(id, u.key),
        (err) => {
          // A user deleted since: shown by id. Anything else fails this read (and may be retried).
          if (err instanceof ApiError && err.info.status === 404) return void keys.set(id, id);
          lookups.delete(id);
          throw err;
        },
      );
      lookups.set(id, pending);
    }
    return pending;
  };
  const learnKeys = async (raws: unknown[]) => {
    const ids = new Set<string>();
    for (const raw of raws) {
      for (const field of ['requesting_user_id', 'reviewer_user_id']) {
        const id = (raw as Record<string, unknown> | null)?.[field];
        if (typeof id === 'string' && id !== '') ids.add(id);
      }
    }
    await Promise.all([...ids].map(lookUp));
  };
  const read = async (raw: unknown, config = own) => {
    await learnKeys([raw]);
    const r = readAccessRequest(raw, user, (id) => keys.get(id));
    return { ...r, config: configOf.get(r.id) ?? config };
  };
  // Empty strings are not sent: a comment typed as nothing is no comment.
  const compact = (b: Record<string, string | undefined>) =>
    Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined && v !== ''));

  return {
    user,
    tenant,
    async listPage(q, page, perPage) {
      const config = q.config ?? own;
      const raw = await client.get<unknown>(baseOf(config), {
        // A page with an item it cannot read is retried, then MALFORMED_ANSWER naming the item.
        expect: expectListItems(ACCESS_REQUEST_SHAPE, page),
        // The public service takes the tenant from the path; the specification's list (and our server)
        // filters by the `tenant` header. Both: a reviewer of two tenants sees the one asked for.
        headers: { tenant },
        query: {
          page,
          per_page: perPage,
          status: q.status && STATUS_QUERY[q.status],
          role: q.role,
          resource: q.resource,
          resource_instance_id: q.resourceInstance,
        },
      });
      const list = isEnvelope(raw) ? raw.data : (raw as unknown[]);
      await learnKeys(list);
      const items = list.map((r) => ({ ...readAccessRequest(r, user, (id) => keys.get(id)), config }));
      for (const r of items) configOf.set(r.id, config);
      const total = isEnvelope(raw) && typeof raw.total_count === 'number' ? raw.total_count : undefined;
      return { items, total, raw };
    },
    get: async (id) => read(await client.get(one(id), { expect: ACCESS_REQUEST })),
    async create(input) {
      const details: Record<string, string> = { tenant, role: input.role };
      if (input.resource) details.resource = input.resource;
      if (input.instance) details.resource_instance = input.instance;
      // A plain POST: a retried create could file the request twice, so the client does not retry it.
      return read(
        await client.post(baseOf(own), { access_request_details: details, ...compact({ reason: input.reason }) }),
      );
    },
    approve: async (id, b = {}) =>
      read(await client.put(one(id, 'approve'), compact({ reviewer_comment: b.comment, role: b.role }))),
    deny: async (id, b = {}) => read(await client.put(one(id, 'deny'), compact({ reviewer_comment: b.comment }))),
    update: async (id, b) =>
      read(await client.patch(one(id, 'reviewer'), compact({ reviewer_comment: b.comment, role: b.role }))),
    cancel: async (id, b = {}) => read(await client.put(one(id, 'cancel'), compact({ reason: b.reason }))),
    async readRoles() {
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
    },
    async readSetRules() {
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
              typeof c.conditions === 'object' && c.conditions !== null
                ? (c.conditions as Record<string, unknown>)
                : {},
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
    },
    readLive: () => readLiveState(client),
    async readReviewing(configs = [own]) {
      const [levels, mine] = await Promise.all([
        Promise.all(
          configs.map((c) =>
            client.get<{ roles_to_levels?: LevelsRead }>(pathOf(client.paths.elements, 'config', c), {
              expect: expectFields(CONFIG_SHAPE),
            }),
          ),
        ),
        this.readRequester(user, { tenant }),
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
          const r = await this.readReviewers(c);
          if (r.complete && r.holders.length === 1 && r.holders[0] === user) alone.push(c);
        }),
      );
      return { roles, reviews: holds(roles), ...(alone.length > 0 ? { alone: alone.sort() } : {}) };
    },
    async readReviewers(configKey = own) {
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
          for (const a of rows)
            if (!a.resource_instance && holders.size < ENOUGH_REVIEWERS) holders.add(String(a.user));
          if (rows.length < 100) break;
        }
        if (holders.size >= ENOUGH_REVIEWERS) return { roles, holders: [...holders], complete: false };
      }
      return { roles, holders: [...holders], complete: true };
    },
    async readRequester(key, only = {}) {
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
    },
  };
}
