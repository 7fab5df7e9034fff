import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { createChange, deleteChange, fieldsAs, fieldsOf, updateChange, type Change } from '../../src/plan/change.js';

/**
 * Each kind of change has typed fields (src/plan/change.ts): a misspelled or missing field fails the
 * compiler, so `npx tsc --noEmit` refuses it. Checked by compiling small fixtures with the project's own
 * compiler options, in memory (a fixture file in test/ would break the project's typecheck).
 */
const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURE = join(ROOT, 'test', 'plan', '__change_fixture__.ts');

const options = (() => {
  const read = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  // No ambient types (@types/node): the fixtures need none, and reading them is most of the time.
  return { ...ts.parseJsonConfigFileContent(read.config, ts.sys, ROOT).options, types: [], noEmit: true };
})();

/** Parsed files other than the fixture (the standard library, src/), shared by the compilations below. */
const parsed = new Map<string, ts.SourceFile | undefined>();

/** The compiler's errors for a fixture that imports the change constructors; empty when it compiles. */
function compile(body: string): string[] {
  const text = `import { createChange, deleteChange, fieldsOf, type Change } from '../../src/plan/change.js';\ndeclare function use(...values: unknown[]): void;\n${body}\n`;
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) => {
    if (name === FIXTURE) return ts.createSourceFile(name, text, version);
    if (!parsed.has(name)) parsed.set(name, getSourceFile(name, version, ...rest));
    return parsed.get(name);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === FIXTURE || fileExists(name);
  const program = ts.createProgram({ rootNames: [FIXTURE], options, host });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === FIXTURE)
    .map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
}

describe('typed change fields', () => {
  // One program per fixture (sharing parsed files): each must fail alone to mean anything.
  it('a change with the fields of its kind compiles (the control: the fixtures below fail for their mistake only)', () => {
    expect(
      compile(`
        const c: Change = createChange('member', 'member:alice@team:eng', { user: 'alice', group: 'team:eng', tenant: 'acme' });
        const d: Change = deleteChange('assignment', 'assignment:bob:admin@acme', { user: 'bob', role: 'admin', tenant: 'acme' });
        const { kind, fields: f } = fieldsOf(c);
        if (kind === 'member') use(f.group, d.id);
      `),
    ).toEqual([]);
  }, 60_000);

  it.each([
    [
      'a misspelled field',
      `createChange('member', 'member:alice@team:eng', { user: 'alice', gruop: 'team:eng', tenant: 'acme' });`,
      /gruop/,
    ],
    [
      'a misspelled optional field in fields built apart (a lambda, a Map: no excess-property check there)',
      `const role = (key: string) => ({ key, name: key, descripton: 'x', permissions: [] });
       createChange('role', 'role:viewer', role('viewer'));`,
      /descripton|never/,
    ],
    ['a missing field', `createChange('member', 'member:alice@team:eng', { user: 'alice', tenant: 'acme' });`, /group/],
    [
      'a field of another kind',
      `deleteChange('grant', 'grant:team:eng:admin@acme', { user: 'alice', group: 'team:eng', tenant: 'acme' });`,
      /user/,
    ],
    [
      'a field of the wrong type',
      `createChange('link', 'link:team:a@team:b', { group: 'team:a', parent: ['team:b'] });`,
      /parent|string/,
    ],
    [
      'a misspelled field read in a switch on the kind',
      `declare const c: Change;
       const { kind, fields: f } = fieldsOf(c);
       switch (kind) { case 'member': use(f.gruop); break; }`,
      /gruop/,
    ],
    [
      'a field another kind has, read without narrowing to it',
      `declare const c: Change;
       const { kind, fields: f } = fieldsOf(c);
       if (kind === 'member') use(f.parent);`,
      /parent/,
    ],
  ])(
    '%s fails tsc',
    (_, body, names) => {
      const errors = compile(body);
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.join('\n')).toMatch(names);
    },
    60_000,
  );
});

describe('change constructors', () => {
  it('write the JSON the plan always had: keys in the same order, undefined fields left out', () => {
    const c = createChange('assignment', 'assignment:bob:admin@acme', {
      user: 'bob',
      role: 'admin',
      tenant: 'acme',
      on: undefined,
    });
    expect(JSON.stringify(c)).toBe(
      '{"action":"create","kind":"assignment","id":"assignment:bob:admin@acme","after":{"user":"bob","role":"admin","tenant":"acme"},"dependsOn":[]}',
    );
    const r = createChange('group', 'group:team:eng', { type: 'team', key: 'eng', tenant: 'b' }, [
      { field: 'tenant', before: 'a', after: 'b' },
    ]);
    expect(Object.keys(r)).toEqual(['action', 'kind', 'id', 'after', 'dependsOn', 'replaces']);
    const u = updateChange(
      'role',
      'role:viewer',
      { key: 'viewer', name: 'Viewer', permissions: [] },
      { key: 'viewer', name: 'Reader', permissions: [] },
      [{ field: 'name', before: 'Viewer', after: 'Reader' }],
    );
    expect(Object.keys(u)).toEqual(['action', 'kind', 'id', 'before', 'after', 'fields', 'dependsOn']);
    expect(
      Object.keys(deleteChange('tenant', 'tenant:acme', { key: 'acme', name: 'Acme', description: undefined }).before),
    ).toEqual(['key', 'name']);
  });

  it('fieldsAs gives the fields of a change of the kind asked, and refuses another kind as a bug', () => {
    const c: Change = createChange('tuple', 'tuple:folder:f#parent@document:d', {
      subject: 'folder:f',
      relation: 'parent',
      object: 'document:d',
      tenant: 'acme',
    });
    expect(fieldsAs(c, 'tuple').object).toBe('document:d');
    expect(() => fieldsAs(c, 'user')).toThrow(/tuple:folder:f#parent@document:d is a change of kind tuple, not user/);
  });
});
