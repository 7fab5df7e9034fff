import type { IncomingMessage } from 'node:http';

/** How much of an oversized body the server reads (and discards) before answering 413. */
export interface DrainBounds {
  maxBytes: number;
  maxMs: number;
}

export const DRAIN_BOUNDS: DrainBounds = { maxBytes: 64 * 1024 * 1024, maxMs: 30_000 };

/**
 * Reads and discards the rest of a request body; resolves true when the body ended within `bounds`,
 * false when it did not (or the connection went away).
 *
 * Why: fastify answers 413 as soon as the body limit trips and closes the connection. Clients that
 * write the whole body before reading the answer (Node's fetch and undici) are still writing; closing a
 * socket with unread data makes the kernel send a reset, which discards the 413 on the client's side,
 * so the client reports EPIPE or "other side closed" instead of the answer. Once the body is read, the
 * answer and the close reach every client. The bounds keep a client from holding the server busy:
 * past them the server answers anyway and closes (the client may then see the reset).
 */
export function drainBody(req: IncomingMessage, bounds: DrainBounds = DRAIN_BOUNDS): Promise<boolean> {
  // `complete`: the whole message has come off the socket, even if not all of it was consumed.
  if (req.complete) return Promise.resolve(true);
  if (req.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (drained: boolean) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onClose);
      if (!drained) req.pause();
      resolve(drained);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > bounds.maxBytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(req.complete);
    const timer = setTimeout(() => finish(false), bounds.maxMs);
    timer.unref();
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.on('error', onClose);
    // fastify stops listening at the limit (the stream may still flow) or, when content-length alone
    // was over the limit, never started reading.
    req.resume();
  });
}
