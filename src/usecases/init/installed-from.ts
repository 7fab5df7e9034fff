import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_NAME } from './package-json.js';

/** This package's root: src/usecases/init/ and dist/usecases/init/ are both three levels below it. */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The dependency spec this Roster was installed from (as the installing project's package.json names
 * it), with a `file:` path made relative to `targetDir`; undefined when Roster does not run from a
 * `node_modules` folder (a clone) or the spec cannot be read. Covers `npx --package=SPEC roster init`
 * too: npx installs into a folder of its cache whose package.json names the spec.
 */
export function installedFrom(targetDir: string, root: string = PACKAGE_ROOT): string | undefined {
  const modules = path.dirname(path.resolve(root));
  if (path.basename(modules) !== 'node_modules') return undefined;
  const project = path.dirname(modules);
  const manifest = path.join(project, 'package.json');
  if (!existsSync(manifest)) return undefined;
  let spec: unknown;
  try {
    const json = JSON.parse(readFileSync(manifest, 'utf8'));
    spec = json.devDependencies?.[PACKAGE_NAME] ?? json.dependencies?.[PACKAGE_NAME];
  } catch {
    return undefined;
  }
  if (typeof spec !== 'string') return undefined;
  return spec.startsWith('file:') ? rebaseFileSpec(spec, project, targetDir) : spec;
}

/** `file:PATH` relative to `from`, rewritten relative to `to` (npm's form: forward slashes). */
export function rebaseFileSpec(spec: string, from: string, to: string): string {
  const target = path.resolve(from, spec.slice('file:'.length));
  const relative = path.relative(path.resolve(to), target).split(path.sep).join('/');
  return `file:${relative}`;
}
