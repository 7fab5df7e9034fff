import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateRawTypes, generateValidator, type SchemaNode } from '../../src/config/codegen.js';
import { schemaValidator } from '../../src/config/schema.js';
import { ROOT } from '../helpers/cli.js';
import { brief, validateFixture, validateTexts } from './helpers.js';

const schema = JSON.parse(readFileSync(path.join(ROOT, 'schemas/roster.schema.json'), 'utf8')) as SchemaNode;

describe('the JSON Schema', () => {
  it('src/config/raw.generated.ts matches it (run `node --import tsx src/config/codegen.ts` after editing the schema)', () => {
    expect(readFileSync(path.join(ROOT, 'src/config/raw.generated.ts'), 'utf8')).toBe(generateRawTypes(schema));
  });

  it('schemas/roster.schema.validate.cjs is its validator, compiled in ajv strict mode (run the codegen after editing the schema)', async () => {
    expect(readFileSync(path.join(ROOT, 'schemas/roster.schema.validate.cjs'), 'utf8')).toBe(
      await generateValidator(schema),
    );
    expect(schemaValidator()({ users: { alice: {} } })).toBe(true);
    expect(schemaValidator()({ users: [] })).toBe(false);
  });

  it('describes every property (editor hovers)', () => {
    const missing: string[] = [];
    const visit = (node: SchemaNode, where: string) => {
      for (const [name, sub] of Object.entries(node.properties ?? {})) {
        const described =
          sub.description ?? (sub.$ref ? schema.$defs?.[sub.$ref.replace('#/$defs/', '')]?.description : undefined);
        if (!described) missing.push(`${where}.${name}`);
      }
    };
    visit(schema, '');
    for (const [name, def] of Object.entries(schema.$defs ?? {})) {
      if (!def.description) missing.push(`$defs.${name}`);
      visit(def, name);
    }
    expect(missing).toEqual([]);
  });
});

describe('schema errors', () => {
  it.each([
    [
      'schema-unknown-field-typo',
      '2:31 resources.document.actoins: unknown field "actoins"',
      'did you mean "actions"?',
    ],
    [
      'schema-bad-key',
      '2:3 tenants["acme corp"]: invalid key "acme corp" (expected: letters, digits, `-` and `_`, at most 256 characters)',
      undefined,
    ],
    ['schema-wrong-type', '2:21 users.alice.tenants: expected a list, found the string "acme"', undefined],
    ['schema-missing-tenant', '2:13 groups.team:eng: missing required field "tenant"', undefined],
    [
      'schema-duplicate-member',
      '6:46 groups.team:eng.members[1]: duplicate item "alice" (also at position 1)',
      'remove one of them',
    ],
    ['schema-version-2', '1:10 version: must be 1, found the number 2', undefined],
  ])('%s', (scenario, expected, hint) => {
    const r = validateFixture(scenario);
    expect(r.errors.map(brief)).toEqual([expected]);
    expect(r.errors[0].hint).toBe(hint);
  });

  it('reports every error of every file in one run, and the rules on what the schema accepted', () => {
    const r = validateTexts(
      'tenants:\n  acme: [1]\nusers:\n  "bad key": {}\n',
      'groups:\n  g: { tenant: t, memebers: [] }\n',
    );
    expect(r.errors.map(brief)).toEqual([
      '2:9 tenants.acme: expected a mapping, a string or nothing, found a list',
      '4:3 users["bad key"]: invalid key "bad key" (expected: letters, digits and `| @ + - . _`, at most 256 characters)',
      '2:16 groups.g.tenant: unknown tenant "t"',
      '2:19 groups.g.memebers: unknown field "memebers"',
    ]);
    expect(r.warnings).toEqual([]); // g is empty only because "memebers" was not understood
  });

  it('enforces the key patterns and the 256-character limit', () => {
    expect(validateTexts(`tenants:\n  ${'a'.repeat(256)}: {}\n`).errors).toEqual([]);
    expect(validateTexts(`tenants:\n  ${'a'.repeat(257)}: {}\n`).errors).toHaveLength(1);
    expect(validateTexts('users:\n  "a|b@c+d-e.f_g": {}\n').errors).toEqual([]);
    expect(validateTexts('tenants:\n  "a.b": {}\n').errors).toHaveLength(1);
  });

  it('a misspelt required field gives one problem, not two', () => {
    const r = validateTexts('tenants: { t: {} }\ngroups:\n  g: { tenat: t }\n');
    expect(r.errors.map((e) => [e.message, e.hint])).toEqual([['unknown field "tenat"', 'did you mean "tenant"?']]);
  });
});
