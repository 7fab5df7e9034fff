/**
 * Reading one answer: the body under a size limit, and what a 2xx read answer must look like. A
 * hostile or broken service (an endless body, a truncated one, HTML from a proxy, JSON of another shape)
 * must end in a retry and then one clear error naming the request, never in an out-of-memory or an
 * "internal error".
 */

/** Larger than any page or bulk answer the API gives (a page holds at most 100 objects). */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

export class AnswerTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the answer was larger than ${Math.round(limit / 2 ** 20)} MB; stopped reading it`);
  }
}

/** The body as text, refusing to hold more than `limit` bytes (the stream is destroyed past it). */
export async function readBodyText(body: AsyncIterable<Buffer> & { destroy?: (err?: Error) => void }, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > limit) {
      const err = new AnswerTooLarge(limit);
      body.destroy?.(err);
      throw err;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

/** Parsed JSON, or the text itself when it is not JSON (error bodies may be plain text or HTML). */
export function parseBody(text: string): { body: unknown; json: boolean } {
  if (text === '') return { body: undefined, json: false };
  try {
    return { body: JSON.parse(text), json: true };
  } catch {
    return { body: text, json: false };
  }
}

/**
 * What is wrong with a 2xx answer to a read, or undefined when it is usable: reads always answer JSON,
 * and the caller may say which shape it needs (`expect`). Such answers are retried like failed ones:
 * a truncated or garbled body is a transport fault more often than a service that means it.
 */
export function malformedRead(parsed: { body: unknown; json: boolean }, expect?: (body: unknown) => string | undefined): string | undefined {
  if (!parsed.json) {
    if (parsed.body === undefined) return 'an empty body where JSON was expected';
    const text = String(parsed.body).trimStart();
    if (text.startsWith('<')) return 'HTML where JSON was expected (a proxy or login page in front of the service?)';
    return 'a body that is not valid JSON (truncated or garbled)';
  }
  return expect?.(parsed.body);
}

/** A list page: an array, or the envelope `{data: [...]}`. */
export function expectListPage(body: unknown): string | undefined {
  if (Array.isArray(body)) return undefined;
  if (typeof body === 'object' && body !== null && Array.isArray((body as { data?: unknown }).data)) return undefined;
  return `JSON of the wrong shape (${describeJson(body)}, where a list page, an array or {data: [...]}, was expected)`;
}

/** An object (a single resource). */
export function expectObject(body: unknown): string | undefined {
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) return undefined;
  return `JSON of the wrong shape (${describeJson(body)}, where an object was expected)`;
}

function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `an object with keys ${Object.keys(value).slice(0, 5).join(', ') || '(none)'}`;
  return `a ${typeof value}`;
}
