import type { FastifyInstance } from 'fastify';
import type { Exchange } from './openapi.js';

/**
 * Records every exchange the server sees, as the client sent it and as the server answered: method, URL
 * path (undecoded), query (raw strings, as sent), the JSON body before validation touched it, status and
 * the JSON answer. Install before the app listens (startTestServer({record: true}) does).
 */
export function recordExchanges(app: FastifyInstance): Exchange[] {
  const exchanges: Exchange[] = [];
  const sent = new WeakMap<object, unknown>();
  // Before validation: ajv's defaults must not show up as something the client sent.
  app.addHook('preValidation', async (request) => {
    if (request.body !== undefined) sent.set(request, structuredClone(request.body));
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const [path, search = ''] = request.url.split(/\?(.*)/s);
    exchanges.push({
      method: request.method,
      path,
      query: rawQuery(search),
      body: sent.has(request) ? sent.get(request) : request.body,
      status: reply.statusCode,
      response: parseJson(payload),
    });
    return payload;
  });
  return exchanges;
}

function rawQuery(search: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(search)) {
    const had = out[k];
    out[k] = had === undefined ? v : [...[had].flat(), v];
  }
  return out;
}

function parseJson(payload: unknown): unknown {
  const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
