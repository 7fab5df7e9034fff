import { GROUP_GRANT_SUFFIX, GROUP_IN_GROUP_RELATION, sqlText } from '../../rules/names.js';
import type { Queryable } from '../store/db.js';
import {
  deriveHeld,
  indexRules,
  rulesFor,
  type DerivationRule,
  type InstanceFacts,
  type TupleEdge,
} from '../../rules/derivations.js';
import { versionMemo } from './version-memo.js';
import { rolesOnInstancesSql } from './held-roles.js';

/**
 * Where the general mechanism and the group decision meet (docs/server.md, "Relations, derivations and
 * tuples"): a relation is the group machinery's when its key is `<subject type>_group` (a group's grant
 * on an instance) or `group` from a type to itself (a group inside a group). Derivations through those
 * are never evaluated here: they are type-level ("every team member gets editor on every document some
 * team holds editor on") and would over-grant; the group records decide group access precisely
 * (api-notes "Decision (correctness)"); the rule is rules/names.ts `isGroupRelation`, this its SQL. Every other derivation is evaluated over the tuples; the roles
 * groups give on an instance feed it as roles held there.
 */
export const GROUP_RELATION_SQL = `(rel.key = s.key || ${sqlText(GROUP_GRANT_SUFFIX)} OR (rel.key = ${sqlText(GROUP_IN_GROUP_RELATION)} AND rel.subject_resource_id = rel.object_resource_id))`;

const RULES = `SELECT ig.resource_id, ig.role_id, ig.on_resource_id, ig.linked_role_id, rel.key AS relation,
    ig.no_direct_roles + COALESCE(dc.no_direct_roles, 0) AS no_direct
  FROM implicit_grants ig JOIN relations rel ON rel.id = ig.relation_id JOIN resources s ON s.id = rel.subject_resource_id
    LEFT JOIN derivation_conditions dc ON dc.resource_id = ig.resource_id AND dc.role_id = ig.role_id
  WHERE ig.env_id = ? AND NOT ${GROUP_RELATION_SQL}`;

export interface Rules {
  index: Map<string, DerivationRule[]>;
  /** Resources some rule derives a role on: only instances of these can gain a derived role. */
  targets: Set<string>;
  relations: string[];
}

const remembered = versionMemo<Rules>(64);

/** The environment's generic derivations, remembered while the data version holds (SQLite). */
export async function readRules(q: Queryable, envId: string): Promise<Rules> {
  const compute = async (): Promise<Rules> => {
    const rows = await q.all<{
      resource_id: string;
      role_id: string;
      on_resource_id: string;
      linked_role_id: string;
      relation: string;
      no_direct: number | string;
    }>(RULES, [envId]);
    const rules = rows.map((r): DerivationRule => ({
      resource: r.resource_id,
      role: r.role_id,
      onResource: r.on_resource_id,
      linkedRole: r.linked_role_id,
      relation: r.relation,
      noDirect: Number(r.no_direct) > 0,
    }));
    return {
      index: indexRules(rules),
      targets: new Set(rules.map((r) => r.resource)),
      relations: [...new Set(rules.map((r) => r.relation))],
    };
  };
  return (await remembered(q, envId, compute))?.value ?? compute();
}

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/**
 * The instances whose roles can reach `start` through tuples the rules carry, and those tuples: a
 * breadth-first walk from the object to its subjects, one query per level, each instance visited once
 * (so a cycle of tuples ends the walk).
 */
export async function walkUp(q: Queryable, rules: Rules, start: { id: string; resource: string }) {
  const resources = new Map([[start.id, start.resource]]);
  const tuples: TupleEdge[] = [];
  let frontier = [start.id];
  while (frontier.length > 0) {
    const rows = await q.all<{ subject_id: string; relation: string; object_id: string; subject_resource: string }>(
      `SELECT tp.subject_id, tp.relation, tp.object_id, si.resource_id AS subject_resource
       FROM relationship_tuples tp JOIN resource_instances si ON si.id = tp.subject_id
       WHERE tp.object_id IN (${marks(frontier.length)}) AND tp.relation IN (${marks(rules.relations.length)})`,
      [...frontier, ...rules.relations],
    );
    const next: string[] = [];
    for (const t of rows) {
      if (rulesFor(rules.index, resources.get(t.object_id)!, t.relation, t.subject_resource).length === 0) continue;
      tuples.push({ subject: t.subject_id, relation: t.relation, object: t.object_id });
      if (resources.has(t.subject_id)) continue;
      resources.set(t.subject_id, t.subject_resource);
      // Only an instance some rule derives onto can itself be reached through further tuples.
      if (rules.targets.has(t.subject_resource)) next.push(t.subject_id);
    }
    frontier = next;
  }
  return { resources, tuples };
}

/**
 * The roles the user holds on `instance`, derivations over tuples included. The caller asks only when
 * some derivation gives a role on the instance's type (its lookup says so: repo/allowed.ts). The walk's
 * facts are the roles held on each instance without derivations (repo/held-roles.ts): assigned there
 * (direct), through the user's groups, or a group's membership role where the user is a member (a
 * member of a linked group included). Tenant-wide roles are no role on an instance: they do not feed
 * derivations (rules/derivations.ts, `feedsDerivations`; the caller adds them on the object).
 */
export async function derivedRolesOn(
  q: Queryable,
  envId: string,
  dialect: 'sqlite' | 'postgres',
  a: { user: string; instance: { id: string; resource: string } },
): Promise<string[]> {
  const rules = await readRules(q, envId);
  const { resources, tuples } = await walkUp(q, rules, a.instance);
  const ids = [...resources.keys()];
  const rows = await q.all<{ instance_id: string; role_id: string; direct: number | string }>(
    rolesOnInstancesSql(dialect, ids.length, false),
    [envId, a.user, ...ids, ...ids, a.user, ...ids],
  );
  const facts = new Map<string, InstanceFacts>(
    ids.map((id) => [id, { resource: resources.get(id)!, roles: new Set<string>(), direct: false }]),
  );
  for (const r of rows) {
    const f = facts.get(r.instance_id)!;
    f.roles.add(r.role_id);
    if (Number(r.direct) > 0) f.direct = true;
  }
  return [...deriveHeld(facts, tuples, rules.index).get(a.instance.id)!];
}
