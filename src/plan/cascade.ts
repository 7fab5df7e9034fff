/**
 * What goes with a deletion: the service deletes what hangs on an object with it (src/server/store
 * migrations, as `after.ts` models them): a user's role assignments, memberships and tenant presence; a
 * group's memberships, grants and links; an instance's assignments and grants; a role's assignments and
 * grants; a tenant's instances, groups and presence; a resource's instances and groups; an
 * access-request configuration's requests. Pure. The plan lists these under each deletion (`cascade`)
 * and the delete limit counts them (safety.ts): a plan that lists 25 deletions must not remove 57 objects
 * unannounced.
 */
import { MEMBER_ROLE } from '../types/names.js';
import { type LiveState } from '../types/live.js';
import { ids } from './identity.js';
import { fieldsOf, type Change, type CreateChange, type DeleteChange, type UpdateChange } from './change.js';
import { AUTOGEN_SET_PREFIX, type DesiredSetRule } from '../types/abac.js';
import { ruleId } from './abac.js';
import type { RequestGrant } from '../types/live.js';

/** The changes with `cascade` set on each deletion that takes something with it. Order is unchanged. */
export function attachCascades(changes: Change[], live: LiveState, requestGrants: readonly RequestGrant[]): Change[] {
  if (
    !changes.some(
      (c) => c.action === 'delete' || ((c.kind === 'resource' || c.kind === 'condition_set') && live.setRules.size > 0),
    )
  )
    return changes;
  const index = indexLive(live, requestGrants);
  // What the plan changes itself is not a cascade; what an earlier deletion takes is not taken twice.
  const claimed = new Set(changes.map((c) => c.id));
  const leaving = tenantsLeft(changes, index);
  return changes.map((c) => {
    if (c.action === 'update') {
      // An update that removes a resource's actions takes the set rules that need them.
      const cascade = actionRulesOf(c, index)
        .filter((id) => !claimed.has(id))
        .sort(cmp);
      for (const id of cascade) claimed.add(id);
      return cascade.length > 0 ? ({ ...c, cascade } satisfies UpdateChange) : c;
    }
    if (c.action === 'create' && c.kind === 'condition_set' && c.replaces) {
      // A replaced set is deleted first: the rules on it that the plan does not make again go with it.
      const cascade = rulesOf([c.after.key], index)
        .filter((id) => !claimed.has(id))
        .sort(cmp);
      for (const id of cascade) claimed.add(id);
      return cascade.length > 0 ? ({ ...c, cascade } satisfies CreateChange) : c;
    }
    if (c.action !== 'delete') return c;
    const cascade = [...new Set([...cascadeOf(c, index), ...(leaving.get(c.id) ?? [])])]
      .filter((id) => !claimed.has(id))
      .sort(cmp);
    for (const id of cascade) claimed.add(id);
    return cascade.length > 0 ? ({ ...c, cascade } satisfies DeleteChange) : c;
  });
}

/** The total of what a plan deletes: its deletions and everything listed as going with them. */
export function deletionCount(changes: readonly Change[]): { deletes: number; cascaded: number } {
  let deletes = 0;
  let cascaded = 0;
  for (const c of changes) {
    if (c.action !== 'delete') cascaded += c.cascade?.length ?? 0;
    if (c.action !== 'delete') continue;
    deletes++;
    cascaded += c.cascade?.length ?? 0;
  }
  return { deletes, cascaded };
}

interface LiveIndex {
  live: LiveState;
  /** Identities of the parts hanging on a user, an instance or group, a role, a tenant. */
  ofUser: Map<string, string[]>;
  on: Map<string, string[]>;
  ofRole: Map<string, string[]>;
  /** With the user each part is of (presence, assignments, memberships), when it is a user's. */
  inTenant: Map<string, { id: string; user: string }[]>;
  /** Instances and groups by type. */
  ofType: Map<string, { id: string; ref: string }[]>;
  /** Approved requests by element configuration. */
  requests: Map<string, string[]>;
  /** Set rules by the sets they join (`__autogen_` keys included) and by their permission's resource. */
  rulesOfSet: Map<string, DesiredSetRule[]>;
  rulesOfResource: Map<string, DesiredSetRule[]>;
}

function indexLive(live: LiveState, requestGrants: readonly RequestGrant[]): LiveIndex {
  const x: LiveIndex = {
    live,
    ofUser: new Map(),
    on: new Map(),
    ofRole: new Map(),
    inTenant: new Map(),
    ofType: new Map(),
    requests: new Map(),
    rulesOfSet: new Map(),
    rulesOfResource: new Map(),
  };
  for (const r of live.setRules.values()) {
    push(x.rulesOfSet, r.userSet, r);
    if (r.resourceSet !== r.userSet) push(x.rulesOfSet, r.resourceSet, r);
    push(x.rulesOfResource, r.resource, r);
  }
  for (const u of live.users.values()) {
    for (const r of u.roles) {
      const id = ids.assignment(u.key, r.role, r.on ?? r.tenant);
      push(x.ofUser, u.key, id);
      push(x.ofRole, r.role, id);
      push(x.inTenant, r.tenant, { id, user: u.key });
      if (r.on) push(x.on, r.on, id);
    }
    for (const t of u.tenants) {
      push(x.ofUser, u.key, ids.tenantUser(u.key, t));
      push(x.inTenant, t, { id: ids.tenantUser(u.key, t), user: u.key });
    }
  }
  for (const [ref, g] of live.groups) {
    push(x.ofType, g.type, { id: ids.group(ref), ref });
    for (const m of g.members) {
      const id = ids.member(m, ref);
      push(x.ofUser, m, id);
      push(x.on, ref, id);
      push(x.ofRole, MEMBER_ROLE, id);
      push(x.inTenant, g.tenant, { id, user: m });
    }
    for (const r of g.roles) {
      const id = ids.grant(ref, r.role, r.on);
      push(x.on, ref, id);
      push(x.on, r.on, id);
      push(x.ofRole, r.role, id);
    }
    for (const p of g.memberOf) {
      push(x.on, ref, ids.link(ref, p));
      push(x.on, p, ids.link(ref, p));
    }
  }
  for (const [ref, i] of live.resourceInstances) push(x.ofType, i.resource, { id: ids.instance(ref), ref });
  for (const g of requestGrants) push(x.requests, g.request.config, ids.accessRequest(g.request.id));
  return x;
}

/**
 * A user's presence in a tenant goes when the plan deletes every role and membership they have there and
 * gives them none (after.ts): listed under the first of those deletions. (A user both added to the tenant
 * and holding roles there reads as holding roles only: the live state cannot tell them apart.)
 */
function tenantsLeft(changes: readonly Change[], x: LiveIndex): Map<string, string[]> {
  const deleted = new Set(changes.filter((c) => c.action === 'delete').map((c) => c.id));
  const gaining = new Set(
    changes.flatMap((c) =>
      c.action !== 'delete' && (c.kind === 'assignment' || c.kind === 'member')
        ? [`${(c.after as Record<string, string>).user}\u0000${(c.after as Record<string, string>).tenant}`]
        : [],
    ),
  );
  const out = new Map<string, string[]>();
  if (deleted.size === 0) return out;
  const position = new Map(changes.map((c, i) => [c.id, i]));
  for (const [tenant, parts] of x.inTenant) {
    // Each user's parts in the tenant, grouped in one pass (a tenant holds thousands of users).
    const byUser = new Map<string, string[]>();
    for (const p of parts) (byUser.get(p.user) ?? byUser.set(p.user, []).get(p.user)!).push(p.id);
    for (const [user, ids_] of byUser) {
      const presence = ids.tenantUser(user, tenant);
      const held = ids_.filter((id) => id !== presence);
      if (
        held.length === 0 ||
        deleted.has(presence) ||
        gaining.has(`${user}\u0000${tenant}`) ||
        !held.every((id) => deleted.has(id))
      )
        continue;
      // Listed under the first of those deletions, in plan order.
      const first = changes[Math.min(...held.map((id) => position.get(id)!))];
      out.set(first.id, [...(out.get(first.id) ?? []), presence]);
    }
  }
  return out;
}

function cascadeOf(c: DeleteChange, x: LiveIndex): string[] {
  const { kind, fields: f } = fieldsOf(c);
  const objectsIn = (pred: (type: string, tenant: string) => boolean) => [
    ...[...x.live.resourceInstances]
      .filter(([, i]) => pred(i.resource, i.tenant))
      .map(([ref]) => ({ id: ids.instance(ref), ref })),
    ...[...x.live.groups].filter(([, g]) => pred(g.type, g.tenant)).map(([ref]) => ({ id: ids.group(ref), ref })),
  ];
  const withParts = (objects: { id: string; ref: string }[]) =>
    objects.flatMap((o) => [o.id, ...(x.on.get(o.ref) ?? [])]);
  switch (kind) {
    case 'user':
      return x.ofUser.get(f.key) ?? [];
    case 'instance':
    case 'group':
      return x.on.get(`${'resource' in f ? f.resource : f.type}:${f.key}`) ?? [];
    case 'role':
      // Its assignments and grants, and the set rules on its own user set (`__autogen_<role>`).
      return [...(x.ofRole.get(f.key) ?? []), ...rulesOf([`${AUTOGEN_SET_PREFIX}${f.key}`], x)];
    case 'tenant':
      return [
        ...(x.inTenant.get(f.key) ?? []).map((p) => p.id),
        ...withParts(objectsIn((_, tenant) => tenant === f.key)),
      ];
    case 'resource': {
      // Its instances and groups; its attribute definitions, its resource sets and the rules on them or
      // on its actions (its own set `__autogen_<resource>` included).
      const sets = [...x.live.conditionSets.values()]
        .filter((s) => s.type === 'resourceset' && s.resource === f.key)
        .map((s) => s.key);
      return [
        ...withParts(x.ofType.get(f.key) ?? []),
        ...(x.live.resources.get(f.key)?.attributes ?? []).map((a) => ids.resourceAttribute(f.key, a.key)),
        ...sets.map(ids.conditionSet),
        ...rulesOf([...sets, `${AUTOGEN_SET_PREFIX}${f.key}`], x),
        ...(x.rulesOfResource.get(f.key) ?? []).map(ruleId),
      ];
    }
    case 'condition_set':
      return rulesOf([f.key], x);
    case 'resource_attribute':
    case 'user_attribute':
    case 'tenant_attribute':
    case 'set_rule':
      return [];
    case 'tenant_user': {
      // Leaving a tenant drops every role the user holds there, memberships included.
      return (x.inTenant.get(f.tenant) ?? []).filter((p) => p.user === f.user && p.id !== c.id).map((p) => p.id);
    }
    case 'access_requests':
      return x.requests.get(f.key) ?? [];
    case 'resource_role':
      // The assignments and grants of that key on instances of its resource name this role.
      return (x.ofRole.get(f.key) ?? []).filter((id) => id.includes(`@${f.resource}:`));
    case 'relation':
      // Its tuples, and the derivations through it.
      return [
        ...[...x.live.resourceInstances]
          .filter(([, i]) => i.resource === f.resource)
          .flatMap(([ref, i]) =>
            (i.relations ?? []).filter((t) => t.relation === f.key).map((t) => ids.tuple(t.subject, t.relation, ref)),
          ),
        ...(x.live.resources.get(f.resource)?.roles ?? []).flatMap((r) =>
          r.grantedTo.filter((d) => d.via === f.key).map((d) => ids.derivation(f.resource, r.key, d.on, d.role, d.via)),
        ),
      ];
    case 'derivation':
    case 'tuple':
      return [];
    case 'assignment':
    case 'member':
    case 'link':
    case 'grant':
      return [];
  }
}

const rulesOf = (sets: string[], x: LiveIndex) => sets.flatMap((s) => (x.rulesOfSet.get(s) ?? []).map(ruleId));

/** The set rules an update of a resource takes with the actions it removes. */
function actionRulesOf(c: UpdateChange, x: LiveIndex): string[] {
  if (c.kind !== 'resource') return [];
  const kept = new Set(c.after.actions ?? []);
  return (x.rulesOfResource.get(c.after.key) ?? []).filter((r) => !kept.has(r.action)).map(ruleId);
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
