/**
 * The package.json entries a configuration repository needs (pure): Roster as a devDependency, and the
 * `allowScripts` approvals npm 11 asks for before it runs dependencies' install scripts (docs/ci.md).
 * Entries are added, never changed: a value the project already has, even a denial, is the project's
 * decision, and is reported so that `roster init` can say what it means.
 */

/**
 * Packages whose install scripts Roster needs: better-sqlite3 builds (or fetches) the native module of
 * the embedded default and of `roster serve`. Approved by name, not pinned to a version: a pinned entry
 * (`better-sqlite3@12.11.1`) needs re-approving on each upgrade, and npm cannot match it at all when the
 * lock file has no `resolved` URLs (the `omit-lockfile-registry-resolved` setting).
 */
export const SCRIPT_DEPENDENCIES = ['better-sqlite3'] as const;

/**
 * Roster's package name (the command stays `roster`). Not `roster`: that name on the npm registry is an
 * unrelated package, which `npx roster` outside a project would download and run.
 */
export const PACKAGE_NAME = 'roster-authz';

export type PackageJson = Record<string, unknown>;

export interface MergeResult {
  json: PackageJson;
  /** What was added, e.g. `allowScripts.better-sqlite3`. */
  added: string[];
  /** Approvals the project set to something else (false): the embedded default will not work. */
  denied: string[];
}

/**
 * Adds to `existing` (or a new package.json named `name`): `private`, `devDependencies['roster-authz']`
 * (when `rosterSpec` is known and no dependency names Roster yet), and an `allowScripts` approval for each of
 * `SCRIPT_DEPENDENCIES` and for Roster itself when it comes from a git URL or a tarball (its `prepare`
 * script builds it in a git install; npm lists it for tarballs too).
 */
export function mergePackageJson(
  existing: PackageJson | undefined,
  needs: { name: string; rosterSpec?: string },
): MergeResult {
  const json: PackageJson = existing ? structuredClone(existing) : { name: needs.name, private: true };
  const added: string[] = existing ? [] : ['name', 'private'];
  const denied: string[] = [];

  const deps = { ...asRecord(json.dependencies), ...asRecord(json.devDependencies) };
  const declared = deps[PACKAGE_NAME];
  let spec = typeof declared === 'string' ? declared : undefined;
  if (!(PACKAGE_NAME in deps) && needs.rosterSpec !== undefined && isRecordOrAbsent(json.devDependencies)) {
    spec = needs.rosterSpec;
    json.devDependencies = sortedRecord({ ...asRecord(json.devDependencies), [PACKAGE_NAME]: spec });
    added.push(`devDependencies.${PACKAGE_NAME}`);
  }

  // An allowScripts that is not an object is npm's to complain about, not ours to replace.
  if (!isRecordOrAbsent(json.allowScripts)) return { json, added, denied };
  const allow: Record<string, unknown> = { ...asRecord(json.allowScripts) };
  const keys: string[] = [...SCRIPT_DEPENDENCIES];
  const own = spec === undefined ? undefined : allowScriptsKey(spec);
  if (own !== undefined) keys.push(own);
  for (const key of keys) {
    if (!(key in allow)) {
      allow[key] = true;
      added.push(`allowScripts.${key}`);
    } else if (allow[key] !== true) {
      denied.push(key);
    }
  }
  json.allowScripts = allow;
  return { json, added, denied };
}

/**
 * The `allowScripts` key that approves Roster's own `prepare` script, for the spec it is installed
 * from; undefined for a registry spec (npm runs no `prepare` for those). npm matches a git key by host
 * and repository, and a committish in the key only as a prefix of the locked commit: a tag or branch
 * (`#v0.1.0`) would never match, so the key leaves it out. A `file:` key must be the spec as written.
 */
export function allowScriptsKey(spec: string): string | undefined {
  if (spec.startsWith('file:')) return spec;
  if (spec.startsWith('npm:') || !/[:/]/.test(spec)) return undefined; // a version, range, tag or alias
  const hash = spec.indexOf('#');
  return hash === -1 ? spec : spec.slice(0, hash);
}

/** A valid npm package name from a directory name (lowercase, URL-safe), or `roster-config`. */
export function packageName(dirName: string): string {
  const name = dirName
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, '-')
    .replace(/^[._-]+/, '')
    .replace(/-+$/, '')
    .slice(0, 214);
  return name || 'roster-config';
}

/** What a configuration repository leaves out of git: installed packages, the embedded default's data. */
export const IGNORED = [
  { pattern: 'node_modules/', why: 'installed packages (npm ci)' },
  { pattern: '.roster/', why: "the embedded default's data (roster plan/apply without --api-url)" },
] as const;

/** `.gitignore` with each of `IGNORED` added unless a line already ignores it; `added` lists the patterns added. */
export function mergeGitignore(existing: string | undefined): { text: string; added: string[] } {
  let text = existing ?? '';
  const lines = new Set(text.split(/\r?\n/).map((line) => line.trim().replace(/^\//, '').replace(/\/$/, '')));
  const added: string[] = [];
  for (const { pattern, why } of IGNORED) {
    if (lines.has(pattern.replace(/\/$/, ''))) continue;
    if (text !== '' && !text.endsWith('\n')) text += '\n';
    text += `# ${why}\n${pattern}\n`;
    added.push(pattern);
  }
  return { text, added };
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function isRecordOrAbsent(value: unknown): boolean {
  return value === undefined || (value !== null && typeof value === 'object' && !Array.isArray(value));
}

function sortedRecord(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
