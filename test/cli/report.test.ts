import { describe, expect, it } from 'vitest';
import { reportError } from '../../src/cli/report.js';
import { ApiError, ConfigError, InternalError, UnsafePlanError } from '../../src/errors.js';
import { registerSecret } from '../../src/secrets.js';

const report = (err: unknown) => {
  const lines: string[] = [];
  const code = reportError(err, (l) => lines.push(l));
  return { code, text: lines.join('\n') };
};

describe('reportError: one place, classified by who must act', () => {
  it.each([
    [
      'a configuration error lists each problem with its place',
      new ConfigError('bad config', [
        { file: 'a.yaml', line: 3, column: 5, path: 'roles.x', message: 'unknown resource', hint: 'did you mean doc?' },
      ]),
      1,
      'a.yaml:3:5: roles.x: unknown resource (did you mean doc?)',
    ],
    [
      'a refusal names the request',
      new ApiError({ method: 'PUT', path: '/v2/x', status: 409, errorCode: 'CONFLICT', detail: 'not pending' }),
      1,
      'error: the service refused a request: PUT /v2/x answered 409 CONFLICT: not pending',
    ],
    [
      'no answer at all is "could not reach"',
      new ApiError({ method: 'GET', path: '/v2/x', status: 0, errorCode: 'NETWORK_ERROR' }),
      1,
      'error: could not reach the service: GET /v2/x',
    ],
    [
      'an answer it cannot use is not a refusal',
      new ApiError({
        method: 'GET',
        path: '/v2/x/u',
        status: 200,
        errorCode: 'MALFORMED_ANSWER',
        detail: 'JSON of the wrong shape (null, where an object with key was expected)',
      }),
      1,
      'error: the service gave an answer Roster cannot use: GET /v2/x/u answered 200 MALFORMED_ANSWER: JSON of the wrong shape (null, where an object with key was expected)',
    ],
    [
      'an unsafe plan names its flag',
      new UnsafePlanError('too many deletes; use --max-deletes 40', '--max-deletes'),
      1,
      '--max-deletes',
    ],
    ['a bug says so', new InternalError('oops'), 70, 'a bug in roster'],
    ['anything else is a bug too', new TypeError('x is undefined'), 70, 'a bug in roster'],
  ])('%s', (_name, err, code, text) => {
    const r = report(err);
    expect(r.code).toBe(code);
    expect(r.text).toContain(text);
  });

  it('never prints a registered key', () => {
    registerSecret('sekret-key-123456');
    const r = report(new ApiError({ method: 'GET', path: '/v2/x', status: 401, detail: 'bad key sekret-key-123456' }));
    expect(r.text).not.toContain('sekret-key-123456');
    expect(r.text).toContain('***');
  });
});
