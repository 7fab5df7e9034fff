import { ConfigError } from '../../errors.js';
import type { AbacCheck } from '../../access/abac/model.js';
import type { JsonObject, Json } from '../../access/conditions/index.js';

/** The options that pass attributes to a check, as `explain` takes them (docs/check.md). */
export interface AttributeFlags {
  /** `{"user": {...}, "resource": {...}, "context": {...}}`: the shape of an assertion's `with:`. */
  with?: string;
  userAttr?: string[];
  resourceAttr?: string[];
  context?: string[];
}

const PARTS = ['user', 'resource', 'context'] as const;

/**
 * What the check passes, from `--with JSON` and the repeatable `--user-attr`, `--resource-attr` and
 * `--context` `key=value` flags (merged over `--with`, key by key). A value is read as JSON when it is
 * JSON (`3`, `true`, `["a"]`, `"3"`), else as a string; a dotted key (`address.country=fr`) writes into
 * an object. Undefined when nothing is passed: the check is then decided without decision-time attributes.
 */
export function passedFromFlags(o: AttributeFlags): AbacCheck['passed'] {
  const out: { user?: JsonObject; resource?: JsonObject; context?: JsonObject } = {};
  if (o.with !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(o.with);
    } catch (err) {
      throw new ConfigError(
        `--with must be a JSON object {"user": {...}, "resource": {...}, "context": {...}}: ${(err as Error).message}`,
      );
    }
    if (!isObject(parsed))
      throw new ConfigError(
        `--with must be a JSON object {"user": {...}, "resource": {...}, "context": {...}}, got ${JSON.stringify(parsed)}`,
      );
    for (const [k, v] of Object.entries(parsed)) {
      if (!(PARTS as readonly string[]).includes(k))
        throw new ConfigError(`--with: unknown key '${k}': the check passes ${PARTS.join(', ')}`);
      if (!isObject(v)) throw new ConfigError(`--with: ${k} must be an object of attributes, got ${JSON.stringify(v)}`);
      out[k as (typeof PARTS)[number]] = v as JsonObject;
    }
  }
  const flags: [(typeof PARTS)[number], string, string[] | undefined][] = [
    ['user', '--user-attr', o.userAttr],
    ['resource', '--resource-attr', o.resourceAttr],
    ['context', '--context', o.context],
  ];
  for (const [part, flag, values] of flags) {
    for (const text of values ?? []) {
      const eq = text.indexOf('=');
      if (eq <= 0) throw new ConfigError(`${flag} takes key=value, got '${text}'`);
      const path = text.slice(0, eq).split('.');
      if (path.some((p) => p === '')) throw new ConfigError(`${flag}: '${text.slice(0, eq)}' is not an attribute key`);
      const bag = (out[part] = { ...(out[part] ?? {}) });
      setPath(bag, path, valueOf(text.slice(eq + 1)));
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function valueOf(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

function setPath(bag: JsonObject, path: string[], value: Json): void {
  let at = bag;
  for (const p of path.slice(0, -1)) {
    const next = at[p];
    at = at[p] = isObject(next) ? { ...(next as JsonObject) } : {};
  }
  at[path[path.length - 1]] = value;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
