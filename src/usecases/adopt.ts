import { renameSync, writeFileSync } from 'node:fs';
import { ConfigError, InternalError, type ConfigProblem } from '../errors.js';
import type { Adoption } from '../plan/adopt.js';
import type { HeldGrant } from '../plan/request-grants.js';
import type { RoleAddition } from '../config/edit-user-roles.js';
import type { SourceText } from '../config/read.js';
import { configPaths } from './config-paths.js';
import { openTarget, type TargetOptions } from './target.js';
import { loadDesired } from './workflow.js';
import { checkExportedFiles } from './provenance.js';
import { didYouMean } from '../config/suggest.js';
import { readLiveState } from '../api/read-live.js';
import { readRequestGrants } from '../api/read-request-grants.js';
import { classifyRequestGrants } from '../plan/request-grants.js';
import { planAdoption, adoptComment } from '../plan/adopt.js';
import { readConfigFiles } from '../config/read.js';
import { editUserRoles } from '../config/edit-user-roles.js';
import { parseDocument, isMap } from 'yaml';
import { validateSources } from '../config/index.js';

/** One configuration file as `requests adopt` edits it: its text before and after. */
export interface FileEdit {
  file: string;
  before: string;
  after: string;
}

export interface AdoptInput extends TargetOptions {
  dryRun?: boolean;
  /** Only these requests' grants: an id or a unique prefix each. */
  request?: string[];
  /** Only grants approved through these element configurations. */
  config?: string[];
  /** Adopt grants with a lifetime too. */
  withLifetime?: boolean;
}

/**
 * `roster requests adopt`: writes the grants approved access requests made, and the configuration does
 * not declare, into the configuration files as declared roles of their users (in the file that declares
 * the user, with a comment naming the request, its reviewer and date); with `dryRun`, writes nothing.
 * Files are written only when the edited configuration validates and declares every adopted grant, each
 * file whole or not at all. Returns the adoption and the edits, for the command to print.
 */
export async function runAdopt(
  paths: string[],
  opts: AdoptInput,
  onWarnings: (w: ConfigProblem[]) => void,
): Promise<{ adoption: Adoption; edits: FileEdit[] }> {
  const files = configPaths(paths, 'requests adopt', opts.env);
  const { desired, warnings } = await loadDesired(files, 'requests adopt');
  onWarnings(warnings);
  for (const key of opts.config ?? []) {
    if (!desired.accessRequests.has(key)) {
      const hint = didYouMean(key, desired.accessRequests.keys());
      throw new ConfigError(
        `--config ${key}: the configuration declares no access_requests configuration "${key}"${hint ? ` (${hint})` : ''}`,
      );
    }
  }
  // An export of a remote service with no service named: refused, not adopted from an empty stand-in (provenance.ts).
  await checkExportedFiles(files, opts, 'requests adopt');
  const target = await openTarget(opts, desired);
  let adoption: Adoption;
  try {
    const [live, grants] = await Promise.all([readLiveState(target.client), readRequestGrants(target.client)]);
    const classified = classifyRequestGrants(desired, live, grants, new Date());
    const requests = (opts.request ?? []).map((given) =>
      resolveRequest(given, [
        ...classified.held.map((g) => g.request.id),
        ...[...classified.expired.values()].map((e) => e.expired.request.id),
      ]),
    );
    adoption = planAdoption(desired, classified, { requests, configs: opts.config, withLifetime: opts.withLifetime });
  } finally {
    await target.close();
  }
  const { sources } = await readConfigFiles(files);
  const edits = await editSources(sources, adoption.adopt);
  if (!opts.dryRun) {
    // Each file whole or not at all: a crash never leaves half an edit behind.
    for (const e of edits) {
      writeFileSync(`${e.file}.adopt-tmp`, e.after);
      renameSync(`${e.file}.adopt-tmp`, e.file);
    }
  }
  return { adoption, edits };
}

/** `--request`: the one request id among `ids` that is `given` or starts with it. */
function resolveRequest(given: string, ids: string[]): string {
  const matches = [...new Set(ids.filter((id) => id.toLowerCase().startsWith(given.toLowerCase())))];
  if (matches.length === 1) return matches[0];
  if (matches.length === 0)
    throw new ConfigError(
      `--request ${given}: no grant the configuration does not declare comes from an access request with this id (roster plan lists the held grants)`,
    );
  throw new ConfigError(
    `--request ${given} is ambiguous: it starts ${matches.length} request ids (${matches.slice(0, 3).join(', ')}${matches.length > 3 ? ', …' : ''}); give more of the id`,
  );
}

/**
 * The files' new texts: each grant goes to the file that declares its user. Checked before anything is
 * written: the edited configuration validates and declares every adopted grant.
 */
async function editSources(sources: SourceText[], adopt: HeldGrant[]): Promise<FileEdit[]> {
  if (adopt.length === 0) return [];
  const edits: FileEdit[] = [];
  const placed = new Set<string>();
  for (const src of sources) {
    const users = parseDocument(src.text).get('users', true);
    const additions = new Map<string, RoleAddition[]>();
    for (const g of adopt) {
      if (!isMap(users) || !users.has(g.user)) continue;
      const addition: RoleAddition = {
        role: g.role,
        tenant: g.tenant,
        ...(g.on ? { on: g.on } : {}),
        comment: adoptComment(g.request),
      };
      (additions.get(g.user) ?? additions.set(g.user, []).get(g.user)!).push(addition);
      placed.add(g.id);
    }
    if (additions.size > 0) edits.push({ file: src.file, before: src.text, after: editUserRoles(src.text, additions) });
  }
  const lost = adopt.find((g) => !placed.has(g.id));
  if (lost)
    throw new InternalError(`no configuration file declares user "${lost.user}", though the configuration does`);

  const edited = new Map(edits.map((e) => [e.file, e.after]));
  const result = validateSources(sources.map((s) => ({ file: s.file, text: edited.get(s.file) ?? s.text })));
  if (!result.desired)
    throw new InternalError(
      `the adopted configuration would not validate: ${result.errors.map((e) => e.message).join('; ')}`,
    );
  const declares = (g: HeldGrant) =>
    result
      .desired!.users.get(g.user)
      ?.roles.some((r) => r.role === g.role && r.tenant === g.tenant && (r.on ?? '') === (g.on ?? '')) === true;
  const missing = adopt.find((g) => !declares(g));
  if (missing) throw new InternalError(`the adopted configuration does not declare ${missing.id}`);
  return edits;
}
