import type { FastifyServerOptions } from 'fastify';

type LoggerOption = FastifyServerOptions['logger'];

/**
 * Request logs never contain a key. Headers are not logged at all, but a caller may put a key where it
 * does not belong (a `?token=` in the URL, a key in a path segment), and the URL is logged: every
 * configured key is replaced by `***` in the logged URL and in logged error messages.
 */
export function redactingLogger(logger: LoggerOption, secrets: string[]): LoggerOption {
  if (!logger) return logger;
  const base = logger === true ? {} : (logger as Record<string, unknown>);
  const known = secrets.filter((s) => s.length > 0);
  const hide = (text: string) => known.reduce((t, k) => t.split(k).join('***'), text);
  const serializers = (base.serializers ?? {}) as Record<string, (value: never) => unknown>;
  return {
    level: 'info',
    ...base,
    serializers: {
      ...serializers,
      req: (req: { method: string; url: string; host?: string; ip?: string; socket?: { remotePort?: number } }) => ({
        method: req.method,
        url: hide(req.url),
        host: req.host,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
      err: (err: Error & { code?: string; statusCode?: number }) => ({
        type: err.name,
        code: err.code,
        message: hide(String(err.message)),
        stack: err.stack ? hide(err.stack) : undefined,
      }),
    },
  } as LoggerOption;
}
