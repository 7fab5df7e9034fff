/**
 * The drift report (`roster drift`, docs/ci.md "Drift"): what differs between the configuration and the
 * live environment, read in full, and for each drifted object who changed it and when, from the change
 * history. Pure: the plan and the history calls (with the request bodies that were read) in, a plain
 * value out, which the renderers (render-drift.ts) print as text, Markdown or JSON.
 *
 * The drifted objects are the plan's changes: each is an object the live state no longer has as declared
 * (`missing`: the plan creates it; `changed`: the plan updates it; `added`: the plan deletes it). Objects
 * the configuration does not manage and keeps (undeclared, not authoritative) are not drift.
 */
import type { HistoryEvent } from '../api/read-history.js';
import { fieldsOf, type Change, type Kind } from './change.js';
import type { Plan } from './types.js';

export type DriftState = 'missing' | 'changed' | 'added';

/** The call that last changed a drifted object, as the history names it. */
export interface DriftCause {
  /** The actor's display name, else its id. */
  actor: string;
  actorType: string;
  actorId: string;
  at: string;
  method: string;
  path: string;
  requestId?: string;
}

export interface DriftObject {
  id: string;
  kind: Kind;
  state: DriftState;
  /** For `changed`: the fields that differ. */
  fields?: string[];
  /** The newest call of the history that names the object; absent when none does. */
  cause?: DriftCause;
  /** How many calls of the history name it. */
  calls: number;
}

export interface DriftReport {
  project: string;
  environment: string;
  target?: string;
  /** The start of the history searched (ISO). */
  since: string;
  history: { read: true; calls: number; bodies: number } | { read: false; reason: string };
  objects: DriftObject[];
}

/** The history's side of a report: the calls read and the request bodies fetched (by call id), or why not. */
export type DriftHistory =
  | { read: true; events: readonly HistoryEvent[]; bodies: ReadonlyMap<string, unknown> }
  | { read: false; reason: string };

const STATE: Record<Change['action'], DriftState> = { create: 'missing', update: 'changed', delete: 'added' };

/**
 * Where each kind is written: the collection after `/v2/{schema|facts|elements}/{project}/{env}/` (the
 * bulk calls' `bulk/...` and `.../bulk` included through their collection), and the values that name an
 * object of the kind: every one must appear in the call's path or request body.
 */
const WRITTEN_AT: Record<Kind, string[]> = {
  resource: ['resources'],
  resource_attribute: ['resources'],
  relation: ['resources'],
  resource_role: ['resources'],
  derivation: ['resources'],
  role: ['roles', 'bulk'],
  user_attribute: ['users', 'resources'],
  tenant_attribute: ['resources'],
  condition_set: ['condition_sets'],
  set_rule: ['set_rules'],
  tenant: ['tenants', 'bulk'],
  user: ['users', 'bulk'],
  tenant_user: ['tenants', 'users', 'role_assignments'],
  instance: ['resource_instances', 'bulk'],
  group: ['groups'],
  tuple: ['relationship_tuples'],
  assignment: ['role_assignments', 'users'],
  member: ['groups', 'role_assignments'],
  link: ['groups'],
  grant: ['groups'],
  access_requests: ['config'],
};

/** The values that name the object of a change (a `type:key` reference also matches its two halves). */
export function namesOf(change: Change): string[] {
  const k = fieldsOf(change);
  const list = (...v: (string | undefined)[]) => v.filter((x): x is string => x !== undefined && x !== '');
  switch (k.kind) {
    case 'resource':
    case 'role':
    case 'user_attribute':
    case 'tenant_attribute':
    case 'condition_set':
    case 'tenant':
    case 'user':
    case 'access_requests':
      return list(k.fields.key);
    case 'resource_attribute':
    case 'relation':
    case 'resource_role':
      return list(k.fields.resource, k.fields.key);
    case 'derivation':
      return list(k.fields.resource, k.fields.role, k.fields.from);
    case 'set_rule':
      return list(k.fields.user_set, k.fields.resource_set);
    case 'tenant_user':
      return list(k.fields.user, k.fields.tenant);
    case 'instance':
      return list(`${k.fields.resource}:${k.fields.key}`);
    case 'group':
      return list(`${k.fields.type}:${k.fields.key}`);
    case 'tuple':
      return list(k.fields.subject, k.fields.relation, k.fields.object);
    case 'assignment':
      return list(k.fields.user, k.fields.role, k.fields.on);
    case 'member':
      return list(k.fields.user, k.fields.group);
    case 'link':
      return list(k.fields.group, k.fields.parent);
    case 'grant':
      return list(k.fields.group, k.fields.role, k.fields.on);
  }
}

/** The collection a call wrote to, and the path segments after it. */
function placeOf(path: string): { collection: string; segments: string[] } | undefined {
  const parts = path.split('/').filter((s) => s !== '');
  // v2, schema|facts|elements, project, environment, collection, ...
  if (parts[0] !== 'v2' || parts.length < 5) return undefined;
  return { collection: parts[4], segments: parts.slice(4) };
}

/** Every string in a request body, at any depth. */
function stringsOf(value: unknown, into: Set<string>): Set<string> {
  if (typeof value === 'string') into.add(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, into);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) stringsOf(v, into);
  return into;
}

const mentions = (words: Set<string>, name: string): boolean => {
  if (words.has(name)) return true;
  const i = name.indexOf(':');
  return i > 0 && words.has(name.slice(0, i)) && words.has(name.slice(i + 1));
};

/** A write that may have changed something: a success, or one whose outcome is unknown (status 0). */
const mayHaveChanged = (e: HistoryEvent) => e.method !== 'GET' && e.method !== 'HEAD' && (e.success || e.status === 0);

/**
 * The calls whose request body is worth reading: writes to a collection some drifted kind is written at,
 * whose path alone does not name the object (collection and bulk calls), newest first, at most `max`.
 */
export function callsNeedingBodies(changes: readonly Change[], events: readonly HistoryEvent[], max: number): string[] {
  const wanted = new Map<string, string[][]>();
  for (const c of changes) for (const at of WRITTEN_AT[c.kind]) wanted.set(at, [...(wanted.get(at) ?? []), namesOf(c)]);
  const out: string[] = [];
  for (const e of [...events].reverse()) {
    if (out.length >= max) break;
    const place = placeOf(e.path);
    const names = place && mayHaveChanged(e) ? wanted.get(place.collection) : undefined;
    if (!names) continue;
    // A collection or bulk call names its objects in its body; a path naming part of an object
    // (`users/bob/roles`) the rest of it.
    const words = new Set(place!.segments);
    const collection = place!.segments.length === 1 || place!.segments.includes('bulk');
    const partly = (n: string[]) =>
      n.some((name) => mentions(words, name)) && !n.every((name) => mentions(words, name));
    if (collection || names.some(partly)) out.push(e.id);
  }
  return out;
}

/** The drift report of a plan read in full, with who changed each object from the history. */
export function buildDriftReport(plan: Plan, history: DriftHistory, since: Date): DriftReport {
  const calls = history.read ? wordsOfCalls(history.events, history.bodies) : [];
  const objects = plan.changes.map((c): DriftObject => {
    const names = namesOf(c);
    const matching = calls.filter(
      ({ event, place, words }) =>
        WRITTEN_AT[c.kind].includes(place.collection) && names.every((name) => mentions(words, name)),
    );
    const newest = matching.at(-1)?.event;
    return {
      id: c.id,
      kind: c.kind,
      state: STATE[c.action],
      ...(c.action === 'update' ? { fields: c.fields.map((f) => f.field) } : {}),
      ...(newest ? { cause: causeOf(newest) } : {}),
      calls: matching.length,
    };
  });
  return {
    project: plan.project,
    environment: plan.environment,
    ...(plan.target ? { target: plan.target } : {}),
    since: since.toISOString(),
    history: history.read
      ? { read: true, calls: history.events.length, bodies: history.bodies.size }
      : { read: false, reason: history.reason },
    objects,
  };
}

/** Oldest first, as read: the calls that may have changed something, with the words they name. */
function wordsOfCalls(events: readonly HistoryEvent[], bodies: ReadonlyMap<string, unknown>) {
  return events.flatMap((event) => {
    const place = placeOf(event.path);
    if (!place || !mayHaveChanged(event)) return [];
    const words = stringsOf(bodies.get(event.id), new Set(place.segments));
    return [{ event, place, words }];
  });
}

function causeOf(e: HistoryEvent): DriftCause {
  return {
    actor: e.actor.name ?? e.actor.id,
    actorType: e.actor.type,
    actorId: e.actor.id,
    at: e.timestamp,
    method: e.method,
    path: e.path,
    ...(e.requestId ? { requestId: e.requestId } : {}),
  };
}
