import { describe, expect, it } from 'vitest';
import type { WaitingInfo } from '../../src/api/index.js';
import { createWaitingNotices, waitingLine } from '../../src/usecases/waiting.js';

const info = (path: string): WaitingInfo => ({
  method: 'GET',
  path,
  waitedMs: 10_400,
  attempt: 2,
  deadlineMs: 120_000,
});

describe('waiting notices', () => {
  it('the stderr line names the request, the time so far, the attempt and the deadline', () => {
    expect(waitingLine(info('/v2/facts/p/e/users'))).toBe(
      'still waiting for GET /v2/facts/p/e/users: 10 s so far (attempt 2, gives up after 120 s; --timeout)\n',
    );
  });

  it('go to stderr, to the routed sink while routed, and back to stderr once undone; routes nest', () => {
    const stderr: string[] = [];
    const outer: string[] = [];
    const inner: string[] = [];
    const notices = createWaitingNotices((line) => stderr.push(line));
    notices.onWaiting(info('/a'));
    const undoOuter = notices.route((w) => outer.push(w.path));
    notices.onWaiting(info('/b'));
    const undoInner = notices.route((w) => inner.push(w.path));
    notices.onWaiting(info('/c'));
    undoInner();
    notices.onWaiting(info('/d'));
    undoOuter();
    undoOuter();
    notices.onWaiting(info('/e'));
    expect({ stderr: stderr.map((l) => l.split(':')[0]), outer, inner }).toEqual({
      stderr: ['still waiting for GET /a', 'still waiting for GET /e'],
      outer: ['/b', '/d'],
      inner: ['/c'],
    });
  });
});
