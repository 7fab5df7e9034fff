/**
 * The I/O of loading: paths (files or directories) to the text of each configuration file. Refuses what
 * must not reach the parser: files over 10 MB, text that is not UTF-8.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
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
    try {
      files = (await stat(given)).isDirectory() ? await listYamlFiles(given) : [given];
    } catch (err) {
      errors.push({ file: given, message: ioMessage(err), severity: 'error' });
      continue;
    }
    if (files.length === 0) errors.push({ file: given, message: 'no .yaml or .yml file in this directory', severity: 'error' });
    for (const file of files) {
      const resolved = path.resolve(file);
      if (seen.has(resolved)) continue;
      seen.add(resolved);
      try {
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

/** Every *.yaml and *.yml below `dir`, sorted by path; hidden folders and node_modules are skipped. */
async function listYamlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files: string[] = [];
  for (const e of entries) {
    if (!e.isFile() || !/\.ya?ml$/i.test(e.name)) continue;
    const full = path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name);
    const rel = path.relative(dir, full).split(path.sep);
    if (rel.some((part) => part.startsWith('.') || part === 'node_modules')) continue;
    files.push(full);
  }
  return files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

async function readOne(file: string): Promise<string | Problem> {
  const size = (await stat(file)).size;
  if (size > MAX_FILE_BYTES) {
    return { file, message: `file is ${(size / 2 ** 20).toFixed(1)} MB, over the 10 MB limit`, hint: 'split the configuration into several files', severity: 'error' };
  }
  return decodeUtf8(file, await readFile(file));
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
      file, line, column: offset - lineStart + 1, severity: 'error',
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
  return err instanceof Error ? err.message : String(err);
}
