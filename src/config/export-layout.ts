/**
 * The layout of `roster export` (src/config/export.ts): which mappings and lists are written in flow
 * style (one line) and which as blocks, and the comments above groups. Chosen for pull-request diffs: a
 * change touches the lines of what changed, not a whole section's line.
 */
import { isMap, isSeq, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import type { DesiredGroup } from '../types/desired.js';

const ATTRIBUTED = new Set(['tenants', 'users', 'resource_instances']);
const keyOf = (pair: Pair<unknown, unknown>) => String((pair.key as { value?: unknown }).value);

/**
 * Layout: one line per resource (a resource with roles, relations or attributes: one line per role,
 * relation and attribute), role, tenant, user, instance and access-request configuration (flow
 * mappings), except that a tenant, user or instance with attributes is a block with one line per
 * attribute; groups as blocks with one member per line (membership diffs read line by line), each
 * preceded by a comment naming its ancestors and its subgroups.
 */
export function styleSections(doc: Document, groups: Map<string, DesiredGroup>): void {
  const root = doc.contents as YAMLMap;
  for (const pair of root.items as Pair<Node, Node>[]) {
    const section = String((pair.key as { value?: unknown }).value);
    const body = pair.value;
    if (section === 'set_rules' && isSeq(body)) {
      body.flow = body.items.length === 0;
      for (const item of body.items)
        if (isMap(item))
          ((item.flow = true),
            (item.items as Pair<Node, Node>[]).forEach((f) => isSeq(f.value) && (f.value.flow = true)));
      continue;
    }
    if (!isMap(body)) continue;
    if (body.items.length === 0) body.flow = true;
    if (section === 'user_sets' || section === 'resource_sets') {
      for (const entry of body.items as Pair<Node, Node>[]) if (isMap(entry.value)) styleConditions(entry.value);
      continue;
    }
    for (const entry of body.items as Pair<Node, Node>[]) {
      const v = entry.value;
      // A resource with roles or relations is a block: one line per role and relation.
      if (
        section === 'resources' &&
        isMap(v) &&
        v.items.some((f) => ['roles', 'relations', 'attributes'].includes(String((f.key as { value?: unknown }).value)))
      ) {
        for (const field of v.items as Pair<Node, Node>[]) {
          const value = field.value;
          if (isSeq(value)) value.flow = true;
          else if (isMap(value))
            for (const item of value.items as Pair<Node, Node>[])
              if (isMap(item.value) || isSeq(item.value)) item.value.flow = true;
        }
        continue;
      }
      // A tenant, user or instance with attributes is a block, one line per attribute: a changed value
      // changes its line in a pull request's diff, not the whole entry's (up to 177 characters).
      if (ATTRIBUTED.has(section) && isMap(v) && v.items.some((f) => keyOf(f) === 'attributes')) {
        for (const field of v.items as Pair<Node, Node>[]) {
          const value = field.value;
          if (keyOf(field) !== 'attributes') {
            if (isMap(value) || isSeq(value)) value.flow = true;
          } else if (isMap(value))
            for (const item of value.items as Pair<Node, Node>[])
              if (isMap(item.value) || isSeq(item.value)) item.value.flow = true;
        }
        continue;
      }
      if (section !== 'groups') {
        if (isMap(v) || isSeq(v)) v.flow = true;
        continue;
      }
      if (!isMap(v)) continue;
      for (const field of v.items as Pair<Node, Node>[]) {
        const name = String((field.key as { value?: unknown }).value);
        if (isSeq(field.value) && name !== 'members') field.value.flow = true;
        if (isSeq(field.value) && name === 'roles')
          for (const item of field.value.items) if (isMap(item)) item.flow = true;
      }
      const comment = groupComment(String((entry.key as { value?: unknown }).value), groups);
      if (comment) (entry.key as Node).commentBefore = comment;
    }
  }
}

/**
 * A set as a block, its conditions as a tree: `allOf`/`anyOf` lists one condition per line, each
 * comparison on its line (`- user.level: {greater-than-equals: 3}`).
 */
function styleConditions(set: YAMLMap): void {
  const walk = (node: unknown): void => {
    if (isSeq(node)) return node.items.forEach(walk);
    if (!isMap(node)) return;
    for (const pair of node.items as Pair<Node, Node>[]) {
      const key = String((pair.key as { value?: unknown }).value);
      if (key === 'allOf' || key === 'anyOf' || key === 'not') {
        if (isSeq(pair.value) && pair.value.items.length === 0) pair.value.flow = true;
        walk(pair.value);
      } else if (isMap(pair.value) || isSeq(pair.value)) pair.value.flow = true; // a comparison (or a value)
    }
  };
  for (const field of set.items as Pair<Node, Node>[]) {
    if (String((field.key as { value?: unknown }).value) !== 'conditions') continue;
    if (isMap(field.value) && field.value.items.length === 0) field.value.flow = true;
    walk(field.value);
  }
}

/** " in team:engineering → team:all; contains team:web" (ancestors nearest first, breadth-first). */
export function groupComment(ref: string, groups: Map<string, DesiredGroup>): string | undefined {
  const ancestors: string[] = [];
  const seen = new Set([ref]);
  let frontier = [ref];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const g of frontier)
      for (const p of [...(groups.get(g)?.memberOf ?? [])].sort(cmp))
        if (!seen.has(p)) (seen.add(p), next.push(p), ancestors.push(p));
    frontier = next;
  }
  const children = [...groups]
    .filter(([, g]) => g.memberOf.includes(ref))
    .map(([r]) => r)
    .sort(cmp);
  const parts: string[] = [];
  if (ancestors.length > 0) parts.push(`in ${ancestors.join(', ')}`);
  if (children.length > 0) parts.push(`contains ${children.join(', ')}`);
  return parts.length > 0 ? ` ${parts.join('; ')}` : undefined;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
