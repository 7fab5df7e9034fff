/** Built-in names: what the service (the public one, and `roster serve`) creates or assumes by itself. */

/** The role that makes a user a member of a group; the service creates it with the first group. */
export const MEMBER_ROLE = 'member';

/**
 * The tenant a new environment comes with (the public service, and `roster serve`). A configuration that
 * does not declare it leaves it alone: it is never planned for deletion, with `--prune` too.
 */
export const DEFAULT_TENANT = 'default';

/** The group type of a group written without one (`eng` is `group:eng`; docs/config.md). */
export const GROUP_TYPE = 'group';
