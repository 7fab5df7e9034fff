/**
 * Step 2 of the pipeline: each file checked against schemas/roster.schema.json with ajv (strict, all
 * errors), and ajv's errors turned into problems at the YAML node they concern.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { SCHEMA_URL } from './codegen.js';
import { closest, didYouMean } from './suggest.js';
import { problemAt, type Loc, type Problem, type Segment, type Source } from './source.js';

let compiled: ValidateFunction | undefined;

/** Compiled once per process, on first use (compiling costs tens of milliseconds). */
export function schemaValidator(): ValidateFunction {
  if (!compiled) {
    const schema = JSON.parse(readFileSync(SCHEMA_URL, 'utf8'));
    // verbose: errors carry their schema and data, used for messages and hints.
    const ajv = new Ajv2020({ strict: true, allErrors: true, verbose: true, allowUnionTypes: true });
    compiled = ajv.compile(schema);
  }
  return compiled;
}

export function checkSchema(src: Source, value: unknown): Problem[] {
  const validate = schemaValidator();
  if (validate(value)) return [];
  return relevantErrors(validate.errors ?? []).map((e) => toProblem(src, value, e));
}

/**
 * With allErrors, a value that fits none of an `anyOf`'s forms yields a type error per form. The forms
 * of the Roster schema differ by type, so the value's type says which form the user meant: drop the
 * type errors of the other forms, or keep one naming every accepted type when no form has that type.
 * A missing required field that an unknown field nearly spells is dropped too (the hint says it all).
 */
function relevantErrors(errors: ErrorObject[]): ErrorObject[] {
  const anyOfs = errors.filter((e) => e.keyword === 'anyOf');
  let kept = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'propertyNames');
  for (const a of anyOfs) {
    const accepted = anyOfTypes(a);
    const actual = jsonType(a.data);
    const fits = accepted.includes(actual) || (actual === 'integer' && accepted.includes('number'));
    kept = kept.filter((e) => !(e.keyword === 'type' && e.instancePath === a.instancePath && !typesOf(e).includes(actual)));
    if (!fits) kept.push({ ...a, keyword: 'type', params: { type: accepted } });
  }
  const misspelt = new Set(
    kept.filter((e) => e.keyword === 'additionalProperties').map((e) => {
      const known = Object.keys((e.parentSchema as { properties?: object })?.properties ?? {});
      return `${e.instancePath}\0${closest(String(e.params.additionalProperty), known)}`;
    }),
  );
  return kept.filter((e) => !(e.keyword === 'required' && misspelt.has(`${e.instancePath}\0${e.params.missingProperty}`)));
}

function typesOf(e: ErrorObject): string[] {
  return ([] as string[]).concat(e.params.type as string | string[]);
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function anyOfTypes(e: ErrorObject): string[] {
  const root = schemaValidator().schema as { $defs: Record<string, { type?: string | string[] }> };
  const typeOf = (s: { $ref?: string; type?: string | string[] }): string[] => {
    if (s.$ref) return typeOf(root.$defs[s.$ref.replace('#/$defs/', '')]);
    return Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  };
  return (e.schema as { $ref?: string; type?: string }[]).flatMap(typeOf);
}

function toProblem(src: Source, value: unknown, e: ErrorObject): Problem {
  const path = pointerToPath(value, e.instancePath);
  const loc: Loc = { src, path };
  const params = e.params as Record<string, unknown>;
  const parent = e.parentSchema as { description?: string; properties?: Record<string, unknown> } | undefined;
  const propertyName = (e as { propertyName?: string }).propertyName;
  if (propertyName !== undefined) {
    return problemAt(loc, [propertyName], `invalid key ${JSON.stringify(propertyName)}${expected(parent, e)}`, { on: 'key' });
  }
  switch (e.keyword) {
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      const known = Object.keys(parent?.properties ?? {});
      const hint = didYouMean(name, known) ?? (known.length ? `known fields: ${known.join(', ')}` : undefined);
      return problemAt(loc, [name], `unknown field "${name}"`, { on: 'key', hint });
    }
    case 'required':
      return problemAt(loc, [], `missing required field "${String(params.missingProperty)}"`);
    case 'type': {
      const types = ([] as string[]).concat(params.type as string | string[]);
      return problemAt(loc, [], `expected ${orList(types.map(describeType))}, found ${describeValue(e.data)}`);
    }
    case 'const':
      return problemAt(loc, [], `must be ${JSON.stringify(params.allowedValue)}, found ${describeValue(e.data)}`);
    case 'pattern':
    case 'minLength':
    case 'maxLength':
      return problemAt(loc, [], `invalid value ${JSON.stringify(e.data)}${expected(parent, e)}`);
    case 'minItems':
      return problemAt(loc, [], `must list at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'}`);
    case 'uniqueItems': {
      const [later, earlier] = [Number(params.i), Number(params.j)].sort((a, b) => b - a);
      const item = (e.data as unknown[])[later];
      return problemAt(loc, [later], `duplicate item ${JSON.stringify(item)} (also at position ${earlier + 1})`, { hint: 'remove one of them' });
    }
    default:
      return problemAt(loc, [], e.message ?? `failed ${e.keyword}`);
  }
}

/** A JSON pointer (`/groups/team:a/member_of/0`) to path segments: numbers only inside lists. */
function pointerToPath(root: unknown, pointer: string): Segment[] {
  if (!pointer) return [];
  const out: Segment[] = [];
  let data = root;
  for (const raw of pointer.slice(1).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const seg = Array.isArray(data) ? Number(part) : part;
    out.push(seg);
    data = data !== null && typeof data === 'object' ? (data as Record<string, unknown>)[part] : undefined;
  }
  return out;
}

function orList(items: string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

function describeType(t: string): string {
  return { object: 'a mapping', array: 'a list', string: 'a string', null: 'nothing', integer: 'an integer', number: 'a number', boolean: 'true or false' }[t] ?? t;
}

export function describeValue(v: unknown): string {
  if (v === null || v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`;
  return `${typeof v === 'number' ? 'the number' : 'the value'} ${String(v)}`;
}

/** ` (expected: letters, digits, ...)`, from the schema's description of the value. */
function expected(parent: { description?: string } | undefined, e: ErrorObject): string {
  const what = parent?.description?.replace(/\.$/, '') ?? e.message;
  return what ? ` (expected: ${what.charAt(0).toLowerCase()}${what.slice(1)})` : '';
}
