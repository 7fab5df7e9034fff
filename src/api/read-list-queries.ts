/**
 * The decision point's list queries (api-notes "Decision point: list queries"), as `who-can --live`,
 * `what-can --live` and `check --live` ask them: POST /authorized_users (the users who may do an action
 * on an instance) and POST /user-permissions (what a user may do, per instance). Both with their ABAC
 * flag on (`enable_abac_authorized_users`, `enable_abac_user_permissions`): a list that leaves out the
 * users a set rule allows would disagree with /allowed. `project` and `environment` go in the query.
 */
import type { ApiClient } from './types.js';
import { noDecisionPoint, type DecisionPointName } from './read-decisions.js';

type Bag = Record<string, unknown>;

export interface AuthorizedUsersQuery {
  action: string;
  type: string;
  key: string;
  tenant: string;
  passed?: { user?: Bag; resource?: Bag; context?: Bag };
}

/** The user keys POST /authorized_users lists for the action on the instance, sorted. */
export async function readAuthorizedUsers(
  client: ApiClient,
  scope: { project: string; environment: string },
  q: AuthorizedUsersQuery,
  pdp?: DecisionPointName,
): Promise<string[]> {
  const body = {
    action: q.action,
    resource: {
      type: q.type,
      key: q.key,
      tenant: q.tenant,
      ...(q.passed?.resource ? { attributes: q.passed.resource } : {}),
    },
    context: { ...(q.passed?.context ?? {}), enable_abac_authorized_users: true },
  };
  const answer = await client
    .post<{ users?: Record<string, unknown> }>('/authorized_users', body, {
      query: { project: scope.project, environment: scope.environment },
      idempotent: true,
      expect: (b) => (isObject(b) && isObject(b.users) ? undefined : 'JSON without users'),
    })
    .catch((err: unknown) => {
      throw pdp ? noDecisionPoint(err, pdp, 'POST /authorized_users') : err;
    });
  return Object.keys(answer.users ?? {}).sort();
}

export interface UserPermissionsQuery {
  user: string;
  /** Limit to these resource types (`resource_types`). */
  types?: string[];
  tenants?: string[];
  passed?: { user?: Bag; context?: Bag };
}

/** The `type:key` instances POST /user-permissions lists with `type:action` among their permissions, sorted. */
export async function readUserPermissions(
  client: ApiClient,
  scope: { project: string; environment: string },
  q: UserPermissionsQuery,
  action: string,
  pdp?: DecisionPointName,
): Promise<string[]> {
  const body = {
    user: q.passed?.user ? { key: q.user, attributes: q.passed.user } : { key: q.user },
    ...(q.types ? { resource_types: q.types } : {}),
    ...(q.tenants ? { tenants: q.tenants } : {}),
    context: { ...(q.passed?.context ?? {}), enable_abac_user_permissions: true },
  };
  const answer = await client
    .post<Record<string, { resource?: { type?: string; key?: string }; permissions?: string[] }>>(
      '/user-permissions',
      body,
      {
        query: { project: scope.project, environment: scope.environment },
        idempotent: true,
        expect: (b) => (isObject(b) ? undefined : 'JSON that is not an object'),
      },
    )
    .catch((err: unknown) => {
      throw pdp ? noDecisionPoint(err, pdp, 'POST /user-permissions') : err;
    });
  const out: string[] = [];
  for (const entry of Object.values(answer)) {
    const r = entry?.resource;
    if (!r?.type || r.key === undefined) continue;
    const wanted = action.includes(':') ? action : `${r.type}:${action}`;
    if ((entry.permissions ?? []).includes(wanted)) out.push(`${r.type}:${r.key}`);
  }
  return out.sort();
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
