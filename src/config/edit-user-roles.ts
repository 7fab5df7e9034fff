/**
 * Adding roles to users in a configuration file without disturbing the rest of it (`roster requests
 * adopt`). The Document API finds the nodes and their source ranges; the new items are inserted as text
 * at those places, so every other byte stays as written: re-rendering the whole document with
 * `toString()` would also keep the comments, but re-space every flow list (`[acme]` → `[ acme ]`) and
 * move comments written after a key onto their own line, which a reviewer would have to read through in
 * the pull request. The result is parsed again and checked (editUserRoles throws when it does not hold
 * what was added). Pure.
 */
import {
  isMap,
  isScalar,
  isSeq,
  parseDocument,
  type Document,
  type Node,
  type Pair,
  type YAMLMap,
  type YAMLSeq,
} from 'yaml';
import { InternalError } from '../errors.js';

export interface RoleAddition {
  role: string;
  /** Written for a tenant-wide role; a role on an instance takes the instance's tenant. */
  tenant: string;
  /** `type:key` of the instance. */
  on?: string;
  /** One line, written as a YAML comment (`# …`) next to the item. */
  comment: string;
}

interface Edit {
  at: number;
  /** Characters replaced from `at` (0: a pure insertion). */
  remove: number;
  insert: string;
}

/** The flow-map form of a role item, as docs/config.md writes them. */
export function roleItemText(r: RoleAddition): string {
  return r.on !== undefined ? `{ role: ${r.role}, on: ${r.on} }` : `{ role: ${r.role}, tenant: ${r.tenant} }`;
}

/**
 * `text` with `additions` appended to the `roles` of the users (keys of the top-level `users` mapping) it
 * names. Throws InternalError when a user is not declared in this text, or when the edited text does not
 * parse to the same document plus exactly these roles.
 */
export function editUserRoles(text: string, additions: ReadonlyMap<string, readonly RoleAddition[]>): string {
  const doc = parseDocument(text);
  if (doc.errors.length > 0)
    throw new InternalError(`cannot edit a file that does not parse: ${doc.errors[0].message}`);
  const users = doc.get('users', true);
  if (!isMap(users)) throw new InternalError('the file has no users mapping');
  const edits: Edit[] = [];
  for (const [user, roles] of additions) {
    if (roles.length === 0) continue;
    const pair = users.items.find((p) => isScalar(p.key) && String(p.key.value) === user);
    if (!pair) throw new InternalError(`user "${user}" is not declared in this file`);
    edits.push(...editsFor(text, pair as Pair<Node, Node | null>, roles));
  }
  let out = text;
  for (const e of edits.sort((a, b) => b.at - a.at)) out = out.slice(0, e.at) + e.insert + out.slice(e.at + e.remove);
  verify(doc, out, additions);
  return out;
}

function editsFor(text: string, pair: Pair<Node, Node | null>, roles: readonly RoleAddition[]): Edit[] {
  const key = pair.key;
  const value = pair.value;
  const keyColumn = columnOf(text, key.range![0]);
  const items = roles.map(roleItemText);
  // A comment line above the line `node` starts on, at that line's indentation.
  const commentAbove = (node: Node): Edit => {
    const start = lineStart(text, node.range![0]);
    const indent = ' '.repeat(columnOf(text, node.range![0]));
    return { at: start, remove: 0, insert: roles.map((r) => `${indent}# ${r.comment}\n`).join('') };
  };
  // Each item on its own line after a comment line, every line starting with its newline: inserted at
  // the end of a line (before its newline), they keep the text after it as it was.
  const blockItems = (indent: string) =>
    roles.map((r, i) => `\n${indent}# ${r.comment}\n${indent}- ${items[i]}`).join('');

  // `alice:` or `alice: ~`: the user becomes a block mapping holding only the roles (a `~` goes; a
  // comment after it stays).
  if (value === null || (isScalar(value) && value.value === null)) {
    const indent = ' '.repeat(keyColumn + 2);
    const [from, to] = value?.range ?? [key.range![1], key.range![1]];
    const at = lineEnd(text, Math.max(to, key.range![1] + 1));
    const insert: Edit = { at, remove: 0, insert: `\n${indent}roles:${blockItems(indent + '  ')}` };
    return to > from ? [{ at: trimBack(text, from), remove: to - trimBack(text, from), insert: '' }, insert] : [insert];
  }
  if (!isMap(value)) throw new InternalError(`user "${String((key as { value?: unknown }).value)}" is not a mapping`);
  const map = value as YAMLMap<Node, Node | null>;
  const roleList = map.get('roles', true) as Node | undefined;

  if (map.flow) {
    // `alice: { tenants: [acme] }`: items go inside the braces, comments on lines above the user.
    if (roleList && isSeq(roleList)) return [commentAbove(key), insertIntoFlowSeq(text, roleList, items)];
    const close = text.lastIndexOf('}', map.range![1]);
    const entry = `roles: [${items.join(', ')}]`;
    const inside: Edit =
      map.items.length === 0
        ? { at: close, remove: 0, insert: ` ${entry} ` }
        : { at: trimBack(text, close), remove: 0, insert: `, ${entry}` };
    return [commentAbove(key), inside];
  }
  if (roleList && isSeq(roleList)) {
    if (roleList.flow)
      return [
        commentAbove(map.items.find((p) => isScalar(p.key) && p.key.value === 'roles')!.key as Node),
        insertIntoFlowSeq(text, roleList, items),
      ];
    // A block list: after its last item's line, at the items' indentation.
    const at = lineEnd(text, roleList.range![1]);
    return [{ at, remove: 0, insert: blockItems(' '.repeat(columnOf(text, roleList.range![0]))) }];
  }
  if (roleList !== undefined && !(isScalar(roleList) && roleList.value === null))
    throw new InternalError('roles is not a list');
  // No roles yet (or `roles:` empty): a new block list after the mapping's last entry.
  const indent = ' '.repeat(columnOf(text, map.items[0].key!.range![0]));
  if (roleList !== undefined) {
    const rolesKey = map.items.find((p) => isScalar(p.key) && p.key.value === 'roles')!.key as Node;
    const at = lineEnd(text, roleList.range?.[1] ?? rolesKey.range![1]);
    return [{ at, remove: 0, insert: blockItems(indent + '  ') }];
  }
  const last = map.items[map.items.length - 1];
  const at = lineEnd(text, (last.value as Node | null)?.range?.[1] ?? last.key!.range![1]);
  return [{ at, remove: 0, insert: `\n${indent}roles:${blockItems(indent + '  ')}` }];
}

/** `[a]` → `[a, { … }]`; `[]` → `[{ … }]`. */
function insertIntoFlowSeq(text: string, seq: YAMLSeq, items: string[]): Edit {
  const close = text.lastIndexOf(']', seq.range![1]);
  return seq.items.length === 0
    ? { at: close, remove: 0, insert: items.join(', ') }
    : { at: trimBack(text, close), remove: 0, insert: `, ${items.join(', ')}` };
}

/** Parses the edited text: the same document, with exactly the added roles, and every comment kept. */
function verify(before: Document.Parsed, text: string, additions: ReadonlyMap<string, readonly RoleAddition[]>): void {
  const after = parseDocument(text);
  if (after.errors.length > 0)
    throw new InternalError(`adopt made a file that does not parse: ${after.errors[0].message}`);
  const want = before.toJS() as { users: Record<string, { roles?: unknown[] } | null> };
  for (const [user, roles] of additions) {
    const u = (want.users[user] ??= {});
    u.roles = [
      ...(u.roles ?? []),
      ...roles.map((r) => (r.on !== undefined ? { role: r.role, on: r.on } : { role: r.role, tenant: r.tenant })),
    ];
  }
  if (JSON.stringify(after.toJS()) !== JSON.stringify(want))
    throw new InternalError('adopt made a file that does not hold exactly the added roles');
  const comments = (d: Document) => commentsOf(d);
  const lost = comments(before).filter((c) => !comments(after).includes(c));
  if (lost.length > 0) throw new InternalError(`adopt would lose the comment "${lost[0]}"`);
}

/** Every comment of a document, in order (before, on and after each node). */
export function commentsOf(doc: Document): string[] {
  const out: string[] = [];
  const take = (c: string | null | undefined) => {
    if (c)
      out.push(
        ...c
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean),
      );
  };
  const walk = (n: unknown): void => {
    if (!n || typeof n !== 'object') return;
    const node = n as {
      commentBefore?: string | null;
      comment?: string | null;
      items?: unknown[];
      key?: unknown;
      value?: unknown;
    };
    take(node.commentBefore);
    if (Array.isArray(node.items)) for (const i of node.items) walk(i);
    if ('key' in node) walk(node.key);
    if ('value' in node) walk(node.value);
    take(node.comment);
  };
  take(doc.commentBefore);
  walk(doc.contents);
  take(doc.comment);
  return out;
}

const lineStart = (text: string, at: number) => text.lastIndexOf('\n', at - 1) + 1;
const columnOf = (text: string, at: number) => at - lineStart(text, at);
/** The end of the line holding the character before `at` (a range end may sit just after a newline). */
function lineEnd(text: string, at: number): number {
  if (at > 0 && text[at - 1] === '\n') return at - 1;
  const nl = text.indexOf('\n', at);
  return nl < 0 ? text.length : nl;
}
/** Back over the spaces before `at` (`{ a: 1 }`: the insertion goes after `1`). */
function trimBack(text: string, at: number): number {
  let i = at;
  while (i > 0 && /\s/.test(text[i - 1])) i--;
  return i;
}
