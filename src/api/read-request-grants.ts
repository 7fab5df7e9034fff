import type { ApiClient } from './types.js';
import { pathOf } from './client.js';
import { normalizeStatus } from './tolerance.js';
import type { Shape } from './answer.js';
import {
  ACCESS_REQUEST_ITEM,
  CONFIG_ITEM,
  INSTANCE_ITEM,
  RESOURCE_ITEM,
  ROLE_ITEM,
  TENANT_ITEM,
  USER_ITEM,
} from './shapes.js';
import type { RequestGrant } from '../types/live.js';

/** The public answers this reads; only fields the public schemas list. */
interface ConfigRead {
  id: string;
  key: string;
  elements_type?: string;
}
export interface AccessRequestRead {
  id: string;
  status?: string | null;
  requesting_user_id?: string | null;
  reviewer_user_id?: string | null;
  reviewed_at?: string | null;
  updated_at: string;
  access_request_details: { tenant: string; role: string; resource?: string | null; resource_instance?: string | null };
}
export interface Keyed {
  id: string;
  key: string;
}
export interface InstanceRead extends Keyed {
  resource: string;
}

const PAGE = 100;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The grants approved access requests made: for every user-management element configuration
 * (`GET /v2/elements/{p}/{e}/config`), its approved requests (`GET .../config/{key}/access_requests
 * ?status=approved`, paged), with the requester and reviewer ids mapped to user keys
 * (`GET /v2/facts/{p}/{e}/users`, paged, read only when some request was approved). Requests adds to a
 * plan: 1 + one page of 100 approved requests per configuration (at least 1 each) + ceil(users / 100)
 * when any is approved. The public service may name the details' tenant, role, resource or instance by
 * id: their lists are read only when a detail looks like an id.
 */
export async function readRequestGrants(client: ApiClient): Promise<RequestGrant[]> {
  const { elements, facts, schema } = client.paths;
  const configs = (await client.listAll<ConfigRead>(`${elements}/config`, { perPage: PAGE, item: CONFIG_ITEM })).filter(
    (c) => !c.elements_type || c.elements_type === 'user_management',
  );
  const perConfig = await Promise.all(
    configs.map(async (c) => {
      const requests = await client.listAll<AccessRequestRead>(pathOf(elements, 'config', c.key, 'access_requests'), {
        perPage: PAGE,
        query: { status: 'approved' },
        item: ACCESS_REQUEST_ITEM,
      });
      // A service that ignored the filter would list every request: keep the approved ones.
      return requests.filter((r) => normalizeStatus(r.status) === 'approved').map((r) => ({ config: c.key, r }));
    }),
  );
  const approved = perConfig.flat();
  if (approved.length === 0) return [];

  // The same shapes as read-live.ts: a plan reads each of these lists once for both (shared-reads.ts).
  const byId = async <T extends Keyed>(path: string, item: Shape, needed: boolean) =>
    needed
      ? new Map((await client.listAll<T>(path, { perPage: PAGE, item })).map((o) => [o.id, o]))
      : new Map<string, T>();
  const anyId = (pick: (d: AccessRequestRead['access_request_details']) => string | null | undefined) =>
    approved.some(({ r }) => UUID.test(pick(r.access_request_details) ?? ''));
  const [users, tenants, roles, resources, instances] = await Promise.all([
    byId<Keyed>(`${facts}/users`, USER_ITEM, true),
    byId<Keyed>(
      `${facts}/tenants`,
      TENANT_ITEM,
      anyId((d) => d.tenant),
    ),
    byId<Keyed>(
      `${schema}/roles`,
      ROLE_ITEM,
      anyId((d) => d.role),
    ),
    byId<Keyed>(
      `${schema}/resources`,
      RESOURCE_ITEM,
      anyId((d) => d.resource),
    ),
    byId<InstanceRead>(
      `${facts}/resource_instances`,
      INSTANCE_ITEM,
      anyId((d) => d.resource_instance),
    ),
  ]);
  return buildRequestGrants(approved, { users, tenants, roles, resources, instances });
}

export interface Lookups {
  users: Map<string, Keyed>;
  tenants: Map<string, Keyed>;
  roles: Map<string, Keyed>;
  resources: Map<string, Keyed>;
  instances: Map<string, InstanceRead>;
}

/**
 * Approved requests to grants, keys throughout. Pure. A detail that is the id of a listed object is that
 * object's key; anything else is a key already (ids are looked up only when some detail looks like one).
 */
export function buildRequestGrants(
  approved: readonly { config: string; r: AccessRequestRead }[],
  maps: Lookups,
): RequestGrant[] {
  const keyOf = (map: Map<string, Keyed>, value: string) => map.get(value)?.key ?? value;
  const out: RequestGrant[] = [];
  for (const { config, r } of approved) {
    const user = r.requesting_user_id ? maps.users.get(r.requesting_user_id)?.key : undefined;
    // A requester who no longer exists holds nothing.
    if (!user) continue;
    const d = r.access_request_details;
    const resource = d.resource ? keyOf(maps.resources, d.resource) : undefined;
    const on = instanceRef(d.resource_instance, resource, maps.instances);
    const reviewer = r.reviewer_user_id ? (maps.users.get(r.reviewer_user_id)?.key ?? r.reviewer_user_id) : null;
    out.push({
      user,
      role: keyOf(maps.roles, d.role),
      tenant: keyOf(maps.tenants, d.tenant),
      ...(on ? { on } : {}),
      request: { id: r.id, config, reviewer, approvedAt: r.reviewed_at ?? r.updated_at },
    });
  }
  return out;
}

/** `type:key` of the request's instance: written so, an instance id, or a bare key of `resource`. */
function instanceRef(
  value: string | null | undefined,
  resource: string | undefined,
  instances: Map<string, InstanceRead>,
): string | undefined {
  if (!value) return undefined;
  if (value.includes(':')) return value;
  const byId = instances.get(value);
  if (byId) return `${byId.resource}:${byId.key}`;
  return resource ? `${resource}:${value}` : undefined;
}
