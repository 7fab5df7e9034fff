import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: string;
  body: string;
}

/**
 * One HTTP/1.1 exchange over a bare socket: what fetch refuses to send (a NUL or other control byte in
 * a header). `head` is the request line and headers without the blank line; the request asks the server
 * to close the connection after answering, so the answer is everything the server wrote.
 */
export function rawRequest(url: string, head: string, body = ''): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const bytes = `${head}\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  return new Promise((resolve, reject) => {
    // write, not end: Node's server treats a half-closed connection as an aborted request and may close
    // before answering. `connection: close` makes the server close after its answer instead.
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes, 'latin1'));
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1] ?? NaN);
      resolve({ status, headers: text.slice(0, split), body: split < 0 ? '' : text.slice(split + 4) });
    });
  });
}
