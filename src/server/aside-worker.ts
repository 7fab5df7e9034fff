/** The thread of `aside.ts`: starts the service, says where it listens, and closes it when told. */
import { parentPort, workerData } from 'node:worker_threads';
import { startServer } from './listen.js';
import type { AsideOptions } from './aside.js';

const port = parentPort!;
try {
  const server = await startServer({ ...(workerData as AsideOptions), port: 0, logger: false });
  port.once('message', () => {
    // Closing drains the requests in flight and the store; the thread then ends on its own.
    void server.close().finally(() => port.close());
  });
  port.postMessage({ url: server.url });
} catch (err) {
  const e = err as Error & { code?: string };
  port.postMessage({ error: { name: e.name, message: e.message, code: e.code, stack: e.stack } });
}
