/**
 * `roster export`: the live environment as one configuration file in the canonical format of
 * docs/config.md. Pure and deterministic (every map and list sorted; no dates), and round-trip exact:
 * planning the export against the environment it came from shows no changes, with or without --prune.
 *
 * Left out: what the service makes by itself for groups (a group type's resource when it has no
 * actions, the `member` role when it has no permissions) and, in users' `tenants`, the tenants their
 * roles already place them in. A tenant a user is in only through a group is written: a group's
 * membership does not declare the user's presence in the tenant, so leaving it out would lose that
 * presence when the export is applied to an empty environment (issue #22). Every section is written,
 * even empty, so that each is managed and the export says "nothing else". The sets the service generates
 * (`__autogen_…`) are never written: set rules on them are written `role:` / `resource:`.
 */
import { Document } from 'yaml';
import {
  AUTOGEN_SET_PREFIX,
  type DesiredAttribute,
  type DesiredConditionSet,
  type DesiredSetRule,
} from '../types/abac.js';
import type { DesiredResourceRole } from '../types/desired.js';
import { DEFAULT_TENANT, MEMBER_ROLE } from '../types/names.js';
import { type LiveState } from '../types/live.js';
import { styleSections } from './export-layout.js';

export interface ExportOptions {
  /** Written as a comment on the first line, e.g. `p/e`. */
  source?: string;
}

type Obj = Record<string, unknown>;

/** A resource role in its shortest form: the list of its permissions when that says everything. */
function exportResourceRole(r: DesiredResourceRole): unknown {
  if (r.name === r.key && !r.description && r.extends.length === 0 && r.grantedTo.length === 0)
    return [...r.permissions].sort(cmp);
  const grantedTo = r.grantedTo.map((d) =>
    compact({
      role: d.role,
      on: d.on,
      via: d.via,
      when: d.noDirectRolesOnObject ? { no_direct_roles_on_object: true } : undefined,
    }),
  );
  return compact({
    name: nameOf(r.name, r.key),
    description: r.description,
    permissions: [...r.permissions].sort(cmp),
    extends: r.extends.length > 0 ? [...r.extends].sort(cmp) : undefined,
    granted_to: grantedTo.length > 0 ? grantedTo : undefined,
  });
}

export function buildExport(live: LiveState, options: ExportOptions = {}): string {
  const sets = [...live.conditionSets.values()]
    .filter((c) => !c.key.startsWith(AUTOGEN_SET_PREFIX))
    .sort((a, b) => cmp(a.key, b.key));
  const value = {
    version: 1,
    resources: exportResources(live),
    roles: exportRoles(live),
    tenants: exportTenants(live),
    users: exportUsers(live),
    resource_instances: exportInstances(live),
    groups: exportGroups(live),
    access_requests: exportAccessRequests(live),
    user_attributes: exportAttributes([...live.userAttributes.values()]),
    tenant_attributes: exportAttributes([...live.tenantAttributes.values()]),
    user_sets: Object.fromEntries(sets.filter((c) => c.type === 'userset').map((c) => [c.key, exportSet(c)])),
    resource_sets: Object.fromEntries(sets.filter((c) => c.type === 'resourceset').map((c) => [c.key, exportSet(c)])),
    set_rules: exportSetRules([...live.setRules.values()]),
  };
  const doc = new Document(value);
  doc.commentBefore = [
    ` Exported by \`roster export\`${options.source ? ` from ${options.source}` : ''}: the live environment as configuration.`,
    ' Canonical: sorted and stable, so `roster export --diff` shows only real differences.',
  ].join('\n');
  styleSections(doc, live.groups);
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/** A map's entries sorted by key. */
const sorted = <V>(m: Map<string, V>) => [...m].sort(([a], [b]) => cmp(a, b));

/** Resources, in their shortest form; a group type's resource the service made by itself is left out. */
function exportResources(live: LiveState): Obj {
  const groupTypes = new Set([...live.groups.values()].map((g) => g.type));
  const resources: Obj = {};
  for (const [key, r] of sorted(live.resources)) {
    // A group type's `member` role is the service's membership, made with the first group: not declared.
    // Unless a group is given it on a group of the type (another tool can do that): the group's roles name it.
    const named = [...live.groups.values()].some((g) =>
      g.roles.some((x) => x.role === MEMBER_ROLE && x.on.startsWith(`${key}:`)),
    );
    const own = (r.roles ?? []).filter((x) => !(groupTypes.has(key) && x.key === MEMBER_ROLE && !named));
    if (groupTypes.has(key) && r.actions.length === 0 && !r.description && r.name === key && own.length === 0) continue;
    const roles = own.length > 0 ? Object.fromEntries(own.map((x) => [x.key, exportResourceRole(x)])) : undefined;
    const relations = r.relations?.length
      ? Object.fromEntries(
          r.relations.map((x) => [
            x.key,
            x.name === x.key && !x.description
              ? x.subject
              : compact({ subject: x.subject, name: x.name, description: x.description }),
          ]),
        )
      : undefined;
    const attributes = r.attributes?.length ? exportAttributes(r.attributes) : undefined;
    resources[key] =
      r.name === key && !r.description && !roles && !relations && !attributes
        ? [...r.actions].sort(cmp)
        : compact({
            name: nameOf(r.name, key),
            description: r.description,
            actions: [...r.actions].sort(cmp),
            relations,
            roles,
            attributes,
          });
  }
  return resources;
}

/** Top-level roles; the `member` role the service made with the first group is left out. */
function exportRoles(live: LiveState): Obj {
  const roles: Obj = {};
  for (const [key, r] of sorted(live.roles)) {
    // Unless a group is given it on another group (another tool can do that): the group's roles name it.
    if (
      key === MEMBER_ROLE &&
      r.permissions.length === 0 &&
      ![...live.groups.values()].some((g) => g.roles.some((x) => x.role === MEMBER_ROLE))
    )
      continue;
    const ext = r.extends?.length ? [...r.extends].sort(cmp) : undefined;
    roles[key] =
      r.name === key && !r.description && !ext
        ? [...r.permissions].sort(cmp)
        : compact({
            name: nameOf(r.name, key),
            description: r.description,
            permissions: [...r.permissions].sort(cmp),
            extends: ext,
          });
  }
  return roles;
}

/** Tenants; `default` only when something exported names it. */
function exportTenants(live: LiveState): Obj {
  // The tenant `default` comes with every environment; the planner leaves it alone when undeclared, so
  // it is written only when something exported names it (the configuration must declare what it uses).
  const named = new Set<string>([
    ...[...live.users.values()].flatMap((u) => [...u.tenants, ...u.roles.map((r) => r.tenant)]),
    ...[...live.resourceInstances.values()].map((i) => i.tenant),
    ...[...live.groups.values()].map((g) => g.tenant),
  ]);
  const tenants: Obj = {};
  for (const [key, t] of sorted(live.tenants)) {
    if (key === DEFAULT_TENANT && !named.has(key)) continue;
    tenants[key] = compact({
      name: nameOf(t.name, key),
      description: t.description,
      attributes: sortKeys(t.attributes),
    });
  }
  return tenants;
}

/** Users with their roles; in `tenants`, only those their roles do not already place them in. */
function exportUsers(live: LiveState): Obj {
  const implied = new Map<string, Set<string>>(); // user → tenants their roles place them in (normalise.ts adds them back)
  const imply = (user: string, tenant: string) =>
    (implied.get(user) ?? implied.set(user, new Set()).get(user)!).add(tenant);
  const users: Obj = {};
  for (const [key, u] of sorted(live.users)) {
    for (const r of u.roles) imply(key, r.tenant);
    const roles = [...u.roles]
      .sort((a, b) => cmp(a.tenant, b.tenant) || cmp(a.role, b.role) || cmp(a.on ?? '', b.on ?? ''))
      .map((r) => (r.on !== undefined ? { role: r.role, on: r.on } : { role: r.role, tenant: r.tenant }));
    const tenants = u.tenants.filter((t) => !implied.get(key)?.has(t)).sort(cmp);
    users[key] = compact({
      email: u.email,
      first_name: u.first_name,
      last_name: u.last_name,
      attributes: sortKeys(u.attributes),
      tenants,
      roles,
    });
  }
  return users;
}

/** Resource instances: the tenant alone when there is nothing else. */
function exportInstances(live: LiveState): Obj {
  const instances: Obj = {};
  for (const [ref, i] of sorted(live.resourceInstances)) {
    // Tuples with the instance as object, by relation: one subject as a scalar, several as a list.
    const relations: Obj = {};
    for (const t of i.relations ?? []) {
      const had = relations[t.relation];
      relations[t.relation] = had === undefined ? t.subject : [...(Array.isArray(had) ? had : [had]), t.subject];
    }
    const hasRelations = Object.keys(relations).length > 0;
    instances[ref] =
      isEmpty(i.attributes) && !hasRelations
        ? i.tenant
        : compact({
            tenant: i.tenant,
            attributes: sortKeys(i.attributes),
            relations: hasRelations ? relations : undefined,
          });
  }
  return instances;
}

/** Groups with their members, roles and the groups they are linked into, each sorted. */
function exportGroups(live: LiveState): Obj {
  const groups: Obj = {};
  for (const [ref, g] of sorted(live.groups)) {
    groups[ref] = compact({
      tenant: g.tenant,
      members: [...g.members].sort(cmp),
      roles: [...g.roles]
        .sort((a, b) => cmp(a.role, b.role) || cmp(a.on, b.on))
        .map((r) => ({ role: r.role, on: r.on })),
      member_of: [...g.memberOf].sort(cmp),
    });
  }
  return groups;
}

/** Access-request configurations. */
function exportAccessRequests(live: LiveState): Obj {
  const accessRequests: Obj = {};
  for (const [key, a] of sorted(live.accessRequests))
    accessRequests[key] = compact({ name: nameOf(a.name, key), reviewer_roles: [...a.reviewerRoles].sort(cmp) });
  return accessRequests;
}

/** Attribute definitions by key: the type alone when there is no description. */
function exportAttributes(list: DesiredAttribute[]): Obj {
  return Object.fromEntries(
    [...list]
      .sort((a, b) => cmp(a.key, b.key))
      .map((a) => [a.key, a.description ? { type: a.type, description: a.description } : a.type]),
  );
}

/** A user set or resource set; `conditions: {}` (matches everything) is the default and left out. */
function exportSet(c: DesiredConditionSet): Obj {
  return compact({
    resource: c.resource,
    name: nameOf(c.name, c.key),
    description: c.description,
    conditions: c.conditions,
    parent: c.parent,
  });
}

/**
 * Set rules, one item per user set and resource set with every action it permits (`can: [view, approve]`,
 * or the action alone). A rule on a role's autogenerated user set is written `role:`, one on a resource's
 * autogenerated resource set `resource:` (normalise.ts reads them back to those sets).
 */
export function exportSetRules(rules: DesiredSetRule[]): Obj[] {
  const byPair = new Map<string, DesiredSetRule[]>();
  for (const r of rules) {
    const pair = `${r.userSet}\0${r.resourceSet}`;
    (byPair.get(pair) ?? byPair.set(pair, []).get(pair)!).push(r);
  }
  return [...byPair.values()]
    .sort((a, b) => cmp(a[0].userSet, b[0].userSet) || cmp(a[0].resourceSet, b[0].resourceSet))
    .map((group) => {
      const [{ userSet, resourceSet }] = group;
      const who = userSet.startsWith(AUTOGEN_SET_PREFIX)
        ? { role: userSet.slice(AUTOGEN_SET_PREFIX.length) }
        : { user_set: userSet };
      const on = resourceSet.startsWith(AUTOGEN_SET_PREFIX)
        ? { resource: resourceSet.slice(AUTOGEN_SET_PREFIX.length) }
        : { resource_set: resourceSet };
      const base = on.resource ?? group[0].resource;
      // The service refuses a rule whose permission is of another resource than the set's (api-notes): written in full if one is read.
      const actions = [
        ...new Set(group.map((r) => (r.resource === base ? r.action : `${r.resource}:${r.action}`))),
      ].sort(cmp);
      return { ...who, can: actions.length === 1 ? actions[0] : actions, ...on };
    });
}

function nameOf(name: string, key: string): string | undefined {
  return name === key ? undefined : name;
}

/**
 * Attribute values with the keys of every mapping sorted, at every depth (lists keep their order: it is
 * part of the value). The service returns keys in the order they were written, which a PATCH changes.
 */
export function sortKeys<T>(v: T): T {
  if (Array.isArray(v)) return v.map(sortKeys) as T;
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .sort(([a], [b]) => cmp(a, b))
      .map(([k, x]) => [k, sortKeys(x)]),
  ) as T;
}

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'object' && Object.keys(v as object).length === 0);
}

/** Drops unset fields, empty lists and empty mappings: the canonical form writes only what is set. */
function compact(o: Obj): Obj {
  return Object.fromEntries(
    Object.entries(o).filter(
      ([, v]) =>
        v !== undefined &&
        v !== '' &&
        !(Array.isArray(v) && v.length === 0) &&
        !(typeof v === 'object' && v !== null && !Array.isArray(v) && isEmpty(v)),
    ),
  );
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** What a configuration file says above its sections, besides what an export writes (`roster init --from-live`). */
export interface DeclaredHeader {
  /** The `# yaml-language-server: $schema=…` line (editor completion and checks), as written. */
  schemaLine?: string;
  project?: string;
  environment?: string;
  /** `authoritative: true`, with the two lines saying what it means. */
  authoritative?: boolean;
}

/**
 * The export with its schema line above it and `project:`, `environment:` and `authoritative: true`
 * declared after `version: 1`: what
 * `roster init --from-live` writes, and what `roster export --diff FILE` compares a file that declares
 * them with, so that the header it wrote is never reported as drift.
 */
export function withHeader(exported: string, header: DeclaredHeader): string {
  const lines: string[] = [];
  if (header.project !== undefined) lines.push(`project: ${header.project}`);
  if (header.environment !== undefined) lines.push(`environment: ${header.environment}`);
  if (header.authoritative) {
    lines.push(
      '# Deletion as the declared default: live objects these files do not declare are deleted by plan and',
      '# apply (within the delete limit, --max-deletes). See docs/config.md#authoritative.',
      'authoritative: true',
    );
  }
  const above = header.schemaLine !== undefined ? `${header.schemaLine}\n` : '';
  if (lines.length === 0) return `${above}${exported}`;
  const block = lines.join('\n');
  return (
    above +
    (/^version: 1$/m.test(exported)
      ? exported.replace(/^version: 1$/m, `version: 1\n${block}`)
      : `${block}\n${exported}`)
  );
}

/** The header `withHeader` would write, as a file's text declares it (top-level lines only). */
export function readHeader(text: string): DeclaredHeader {
  const scalar = (key: string) =>
    new RegExp(`^${key}:[ \\t]*(?:"([^"\\n]*)"|'([^'\\n]*)'|([^\\s#'"][^\\s#]*))[ \\t]*(?:#.*)?$`, 'm').exec(text);
  const value = (m: RegExpExecArray | null) => (m ? (m[1] ?? m[2] ?? m[3]) : undefined);
  return {
    schemaLine: /^# yaml-language-server: \$schema=\S+[ \t]*$/.exec(text.split('\n', 1)[0])?.[0],
    project: value(scalar('project')),
    environment: value(scalar('environment')),
    authoritative: /^authoritative:[ \t]*true[ \t]*(#.*)?$/m.test(text) || undefined,
  };
}
