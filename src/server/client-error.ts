import type { Duplex } from 'node:stream';
import { ERROR_CODES, type ErrorCode } from './errors.js';

/**
 * Requests Node's HTTP parser refuses before fastify sees them (a NUL or other control byte in a
 * header, a malformed request line, headers over the size limit, a request that took too long) answer
 * in the public API's shape like every other error, instead of fastify's default `{error, statusCode}`.
 * There is no request yet, so the id is made here; the connection is closed, as the parser cannot
 * continue after an error.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // A reset connection has no one to answer (https://nodejs.org/api/http.html#event-clienterror).
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const code: ErrorCode =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? 'HEADERS_TOO_LARGE'
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'REQUEST_TIMEOUT'
        : 'BAD_REQUEST';
  const { status, title } = ERROR_CODES[code];
  const id = crypto.randomUUID();
  const body = JSON.stringify({
    id,
    title,
    error_code: code,
    message: `the request could not be read (${err.code ?? 'client error'})`,
  });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${title}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${id}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
