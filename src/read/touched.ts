import type { HistoryEvent } from '../api/read-history.js';
import type { ListFamily } from './lists.js';

/** The fields of a change history call (src/api/read-history.ts) this reads. */
export type HistoryCall = Pick<HistoryEvent, 'method' | 'path' | 'status' | 'project' | 'environment'>;

/** `every`: the call may have changed anything (an unknown path, an environment copied or deleted). */
export type Touched = ListFamily[] | 'every';

const ALL_FACTS: ListFamily[] = ['users', 'role_assignments', 'resource_instances', 'relationship_tuples', 'groups'];

/**
 * The list families a write may have changed, cascades included (deleting a tenant deletes its
 * instances, their tuples and the role assignments in it; assigning a role adds the tenant to the
 * user's tenants). Deliberately generous: a family too many costs requests, one too few a wrong plan.
 * Keyed by the collection the path names after `/v2/{schema|facts|elements}/{project}/{env}/`.
 */
const BY_COLLECTION: Record<'schema' | 'facts' | 'elements', Record<string, ListFamily[]>> = {
  schema: {
    // Resources hold actions, resource roles, relations, derivations and attributes; deleting one takes
    // its instances, tuples, assignments, roles' permissions, resource sets and rules with it.
    resources: [
      'resources',
      'roles',
      ...ALL_FACTS,
      'condition_sets',
      'set_rules',
      'user_attributes',
      'tenant_attributes',
      'elements',
      'access_requests',
    ],
    roles: ['roles', 'resources', 'role_assignments', 'users', 'groups', 'condition_sets', 'set_rules', 'elements'],
    bulk: ['roles', 'resources', 'role_assignments', 'users', 'groups', 'condition_sets', 'set_rules', 'elements'],
    users: ['user_attributes', 'condition_sets', 'set_rules'],
    condition_sets: ['condition_sets', 'set_rules'],
    // The group machinery writes the group type's role, relations and derivations, instances and tuples.
    groups: ['groups', 'resources', ...ALL_FACTS],
    // roster serve also takes instances under /schema (the specification's form).
    resource_instances: ['resource_instances', 'relationship_tuples', 'role_assignments', 'users', 'groups'],
  },
  facts: {
    users: ['users', 'role_assignments', 'groups', 'access_requests'],
    tenants: ['tenants', ...ALL_FACTS, 'access_requests'],
    role_assignments: ['role_assignments', 'users', 'groups'],
    resource_instances: ['resource_instances', 'relationship_tuples', 'role_assignments', 'users', 'groups'],
    relationship_tuples: ['relationship_tuples', 'groups'],
    set_rules: ['set_rules'],
    condition_set_rules: ['set_rules'],
    access_requests: ['access_requests', 'role_assignments', 'users'],
  },
  elements: {
    config: ['elements', 'access_requests', 'role_assignments', 'users'],
  },
};

/** The `/facts/{p}/{e}/bulk/users` forms put `bulk` first: the collection is the next segment. */
const BULK_FIRST = new Set(['bulk']);

/** Reads sent as POST: they change nothing. */
const READS =
  /^\/v2\/(allowed(\/bulk)?|allowed_url|user-permissions|authorized_users|facts\/[^/]+\/[^/]+\/(user-permissions|allowed))/;

/**
 * What a write listed by the change history may have changed in the environment `project`/`env`, or
 * `[]` when nothing there: a read, a refused call (4xx), another environment's call, an API key's own
 * settings. A path this does not know is `every`.
 */
export function touchedBy(call: HistoryCall, scope: { project: string; environment: string }): Touched {
  if (call.method === 'GET' || call.method === 'HEAD') return [];
  // A 4xx was refused before anything was written; a 5xx may have written part: counted.
  if (call.status >= 400 && call.status < 500) return [];
  if (call.project && call.project !== scope.project) return [];
  if (call.environment && call.environment !== scope.environment) return [];
  const path = call.path.split('?')[0].replace(/\/+$/, '');
  if (READS.test(path)) return [];
  if (/^\/v2\/api-key(\/|$)/.test(path)) return [];
  const m = /^\/v2\/(schema|facts|elements)\/([^/]+)\/([^/]+)(?:\/(.*))?$/.exec(path);
  if (!m) return 'every';
  const [, area, p, e, rest = ''] = m;
  // The path names the project and environment by key or by id: another's keys are another environment;
  // an id cannot be told from a key, so a segment that is not ours counts as ours unless the call's
  // project and environment keys said otherwise above.
  if (call.project === undefined && call.environment === undefined && p === scope.project && e !== scope.environment)
    return [];
  const segments = rest.split('/').filter((s) => s !== '');
  const collection = BULK_FIRST.has(segments[0]) && area === 'facts' ? segments[1] : segments[0];
  const families = collection ? BY_COLLECTION[area as keyof typeof BY_COLLECTION][collection] : undefined;
  return families ? [...new Set(families)].sort() : 'every';
}
