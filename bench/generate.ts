/**
 * A deterministic, valid Roster configuration of any size, as plain objects in the canonical shape of
 * docs/config.md, and a fast YAML writer for it. Used by the config bench, the config property tests
 * and other benches that load the same environment into the server: keep it free of src/ imports.
 */

export interface GenerateOptions {
  users: number;
  groups: number;
  /** Longest member_of chain, counted in groups (1: no nesting). */
  maxDepth: number;
  instances: number;
  /** Direct user memberships over all groups (fewer when there are not enough users to fill them). */
  memberships: number;
  tenants?: number;
  seed?: number;
  /**
   * One user in this many holds `admin` tenant-wide in their tenant (default 50). With `tenants: 1` and
   * 100, the company-wide deployment of issue 42: 1% of users hold a role over every instance.
   */
  tenantWideEvery?: number;
  /**
   * How groups' roles are chosen. `any` (default): any of the group roles on any instance, so every
   * (group type, resource) pair carries several roles. `by-type`: the way teams are usually given access:
   * a `team` holds the working role of each resource type (document: editor, repository: developer,
   * invoice: accountant), and one group in 20 is a `squad` holding any role that fits the type. The public
   * service records group roles as type-level derivations plus tuples (api-notes "Groups"), so only the
   * squads' roles need reading one group at a time (src/api/group-roles.ts).
   */
  groupRoles?: 'any' | 'by-type';
  /**
   * Opt-in folder tree (issue 20, "Scale"): a `folder` resource and a `file` resource (the documents in
   * folders) whose resource roles viewer/editor derive down `parent`, `depth` levels of folders per tenant,
   * `documents` files each in a folder, teams holding folder#editor on top folders and folder#viewer on
   * second-level ones, and one user in 100 holding a folder role directly. Drawn from a prng of its own
   * after everything else, so the rest of the environment is exactly what it is without the option.
   */
  folders?: { documents: number; depth: number };
}

type Entry = Record<string, unknown>;

/** The canonical raw shape (what a user writes), as plain data. */
export interface RawConfigObject {
  version: 1;
  resources: Record<
    string,
    { name: string; actions: string[]; relations?: Record<string, string>; roles?: Record<string, Entry> }
  >;
  roles: Record<string, { name: string; permissions: string[] }>;
  tenants: Record<string, { name: string }>;
  users: Record<
    string,
    { email: string; tenants: string[]; roles?: ({ role: string; tenant: string } | { role: string; on: string })[] }
  >;
  resource_instances: Record<string, { tenant: string; relations?: Record<string, string> }>;
  groups: Record<
    string,
    { tenant: string; members?: string[]; roles?: { role: string; on: string }[]; member_of?: string[] }
  >;
  access_requests: Record<string, { name: string; reviewer_roles: string[] }>;
}

const RESOURCES: Record<string, string[]> = {
  document: ['read', 'comment', 'write', 'share', 'delete'],
  repository: ['read', 'push', 'admin'],
  invoice: ['read', 'create', 'approve'],
};
const ROLES: Record<string, string[]> = {
  viewer: ['document:read', 'repository:read', 'invoice:read'],
  editor: ['document:read', 'document:comment', 'document:write'],
  developer: ['repository:read', 'repository:push'],
  maintainer: ['repository:read', 'repository:push', 'repository:admin'],
  accountant: ['invoice:read', 'invoice:create'],
  admin: ['document:delete', 'document:share', 'repository:admin', 'invoice:approve'],
};
const GROUP_ROLES = ['viewer', 'editor', 'developer', 'maintainer', 'accountant'];
/** `by-type`: a team's role on each resource type, and the roles a squad may hold there. */
const TEAM_ROLE: Record<string, string> = { document: 'editor', repository: 'developer', invoice: 'accountant' };
const SQUAD_ROLES: Record<string, string[]> = {
  document: ['viewer', 'editor'],
  repository: ['viewer', 'developer', 'maintainer'],
  invoice: ['viewer', 'accountant'],
};

/** Mulberry32: small, fast, good enough for test data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function generateEnvironment(opts: GenerateOptions): RawConfigObject {
  const random = prng(opts.seed ?? 1);
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];
  const pad = (n: number, total: number) => String(n).padStart(String(Math.max(total - 1, 1)).length, '0');
  const tenantKeys = Array.from({ length: Math.max(1, opts.tenants ?? 5) }, (_, i) => `tenant-${i}`);

  const config: RawConfigObject = {
    version: 1,
    resources: Object.fromEntries(Object.entries(RESOURCES).map(([k, actions]) => [k, { name: cap(k), actions }])),
    roles: Object.fromEntries(Object.entries(ROLES).map(([k, permissions]) => [k, { name: cap(k), permissions }])),
    tenants: Object.fromEntries(tenantKeys.map((t, i) => [t, { name: `Tenant ${i}` }])),
    users: {},
    resource_instances: {},
    groups: {},
    access_requests: { default: { name: 'Default access requests', reviewer_roles: ['admin'] } },
  };

  const usersByTenant = new Map<string, string[]>(tenantKeys.map((t) => [t, []]));
  for (let i = 0; i < opts.users; i++) {
    const key = `user-${pad(i, opts.users)}@example.test`;
    const tenant = tenantKeys[i % tenantKeys.length];
    const user: RawConfigObject['users'][string] = { email: key, tenants: [tenant] };
    if (i % (opts.tenantWideEvery ?? 50) === 0) user.roles = [{ role: 'admin', tenant }];
    config.users[key] = user;
    usersByTenant.get(tenant)!.push(key);
  }

  const instancesByTenant = new Map<string, string[]>(tenantKeys.map((t) => [t, []]));
  const types = Object.keys(RESOURCES);
  for (let i = 0; i < opts.instances; i++) {
    const type = types[i % types.length];
    const id = `${type}:${type}-${pad(i, opts.instances)}`;
    const tenant = pick(tenantKeys);
    config.resource_instances[id] = { tenant };
    instancesByTenant.get(tenant)!.push(id);
  }

  // Nesting: a group links into an earlier group of its tenant and type whose chain is still short enough.
  const groupsByTenant = new Map<string, { id: string; depth: number }[]>();
  const groupIds: string[] = [];
  const byType = opts.groupRoles === 'by-type';
  for (let i = 0; i < opts.groups; i++) {
    const type = byType && i % 20 === 19 ? 'squad' : 'team';
    const id = `${type}:${type}-${pad(i, opts.groups)}`;
    const tenant = tenantKeys[i % tenantKeys.length];
    const earlier =
      groupsByTenant.get(`${type} ${tenant}`) ?? groupsByTenant.set(`${type} ${tenant}`, []).get(`${type} ${tenant}`)!;
    const candidates = earlier.filter((g) => g.depth < opts.maxDepth);
    // The first chain of the first tenant reaches maxDepth, so the depth asked for is always present.
    const parent =
      i < opts.maxDepth * tenantKeys.length && earlier.length > 0
        ? earlier[earlier.length - 1]
        : candidates.length > 0 && random() < 0.8
          ? pick(candidates)
          : undefined;
    const depth = parent && parent.depth < opts.maxDepth ? parent.depth + 1 : 1;
    const group: RawConfigObject['groups'][string] = { tenant };
    if (parent && parent.depth < opts.maxDepth) group.member_of = [parent.id];
    const targets = instancesByTenant.get(tenant)!;
    if (targets.length > 0) {
      const roles = new Map<string, { role: string; on: string }>();
      for (let k = 0; k < 1 + (i % 2); k++) {
        // Role before instance in `any`, so that its environments stay what they were.
        const anyRole = byType ? undefined : pick(GROUP_ROLES);
        const on = pick(targets);
        const resource = on.slice(0, on.indexOf(':'));
        const role = anyRole ?? (type === 'team' ? TEAM_ROLE[resource] : pick(SQUAD_ROLES[resource]));
        roles.set(`${role} ${on}`, { role, on });
      }
      group.roles = [...roles.values()];
    }
    config.groups[id] = group;
    earlier.push({ id, depth });
    groupIds.push(id);
  }

  const members = new Map<string, Set<string>>();
  let placed = 0;
  for (let attempt = 0; placed < opts.memberships && attempt < opts.memberships * 4 && groupIds.length > 0; attempt++) {
    const id = groupIds[placed % groupIds.length];
    const candidates = usersByTenant.get(config.groups[id].tenant)!;
    if (candidates.length === 0) continue;
    const set = members.get(id) ?? new Set<string>();
    const user = pick(candidates);
    if (set.has(user)) continue;
    set.add(user);
    members.set(id, set);
    placed++;
  }
  for (const [id, set] of members) config.groups[id].members = [...set];
  if (opts.folders) addFolderTree(config, opts.folders, prng((opts.seed ?? 1) + 1_000_003));
  return config;
}

/** Children per folder below the top level; two top folders per tenant. */
const FOLDER_FANOUT = 3;
const TOP_FOLDERS = 2;

/** See GenerateOptions.folders. Appends to `config`; changes nothing already in it. */
function addFolderTree(
  config: RawConfigObject,
  opts: { documents: number; depth: number },
  random: () => number,
): void {
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];
  const derived = (role: string) => [{ role, on: 'folder', via: 'parent' }];
  const roles = {
    viewer: { name: 'Viewer', permissions: ['read'], granted_to: derived('viewer') },
    editor: { name: 'Editor', permissions: ['write'], extends: ['viewer'], granted_to: derived('editor') },
  };
  config.resources.folder = { name: 'Folder', actions: ['read', 'write'], relations: { parent: 'folder' }, roles };
  config.resources.file = { name: 'File', actions: ['read', 'write'], relations: { parent: 'folder' }, roles };

  const tenants = Object.keys(config.tenants);
  /** Folders of each tenant by level (0: top). */
  const levels = new Map<string, string[][]>();
  let n = 0;
  for (const tenant of tenants) {
    const byLevel: string[][] = [];
    for (let level = 0; level < opts.depth; level++) {
      const parents = level === 0 ? [undefined] : byLevel[level - 1];
      const here: string[] = [];
      for (const parent of parents) {
        for (let c = 0; c < (level === 0 ? TOP_FOLDERS : FOLDER_FANOUT); c++) {
          const id = `folder:folder-${String(n++).padStart(4, '0')}`;
          config.resource_instances[id] = parent ? { tenant, relations: { parent } } : { tenant };
          here.push(id);
        }
      }
      byLevel.push(here);
    }
    levels.set(tenant, byLevel);
  }
  // Documents in folders of any level, most in the deepest (where the tree has most folders).
  for (let i = 0; i < opts.documents; i++) {
    const tenant = tenants[i % tenants.length];
    const folder = pick(levels.get(tenant)!.flat());
    config.resource_instances[`file:file-${String(i).padStart(String(opts.documents - 1).length, '0')}`] = {
      tenant,
      relations: { parent: folder },
    };
  }
  // Teams of the tenant: every top folder has an editor team, every second-level folder a viewer team.
  const teams = new Map<string, string[]>(tenants.map((t) => [t, []]));
  for (const [id, g] of Object.entries(config.groups)) if (id.startsWith('team:')) teams.get(g.tenant)?.push(id);
  for (const tenant of tenants) {
    const candidates = teams.get(tenant)!;
    if (candidates.length === 0) continue;
    const [top, second = []] = levels.get(tenant)!;
    for (const [role, folders] of [
      ['editor', top],
      ['viewer', second],
    ] as const) {
      for (const on of folders) (config.groups[pick(candidates)].roles ??= []).push({ role, on });
    }
  }
  // One user in 100 holds viewer or editor on a folder of their tenant directly.
  const users = Object.entries(config.users);
  for (let i = 7; i < users.length; i += 100) {
    const [, user] = users[i];
    (user.roles ??= []).push({ role: pick(['viewer', 'editor']), on: pick(levels.get(user.tenants[0])!.flat()) });
  }
}

/** A 1% membership edit: `count` memberships move to another group of the same tenant and type. */
export function moveMemberships(raw: RawConfigObject, count: number): void {
  const groups = Object.entries(raw.groups);
  let moved = 0;
  for (let i = 0; i < groups.length && moved < count; i += 3) {
    const [fromId, from] = groups[i];
    const u = from.members?.at(-1);
    if (u === undefined) continue;
    const to = groups.find(
      ([id, g], j) =>
        j > i && g.tenant === from.tenant && id.split(':')[0] === fromId.split(':')[0] && !g.members?.includes(u),
    );
    if (!to) continue;
    from.members!.pop();
    (to[1].members ??= []).push(u);
    moved++;
  }
  if (moved < count) throw new Error(`the 1% edit moved only ${moved} memberships`);
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * YAML for plain data: sections and entries as blocks, each entry's fields in flow style. Much faster
 * than a general emitter on 10,000-entry maps, and the output reads like hand-written configuration.
 */
export function toYaml(value: Record<string, unknown>): string {
  const out: string[] = [];
  for (const [section, body] of Object.entries(value)) {
    if (!isPlainObject(body) || Object.keys(body).length === 0) {
      out.push(`${scalar(section)}: ${flow(body)}`);
      continue;
    }
    out.push(`${scalar(section)}:`);
    for (const [key, entry] of Object.entries(body)) out.push(`  ${scalar(key)}: ${flow(entry)}`);
  }
  return out.join('\n') + '\n';
}

function flow(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(flow).join(', ')}]`;
  if (isPlainObject(v)) {
    const parts = Object.entries(v).map(([k, x]) => `${scalar(k)}: ${flow(x)}`);
    return parts.length === 0 ? '{}' : `{ ${parts.join(', ')} }`;
  }
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return scalar(v);
  return String(v);
}

const PLAIN = /^[A-Za-z_][A-Za-z0-9_\-.@|+:/]*$|^[0-9][A-Za-z0-9_\-.@|+:/]*[A-Za-z_\-@|+:/][A-Za-z0-9_\-.@|+:/]*$/;
const RESERVED = /^(true|false|null|~|yes|no|on|off|y|n)$/i;

/** Plain when YAML reads it back as the same string, double-quoted (JSON) otherwise. */
function scalar(s: string): string {
  return PLAIN.test(s) && !RESERVED.test(s) && !s.endsWith(':') && !/^0[xo]/i.test(s) && !/[eE][-+]?\d+$/.test(s)
    ? s
    : JSON.stringify(s);
}

function isPlainObject(v: unknown): v is Entry {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
