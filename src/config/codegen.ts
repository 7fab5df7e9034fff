/**
 * Derives the TypeScript types of the raw configuration (what the user wrote), and its validator as
 * code, from schemas/roster.schema.json, so that the schema stays the single source of truth.
 *
 *   node --import tsx src/config/codegen.ts   # rewrites src/config/raw.generated.ts
 *
 * test/config/schema.test.ts fails when a committed file drifts from the schema.
 * Only the JSON Schema subset the Roster schema uses is understood; anything else throws.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface SchemaNode {
  $ref?: string;
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: SchemaNode[];
  description?: string;
  title?: string;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode;
  $defs?: Record<string, SchemaNode>;
  [other: string]: unknown;
}

export const SCHEMA_URL = new URL('../../schemas/roster.schema.json', import.meta.url);
export const GENERATED_URL = new URL('./raw.generated.ts', import.meta.url);
/** The schema's validator as code (ajv standalone), shipped with the schema: loading it costs milliseconds, compiling the schema ~130 ms. */
export const VALIDATOR_URL = new URL('../../schemas/roster.schema.validate.cjs', import.meta.url);

/** ajv's options for the schema: strict, every error, and verbose (errors carry their schema and data, used for messages and hints). */
const AJV_OPTIONS = { strict: true, allErrors: true, verbose: true, allowUnionTypes: true } as const;

/** The validator of `schema` as a CommonJS module (`module.exports` is the validate function). */
export async function generateValidator(schema: SchemaNode): Promise<string> {
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  const standalone = (await import('ajv/dist/standalone/index.js')) as unknown as {
    default: typeof import('ajv/dist/standalone/index.js').default;
  };
  const ajv = new Ajv2020({ ...AJV_OPTIONS, code: { source: true } });
  const code = standalone.default(ajv, ajv.compile(schema));
  return [
    '// Generated from schemas/roster.schema.json by src/config/codegen.ts (ajv standalone code). Do not edit by',
    '// hand: change the schema, then run `node --import tsx src/config/codegen.ts`.',
    code,
    '',
  ].join('\n');
}

export function generateRawTypes(schema: SchemaNode): string {
  const out: string[] = [
    '// Generated from schemas/roster.schema.json by src/config/codegen.ts. Do not edit by hand:',
    '// change the schema, then run `node --import tsx src/config/codegen.ts`.',
    '',
  ];
  out.push(...declaration(schema.title ?? 'RawConfig', schema));
  for (const [name, def] of Object.entries(schema.$defs ?? {})) out.push(...declaration(typeName(name), def));
  return out.join('\n');
}

function declaration(name: string, node: SchemaNode): string[] {
  const doc = docComment(node.description, '');
  if (node.type === 'object' && node.properties)
    return [...doc, `export interface ${name} ${objectType(node, '')}`, ''];
  return [...doc, `export type ${name} = ${tsType(node, '')};`, ''];
}

function typeName(defName: string): string {
  return 'Raw' + defName.charAt(0).toUpperCase() + defName.slice(1);
}

function tsType(node: SchemaNode, indent: string): string {
  if (node.$ref) {
    const m = /^#\/\$defs\/(.+)$/.exec(node.$ref);
    if (!m) throw new Error(`unsupported $ref ${node.$ref}`);
    return typeName(m[1]);
  }
  if (node.const !== undefined) return JSON.stringify(node.const);
  if (node.enum) return node.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (node.anyOf) return node.anyOf.map((n) => tsType(n, indent)).join(' | ');
  const types = Array.isArray(node.type) ? node.type : node.type ? [node.type] : [];
  if (types.length === 0) return 'unknown';
  return types.map((t) => scalarOrComposite(t, node, indent)).join(' | ');
}

function scalarOrComposite(type: string, node: SchemaNode, indent: string): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = node.items ? tsType(node.items, indent) : 'unknown';
      return /[ |]/.test(item) ? `(${item})[]` : `${item}[]`;
    }
    case 'object':
      return objectType(node, indent);
    default:
      throw new Error(`unsupported type ${type}`);
  }
}

function objectType(node: SchemaNode, indent: string): string {
  const inner = indent + '  ';
  const lines: string[] = [];
  const required = new Set(node.required ?? []);
  for (const [prop, sub] of Object.entries(node.properties ?? {})) {
    lines.push(...docComment(sub.description, inner));
    const name = /^[A-Za-z_$][\w$]*$/.test(prop) ? prop : JSON.stringify(prop);
    lines.push(`${inner}${name}${required.has(prop) ? '' : '?'}: ${tsType(sub, inner)};`);
  }
  const extra = node.additionalProperties;
  if (extra === undefined || extra === true) {
    if (!node.properties) return 'Record<string, unknown>';
    lines.push(`${inner}[key: string]: unknown;`);
  } else if (extra !== false) {
    lines.push(`${inner}[key: string]: ${tsType(extra, inner)};`);
  }
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function docComment(text: string | undefined, indent: string): string[] {
  return text ? [`${indent}/** ${text.replace(/\*\//g, '*\\/')} */`] : [];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const schema = JSON.parse(readFileSync(SCHEMA_URL, 'utf8')) as SchemaNode;
  writeFileSync(GENERATED_URL, generateRawTypes(schema));
  writeFileSync(VALIDATOR_URL, await generateValidator(schema));
  process.stdout.write(`wrote ${fileURLToPath(GENERATED_URL)} and ${fileURLToPath(VALIDATOR_URL)}\n`);
}
