/**
 * Step 3 of the pipeline: schema-valid raw files to one DesiredState (lists still in the order written),
 * with a SourceIndex saying where each object was declared. Short forms expand here and defaults apply;
 * an object declared in two places is a merge error naming both.
 */
import type { Accepted } from './accept.js';
import type {
  RawAssertion,
  RawAttributeDefinitions,
  RawConfig,
  RawRelation,
  RawResourceRole,
  RawSetRule,
  RawUserRole,
} from './raw.generated.js';
import {
  emptyDesiredState,
  SECTIONS,
  targetTenant,
  type DesiredAssertion,
  type DesiredRelation,
  type DesiredResourceRole,
  type DesiredState,
  type Section,
} from '../types/desired.js';
import { AUTOGEN_SET_PREFIX, setRuleKey, type DesiredAttribute, type DesiredSetRule } from '../types/abac.js';
import { groupId, splitRef } from '../types/refs.js';
import { Refused } from './refused.js';
import { describePlace, problemAt, type Loc, type Problem, type Source } from './source.js';

export interface RawFile {
  src: Source;
  raw: RawConfig;
  /** What the schema refused in this file; absent when it accepted the whole file. */
  refused?: Omit<Accepted, 'value'>;
}

/** Where each declared object is written, for problems raised by the rules. */
export interface SourceIndex {
  project?: Loc;
  environment?: Loc;
  authoritative?: Loc;
  resources: Map<string, Loc>;
  roles: Map<string, Loc>;
  tenants: Map<string, Loc>;
  users: Map<string, Loc>;
  resourceInstances: Map<string, Loc>;
  groups: Map<string, Loc>;
  accessRequests: Map<string, Loc>;
  userAttributes: Map<string, Loc>;
  tenantAttributes: Map<string, Loc>;
  conditionSets: Map<string, Loc>;
  /** Set rules by `setRuleKey`: the item of `set_rules` that declares each. */
  setRules: Map<string, Loc>;
  /** Set rules as written, in file order (one item may declare several rules: `can: [view, approve]`). */
  setRulesWritten: { loc: Loc; raw: RawSetRule }[];
  /** Users' roles as written, before their tenant is known (see resolveUserRoleTenants). */
  userRoles: Map<string, RawUserRole[]>;
  /** Assertions as written, in the order of `desired.assertions`. */
  assertions: { loc: Loc; raw: RawAssertion }[];
  /** Names and mentions of the parts that did not parse or that the schema refused. */
  refused: Refused;
}

export interface Normalised {
  desired: DesiredState;
  index: SourceIndex;
  errors: Problem[];
}

export function buildDesiredState(files: RawFile[]): Normalised {
  const desired = emptyDesiredState();
  const index = emptySourceIndex();
  const errors: Problem[] = [];
  const m: Merging = { desired, index, errors, ...claimers(index, errors) };
  for (const { src, raw, refused } of files) {
    const at = (...path: string[]): Loc => ({ src, path });
    if (refused) claimRefused(m, refused, at);
    mergeSettings(m, raw, at);
    for (const section of Object.keys(raw)) if (isSection(section)) desired.sections.add(section);
    normaliseSchema(m, raw, at);
    normaliseFacts(m, raw, at);
    normaliseAbac(m, raw, at, src);
    // forEach skips the holes left by refused assertions; the others keep their written index.
    (raw.assertions ?? []).forEach((a, i) => {
      const loc: Loc = { src, path: ['assertions', i] };
      index.assertions.push({ loc, raw: a });
      desired.assertions.push(normaliseAssertion(a, loc));
    });
  }
  resolveUserRoleTenants(desired, index);
  for (const { loc, raw } of index.setRulesWritten) {
    for (const rule of setRulesOf(raw, desired))
      if (m.claim(index.setRules, setRuleKey(rule), loc, 'set rule')) desired.setRules.set(setRuleKey(rule), rule);
  }
  return { desired, index, errors };
}

/** The state being built from the files, where each object was declared, and the merge errors so far. */
interface Merging {
  desired: DesiredState;
  index: SourceIndex;
  errors: Problem[];
  /** Records where `id` is declared; false (and a merge error) when it already was. */
  claim(locs: Map<string, Loc>, id: string, loc: Loc, what: string): boolean;
  /** The same for a set, whose key is one set across `user_sets` and `resource_sets`. */
  claimSet(key: string, loc: Loc, what: string): boolean;
}
type At = (...path: string[]) => Loc;

function emptySourceIndex(): SourceIndex {
  return {
    resources: new Map(),
    roles: new Map(),
    tenants: new Map(),
    users: new Map(),
    resourceInstances: new Map(),
    groups: new Map(),
    accessRequests: new Map(),
    userRoles: new Map(),
    assertions: [],
    userAttributes: new Map(),
    tenantAttributes: new Map(),
    conditionSets: new Map(),
    setRules: new Map(),
    setRulesWritten: [],
    refused: new Refused(),
  };
}

/** `claim` and `claimSet` (see Merging) over the index, pushing their merge errors. */
function claimers(index: SourceIndex, errors: Problem[]): Pick<Merging, 'claim' | 'claimSet'> {
  const claim = (locs: Map<string, Loc>, id: string, loc: Loc, what: string): boolean => {
    const first = locs.get(id);
    if (first) {
      errors.push(
        problemAt(loc, [], `${what} "${id}" is declared twice: here and at ${describePlace(first)}`, {
          on: 'key',
          hint: 'declare each object once; merge the two declarations',
        }),
      );
      return false;
    }
    locs.set(id, loc);
    return true;
  };
  // A set's key is one set across `user_sets` and `resource_sets`, as on the service.
  const claimSet = (key: string, loc: Loc, what: string): boolean => {
    const first = index.conditionSets.get(key);
    if (first && first.path[0] !== loc.path[0]) {
      const other = first.path[0] === 'user_sets' ? 'user set' : 'resource set';
      errors.push(
        problemAt(
          loc,
          [],
          `set "${key}" is declared twice: as a ${what} here and as a ${other} at ${describePlace(first)}`,
          {
            on: 'key',
            hint: 'a key names one set across user_sets and resource_sets: rename one of them',
          },
        ),
      );
      return false;
    }
    return claim(index.conditionSets, key, loc, what);
  };
  return { claim, claimSet };
}

/** A refused entry still declares its name: it can be declared twice, and references to it resolve. */
function claimRefused({ index, claim, claimSet }: Merging, refused: NonNullable<RawFile['refused']>, at: At): void {
  for (const { section, written } of refused.entries) {
    const [locs, what] = SECTION_INDEX[section];
    const id = section === 'groups' ? groupId(written) : written;
    if (locs === 'conditionSets') claimSet(id, at(section, written), what);
    else claim(index[locs], id, at(section, written), what);
    index.refused.addName(section, id);
  }
  for (const { section, key } of refused.guessed) index.refused.addName(section, key);
  for (const { section, key } of refused.trimmed) index.refused.addTrimmed(section, key);
  for (const section of refused.unknowable) index.refused.addUnknowable(section);
  index.refused.addMentions(refused.mentions);
}

/** `project`, `environment` and `authoritative`: files that set them must agree. */
function mergeSettings({ desired, index, errors }: Merging, raw: RawConfig, at: At): void {
  for (const field of ['project', 'environment'] as const) {
    const value = raw[field];
    if (value === undefined) continue;
    const first = index[field];
    if (first && desired[field] !== value) {
      errors.push(
        problemAt(at(field), [], `${field} "${value}" differs from "${desired[field]}" set at ${describePlace(first)}`),
      );
    } else if (!first) {
      desired[field] = value;
      index[field] = at(field);
    }
  }
  if (raw.authoritative !== undefined) {
    // Like project and environment: files that set it must agree (a list in any order is one value).
    const value = Array.isArray(raw.authoritative) ? [...raw.authoritative].sort() : raw.authoritative;
    const first = index.authoritative;
    if (first && JSON.stringify(desired.authoritative) !== JSON.stringify(value)) {
      errors.push(
        problemAt(
          at('authoritative'),
          [],
          `authoritative ${JSON.stringify(raw.authoritative)} differs from ${JSON.stringify(desired.authoritative)} set at ${describePlace(first)}`,
          {
            hint: 'set authoritative in one file',
          },
        ),
      );
    } else if (!first) {
      desired.authoritative = value as DesiredState['authoritative'];
      index.authoritative = at('authoritative');
    }
  }
}

/** The file's resources and roles, short forms expanded. */
function normaliseSchema({ desired, index, claim }: Merging, raw: RawConfig, at: At): void {
  for (const [key, r] of Object.entries(raw.resources ?? {})) {
    if (!claim(index.resources, key, at('resources', key), 'resource')) continue;
    const o = Array.isArray(r) ? { actions: r } : (r ?? {});
    const roles = 'roles' in o && o.roles !== undefined ? resourceRoles(o.roles) : undefined;
    const relations = 'relations' in o && o.relations !== undefined ? resourceRelations(o.relations) : undefined;
    const attributes = 'attributes' in o && o.attributes !== undefined ? attributeDefinitions(o.attributes) : undefined;
    desired.resources.set(key, {
      key,
      name: o.name ?? key,
      ...opt('description', o.description),
      actions: [...(o.actions ?? [])],
      ...opt('roles', roles),
      ...opt('relations', relations),
      ...opt('attributes', attributes),
    });
  }
  for (const [key, r] of Object.entries(raw.roles ?? {})) {
    if (!claim(index.roles, key, at('roles', key), 'role')) continue;
    const o = Array.isArray(r) ? { permissions: r } : (r ?? {});
    // `extends` written is exact (possibly `[]`); left out, the live roles' `extends` stays (docs/config.md).
    const ext = 'extends' in o && o.extends !== undefined ? { extends: [...new Set(o.extends)] } : {};
    desired.roles.set(key, {
      key,
      name: o.name ?? key,
      ...opt('description', o.description),
      permissions: [...(o.permissions ?? [])],
      ...ext,
    });
  }
}

/** The file's tenants, users (their roles kept as written), instances, groups and access-request configurations. */
function normaliseFacts({ desired, index, claim }: Merging, raw: RawConfig, at: At): void {
  for (const [key, t] of Object.entries(raw.tenants ?? {})) {
    if (!claim(index.tenants, key, at('tenants', key), 'tenant')) continue;
    const o = typeof t === 'string' ? { name: t } : (t ?? {});
    desired.tenants.set(key, {
      key,
      name: o.name ?? key,
      ...opt('description', o.description),
      ...opt('attributes', o.attributes),
    });
  }
  for (const [key, u] of Object.entries(raw.users ?? {})) {
    if (!claim(index.users, key, at('users', key), 'user')) continue;
    const o = u ?? {};
    desired.users.set(key, {
      key,
      ...opt('email', o.email),
      ...opt('first_name', o.first_name),
      ...opt('last_name', o.last_name),
      ...opt('attributes', o.attributes),
      tenants: [...(o.tenants ?? [])],
      roles: [],
    });
    index.userRoles.set(key, o.roles ?? []);
  }
  for (const [id, i] of Object.entries(raw.resource_instances ?? {})) {
    if (!claim(index.resourceInstances, id, at('resource_instances', id), 'resource instance')) continue;
    const o = typeof i === 'string' ? { tenant: i } : i;
    const { type, key } = splitRef(id);
    const relations =
      'relations' in o && o.relations !== undefined
        ? Object.entries(o.relations).flatMap(([relation, s]) =>
            (Array.isArray(s) ? s : [s]).map((subject) => ({ relation, subject })),
          )
        : undefined;
    desired.resourceInstances.set(id, {
      resource: type,
      key,
      tenant: o.tenant,
      ...opt('attributes', o.attributes),
      ...opt('relations', relations),
    });
  }
  for (const [written, g] of Object.entries(raw.groups ?? {})) {
    const id = groupId(written);
    if (!claim(index.groups, id, at('groups', written), 'group')) continue;
    const { type, key } = splitRef(id);
    desired.groups.set(id, {
      type,
      key,
      tenant: g.tenant,
      members: [...(g.members ?? [])],
      roles: (g.roles ?? []).map((r) => ({ role: r.role, on: r.on })),
      memberOf: (g.member_of ?? []).map(groupId),
    });
  }
  for (const [key, a] of Object.entries(raw.access_requests ?? {})) {
    if (!claim(index.accessRequests, key, at('access_requests', key), 'access request configuration')) continue;
    desired.accessRequests.set(key, {
      key,
      name: a.name ?? key,
      reviewerRoles: [...a.reviewer_roles],
      ...opt('grantFor', a.grant_for),
    });
  }
}

/** The file's attribute definitions and sets; its set rules are kept as written (made once all files are read). */
function normaliseAbac({ desired, index, claim, claimSet }: Merging, raw: RawConfig, at: At, src: Source): void {
  for (const [field, part] of [
    ['user_attributes', 'userAttributes'],
    ['tenant_attributes', 'tenantAttributes'],
  ] as const) {
    for (const a of attributeDefinitions(raw[field] ?? {})) {
      if (
        claim(index[part], a.key, at(field, a.key), field === 'user_attributes' ? 'user attribute' : 'tenant attribute')
      )
        desired[part].set(a.key, a);
    }
  }
  for (const [key, u] of Object.entries(raw.user_sets ?? {})) {
    if (!claimSet(key, at('user_sets', key), 'user set')) continue;
    desired.conditionSets.set(key, {
      key,
      type: 'userset',
      name: u.name ?? key,
      ...opt('description', u.description),
      conditions: u.conditions ?? {},
      ...opt('parent', u.parent),
    });
  }
  for (const [key, r] of Object.entries(raw.resource_sets ?? {})) {
    if (!claimSet(key, at('resource_sets', key), 'resource set')) continue;
    desired.conditionSets.set(key, {
      key,
      type: 'resourceset',
      name: r.name ?? key,
      ...opt('description', r.description),
      resource: r.resource,
      conditions: r.conditions ?? {},
      ...opt('parent', r.parent),
    });
  }
  // Holes left by refused items are skipped; the others keep their written index.
  (raw.set_rules ?? []).forEach((r, i) => index.setRulesWritten.push({ loc: { src, path: ['set_rules', i] }, raw: r }));
}

/** Attribute definitions as written (short form: the type). */
function attributeDefinitions(written: RawAttributeDefinitions): DesiredAttribute[] {
  return Object.entries(written).map(([key, a]) =>
    typeof a === 'string' ? { key, type: a } : { key, type: a.type, ...opt('description', a.description) },
  );
}

/**
 * One item of `set_rules` to its rules, one per action: `role:` names the role's autogenerated user set,
 * `resource:` the resource's autogenerated resource set. The permission's resource is the resource set's
 * base resource (known once every file is merged), or the one `can` names (`expense:approve`). `view`
 * and `expense:view` in one item are one rule. A malformed item (not exactly one of `user_set`/`role`
 * and of `resource_set`/`resource`) gives none: the rule setRuleShape reports it.
 */
export function setRulesOf(raw: RawSetRule, desired: Pick<DesiredState, 'conditionSets'>): DesiredSetRule[] {
  if (
    (raw.user_set === undefined) === (raw.role === undefined) ||
    (raw.resource_set === undefined) === (raw.resource === undefined)
  )
    return [];
  const userSet = raw.user_set ?? AUTOGEN_SET_PREFIX + raw.role;
  const resourceSet = raw.resource_set ?? AUTOGEN_SET_PREFIX + raw.resource;
  const base = raw.resource_set !== undefined ? desired.conditionSets.get(raw.resource_set)?.resource : raw.resource;
  const rules = new Map<string, DesiredSetRule>();
  for (const written of Array.isArray(raw.can) ? raw.can : [raw.can]) {
    const colon = written.indexOf(':');
    const action = colon < 0 ? written : written.slice(colon + 1);
    // `expense:approve` names its resource: another than the base one is reported by setRulesResolve.
    const resource = colon < 0 ? (base ?? '') : written.slice(0, colon);
    const rule = { userSet, resourceSet, resource, action };
    if (!rules.has(setRuleKey(rule))) rules.set(setRuleKey(rule), rule);
  }
  return [...rules.values()];
}

/** A resource's `roles` as written to resource roles (short form: the list of its permissions). */
function resourceRoles(written: Record<string, RawResourceRole>): DesiredResourceRole[] {
  return Object.entries(written).map(([key, r]) => {
    const o = Array.isArray(r) ? { permissions: r } : (r ?? {});
    const ext = 'extends' in o ? o.extends : undefined;
    const grantedTo = ('granted_to' in o ? (o.granted_to ?? []) : []).map((d) => ({
      role: d.role,
      on: d.on,
      via: d.via,
      ...(d.when?.no_direct_roles_on_object ? { noDirectRolesOnObject: true } : {}),
    }));
    return {
      key,
      name: o.name ?? key,
      ...opt('description', o.description),
      permissions: [...(o.permissions ?? [])],
      extends: [...(ext ?? [])],
      grantedTo,
    };
  });
}

/** A resource's `relations` as written (short form: the subject resource's key). */
function resourceRelations(written: Record<string, RawRelation>): DesiredRelation[] {
  return Object.entries(written).map(([key, r]) => {
    const o = typeof r === 'string' ? { subject: r } : r;
    return { key, name: o.name ?? key, ...opt('description', o.description), subject: o.subject };
  });
}

/**
 * A user's role without `tenant` takes the tenant of its instance (`on`), else the user's only tenant.
 * Needs every file merged first (the instance may be declared elsewhere). When neither tells, the
 * tenant stays '' and the rule userRolesResolve reports it.
 */
function resolveUserRoleTenants(desired: DesiredState, index: SourceIndex): void {
  for (const [key, written] of index.userRoles) {
    const user = desired.users.get(key)!;
    user.roles = written.map((r) => {
      const o = typeof r === 'string' ? { role: r } : r;
      const tenant =
        o.tenant ??
        (o.on ? targetTenant(desired, o.on) : undefined) ??
        (user.tenants.length === 1 ? user.tenants[0] : '');
      return { role: o.role, tenant, ...opt('on', o.on) };
    });
  }
}

/**
 * The written form to the desired one. A malformed assertion (two subjects, no check) still normalises,
 * to the first of each; the rule assertionShape reports it. Its place is resolved now: failures print it.
 */
function normaliseAssertion(a: RawAssertion, loc: Loc): DesiredAssertion {
  const check =
    a.who_can !== undefined
      ? 'who_can'
      : a.exactly !== undefined || a.on_type !== undefined
        ? 'what_can'
        : a.can !== undefined
          ? 'can'
          : a.cannot !== undefined
            ? 'cannot'
            : 'has_role';
  const { file, path, line, column } = problemAt(loc, [], '');
  const item = loc.path[1];
  return {
    ...(a.user !== undefined ? { user: a.user } : check === 'who_can' ? {} : { usersIn: groupId(a.users_in ?? '') }),
    check,
    subject: a.who_can ?? a.can ?? a.cannot ?? a.has_role ?? '',
    on: check === 'what_can' ? (a.on_type ?? '') : (a.on ?? ''),
    ...(a.exactly !== undefined ? { exactly: [...a.exactly] } : {}),
    ...(a.with !== undefined
      ? {
          passed: {
            ...opt('user', a.with.user),
            ...opt('resource', a.with.resource),
            ...opt('context', a.with.context),
          },
        }
      : {}),
    source: {
      file: file ?? loc.src.file,
      path: path ?? '',
      ...(line !== undefined ? { line, column } : {}),
      ...(typeof item === 'number' && check.endsWith('_can') ? { item } : {}),
    },
  };
}

const SECTION_INDEX: Record<
  Section,
  [Exclude<keyof DesiredState, 'project' | 'environment' | 'sections' | 'authoritative' | 'assertions'>, string]
> = {
  resources: ['resources', 'resource'],
  roles: ['roles', 'role'],
  tenants: ['tenants', 'tenant'],
  users: ['users', 'user'],
  resource_instances: ['resourceInstances', 'resource instance'],
  groups: ['groups', 'group'],
  access_requests: ['accessRequests', 'access request configuration'],
  user_attributes: ['userAttributes', 'user attribute'],
  tenant_attributes: ['tenantAttributes', 'tenant attribute'],
  user_sets: ['conditionSets', 'user set'],
  resource_sets: ['conditionSets', 'resource set'],
  set_rules: ['setRules', 'set rule'],
};

function isSection(s: string): s is Section {
  return (SECTIONS as readonly string[]).includes(s);
}

/** `{[name]: value}` when value is set, so optional fields stay absent rather than undefined. */
function opt<K extends string, V>(name: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [name]: value }) as { [P in K]?: V };
}
