import type { Queryable } from '../store/db.js';
import {
  autogenSets,
  parseConditions,
  type AbacModel,
  type RuleDef,
  type SetDef,
} from '../../access/conditions/index.js';
import { parseJson } from './common.js';
import { definedAttributes, type DefinedAttributes } from './abac-attributes.js';
import { ABAC_STAMP_SQL } from './abac-stamp.js';
import { versionMemo } from './version-memo.js';

/** What /allowed needs of an environment's ABAC definitions, remembered between checks. */
export interface AbacSnapshot {
  model: AbacModel;
  defined: DefinedAttributes;
  /** `type:action` pairs some rule grants: a check on any other pair needs no ABAC data at all. */
  granted: ReadonlySet<string>;
}

const EMPTY: AbacSnapshot = {
  model: { sets: new Map(), rules: [] },
  defined: { user: new Set(), tenant: new Set(), byResource: new Map() },
  granted: new Set(),
};

/** Per store and environment: the snapshot and the stamp it was read under. */
const remembered = new WeakMap<Queryable, Map<string, { stamp: string; snapshot: Promise<AbacSnapshot> }>>();
/** SQLite: the stamp itself is remembered while no write happened (Db.dataVersion). */
const stamps = versionMemo<string>(256);

/**
 * The environment's ABAC model, read again only when its stamp moved (repo/abac-stamp.ts: a counter every
 * ABAC write bumps, and the counts of rules and sets that cascading deletes change). An environment
 * without rules costs one small read (none on SQLite while nothing was written).
 */
export async function abacSnapshot(q: Queryable, envId: string): Promise<AbacSnapshot> {
  const readStamp = async () => {
    const s = await q.get<{ stamp: number | null; rules: number; sets: number }>(ABAC_STAMP_SQL, [envId, envId, envId]);
    return `${s?.stamp ?? 0}:${s?.rules ?? 0}:${s?.sets ?? 0}`;
  };
  const stamp = (await stamps(q, `abac:${envId}`, readStamp))?.value ?? (await readStamp());
  let perStore = remembered.get(q);
  if (!perStore) remembered.set(q, (perStore = new Map()));
  const known = perStore.get(envId);
  if (known?.stamp === stamp) return known.snapshot;
  const snapshot = stamp.split(':')[1] === '0' ? Promise.resolve(EMPTY) : loadSnapshot(q, envId);
  perStore.set(envId, { stamp, snapshot });
  // A failed read is not remembered.
  snapshot.catch(() => perStore!.delete(envId));
  return snapshot;
}

async function loadSnapshot(q: Queryable, envId: string): Promise<AbacSnapshot> {
  const rules = await q.all<{
    user_set: string | null;
    role: string | null;
    resource_set: string | null;
    set_resource: string | null;
    resource: string;
    action: string;
  }>(
    `SELECT us.key AS user_set, ur.key AS role, rs.key AS resource_set, sres.key AS set_resource, r.key AS resource, sr.action
     FROM set_rules sr JOIN resources r ON r.id = sr.resource_id
       LEFT JOIN condition_sets us ON us.id = sr.user_set_id LEFT JOIN roles ur ON ur.id = sr.user_role_id
       LEFT JOIN condition_sets rs ON rs.id = sr.resource_set_id LEFT JOIN resources sres ON sres.id = sr.set_resource_id
     WHERE sr.env_id = ? ORDER BY sr.created_at, sr.id`,
    [envId],
  );
  const rows = await q.all<{
    key: string;
    type: 'userset' | 'resourceset';
    resource: string | null;
    parent: string | null;
    conditions: string;
  }>(
    `SELECT c.key, c.type, r.key AS resource, p.key AS parent, c.conditions FROM condition_sets c
     LEFT JOIN resources r ON r.id = c.resource_id LEFT JOIN condition_sets p ON p.id = c.parent_id WHERE c.env_id = ?`,
    [envId],
  );
  const sets = new Map<string, SetDef>();
  for (const r of rows) {
    const parsed = parseConditions(parseJson(r.conditions, {}));
    // Stored conditions were checked when written; one that no longer parses matches nothing.
    const conditions = parsed.ok ? parsed.condition : { kind: 'anyOf' as const, children: [] };
    sets.set(r.key, {
      key: r.key,
      type: r.type,
      ...(r.resource ? { resource: r.resource } : {}),
      ...(r.parent ? { parent: r.parent } : {}),
      conditions,
    });
  }
  const ruleDefs: RuleDef[] = [];
  const roles = new Set<string>();
  const resources = new Set<string>();
  for (const r of rules) {
    if (r.role) roles.add(r.role);
    if (r.set_resource) resources.add(r.set_resource);
    ruleDefs.push({
      userSet: r.user_set ?? `__autogen_${r.role}`,
      resourceSet: r.resource_set ?? `__autogen_${r.set_resource}`,
      resource: r.resource,
      action: r.action,
    });
  }
  for (const s of autogenSets(roles, resources)) sets.set(s.key, s);
  return {
    model: { sets, rules: ruleDefs },
    defined: await definedAttributes(q, envId),
    granted: new Set(ruleDefs.map((r) => `${r.resource}:${r.action}`)),
  };
}
