import { pathOf, type ApiClient } from '../api/index.js';
import { ApiError } from '../errors.js';
import { isEnvelope } from '../api/paging.js';
import { expectFields, expectListItems, ID, optional, STRING, type Shape } from '../api/answer.js';
import { readLiveState } from '../api/read-live.js';
import type { LiveState } from '../types/live.js';
import { readAccessRequest, type AccessRequest } from './request.js';
import type { FeedQuery } from './paging.js';
import type { RequesterFacts, RoleInfo, SetRulesRead } from './impact.js';
import {
  readRequester,
  readReviewers,
  readReviewing,
  readRoles,
  readSetRules,
  type Reviewers,
} from './source-environment.js';

export type { Reviewers } from './source-environment.js';

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
    readRoles: () => readRoles(client),
    readSetRules: () => readSetRules(client),
    readLive: () => readLiveState(client),
    readReviewing: (configs = [own]) => readReviewing(client, user, tenant, configs),
    readReviewers: (configKey = own) => readReviewers(client, tenant, configKey),
    readRequester: (key, only = {}) => readRequester(client, key, only),
  };
}
