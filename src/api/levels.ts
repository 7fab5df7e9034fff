/**
 * The levels of a user-management element configuration (`roles_to_levels`) and Roster's
 * `reviewer_roles`. Holders of a role mapped to LEVEL_1 or LEVEL_2 review access requests (api-notes,
 * "Who reviews"): `reviewer_roles` is that set, whichever of the two levels a role sits at. Pure.
 */

import type { FieldRule, Shape } from './answer.js';

/** The levels whose roles review. LEVEL_3 and LEVEL_4 do not: Roster reads them only to write them back. */
export const REVIEWER_LEVELS = ['LEVEL_1', 'LEVEL_2'] as const;

/** `roles_to_levels` as read: role keys (as written) or the public `{id, key, name, resource_id}`. */
export type LevelsRead = Record<string, readonly (string | { key: string })[] | null | undefined>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isRoleRef = (r: unknown) => typeof r === 'string' || (isObject(r) && typeof r.key === 'string');

/** `roles_to_levels` as a read may carry it: levels of role keys or `{key, ...}` (a level may be null). */
export const LEVELS: FieldRule = {
  expected: 'an object of levels, each a list of role keys or {key}',
  fits: (v) => isObject(v) && Object.values(v).every((l) => l === null || (Array.isArray(l) && l.every(isRoleRef))),
};

/** What a read of one element configuration must hold for its levels to be used (`expectFields`). */
export const CONFIG_SHAPE: Shape = { roles_to_levels: LEVELS };

const keyOf = (r: string | { key: string }) => (typeof r === 'string' ? r : r.key);
const keysAt = (levels: LevelsRead | null | undefined, level: string) => (levels?.[level] ?? []).map(keyOf);

/** The reviewer roles of a configuration: the roles at LEVEL_1 or LEVEL_2, each once, sorted. */
export function reviewerRolesOf(levels: LevelsRead | null | undefined): string[] {
  return [...new Set(REVIEWER_LEVELS.flatMap((l) => keysAt(levels, l)))].sort(cmp);
}

/**
 * The `roles_to_levels` to write so that exactly `roles` review, changing nothing else in `live` (the
 * configuration as read just before the write; the public `ElementsConfigUpdate` replaces
 * `roles_to_levels` whole, so what is not sent is lost): a reviewer role already at LEVEL_2 stays there,
 * any other goes to LEVEL_1, a role no longer named leaves both reviewer levels, and the other levels are
 * written back as read.
 */
export function levelsToWrite(live: LevelsRead | null | undefined, roles: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const level of Object.keys(live ?? {})) {
    if (!(REVIEWER_LEVELS as readonly string[]).includes(level)) out[level] = keysAt(live, level);
  }
  const atTwo = new Set(keysAt(live, 'LEVEL_2'));
  const atOne = new Set(keysAt(live, 'LEVEL_1'));
  const wanted = [...new Set(roles)].sort(cmp);
  out.LEVEL_1 = wanted.filter((r) => atOne.has(r) || !atTwo.has(r));
  out.LEVEL_2 = wanted.filter((r) => atTwo.has(r));
  return out;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
