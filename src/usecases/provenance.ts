import { ConfigError } from '../errors.js';
import type { TargetOptions } from './target.js';

/**
 * Where a configuration says it was exported from: the first comment line `roster export` (and `init
 * --from-live`) writes, `# Exported by \`roster export\` from acme/prod at api.permit.io: …`
 * (src/config/export.ts; the host only for a remote service). Such a configuration declares that
 * service's environment: read against another, its plan is about something else.
 */
export interface ExportedFrom {
  file: string;
  /** `project/environment`, as the export names them. */
  scope: string;
  /** The remote service's host; absent for an export of the embedded service (or one written before hosts were named). */
  host?: string;
}

const EXPORTED = /^# Exported by `roster export` from (\S+?)(?: at (\S+))?: the live environment as configuration\.$/m;

/** The first file whose header says where it was exported from (only the top of each file is looked at). */
export function exportedFrom(sources: readonly { file: string; text: string }[]): ExportedFrom | undefined {
  for (const { file, text } of sources) {
    const m = EXPORTED.exec(text.slice(0, 4096));
    if (m) return { file, scope: m[1], ...(m[2] ? { host: m[2] } : {}) };
  }
  return undefined;
}

/**
 * A configuration exported from a remote service, read with no service named (no --api-url, no
 * ROSTER_API_URL): the command would silently read the embedded service, an empty local stand-in (a
 * plan of "56 to create", a `.roster/` in the repository; in CI, an apply on merge that changes nothing
 * real). Refused, naming the file, where it came from and what to set; `--data DIR` (or
 * ROSTER_DATA_DIR), which names the embedded service, uses it on purpose. A service named at another
 * host than the export's is allowed (a proxy, a tunnel, a copy) and returned as a warning.
 */
export function checkExportedTarget(
  sources: readonly { file: string; text: string }[],
  opts: TargetOptions,
  command: string,
): string | undefined {
  const from = exportedFrom(sources);
  if (!from?.host) return undefined;
  const url = opts.apiUrl ?? setting('ROSTER_API_URL');
  if (url === undefined) {
    if (opts.data !== undefined || setting('ROSTER_DATA_DIR') !== undefined) return undefined;
    throw new ConfigError(
      `${from.file} was exported from ${from.scope} at ${from.host}, but no --api-url or ROSTER_API_URL names a service: roster ${command} would read the embedded service (./.roster), an empty local stand-in, not ${from.host}; nothing was read or written`,
      [
        {
          file: from.file,
          message: `exported from ${from.scope} at ${from.host}`,
          hint: `set ROSTER_API_URL to the URL of ${from.host} and ROSTER_API_KEY, or pass --api-url; to use the embedded service on purpose, pass --data ./.roster`,
        },
      ],
    );
  }
  let host: string;
  try {
    host = new URL(url).host;
  } catch {
    // Not a URL: openTarget says so.
    return undefined;
  }
  return host === from.host
    ? undefined
    : `${from.file} was exported from ${from.scope} at ${from.host}; roster ${command} reads ${host}`;
}

/** checkExportedTarget over configuration files not read yet as text (the commands that load through loadDesired); its warning printed. */
export async function checkExportedFiles(files: string[], opts: TargetOptions, command: string): Promise<void> {
  const { readConfigFiles } = await import('../config/read.js');
  const warning = checkExportedTarget((await readConfigFiles(files)).sources, opts, command);
  if (warning) process.stderr.write(`warning: ${warning}\n`);
}

/** An environment variable set to '' (as CI does for an unset variable) counts as unset. */
function setting(name: string): string | undefined {
  return process.env[name] || undefined;
}
