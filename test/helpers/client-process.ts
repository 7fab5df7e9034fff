import { execFile } from 'node:child_process';
import { ROOT } from './cli.js';

export interface Outcome {
  status?: number;
  body?: any;
  /** The client's error code (EPIPE, UND_ERR_SOCKET, ...) when there was no answer. */
  error?: string;
}

/**
 * POSTs a body of `size` bytes (a JSON object) `times` times from a separate Node process, with Node's
 * fetch or with undici's `request`, and returns what the client saw each time. A separate process,
 * because the failure this guards against (the client still writing when the server answers and
 * closes) depends on the two event loops racing: with the server in the test's own process, the
 * answer is always read before the write fails.
 */
export function postFromAnotherProcess(options: {
  url: string;
  headers: Record<string, string>;
  size: number;
  client: 'fetch' | 'undici';
  chunked: boolean;
  times: number;
}): Promise<Outcome[]> {
  const script = `
    import { request } from 'undici';
    const o = JSON.parse(process.argv[1]);
    const text = JSON.stringify({ key: 'big', name: 'x'.repeat(o.size) });
    const bytes = Buffer.from(text);
    // Chunked: a stream without a content-length, in 64 KiB pieces.
    const body = () => o.chunked ? new ReadableStream({ start() { this.at = 0; }, pull(c) { if (this.at >= bytes.length) return c.close(); c.enqueue(bytes.subarray(this.at, this.at += 65536)); } }) : text;
    const once = async () => {
      try {
        if (o.client === 'fetch') {
          const r = await fetch(o.url, { method: 'POST', headers: o.headers, body: body(), duplex: 'half' });
          return { status: r.status, body: await r.json() };
        }
        const r = await request(o.url, { method: 'POST', headers: o.headers, body: body() });
        return { status: r.statusCode, body: await r.body.json() };
      } catch (e) {
        return { error: String(e.cause?.code ?? e.code ?? e.message) };
      }
    };
    const out = [];
    for (let i = 0; i < o.times; i++) out.push(await once());
    process.stdout.write(JSON.stringify(out));
  `;
  return new Promise((resolve, reject) => {
    // cwd: the project, so that the script finds undici in its node_modules.
    execFile(
      process.execPath,
      ['--input-type=module', '-e', script, JSON.stringify(options)],
      { cwd: ROOT, maxBuffer: 1 << 20 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`client process failed: ${err.message}\n${stderr}`));
        resolve(JSON.parse(stdout) as Outcome[]);
      },
    );
  });
}
