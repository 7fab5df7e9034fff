/**
 * The I/O of loading: paths (files or directories) to the text of each configuration file. Refuses what
 * must not reach the parser: files over 10 MB (counted while reading, never trusted from stat(): /proc
 * files say 0, a pipe or /dev/zero never end), anything that is not a regular file (a FIFO with no
 * writer would hang, a device never ends), text that is not UTF-8. Symbolic links are followed, in a
 * directory as on the command line; a file reached twice is read once, a directory loop is walked once.
 */
import { constants } from 'node:fs';
import { open, readdir, realpath, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import path from 'node:path';
import type { Problem } from './source.js';

export const MAX_FILE_BYTES = 10 * 1024 * 1024;

export interface SourceText {
  file: string;
  text: string;
}

export interface ReadResult {
  sources: SourceText[];
  errors: Problem[];
}

export async function readConfigFiles(paths: string[]): Promise<ReadResult> {
  const sources: SourceText[] = [];
  const errors: Problem[] = [];
  const seen = new Set<string>();
  for (const given of paths) {
    let files: string[];
    const errorsBefore = errors.length;
    try {
      files = (await stat(given)).isDirectory() ? await listYamlFiles(given, errors) : [given];
    } catch (err) {
      errors.push({ file: given, message: ioMessage(err), severity: 'error' });
      continue;
    }
    if (files.length === 0 && errors.length === errorsBefore) {
      errors.push({ file: given, message: 'no .yaml or .yml file in this directory', severity: 'error' });
    }
    for (const file of files) {
      try {
        // The same file under two names (a symlink beside its target) is one file: read it once.
        // A pipe's /proc/self/fd link has no real path (`pipe:[123]`): its own name is the key then.
        const real = await realpath(file).catch(() => path.resolve(file));
        if (seen.has(real)) continue;
        seen.add(real);
        const result = await readOne(file);
        if (typeof result === 'string') sources.push({ file, text: result });
        else errors.push(result);
      } catch (err) {
        errors.push({ file, message: ioMessage(err), severity: 'error' });
      }
    }
  }
  return { sources, errors };
}

/**
 * Every *.yaml and *.yml below `dir`, sorted by path; hidden entries and node_modules are skipped.
 * Symbolic links to files and folders are followed (a configuration assembled from shared pieces);
 * a folder reached again (a loop, or two links to one folder) is walked once. A link that leads
 * nowhere is an error naming it, never a silent skip.
 */
async function listYamlFiles(dir: string, errors: Problem[]): Promise<string[]> {
  const files: string[] = [];
  const walked = new Set<string>([await realpath(dir)]);
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop()!;
    for (const e of await readdir(current, { withFileTypes: true })) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const full = path.join(current, e.name);
      let kind: Stats | undefined;
      if (e.isSymbolicLink()) {
        try {
          kind = await stat(full);
        } catch (err) {
          if (/\.ya?ml$/i.test(e.name) || (err as NodeJS.ErrnoException).code === 'ELOOP') {
            errors.push({
              file: full,
              message: `a symbolic link that cannot be followed: ${ioMessage(err)}`,
              severity: 'error',
            });
          }
          continue;
        }
      }
      if (kind ? kind.isDirectory() : e.isDirectory()) {
        const real = await realpath(full);
        if (walked.has(real)) continue;
        walked.add(real);
        pending.push(full);
      } else if (/\.ya?ml$/i.test(e.name)) {
        // Not only regular files: a FIFO or device named *.yaml is refused by readOne, with its name.
        files.push(full);
      }
    }
  }
  return files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** What a special file is, for the refusal. */
function specialKind(s: Stats): string | undefined {
  if (s.isFIFO()) return 'a named pipe (FIFO)';
  if (s.isCharacterDevice()) return 'a character device';
  if (s.isBlockDevice()) return 'a block device';
  if (s.isSocket()) return 'a socket';
  if (s.isDirectory()) return 'a directory';
  return s.isFile() ? undefined : 'not a regular file';
}

const tooLarge = (file: string, message = 'file is over the 10 MB limit'): Problem => ({
  file,
  message,
  hint: 'split the configuration into several files',
  severity: 'error',
});

const notAFile = (file: string, kind: string): Problem => ({
  file,
  message: `${kind}, not a configuration file`,
  hint: 'name a regular .yaml file or a directory of them',
  severity: 'error',
});

async function readOne(file: string): Promise<string | Problem> {
  // Judged before opening too: opening a socket (a spawned process's stdin) fails with ENXIO.
  const before = specialKind(await stat(file));
  if (before) return notAFile(file, before);
  // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one. The kind is
  // judged on the open handle, so the file cannot be swapped between the check and the read.
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = await handle.stat();
    const kind = specialKind(stats);
    if (kind) return notAFile(file, kind);
    // A size stat() admits to is refused unread; a smaller claim is not trusted (below).
    if (stats.size > MAX_FILE_BYTES)
      return tooLarge(file, `file is ${(stats.size / 2 ** 20).toFixed(1)} MB, over the 10 MB limit`);
    // Read at most one byte past the limit: the size is what was read, not what stat() claims.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(1 << 20, MAX_FILE_BYTES + 1 - total));
      const { bytesRead } = await handle.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      chunks.push(buf.subarray(0, bytesRead));
      total += bytesRead;
      if (total > MAX_FILE_BYTES) return tooLarge(file);
    }
    return decodeUtf8(file, Buffer.concat(chunks, total));
  } finally {
    await handle.close();
  }
}

/** UTF-8 text without its byte-order mark, or a problem saying where the first bad byte is. */
export function decodeUtf8(file: string, bytes: Uint8Array): string | Problem {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return { file, message: 'file is UTF-16, not UTF-8', hint: 'save it as UTF-8', severity: 'error' };
  }
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    const offset = firstInvalidUtf8(bytes);
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) (line++, (lineStart = i + 1));
    return {
      file,
      line,
      column: offset - lineStart + 1,
      severity: 'error',
      message: `file is not valid UTF-8 (byte 0x${bytes[offset]?.toString(16).padStart(2, '0')} at offset ${offset})`,
      hint: 'save it as UTF-8',
    };
  }
}

function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i];
    const n = c < 0x80 ? 0 : c >= 0xc2 && c < 0xe0 ? 1 : c >= 0xe0 && c < 0xf0 ? 2 : c >= 0xf0 && c < 0xf5 ? 3 : -1;
    if (n < 0) return i;
    for (let k = 1; k <= n; k++) if (i + k >= b.length || (b[i + k] & 0xc0) !== 0x80) return i;
    i += n + 1;
  }
  return b.length;
}

function ioMessage(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'ELOOP') return 'too many levels of symbolic links (a loop)';
  return err instanceof Error ? err.message : String(err);
}
