import { describe, expect, it } from 'vitest';
import { renderGithub, renderJson, renderText } from '../../src/config/render.js';
import { fixtureText, validateFixture, validateTexts } from './helpers.js';

const sourceOf = (file: string) => fixtureText(file.replace(/^.*\//, '').replace(/\.yaml$/, ''));

describe('text output', () => {
  it.each([
    'member-of-cycle',
    'schema-unknown-field-typo',
    'yaml-duplicate-key',
    'group-role-target-other-tenant',
    'unused-role',
  ])('snapshot: %s', (scenario) => {
    expect(renderText(validateFixture(scenario), { sourceOf })).toMatchSnapshot();
  });

  it('shows file:line:column, severity, message, path, source line, caret and hint', () => {
    expect(renderText(validateFixture('member-of-unknown-group'), { sourceOf })).toMatchInlineSnapshot(`
      "test/fixtures/config/member-of-unknown-group.yaml:16:17: error: unknown group "team:platfrom"
        at groups.team:platform.member_of[0]
        16 |     member_of: [team:platfrom, team:eng]
           |                 ^^^^^^^^^^^^^
        hint: did you mean "team:platform"?

      1 error, 0 warnings
      "
    `);
  });

  it('colours only when asked', () => {
    const findings = validateFixture('member-of-unknown-group');
    expect(renderText(findings, { sourceOf })).not.toContain('\u001b[');
    expect(renderText(findings, { sourceOf, color: true })).toContain('\u001b[31merror\u001b[39m');
  });

  it('says so when valid', () => {
    expect(renderText({ errors: [], warnings: [] })).toBe('configuration is valid\n');
  });

  it('shows a window of very long lines', () => {
    const text = `tenants: { ${Array.from({ length: 200 }, (_, i) => `t${i}: {}`).join(', ')}, bad key: {} }\n`;
    const out = renderText(validateTexts(text), { sourceOf: () => text });
    const [, quoted, caret] = out.split('\n').slice(1, 4);
    expect(quoted.length).toBeLessThan(200);
    expect(quoted.indexOf('bad key')).toBe(caret.indexOf('^'));
  });
});

describe('json output', () => {
  it('lists errors and warnings with positions', () => {
    const parsed = JSON.parse(renderJson(validateFixture('member-of-other-type')));
    expect(parsed).toEqual({
      valid: false,
      errors: [
        {
          file: 'test/fixtures/config/member-of-other-type.yaml',
          line: 16,
          column: 17,
          endLine: 16,
          endColumn: 25,
          path: 'groups.squad:web.member_of[0]',
          severity: 'error',
          message: '"squad:web" (type "squad") cannot be a member of "team:eng" (type "team")',
          hint: 'groups can only be placed in groups of the same type',
        },
      ],
      warnings: [],
    });
  });
});

describe('github output', () => {
  it('prints workflow commands with escaped properties and data', () => {
    expect(renderGithub(validateFixture('member-of-cycle'))).toMatchInlineSnapshot(`
      "::error file=test/fixtures/config/member-of-cycle.yaml,line=16,col=17,endLine=16,endColumn=23,title=roster validate%3A groups.team%3Ab.member_of[0]::member_of forms a cycle: team:a → team:c → team:b → team:a (a group cannot contain itself, directly or through other groups)
      1 error, 0 warnings
      "
    `);
    expect(
      renderGithub({ errors: [{ file: 'a,b.yaml', message: '100% bad\nreally', severity: 'error' }], warnings: [] }),
    ).toContain('::error file=a%2Cb.yaml,title=roster validate::100%25 bad%0Areally');
  });

  it('warnings become ::warning', () => {
    expect(renderGithub(validateFixture('empty-group'))).toMatch(
      /^::warning file=.*line=10,col=3.*::group "team:eng" has no members and no member groups \(if that is meant, acknowledge it: `acknowledge: {empty-group: \[team:eng\]}`\)$/m,
    );
  });
});
