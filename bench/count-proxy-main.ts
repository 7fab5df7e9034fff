/**
 * bench/count-proxy.ts's proxy as a process of its own (`startCountingProxyProcess`): the upstream URL
 * as its argument; over IPC it says its URL, then answers `counts` and `reset`.
 */
import { startCountingProxy } from './count-proxy.js';

const proxy = await startCountingProxy(process.argv[2]);
const send = (m: object) => process.send!(m);
send({ type: 'url', url: proxy.url });
process.on('message', (m: { type: string }) => {
  if (m.type === 'counts')
    send({ type: 'counts', requests: proxy.seen.length, writes: proxy.seen.filter((r) => r.method !== 'GET').length });
  else if (m.type === 'reset') {
    proxy.reset();
    send({ type: 'reset' });
  }
});
process.on('SIGTERM', () => void proxy.close().then(() => process.exit(0)));
process.on('disconnect', () => void proxy.close().then(() => process.exit(0)));
