import { startThread, threadsCanLoad } from '../threads.js';

export interface AsideOptions {
  /** SQLite data directory. */
  dataDir: string;
  /** The organisation key the service accepts. */
  orgKey: string;
  /** Projects and environments (keys) to create at start unless they exist. */
  environments?: { project: string; env: string }[];
}

export interface AsideServer {
  url: string;
  close(): Promise<void>;
}

type Message = { url: string } | { error: { name: string; message: string; code?: string; stack?: string } };

/**
 * The embedded default's service (`startServer`, no request log) on a thread of its own: the command's
 * thread then only reads and plans while the service answers on another core (issue #12: serving the
 * 10,000-user environment's reads costs about as much as reading them). Where no thread can load the
 * modules (TypeScript sources under vitest), the service starts on this thread, as before.
 */
export async function startServerAside(options: AsideOptions): Promise<AsideServer> {
  if (!threadsCanLoad()) {
    const { startServer } = await import('./listen.js');
    const server = await startServer({ ...options, port: 0, logger: false });
    return { url: server.url, close: () => server.close() };
  }
  const worker = startThread(import.meta.url, './aside-worker', options);
  const started = await new Promise<Message>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) =>
      reject(new Error(`the embedded service's thread stopped (exit code ${code}) before it listened`)),
    );
  });
  worker.removeAllListeners();
  if ('error' in started) {
    // The service could not start (a data directory it cannot write, say): the same error as on this thread.
    await worker.terminate();
    throw Object.assign(new Error(started.error.message), started.error);
  }
  let closing: Promise<void> | undefined;
  return {
    url: started.url,
    close() {
      closing ??= new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        worker.postMessage('close');
      });
      return closing;
    },
  };
}
