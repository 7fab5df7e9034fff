/**
 * What a role grants, and the `extends` closure: one rule, walked over a role reader. `/allowed` reads
 * roles from the store level by level (asynchronously, src/server/repo/allowed.ts); the access graph from
 * memory (src/access/roles.ts). Both drive the same walk (`walkExtends`) with `runWalk` or `runWalkAsync`.
 */

/**
 * One role as the rules see it. `id` names it in its reader's terms (the graph: `document#editor`; the
 * server: its resource id and key); `extends` are the ids of the roles it extends, already scoped by
 * `extendsOf` (a resource role extends roles of its own resource, a top-level role top-level roles).
 */
export interface RoleNode {
  id: string;
  /** Qualified `type:action` for a top-level role; for a resource role, in its reader's terms (see `roleAllows`). */
  permissions: readonly string[];
  extends: readonly string[];
}

/**
 * The `extends` closure from `held`, breadth first, each role visited once (a cycle of `extends` ends:
 * every role on it reaches all of them). `visit` sees each role reached; returning true stops the walk
 * (the answer is then true). The walk yields the ids of the next level to read and receives their roles
 * (unknown ids are simply missing).
 */
export function* walkExtends(
  held: readonly RoleNode[],
  visit: (role: RoleNode) => boolean,
): Generator<string[], boolean, readonly RoleNode[]> {
  const seen = new Set<string>();
  let frontier = held;
  while (frontier.length > 0) {
    const next = new Set<string>();
    for (const r of frontier) {
      if (seen.has(r.id)) continue;
      seen.add(r.id);
      if (visit(r)) return true;
      for (const e of r.extends) if (!seen.has(e)) next.add(e);
    }
    if (next.size === 0) return false;
    frontier = yield [...next];
  }
  return false;
}

type Walk = Generator<string[], boolean, readonly RoleNode[]>;

/** Drives a walk with a reader from memory. */
export function runWalk(walk: Walk, read: (ids: string[]) => readonly RoleNode[]): boolean {
  let step = walk.next();
  while (!step.done) step = walk.next(read(step.value));
  return step.value;
}

/** Drives a walk with a reader from a store. */
export async function runWalkAsync(
  walk: Walk,
  read: (ids: string[]) => Promise<readonly RoleNode[]>,
): Promise<boolean> {
  let step = walk.next();
  while (!step.done) step = walk.next(await read(step.value));
  return step.value;
}

/** The role's own and inherited permissions (in the role's terms), over a reader from memory. */
export function closedPermissions(role: RoleNode, read: (ids: string[]) => readonly RoleNode[]): Set<string> {
  const out = new Set<string>();
  runWalk(
    walkExtends([role], (r) => {
      for (const p of r.permissions) out.add(p);
      return false;
    }),
    read,
  );
  return out;
}

/**
 * The scope of `extends` (and of a role named anywhere): a resource role (`resource` set) extends roles
 * of its own resource, a top-level role (`resource` null) top-level roles. `id` makes the reader's id.
 */
export function extendsOf<R>(
  role: { resource: R | null; extends: readonly string[] },
  id: (resource: R | null, key: string) => string,
): string[] {
  return role.extends.map((key) => id(role.resource, key));
}

/** What a check asks of a role: an action on an instance of type T (T's resource id or key, and its key). */
export interface Wanted<R = string> {
  /** T, in the reader's terms (the server: its resource id); null when the check names no instance type. */
  resource: R | null;
  /** T's key. */
  type: string;
  action: string;
}

/**
 * What a role grants on a type: a top-level role (`resource` null) allows when it lists `T:action`; a
 * resource role of T when it lists the action (`read`); a resource role of another type, nothing.
 */
export function roleAllows<R>(role: { resource: R | null; permissions: readonly string[] }, w: Wanted<R>): boolean {
  if (role.resource === null) return role.permissions.includes(`${w.type}:${w.action}`);
  return role.resource === w.resource && role.permissions.includes(w.action);
}

/**
 * The identity of role `role` held on `instance` (`type:key`): the resource role `type#role` when
 * `isResourceRole` says the instance's type defines one, else the top-level role `role`. A tenant-wide
 * role is always top-level. (The server resolves the same rule in SQL: repo/role-scope.ts.)
 */
export function resolveRoleKey(role: string, instance: string, isResourceRole: (id: string) => boolean): string {
  const i = instance.indexOf(':');
  const id = `${i < 0 ? instance : instance.slice(0, i)}#${role}`;
  return isResourceRole(id) ? id : role;
}

/**
 * A role's permissions as `T:action`: a resource role's actions qualified with its own type (it grants
 * on no other: `roleAllows`), a top-level role's as they are. The access graph holds them so.
 */
export function qualifiedPermissions(type: string | null, permissions: readonly string[]): string[] {
  return type === null ? [...permissions] : permissions.map((a) => `${type}:${a}`);
}
