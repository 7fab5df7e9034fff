import React, { useEffect, useState } from 'react';
import { Box, Static, Text, render } from 'ink';
import type { ApplyEvent } from '../../apply/apply.js';
import { advance, newProgress, progressLine, shownLine, type ProgressState } from '../../apply/progress.js';

export interface ApplyProgressProps {
  subscribe: (listener: (e: ApplyEvent) => void) => void;
  total: number;
  /** The clock for the ETA (tests inject one). */
  now?: () => number;
}

/** The view is drawn at most this often: events only change plain state in between. */
export const FRAME_MS = 100;

/**
 * Finished changes scroll away in <Static> (each one for a small apply, failures only for a big one:
 * progress.ts); in-flight ones stay live below with the counts and the ETA. Events update plain state;
 * the view is drawn at most every FRAME_MS, so a 9,117-change apply is not slowed by its own progress.
 * Exported for tests (plain data in, frames out); the command mounts it only through renderApplyProgress.
 */
export function ApplyProgress({ subscribe, total, now = Date.now }: ApplyProgressProps) {
  const [state] = useState<ProgressState>(() => newProgress(total, now()));
  const [finished, setFinished] = useState<{ key: number; line: string; failed: boolean }[]>([]);
  const [, setTick] = useState(0);
  useEffect(() => {
    let n = 0;
    let pending: { key: number; line: string; failed: boolean }[] = [];
    subscribe((e) => {
      advance(state, e);
      const line = shownLine(e, state);
      if (line) pending.push({ key: n++, line, failed: e.type === 'failed' });
    });
    // Also redrawn when nothing happened, so that the ETA follows the clock while a slow change is in
    // flight. unref: never what keeps the process up.
    const timer = setInterval(() => {
      if (pending.length > 0) {
        const lines = pending;
        pending = [];
        setFinished((f) => [...f, ...lines]);
      }
      setTick((t) => t + 1);
    }, FRAME_MS);
    timer.unref?.();
    return () => clearInterval(timer);
  }, []);
  const live = [...state.inFlight.values()].slice(0, 8);
  return (
    <>
      <Static items={finished}>
        {(f) => (
          <Text key={f.key} color={f.failed ? 'red' : undefined}>
            {f.line}
          </Text>
        )}
      </Static>
      <Box flexDirection="column">
        {live.map((c) => (
          <Text key={c.id} dimColor>
            … {c.action} {c.id}
          </Text>
        ))}
        <Text>{progressLine(state, now())}</Text>
      </Box>
    </>
  );
}

/** Mounts the live progress; returns the event sink and a function that unmounts it. */
export function renderApplyProgress(total: number): { onEvent: (e: ApplyEvent) => void; finish: () => Promise<void> } {
  // Events that arrive before the component subscribed wait in a queue.
  let listener: ((e: ApplyEvent) => void) | undefined;
  const queued: ApplyEvent[] = [];
  const subscribe = (l: (e: ApplyEvent) => void) => {
    listener = l;
    for (const e of queued.splice(0)) l(e);
  };
  const app = render(<ApplyProgress total={total} subscribe={subscribe} />, { stdout: process.stderr });
  return {
    onEvent: (e) => (listener ? listener(e) : queued.push(e)),
    finish: async () => {
      // One more frame, so the last one shows every event.
      await new Promise((r) => setTimeout(r, FRAME_MS + 20));
      app.unmount();
      await app.waitUntilExit();
    },
  };
}
