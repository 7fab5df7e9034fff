import { afterEach, describe, expect, it, vi } from 'vitest';
import React from 'react';
import { cleanup, render } from 'ink-testing-library';
import type { ApplyEvent } from '../../src/apply/apply.js';
import { advance, etaSeconds, eventLine, newProgress } from '../../src/apply/progress.js';
import { ApplyProgress } from '../../src/cli/ui/apply-progress.js';
import type { Change } from '../../src/plan/change.js';

/** Apply progress as plain state (src/apply/progress.ts), and the live view over it fed made-up events. */

const create = (id: string): Change => ({
  id,
  kind: 'tenant',
  action: 'create',
  after: { key: id, name: id },
  dependsOn: [],
});
const update = (id: string): Change => ({
  id,
  kind: 'tenant',
  action: 'update',
  before: { key: id, name: id },
  after: { key: id, name: id },
  fields: [],
  dependsOn: [],
});
const remove = (id: string): Change => ({
  id,
  kind: 'tenant',
  action: 'delete',
  before: { key: id, name: id },
  dependsOn: [],
});

const start = (change: Change): ApplyEvent => ({ type: 'start', change });
const done = (change: Change): ApplyEvent => ({ type: 'done', change });
const failed = (change: Change, error = 'boom'): ApplyEvent => ({ type: 'failed', change, error });
const skipped = (change: Change, because: string): ApplyEvent => ({ type: 'skipped', change, because });

describe('progress state', () => {
  it('starts empty', () => {
    expect(newProgress(5, 1000)).toEqual({
      total: 5,
      done: 0,
      failed: 0,
      skipped: 0,
      inFlight: new Map(),
      startedAt: 1000,
    });
  });

  it('advance: start puts a change in flight; done, failed and skipped take it out and count it', () => {
    const s = newProgress(4, 0);
    const [a, b, c, d] = ['tenant:a', 'tenant:b', 'tenant:c', 'tenant:d'].map(create);
    advance(s, start(a));
    advance(s, start(b));
    advance(s, start(c));
    expect([...s.inFlight.keys()]).toEqual(['tenant:a', 'tenant:b', 'tenant:c']);
    advance(s, done(b));
    advance(s, failed(a));
    expect([...s.inFlight.keys()]).toEqual(['tenant:c']);
    // A skipped change never started: counted all the same.
    advance(s, skipped(d, 'tenant:a'));
    expect(s).toMatchObject({ done: 1, failed: 1, skipped: 1 });
    advance(s, done(c));
    expect(s).toMatchObject({ total: 4, done: 2, failed: 1, skipped: 1 });
    expect(s.inFlight.size).toBe(0);
  });

  it('etaSeconds: nothing before the first change finished, then the rest at the pace so far, rounded up', () => {
    const s = newProgress(10, 1_000);
    expect(etaSeconds(s, 5_000)).toBeUndefined();
    advance(s, start(create('tenant:a')));
    expect(etaSeconds(s, 5_000)).toBeUndefined();
    advance(s, done(create('tenant:a')));
    advance(s, done(create('tenant:b')));
    // 2 in 4 s: 8 left take 16 s.
    expect(etaSeconds(s, 5_000)).toBe(16);
    // The pace slows as time passes without progress.
    expect(etaSeconds(s, 9_000)).toBe(32);
    // 3 in 1 s: 7 left take 2.33 s, shown as 3.
    advance(s, done(create('tenant:c')));
    expect(etaSeconds(s, 2_000)).toBe(3);
    // Failed and skipped changes are finished too.
    advance(s, failed(create('tenant:d')));
    advance(s, skipped(create('tenant:e'), 'tenant:d'));
    expect(etaSeconds(s, 6_000)).toBe(5);
  });

  it('etaSeconds: finishing in the same millisecond as the start does not divide by zero', () => {
    const s = newProgress(3, 1_000);
    advance(s, done(create('tenant:a')));
    expect(etaSeconds(s, 1_000)).toBe(1);
    advance(s, done(create('tenant:b')));
    advance(s, done(create('tenant:c')));
    expect(etaSeconds(s, 1_000)).toBe(0);
  });

  it('eventLine: one line per finished change, none for a start', () => {
    expect(eventLine(start(create('tenant:a')))).toBeUndefined();
    expect(eventLine(done(create('tenant:a')))).toBe('created tenant:a');
    expect(eventLine(done(update('tenant:a')))).toBe('updated tenant:a');
    expect(eventLine(done(remove('tenant:a')))).toBe('deleted tenant:a');
    expect(eventLine(failed(create('user:bob'), "400 Bad Request: 'email' is not an email"))).toBe(
      "FAILED create user:bob: 400 Bad Request: 'email' is not an email",
    );
    expect(eventLine(failed(remove('tenant:x'), 'timed out'))).toBe('FAILED delete tenant:x: timed out');
    expect(eventLine(skipped(create('member:bob@team:eng'), 'user:bob'))).toBe(
      'skipped create member:bob@team:eng (depends on user:bob)',
    );
  });
});

describe('the live view (ink-testing-library)', () => {
  afterEach(() => cleanup());

  /** Mounts the view with a fake clock; returns a way to send events and read frames. */
  function mount(total: number, clock = { t: 10_000 }) {
    let listener: ((e: ApplyEvent) => void) | undefined;
    const subscribe = vi.fn((l: (e: ApplyEvent) => void) => {
      listener = l;
    });
    const ui = render(React.createElement(ApplyProgress, { total, subscribe, now: () => clock.t }));
    const frame = () => ui.lastFrame() ?? '';
    return {
      clock,
      subscribe,
      frame,
      /** Sends events, then waits until the frame shows `text`. */
      async send(events: ApplyEvent[], text: string | RegExp) {
        await vi.waitFor(() => expect(listener).toBeDefined());
        for (const e of events) listener!(e);
        await vi.waitFor(() => expect(frame()).toMatch(text), { timeout: 5000, interval: 5 });
        return frame();
      },
    };
  }

  it('shows in-flight changes live, moves finished ones above, and counts with an ETA', async () => {
    const v = mount(4);
    expect(v.frame()).toBe('0/4 done');
    const [a, b, c, d] = ['tenant:a', 'tenant:b', 'tenant:c', 'tenant:d'].map(create);

    let f = await v.send([start(a), start(b), start(c)], 'tenant:c');
    expect(f).toBe(['… create tenant:a', '… create tenant:b', '… create tenant:c', '0/4 done'].join('\n'));

    // 1 of 4 in 2 s: 3 left take 6 s.
    v.clock.t += 2_000;
    f = await v.send([done(b)], '1/4');
    expect(f).toBe(
      ['created tenant:b', '… create tenant:a', '… create tenant:c', '1/4 done · about 6 s left'].join('\n'),
    );

    f = await v.send([failed(a, '500 Internal Server Error'), skipped(d, 'tenant:a')], 'skipped');
    expect(f).toBe(
      [
        'created tenant:b',
        'FAILED create tenant:a: 500 Internal Server Error',
        'skipped create tenant:d (depends on tenant:a)',
        '… create tenant:c',
        '1/4 done, 1 failed, 1 skipped · about 1 s left',
      ].join('\n'),
    );

    // Everything finished: no estimate, nothing in flight, each finished line shown once.
    f = await v.send([done(c)], '2/4');
    expect(f).toBe(
      [
        'created tenant:b',
        'FAILED create tenant:a: 500 Internal Server Error',
        'skipped create tenant:d (depends on tenant:a)',
        'created tenant:c',
        '2/4 done, 1 failed, 1 skipped',
      ].join('\n'),
    );
    expect(v.subscribe).toHaveBeenCalledTimes(1);
  });

  it('lists at most 8 in-flight changes; the count still covers all', async () => {
    const v = mount(20);
    const changes = Array.from({ length: 12 }, (_, i) => create(`tenant:t${String(i).padStart(2, '0')}`));
    const f = await v.send(changes.map(start), 'tenant:t07');
    expect(f.split('\n').filter((l) => l.startsWith('… create'))).toHaveLength(8);
    expect(f).not.toContain('tenant:t08');
    expect(f).toContain('0/20 done');
  });

  it('re-estimates while a change is slow, without waiting for the next event', async () => {
    const v = mount(2);
    const [a, b] = ['tenant:a', 'tenant:b'].map(create);
    v.clock.t += 1_000;
    await v.send([start(a), start(b), done(a)], 'about 1 s left');
    // b takes much longer than a did: the estimate grows on its own.
    v.clock.t += 9_000;
    await vi.waitFor(() => expect(v.frame()).toContain('1/2 done · about 10 s left'), { timeout: 5000, interval: 20 });
  });
});
