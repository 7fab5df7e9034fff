/**
 * "By user" with set rules: the access section's per-user detail (access-stream.ts builds it from the
 * roles' diff) joined with what set rules grant and take away (the set-rule diff's lines), so that a
 * user whose access comes from attributes is listed as one whose roles changed is. One change per user
 * and rule line: the permission on the instances the line covers, with the rule as the path. Capped as
 * the roles' detail is (`limits.changes` changes in all); the counts say what was left out. Pure.
 */
import type { AbacChangeLine, AbacDiff } from '../access/abac/diff.js';
import { setLabel } from '../access/abac/explain.js';
import { cmp } from '../access/paths.js';
import type { PlanAccessChange, PlanAccessCore, PlanAccessLimits } from './access-shapes.js';

type ByUser = PlanAccessCore['byUser'];

export function joinAbacByUser(
  roles: Pick<PlanAccessCore, 'byUser' | 'omittedChanges'>,
  abac: AbacDiff,
  limits: PlanAccessLimits,
): { byUser: ByUser; omittedChanges: number } {
  const total = abac.lines.reduce((n, l) => n + l.users.length, 0);
  if (total === 0) return { byUser: roles.byUser, omittedChanges: roles.omittedChanges };
  // Only the first users in order can be shown: each has at least one change.
  const wanted = new Set([...abac.users].sort(cmp).slice(0, limits.changes));
  const byUser = new Map<string, PlanAccessChange[]>();
  for (const u of roles.byUser) byUser.set(u.user, [...u.changes]);
  const fromRules = new Map<string, PlanAccessChange[]>();
  for (const line of abac.lines) {
    for (const user of line.users) {
      if (!wanted.has(user)) continue;
      const list = fromRules.get(user) ?? fromRules.set(user, []).get(user)!;
      list.push(changeOf(line, limits));
    }
  }
  for (const [user, changes] of fromRules) {
    changes.sort(
      (a, b) =>
        cmp(a.instance ?? a.instances![0], b.instance ?? b.instances![0]) ||
        cmp(a.subject, b.subject) ||
        cmp(a.sign, b.sign),
    );
    byUser.set(user, [...(byUser.get(user) ?? []), ...changes]);
  }
  const out: ByUser = [];
  let kept = 0;
  let keptFromRules = 0;
  let roleDropped = 0;
  for (const user of [...byUser.keys()].sort(cmp)) {
    const changes = byUser.get(user)!;
    const room = Math.max(0, limits.changes - kept);
    const shown = changes.slice(0, room);
    for (const c of changes.slice(room)) if (c.rule === undefined) roleDropped++;
    keptFromRules += shown.filter((c) => c.rule !== undefined).length;
    kept += shown.length;
    if (shown.length > 0) out.push({ user, changes: shown });
  }
  return { byUser: out, omittedChanges: roles.omittedChanges + roleDropped + (total - keptFromRules) };
}

/** `+ expense:approve on expense:e1` (or on the line's instances), through the rule, with the line's causes. */
function changeOf(line: AbacChangeLine, limits: PlanAccessLimits): PlanAccessChange {
  const where = line.instances.length === 1 ? { instance: line.instances[0] } : { instances: line.instances };
  const rule = `set rule: ${setLabel(line.via.userSet, 'user')} × ${setLabel(line.via.resourceSet, 'resource')}`;
  return {
    sign: line.sign,
    subject: line.permission,
    ...where,
    rule: line.via.rule,
    paths: [line.causes.length > 0 ? `${rule}, after ${line.causes.join('; ')}` : rule].slice(0, limits.pathsPerChange),
  };
}
