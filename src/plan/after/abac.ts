import { ruleKeyOf } from '../abac.js';
import type { Effects } from './effect.js';

/** Attribute-based access: condition sets and set rules. */
export const ABAC_EFFECTS: Effects<'condition_set' | 'set_rule'> = {
  condition_set(s, c, f, put) {
    // A replacement deletes the set first, and the service deletes its rules with it.
    if (!put || (c.action === 'create' && c.replaces))
      s.dropRules((r) => r.userSet === f.key || r.resourceSet === f.key);
    if (put) {
      s.conditionSets.set(f.key, {
        key: f.key,
        type: f.type === 'resourceset' ? 'resourceset' : 'userset',
        name: f.name,
        ...(f.description ? { description: f.description } : {}),
        ...(f.resource ? { resource: f.resource } : {}),
        conditions: f.conditions ?? {},
        ...(f.parent ? { parent: f.parent } : {}),
      });
    } else s.conditionSets.delete(f.key);
  },

  set_rule(s, c, f, put) {
    const key = ruleKeyOf(f);
    if (put) {
      const i = f.permission.indexOf(':');
      s.setRules.set(key, {
        userSet: f.user_set,
        resourceSet: f.resource_set,
        resource: f.permission.slice(0, i),
        action: f.permission.slice(i + 1),
      });
    } else s.setRules.delete(key);
  },
};
