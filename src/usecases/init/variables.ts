/**
 * The `variables:` of an environment added to an existing layout (`roster init --environments qa`): one
 * value for every variable the shared folder uses and does not declare itself, so that the new folder
 * validates as written. A value is taken from the first environment that declares the variable; one that
 * is that environment's own name (`label: dev`) becomes the new environment's name.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { ENVS_DIR, SHARED_DIR } from '../config-paths.js';

export interface EnvironmentVariable {
  name: string;
  value: unknown;
  /** The environment the value was copied from; undefined when it is the new environment's name. */
  from?: string;
}

/** `${name}` (not `$${name}`, a literal): the references src/config/variables.ts substitutes. */
const REFERENCE = /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The variables the shared folder of `rosterDir` uses, by name, with a value for `env`. */
export function variablesFor(rosterDir: string, env: string, existing: string[]): EnvironmentVariable[] {
  const shared = filesIn(path.join(rosterDir, SHARED_DIR)).map(readYaml);
  const declaredThere = new Set(shared.flatMap((v) => Object.keys(variablesOf(v))));
  const used = [...new Set(shared.flatMap((v) => referencesIn(v)))].filter((n) => !declaredThere.has(n)).sort();
  const declared = existing.map((e) => ({
    env: e,
    values: Object.assign(
      {},
      ...filesIn(path.join(rosterDir, ENVS_DIR, e)).map((f) => variablesOf(readYaml(f))),
    ) as Record<string, unknown>,
  }));
  return used.map((name) => {
    const first = declared.find((d) => name in d.values);
    // Declared nowhere yet (the layout does not validate either): the environment's name, to be edited.
    if (!first || first.values[name] === first.env) return { name, value: env };
    return { name, value: first.values[name], from: first.env };
  });
}

/** The `variables:` block of the new environment's file (empty when the shared folder uses none). */
export function variablesBlock(variables: EnvironmentVariable[], env: string): string {
  if (variables.length === 0) return '';
  const lines = [
    `# The values of the variables the shared folder uses (${variables.map((v) => `\`\${${v.name}}\``).join(', ')}).`,
    'variables:',
  ];
  for (const v of variables) {
    const value = stringify(v.value).trimEnd();
    lines.push(`  ${v.name}: ${value}${v.from ? ` # as in ${v.from}: set ${env}'s value` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

function referencesIn(file: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      for (const m of v.matchAll(REFERENCE)) if (!m[1]) out.push(m[2]);
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  // Keys are never substituted, nor the values of `variables` themselves.
  if (file !== null && typeof file === 'object' && !Array.isArray(file))
    for (const [k, v] of Object.entries(file)) if (k !== 'variables') walk(v);
  return out;
}

function variablesOf(file: unknown): Record<string, unknown> {
  const v = file !== null && typeof file === 'object' ? (file as { variables?: unknown }).variables : undefined;
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** The YAML files under `dir`, in path order; none when it does not exist. */
function filesIn(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    return [];
  }
  return names
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => path.join(dir, f));
}

/** A file's value; one that does not parse uses and declares nothing here (validate reports it). */
function readYaml(file: string): unknown {
  try {
    return parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}
