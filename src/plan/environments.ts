/**
 * `roster diff`: what differs between two states of the same shape (two environments' declared states,
 * or their live states read as configuration), object by object. Pure. Read as a plan from `a` to `b`:
 * `+` only in b, `-` only in a, `~` in both with fields that differ. Assertions are not objects of an
 * environment (nothing of them is sent to the service): they are not compared.
 */
import type { DesiredState, Section } from '../types/desired.js';
import type { LIVE_PARTS, LiveState } from '../types/live.js';

export type Compared = Pick<DesiredState, (typeof LIVE_PARTS)[number]>;

export interface FieldDifference {
  field: string;
  a?: unknown;
  b?: unknown;
}

export type ObjectDifference =
  | { kind: 'only-a'; id: string }
  | { kind: 'only-b'; id: string }
  | { kind: 'differs'; id: string; fields: FieldDifference[] };

/** The parts compared, in the order of the plan, with the prefix of their objects' ids and their section. */
const PARTS: { part: keyof LiveState; prefix: string; section: Section; only?: (o: object) => boolean }[] = [
  { part: 'resources', prefix: 'resource', section: 'resources' },
  { part: 'roles', prefix: 'role', section: 'roles' },
  { part: 'tenants', prefix: 'tenant', section: 'tenants' },
  { part: 'users', prefix: 'user', section: 'users' },
  { part: 'resourceInstances', prefix: 'instance', section: 'resource_instances' },
  { part: 'groups', prefix: 'group', section: 'groups' },
  { part: 'accessRequests', prefix: 'access_request', section: 'access_requests' },
  { part: 'userAttributes', prefix: 'user_attribute', section: 'user_attributes' },
  { part: 'tenantAttributes', prefix: 'tenant_attribute', section: 'tenant_attributes' },
  // Condition sets are one part in two sections, by type.
  {
    part: 'conditionSets',
    prefix: 'user_set',
    section: 'user_sets',
    only: (o) => (o as { type?: string }).type !== 'resourceset',
  },
  {
    part: 'conditionSets',
    prefix: 'resource_set',
    section: 'resource_sets',
    only: (o) => (o as { type?: string }).type === 'resourceset',
  },
  { part: 'setRules', prefix: 'set_rule', section: 'set_rules' },
];

export interface DiffOptions {
  /** Compare only these sections (export --diff: those the configuration manages). Default: all. */
  sections?: ReadonlySet<Section>;
}

export function diffEnvironments(a: Compared, b: Compared, options: DiffOptions = {}): ObjectDifference[] {
  const out: ObjectDifference[] = [];
  for (const { part, prefix, section, only } of PARTS) {
    if (options.sections && !options.sections.has(section)) continue;
    const pick = (m: Map<string, object>) => (only ? new Map([...m].filter(([, o]) => only(o))) : m);
    const left = pick(a[part] as Map<string, object>);
    const right = pick(b[part] as Map<string, object>);
    const keys = [...new Set([...left.keys(), ...right.keys()])].sort(cmp);
    for (const key of keys) {
      const id = `${prefix}:${key}`;
      const x = left.get(key);
      const y = right.get(key);
      if (x === undefined) out.push({ kind: 'only-b', id });
      else if (y === undefined) out.push({ kind: 'only-a', id });
      else {
        const fields = diffFields(x as Record<string, unknown>, y as Record<string, unknown>);
        if (fields.length > 0) out.push({ kind: 'differs', id, fields });
      }
    }
  }
  return out;
}

function diffFields(x: Record<string, unknown>, y: Record<string, unknown>): FieldDifference[] {
  const fields = [...new Set([...Object.keys(x), ...Object.keys(y)])].sort(cmp);
  const out: FieldDifference[] = [];
  for (const field of fields) {
    // An empty mapping (`attributes: {}`) is no mapping: the export does not write it.
    const [p, q] = [unset(x[field]), unset(y[field])];
    if (canonical(p) === canonical(q)) continue;
    out.push({
      field: yamlSpelling(field),
      ...(p !== undefined ? { a: p } : {}),
      ...(q !== undefined ? { b: q } : {}),
    });
  }
  return out;
}

/** A field as the configuration writes it (`memberOf` → `member_of`, `grantFor` → `grant_for`), never the code's spelling. */
function yamlSpelling(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * What the service holds of a declared state: without `grant_for` of the access-request configurations,
 * which only the planner reads (never sent). `export --diff DIR` compares this with the live state, as
 * the plan does, so that a lifetime the service cannot hold is not reported as a difference.
 */
export function asTheServiceHolds<T extends Compared>(state: T): T {
  const accessRequests = new Map([...state.accessRequests].map(([k, { grantFor: _, ...held }]) => [k, held]));
  return { ...state, accessRequests };
}

/** JSON with object keys sorted: attribute maps written in another order are the same. Lists are sorted already (sortDesiredState). */
export function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([p], [q]) => cmp(p, q)))
      : value,
  );
}

function unset(v: unknown): unknown {
  return v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0 ? undefined : v;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
