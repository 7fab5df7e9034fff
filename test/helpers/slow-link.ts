import net from 'node:net';

export interface SlowLink {
  /** The proxy's URL: same scheme and paths as the target's. */
  url: string;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of `targetUrl` that lets client→server bytes through at most `bytesPerTick`
 * every `tickMs` (server→client bytes pass at once), so that a large request body is still arriving
 * when the server answers. A close or reset on one side is passed to the other, as a slow network
 * would: a server that resets the connection resets the client too.
 */
export async function startSlowLink(
  targetUrl: string,
  options: { bytesPerTick: number; tickMs: number },
): Promise<SlowLink> {
  const target = new URL(targetUrl);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    const queue: Buffer[] = [];
    let clientEnded = false;
    const timer = setInterval(() => {
      let budget = options.bytesPerTick;
      while (budget > 0 && queue.length > 0 && !upstream.destroyed) {
        const head = queue[0];
        const piece = head.subarray(0, budget);
        if (piece.length === head.length) queue.shift();
        else queue[0] = head.subarray(budget);
        budget -= piece.length;
        upstream.write(piece);
      }
      // Hold the client while the queue is long, as a slow link's small buffers would.
      if (queue.length < 4) client.resume();
      if (clientEnded && queue.length === 0 && !upstream.destroyed) upstream.end();
    }, options.tickMs);
    client.on('data', (chunk: Buffer) => {
      queue.push(chunk);
      if (queue.length >= 4) client.pause();
    });
    client.on('end', () => (clientEnded = true));
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    upstream.on('end', () => client.end());
    // A reset (or any error) on one side resets the other; a plain close closes it.
    upstream.on('error', () => client.resetAndDestroy());
    client.on('error', () => upstream.resetAndDestroy());
    const done = () => {
      clearInterval(timer);
      sockets.delete(client);
      sockets.delete(upstream);
    };
    upstream.on('close', () => {
      done();
      if (!client.destroyed) client.destroySoon();
    });
    client.on('close', () => {
      done();
      if (!upstream.destroyed) upstream.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `${target.protocol}//127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
