import type { Queryable } from '../store/db.js';

/**
 * Marks the environment's ABAC model as changed, inside the writing transaction: /allowed remembers the
 * model per environment until its stamp moves (repo/abac-model.ts). Writes that only delete through
 * foreign keys (a role, a resource, a set) change the rule or set counts, which the stamp read includes.
 */
export async function bumpAbacStamp(q: Queryable, envId: string): Promise<void> {
  await q.run(
    `INSERT INTO abac_stamps (env_id, stamp) VALUES (?, 1) ON CONFLICT (env_id) DO UPDATE SET stamp = abac_stamps.stamp + 1`,
    [envId],
  );
}

/** The stamp as /allowed reads it: the counter and the counts of rules and sets (cascaded deletes move them). */
export const ABAC_STAMP_SQL = `SELECT
  (SELECT stamp FROM abac_stamps WHERE env_id = ?) AS stamp,
  (SELECT COUNT(*) FROM set_rules WHERE env_id = ?) AS rules,
  (SELECT COUNT(*) FROM condition_sets WHERE env_id = ?) AS sets`;
