import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliEntry } from '../helpers/cli.js';
import {
  ENV_KEY,
  ORG_KEY,
  dropSchema,
  freshSchema,
  httpClient,
  schemaUrl,
  type HttpClient,
} from '../helpers/server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A real `roster serve` child process on PostgreSQL. */
export interface ServeProcess extends HttpClient {
  child: ChildProcess;
  /** Everything the process wrote on stderr. */
  stderr(): string;
  /** Resolves with the exit code or signal once the process has ended. */
  exited: Promise<number | NodeJS.Signals | null>;
}

/** Spawns `roster serve --port 0 --database URL` and waits for its `listening on URL` line. */
export async function spawnServe(databaseUrl: string, timeoutMs = 60_000): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    [
      ...cliEntry(),
      'serve',
      '--port',
      '0',
      '--database',
      databaseUrl,
      '--api-key',
      ORG_KEY,
      '--env-key',
      `p/e=${ENV_KEY}`,
      '--quiet',
    ],
    { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ROSTER_DATABASE_URL: '' } },
  );
  let err = '';
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`roster serve did not start within ${timeoutMs} ms; stderr:\n${err}`)),
      timeoutMs,
    );
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      err += chunk;
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    void exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`roster serve exited (${how}) before listening; stderr:\n${err}`));
    });
  });
  return { ...httpClient(url), child, stderr: () => err, exited };
}

/** `n` processes started at once on one fresh schema (so their migrations race), and a cleanup. */
export async function startCluster(
  n = 2,
): Promise<{ schema: string; url: string; procs: ServeProcess[]; close(): Promise<void> }> {
  const schema = freshSchema();
  const url = schemaUrl(schema, 8);
  const started = await Promise.allSettled(Array.from({ length: n }, () => spawnServe(url)));
  const procs = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const close = async () => {
    for (const p of procs) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
      await p.exited;
    }
    await dropSchema(schema);
  };
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await close();
    throw (failed as PromiseRejectedResult).reason;
  }
  return { schema, url, procs, close };
}
