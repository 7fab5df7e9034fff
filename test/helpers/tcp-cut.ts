import net from 'node:net';

export interface CuttableLink {
  port: number;
  /** Cut every connection and refuse new ones, as a database that crashed would. */
  cut(): Promise<void>;
  /** Accept connections again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of `host:port` (PostgreSQL in the tests) that can be cut and restored, to
 * simulate the database going away under a running service and coming back.
 */
export async function startCuttableLink(host: string, targetPort: number): Promise<CuttableLink> {
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  };
  const makeServer = () =>
    net.createServer((client) => {
      const upstream = net.connect(targetPort, host);
      track(client);
      track(upstream);
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
  let server = makeServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  const stop = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      if (!server.listening) return r();
      server.close(() => r());
    });
  return {
    port,
    cut: stop,
    async restore() {
      server = makeServer();
      await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    },
    close: stop,
  };
}
