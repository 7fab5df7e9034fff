/** Values that differ by environment (`variables:`) and acknowledged warnings (`acknowledge:`): the pure pipeline. */
import { describe, expect, it } from 'vitest';
import { validateSources } from '../../src/config/index.js';

const where = (p: { file?: string; line?: number; column?: number; message: string }) =>
  `${p.file}:${p.line}:${p.column} ${p.message}`;

describe('variables', () => {
  it('substitutes ${name} in string values of every file, from the file that declares it', () => {
    const r = validateSources([
      {
        file: 'shared.yaml',
        text: 'roles:\n  viewer: { name: Viewer, description: "Reads ${label} docs (${label})" }\nresources:\n  document:\n    name: Doc ${label}\n    actions: [read]\n',
      },
      {
        file: 'env.yaml',
        text: 'variables:\n  label: staging\nusers:\n  ada:\n    email: ada@${label}.example.com\n    roles: [viewer]\n    tenants: [t]\ntenants: { t: {} }\n',
      },
    ]);
    expect(r.errors).toEqual([]);
    expect(r.desired!.roles.get('viewer')!.description).toBe('Reads staging docs (staging)');
    expect(r.desired!.resources.get('document')!.name).toBe('Doc staging');
    expect(r.desired!.users.get('ada')!.email).toBe('ada@staging.example.com');
  });

  it.each([
    ['a literal ${', 'description: "costs $${price}"', 'costs ${price}'],
    ['no reference', 'description: "a $ sign and {braces}"', 'a $ sign and {braces}'],
    ['a whole value', 'description: "${label}"', 'Staging'],
  ])('%s', (_name, field, expected) => {
    const r = validateSources([
      {
        file: 'a.yaml',
        text: `variables: { label: Staging }\nroles:\n  viewer:\n    ${field}\n    permissions: []\nusers: { ada: { roles: [{ role: viewer, tenant: t }] } }\ntenants: { t: {} }\n`,
      },
    ]);
    expect(r.errors).toEqual([]);
    expect(r.desired!.roles.get('viewer')!.description).toBe(expected);
  });

  it('an unknown variable is an error at the reference itself: file, line, column', () => {
    const r = validateSources([
      { file: 'shared.yaml', text: 'roles:\n  viewer:\n    description: Reads ${lable} documents\n' },
      { file: 'env.yaml', text: 'variables:\n  label: staging\n' },
    ]);
    expect(r.errors.map(where)).toEqual(['shared.yaml:3:24 unknown variable "lable"']);
    expect(r.errors[0]).toMatchObject({
      path: 'roles.viewer.description',
      hint: 'did you mean "label"?',
      endColumn: 32,
    });
  });

  it('without any declared variable the hint says where to declare it; a malformed reference is an error too', () => {
    const r = validateSources([
      { file: 'a.yaml', text: 'roles:\n  viewer: { description: "${label} and ${no such}" }\n' },
    ]);
    expect(r.errors.map(where)).toEqual([
      'a.yaml:2:27 unknown variable "label"',
      'a.yaml:2:40 "${no such}" is not a variable reference',
    ]);
    expect(r.errors[0].hint).toMatch(/declare it under `variables:`/);
  });

  it('a variable declared in two files is an error naming both places', () => {
    const r = validateSources([
      { file: 'a.yaml', text: 'variables:\n  label: one\n' },
      { file: 'b.yaml', text: 'variables:\n  label: two\n' },
    ]);
    expect(r.errors.map(where)).toEqual(['b.yaml:2:3 variable "label" is declared twice: here and at a.yaml:2:3']);
  });

  it('keys and the values of variables are not substituted; a variable is a string, a number or a bool', () => {
    const r = validateSources([
      { file: 'a.yaml', text: 'variables:\n  a: "${b}"\n  n: 3\n  yes: true\n  list: [1]\n' },
    ]);
    expect(r.errors.map(where)).toEqual([expect.stringMatching(/^a\.yaml:5:9 /)]);
  });

  it('an alias repeats a node: it is substituted once', () => {
    const r = validateSources([
      {
        file: 'a.yaml',
        text: 'variables: { x: X }\nroles:\n  a: &r { description: "$${x} ${x}", permissions: [] }\n  b: *r\nusers: { u: { roles: [{ role: a, tenant: t }, { role: b, tenant: t }] } }\ntenants: { t: {} }\n',
      },
    ]);
    expect(r.errors).toEqual([]);
    expect(r.desired!.roles.get('b')!.description).toBe('${x} X');
  });
});

describe('typed variables', () => {
  const limit = (variables: string, condition: string) =>
    validateSources([
      {
        file: 'shared.yaml',
        text: `resources:\n  document:\n    actions: [write]\n    attributes: { size: number, locked: bool, title: string }\nresource_sets:\n  small:\n    resource: document\n    conditions:\n      ${condition}\n`,
      },
      { file: 'env.yaml', text: `variables:\n${variables}` },
    ]);
  const conditions = (r: ReturnType<typeof validateSources>) => r.desired!.conditionSets.get('small')!.conditions;

  it("a value that is exactly ${name} takes the variable's type: a number, a bool", () => {
    const r = limit(
      '  max_size: 50\n  locked: false\n',
      'allOf: [{ resource.size: { less-than: "${max_size}" } }, { resource.locked: { equals: "${locked}" } }]',
    );
    expect([...r.errors, ...r.warnings]).toEqual([]);
    expect(conditions(r)).toEqual({
      allOf: [{ 'resource.size': { 'less-than': 50 } }, { 'resource.locked': { equals: false } }],
    });
  });

  it('within a longer string a number or bool variable is text', () => {
    const r = limit('  max_size: 50\n  locked: true\n', 'resource.title: { equals: "up to ${max_size} (${locked})" }');
    expect([...r.errors, ...r.warnings]).toEqual([]);
    expect(conditions(r)).toEqual({ 'resource.title': { equals: 'up to 50 (true)' } });
  });

  it('a string variable compared with a number warns, and the hint says to give the variable a number value', () => {
    const r = limit('  max_size: "50"\n', 'resource.size: { less-than: "${max_size}" }');
    expect(r.errors).toEqual([]);
    expect(r.warnings.map(where)).toEqual([
      'shared.yaml:9:35 "50" is a string, but attribute "size" of "document" is a number: the service compares them as they are',
    ]);
    expect(r.warnings[0].hint).toBe(
      'give the variable "max_size" a number value: `max_size: 50` under `variables:`, without quotes',
    );
  });

  it('a number variable inside a longer string gives text: the hint says to write the variable alone', () => {
    const around = limit('  n: 5\n', 'resource.size: { less-than: "${n}0" }');
    expect(around.warnings.map((w) => w.hint)).toEqual([
      'text around `${n}` makes the value text: write the whole value as one variable, "${n}", holding a number',
    ]);
  });

  it('a quoted literal keeps its hint', () => {
    const r = limit('  unused: x\n', 'resource.size: { less-than: "50" }');
    expect(r.warnings.map((w) => w.hint)).toEqual(['write 50 without quotes']);
  });

  it('a number variable where a string is expected: the schema error names the variable', () => {
    const r = validateSources([
      { file: 'a.yaml', text: 'variables: { n: 3 }\nroles:\n  viewer: { description: "${n}" }\n' },
    ]);
    expect(r.errors.map(where)).toEqual(['a.yaml:3:26 expected a string, found the number 3']);
    expect(r.errors[0].hint).toBe('the variable "n" holds the number 3: here it must be a string');
  });
});

describe('acknowledged warnings', () => {
  const files = (ack: string) => [
    { file: 'shared.yaml', text: 'resources: { doc: [read] }\nroles:\n  auditor: [doc:read]\n  billing: [doc:read]\n' },
    { file: 'env.yaml', text: `tenants: { t: {} }\ngroups:\n  team:idle: { tenant: t }\n${ack}` },
  ];

  it('every warning is printed, with the rule and object to acknowledge it', () => {
    const r = validateSources(files(''));
    expect(r.warnings.map((w) => [w.rule, w.object])).toEqual([
      ['unused-role', 'auditor'],
      ['unused-role', 'billing'],
      ['empty-group', 'team:idle'],
    ]);
    expect(r.warnings[0].hint).toBe('if that is meant, acknowledge it: `acknowledge: {unused-role: [auditor]}`');
  });

  it('an acknowledged warning is not printed: per rule and object, from any file', () => {
    const r = validateSources(files('acknowledge:\n  unused-role: [auditor]\n  empty-group: [team:idle]\n'));
    expect(r.errors).toEqual([]);
    expect(r.warnings.map((w) => w.message)).toEqual(['role "billing" is not given to any user or group']);
  });

  it('acknowledging under another rule does not hide it; an unknown rule is a schema error', () => {
    expect(validateSources(files('acknowledge:\n  empty-group: [auditor]\n')).warnings).toHaveLength(3);
    const r = validateSources(files('acknowledge:\n  unused-roles: [auditor]\n'));
    expect(r.errors.map(where)).toEqual([expect.stringMatching(/^env\.yaml:5:3 .*unused-roles/)]);
  });
});
