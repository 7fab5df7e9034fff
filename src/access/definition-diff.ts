/**
 * What users gain or lose because a role's definition changed (its permissions, or what it `extends`),
 * while they keep the role: `editor` given `document:share` lets every editor share. The role view of
 * `diffAccess` compares roles held, so it cannot see this; the plan's access section adds these changes
 * to it, so that "none" means nobody's effective access changes. Pure; uses only the graph's API.
 */
import type { AccessGraph } from './graph.js';
import type { AccessChange } from './diff.js';
import { cmp } from './paths.js';

/**
 * Per user and instance, each permission gained or lost through a role the user holds there in both
 * graphs and whose permissions differ between them, and only when the user's access to it really
 * changes (another role may still grant a permission one role lost). Sorted by user, instance, subject,
 * then sign (`+` first). `via`: the paths that grant it after (a gain) or granted it before (a loss).
 */
export function diffRoleDefinitions(before: AccessGraph, after: AccessGraph): AccessChange[] {
  const keys = new Set([...before.facts.roles, ...after.facts.roles].map((r) => r.key));
  const added = new Map<string, string[]>();
  const removed = new Map<string, string[]>();
  for (const key of keys) {
    const was = new Set(before.permissionsOf(key));
    const now = new Set(after.permissionsOf(key));
    const plus = [...now].filter((p) => !was.has(p));
    const minus = [...was].filter((p) => !now.has(p));
    if (plus.length > 0) added.set(key, plus);
    if (minus.length > 0) removed.set(key, minus);
  }
  if (added.size === 0 && removed.size === 0) return [];

  const out = new Map<string, AccessChange>();
  const walk = (sign: '+' | '-', from: AccessGraph, to: AccessGraph, changed: Map<string, string[]>) => {
    // Nobody holds anything in `to` (an apply from empty): no role is kept anywhere.
    if (changed.size === 0 || to.users().length === 0) return;
    for (const g of from.effectiveGrants()) {
      const permissions = changed.get(g.role);
      if (!permissions) continue;
      // A role gained or lost outright is the role view's line; here only roles kept on the instance.
      if (!to.rolesOn(g.user, g.instance).some((r) => r.role === g.role)) continue;
      for (const p of permissions) {
        const key = [sign, g.user, g.instance, p].join('\u0000');
        if (out.has(key)) continue;
        const has = from.can(g.user, p, g.instance);
        if (!has.allowed || to.can(g.user, p, g.instance).allowed) continue;
        out.set(key, { sign, user: g.user, instance: g.instance, subject: p, via: has.via });
      }
    }
  };
  walk('+', after, before, added);
  walk('-', before, after, removed);
  return [...out.values()].sort(
    (a, b) =>
      cmp(a.user, b.user) ||
      cmp(a.instance, b.instance) ||
      cmp(a.subject, b.subject) ||
      (a.sign === b.sign ? 0 : a.sign === '+' ? -1 : 1),
  );
}
