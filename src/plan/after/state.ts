import type { DesiredGroup, DesiredUser } from '../../types/desired.js';
import type { LiveState } from '../../types/live.js';
import type { DesiredSetRule } from '../../types/abac.js';
import { typeOf } from '../../types/refs.js';

/**
 * A copy-on-write copy of the live state that the plan's changes are carried out on (after.ts), with
 * the service's cascades written once: a user or group is copied the first time it is edited, so
 * untouched ones are shared with the live state.
 */
export class AfterState implements LiveState {
  readonly resources: LiveState['resources'];
  readonly roles: LiveState['roles'];
  readonly tenants: LiveState['tenants'];
  readonly users: LiveState['users'];
  readonly resourceInstances: LiveState['resourceInstances'];
  readonly groups: LiveState['groups'];
  readonly accessRequests: LiveState['accessRequests'];
  readonly userAttributes: LiveState['userAttributes'];
  readonly tenantAttributes: LiveState['tenantAttributes'];
  readonly conditionSets: LiveState['conditionSets'];
  readonly setRules: LiveState['setRules'];
  private readonly ownUsers = new Set<string>();
  private readonly ownGroups = new Set<string>();

  constructor(live: LiveState) {
    this.resources = new Map(live.resources);
    this.roles = new Map(live.roles);
    this.tenants = new Map(live.tenants);
    this.users = new Map(live.users);
    this.resourceInstances = new Map(live.resourceInstances);
    this.groups = new Map(live.groups);
    this.accessRequests = new Map(live.accessRequests);
    this.userAttributes = new Map(live.userAttributes);
    this.tenantAttributes = new Map(live.tenantAttributes);
    this.conditionSets = new Map(live.conditionSets);
    this.setRules = new Map(live.setRules);
  }

  /** The plain live state (no class, no helpers). */
  toLive(): LiveState {
    const { resources, roles, tenants, users, resourceInstances, groups, accessRequests } = this;
    const { userAttributes, tenantAttributes, conditionSets, setRules } = this;
    return {
      resources,
      roles,
      tenants,
      users,
      resourceInstances,
      groups,
      accessRequests,
      userAttributes,
      tenantAttributes,
      conditionSets,
      setRules,
    };
  }

  /** The user to edit (made when absent). */
  user(key: string): DesiredUser {
    let u = this.users.get(key);
    if (!u) this.users.set(key, (u = { key, tenants: [], roles: [] }));
    else if (!this.ownUsers.has(key)) this.users.set(key, (u = { ...u, tenants: [...u.tenants], roles: [...u.roles] }));
    this.ownUsers.add(key);
    return u;
  }

  /** The group to edit, if it exists. */
  group(ref: string): DesiredGroup | undefined {
    let g = this.groups.get(ref);
    if (g && !this.ownGroups.has(ref))
      this.groups.set(ref, (g = { ...g, members: [...g.members], roles: [...g.roles], memberOf: [...g.memberOf] }));
    this.ownGroups.add(ref);
    return g;
  }

  eachUser(pred: (u: DesiredUser) => boolean, edit: (u: DesiredUser) => void): void {
    for (const [k, u] of this.users) if (pred(u)) edit(this.user(k));
  }

  eachGroup(pred: (g: DesiredGroup) => boolean, edit: (g: DesiredGroup) => void): void {
    for (const [k, g] of this.groups) if (pred(g)) edit(this.group(k)!);
  }

  /** Deleting an instance (or group) deletes its tuples as a subject, the roles on it and links to it. */
  deleteInstance(ref: string): void {
    this.resourceInstances.delete(ref);
    this.groups.delete(ref);
    for (const [other, i] of this.resourceInstances) {
      if (i.relations?.some((t) => t.subject === ref))
        this.resourceInstances.set(other, { ...i, relations: i.relations.filter((t) => t.subject !== ref) });
    }
    this.eachUser(
      (u) => u.roles.some((r) => r.on === ref),
      (u) => (u.roles = u.roles.filter((r) => r.on !== ref)),
    );
    this.eachGroup(
      (g) => g.roles.some((r) => r.on === ref) || g.memberOf.includes(ref),
      (g) => {
        g.roles = g.roles.filter((r) => r.on !== ref);
        g.memberOf = g.memberOf.filter((p) => p !== ref);
      },
    );
  }

  /**
   * The service lists a user in a tenant while they hold a role or a membership there (or were added to
   * it, which the live state cannot tell apart: a user both added and assigned is taken as assigned only).
   */
  leaveTenantIfNothingLeft(key: string, tenant: string): void {
    const u = this.users.get(key);
    if (!u?.tenants.includes(tenant) || u.roles.some((r) => r.tenant === tenant)) return;
    if ([...this.groups.values()].some((g) => g.tenant === tenant && g.members.includes(key))) return;
    this.user(key).tenants = u.tenants.filter((t) => t !== tenant);
  }

  isResourceRole(role: string, on: string): boolean {
    return this.resources.get(typeOf(on))?.roles?.some((r) => r.key === role) === true;
  }

  /** The service deletes the set rules that need what goes (a set, a role's or resource's own set, an action). */
  dropRules(pred: (r: DesiredSetRule) => boolean): void {
    for (const [k, r] of this.setRules) if (pred(r)) this.setRules.delete(k);
  }

  /** Instances and groups whose type and tenant pass. */
  instancesWhere(pred: (type: string, tenant: string) => boolean): string[] {
    return [
      ...[...this.resourceInstances].filter(([, i]) => pred(i.resource, i.tenant)).map(([ref]) => ref),
      ...[...this.groups].filter(([, g]) => pred(g.type, g.tenant)).map(([ref]) => ref),
    ];
  }
}
