/**
 * The built-in names of the role model: what the service creates or assumes by itself, and what the
 * rules below treat specially. Both `/allowed` (src/server) and the access graph (src/access) name them
 * from here; the server's SQL embeds them through `sqlText`.
 */
export { DEFAULT_TENANT, GROUP_TYPE, MEMBER_ROLE } from '../types/names.js';

/** The relation of a group inside a group of the same type (`team:a group team:b`): the service's own. */
export const GROUP_IN_GROUP_RELATION = 'group';

/** The suffix of the relation a group type's grants use on a resource (`team_group`): the service's own. */
export const GROUP_GRANT_SUFFIX = '_group';

/** The relation of a group type's grants on a resource: `team_group`. */
export const groupGrantRelation = (groupType: string) => `${groupType}${GROUP_GRANT_SUFFIX}`;

/**
 * Whether a relation is the group machinery's, never a derivation's: `<subject type>_group` (a group's
 * grant on an instance) or `group` from a type to itself (a group inside a group). Derivations through
 * them are not evaluated (they would over-grant: the group records decide group access precisely).
 */
export function isGroupRelation(relation: string, subjectType: string, sameType: boolean): boolean {
  return relation === groupGrantRelation(subjectType) || (relation === GROUP_IN_GROUP_RELATION && sameType);
}

/** A relation key the service keeps for itself (a client may not define it). */
export const isReservedRelation = (key: string) => key === GROUP_IN_GROUP_RELATION || key.endsWith(GROUP_GRANT_SUFFIX);

/** A built-in name as an SQL string literal (the names are plain words: no quote to escape). */
export const sqlText = (name: string) => `'${name.replaceAll("'", "''")}'`;
