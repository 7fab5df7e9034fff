import { readFileSync } from 'node:fs';
import path from 'node:path';
import { validateSources } from '../../src/config/index.js';
import { buildDesiredState } from '../../src/config/normalise.js';
import { parseSource } from '../../src/config/parse.js';
import type { RawConfig } from '../../src/config/raw.generated.js';
import type { RuleContext } from '../../src/config/rules/index.js';
import { checkSchema } from '../../src/config/schema.js';
import { ROOT } from '../helpers/cli.js';

export const FIXTURES = 'test/fixtures/config';

export function fixturePath(name: string): string {
  return `${FIXTURES}/${name}.yaml`;
}

export function fixtureText(name: string): string {
  return readFileSync(path.join(ROOT, fixturePath(name)), 'utf8');
}

/** Loads a fixture through the whole pipeline, as `roster validate` would. */
export function validateFixture(name: string) {
  return validateSources([{ file: fixturePath(name), text: fixtureText(name) }]);
}

/** Validates inline YAML texts, one per file (`a.yaml`, `b.yaml`, ...). */
export function validateTexts(...texts: string[]) {
  return validateSources(texts.map((text, i) => ({ file: `${String.fromCharCode(97 + i)}.yaml`, text })));
}

/** Parse, schema and normalisation of one file: what a rule receives. Throws if an earlier step fails. */
export function ruleContext(file: string, text: string): RuleContext {
  const parsed = parseSource(file, text);
  const schemaErrors = parsed.errors.length ? parsed.errors : checkSchema(parsed.src, parsed.value);
  if (schemaErrors.length) throw new Error(`fixture ${file} does not reach the rules: ${schemaErrors[0].message}`);
  const { desired, index, errors } = buildDesiredState([{ src: parsed.src, raw: parsed.value as RawConfig }]);
  if (errors.length) throw new Error(`fixture ${file} does not merge: ${errors[0].message}`);
  return { desired, index };
}

/** The essentials of a problem, for compact expectations. */
export function brief(p: {
  line?: number;
  column?: number;
  path?: string;
  message: string;
  severity?: string;
}): string {
  return `${p.line ?? '?'}:${p.column ?? '?'} ${p.path ?? ''}: ${p.message}${p.severity === 'warning' ? ' [warning]' : ''}`;
}
