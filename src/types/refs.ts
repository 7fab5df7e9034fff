/**
 * `type:key` references (`document:readme`, `team:eng`) and `type:action` permissions: the one reading of
 * the colon that the configuration, the planner, the access graph and the client share.
 */
import { GROUP_TYPE } from './names.js';

/** The type of an instance `type:key` (everything before the first colon; the whole string when none). */
export function typeOf(instance: string): string {
  const i = instance.indexOf(':');
  return i < 0 ? instance : instance.slice(0, i);
}

/** Splits `type:key` at the first colon; a bare key is a group of the default group type. */
export function splitRef(ref: string): { type: string; key: string } {
  const i = ref.indexOf(':');
  return i < 0 ? { type: GROUP_TYPE, key: ref } : { type: ref.slice(0, i), key: ref.slice(i + 1) };
}

/** A group reference as written (`eng` or `team:eng`) to its `type:key` identity. */
export function groupId(ref: string): string {
  return ref.includes(':') ? ref : `${GROUP_TYPE}:${ref}`;
}

/** `write` on `document:x` → `document:write`; a qualified action must name the instance's type. */
export function qualify(action: string, instance: string): string | null {
  const type = typeOf(instance);
  if (!action.includes(':')) return `${type}:${action}`;
  return typeOf(action) === type ? action : null;
}
