/**
 * Between schema and normalise: the part of a file the schema accepts, so that the semantic rules run on
 * everything that is understood even when something else is not, and one run reports every mistake.
 *
 * The unit is the entry of a section (a user, a group, an assertion, ...): an entry that matches the
 * schema is kept as written; one that matches once its unknown fields are dropped (`member_off:`) is
 * kept without them; any other is refused whole. What was refused is remembered (`Refused`), because
 * the rules must not call a name unknown that a refused part declares, nor warn about what a refused
 * part would have used: those would be follow-on problems of the one the schema already reported.
 */
import type { ErrorObject } from 'ajv/dist/2020.js';
import { groupId } from '../types/refs.js';
import { SECTIONS, type Section } from '../types/desired.js';
import type { RawConfig } from './raw.generated.js';
import { schemaValidator } from './schema.js';
import { closest } from './suggest.js';

/** An entry refused whole, under its real section: its name is declared, its content unknown. */
export interface RefusedEntry {
  section: Section;
  /** The key as written (`ops` for the group `group:ops`). */
  written: string;
}

export interface Accepted {
  /** Schema-valid: what normalise may trust. Refused assertions leave holes, so indices stay as written. */
  value: RawConfig;
  entries: RefusedEntry[];
  /** Names declared in a refused part outside their section (`grups:` read as `groups`). */
  guessed: { section: Section; key: string }[];
  /** Entries kept without their unknown fields (by id): what those fields meant is unknown. */
  trimmed: { section: Section; key: string }[];
  /** Sections whose declared names cannot be known (`groups: [a, b]`). */
  unknowable: Section[];
  /** Every string written in a refused or dropped part. */
  mentions: string[];
}

const OTHER_FIELDS = new Set([
  'version',
  'project',
  'environment',
  'authoritative',
  'variables',
  'acknowledge',
  'assertions',
]);

/** The accepted part of a parsed file (a mapping) that failed the schema. */
export function acceptedPart(value: Record<string, unknown>): Accepted {
  const out: Accepted = { value: {}, entries: [], guessed: [], trimmed: [], unknowable: [], mentions: [] };
  const kept = out.value as Record<string, unknown>;
  for (const [field, v] of Object.entries(value)) {
    if (field === 'assertions' || field === 'set_rules') kept[field] = acceptList(field, v, out);
    else if (isSection(field)) kept[field] = acceptSection(field, v, out);
    else if (OTHER_FIELDS.has(field)) {
      if (fits({ [field]: v })) kept[field] = v;
    } else refuseUnknownField(field, v, out);
  }
  return out;
}

function acceptSection(section: Section, v: unknown, out: Accepted): Record<string, unknown> | undefined {
  if (fits({ [section]: v })) return v as Record<string, unknown>;
  if (!isMapping(v)) {
    // `groups:` written empty declares nothing; a list or a scalar may hold names in any form.
    if (v !== null) out.unknowable.push(section);
    out.mentions.push(...stringsIn(v));
    return undefined;
  }
  const kept: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(v)) {
    const accepted = acceptOne({ [section]: { [key]: entry } }, out);
    if (accepted) {
      kept[key] = (accepted[section] as Record<string, unknown>)[key];
      if (accepted.trimmed) out.trimmed.push({ section, key: section === 'groups' ? groupId(key) : key });
    } else {
      out.entries.push({ section, written: key });
      out.mentions.push(...stringsIn(entry));
    }
  }
  return kept;
}

/** A list (`assertions`, `set_rules`): each item is kept as written or refused; nothing refers to its items by name. */
function acceptList(field: 'assertions' | 'set_rules', v: unknown, out: Accepted): unknown[] | undefined {
  if (fits({ [field]: v })) return v as unknown[];
  if (!Array.isArray(v)) {
    out.mentions.push(...stringsIn(v));
    return undefined;
  }
  // A sparse list: normalise skips the holes and keeps each accepted assertion at its written index.
  // An item is kept only as written: without a misspelt field it would be malformed.
  const kept: unknown[] = new Array(v.length);
  v.forEach((item, i) => {
    const accepted = acceptOne({ [field]: [item] }, out);
    if (accepted && !accepted.trimmed) kept[i] = (accepted[field] as unknown[])[0];
    else out.mentions.push(...stringsIn(item));
  });
  return kept;
}

/** A top-level field that is no section: its names may be those of the section it nearly spells. */
function refuseUnknownField(field: string, v: unknown, out: Accepted): void {
  out.mentions.push(...stringsIn(v));
  const section = closest(field, SECTIONS) as Section | undefined;
  if (!section) return;
  if (!isMapping(v)) {
    if (v !== null) out.unknowable.push(section);
    return;
  }
  for (const key of Object.keys(v)) out.guessed.push({ section, key: section === 'groups' ? groupId(key) : key });
}

/**
 * `doc` (one entry wrapped in its section) as accepted: itself when it fits, or a copy without its
 * unknown fields when that fits (`trimmed`), else undefined.
 */
function acceptOne(
  doc: Record<string, unknown>,
  out: Accepted,
): (Record<string, unknown> & { trimmed?: true }) | undefined {
  const validate = schemaValidator();
  if (validate(doc)) return doc;
  const unknownFields = (validate.errors ?? []).filter((e) => e.keyword === 'additionalProperties');
  if (unknownFields.length === 0) return undefined;
  const copy = structuredClone(doc);
  for (const e of unknownFields) {
    const name = String(e.params.additionalProperty);
    const holder = at(copy, e);
    if (!isMapping(holder) || !(name in holder)) continue;
    out.mentions.push(...stringsIn(holder[name]));
    delete holder[name];
  }
  return validate(copy) ? Object.assign(copy, { trimmed: true as const }) : undefined;
}

/** The value at an error's instancePath. */
function at(root: unknown, e: ErrorObject): unknown {
  let node = root;
  for (const raw of e.instancePath.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = isMapping(node) || Array.isArray(node) ? (node as Record<string, unknown>)[part] : undefined;
  }
  return node;
}

function fits(doc: Record<string, unknown>): boolean {
  return schemaValidator()(doc) as boolean;
}

/** Every string (keys and values) inside `v`, without recursion (refused parts can be deep). */
function stringsIn(v: unknown): string[] {
  const found: string[] = [];
  const stack = [v];
  while (stack.length > 0) {
    const x = stack.pop();
    if (typeof x === 'string') found.push(x, groupId(x));
    else if (Array.isArray(x)) stack.push(...x);
    else if (isMapping(x)) for (const [k, item] of Object.entries(x)) (found.push(k), stack.push(item));
  }
  return found;
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isSection(s: string): s is Section {
  return (SECTIONS as readonly string[]).includes(s);
}
