import React, { useEffect, useState } from 'react';
import { Box, Static, Text, render } from 'ink';
import type { ApplyEvent } from '../../apply/apply.js';
import { advance, etaSeconds, eventLine, newProgress, type ProgressState } from '../../apply/progress.js';

export interface ApplyProgressProps {
  subscribe: (listener: (e: ApplyEvent) => void) => void;
  total: number;
  /** The clock for the ETA (tests inject one). */
  now?: () => number;
}

/**
 * Finished changes scroll away in <Static>; in-flight ones stay live below with the counts and ETA.
 * Exported for tests (plain data in, frames out); the command mounts it only through renderApplyProgress.
 */
export function ApplyProgress({ subscribe, total, now = Date.now }: ApplyProgressProps) {
  const [state] = useState<ProgressState>(() => newProgress(total, now()));
  const [finished, setFinished] = useState<{ key: number; line: string; failed: boolean }[]>([]);
  const [, setTick] = useState(0);
  useEffect(() => {
    let n = 0;
    subscribe((e) => {
      advance(state, e);
      const line = eventLine(e);
      if (line) setFinished((f) => [...f, { key: n++, line, failed: e.type === 'failed' }]);
      setTick((t) => t + 1);
    });
    // Re-render every second so the ETA follows the clock while a slow change is in flight (it was only
    // recomputed on events, so it froze at the last estimate). unref: never what keeps the process up.
    const timer = setInterval(() => setTick((t) => t + 1), 1000);
    timer.unref?.();
    return () => clearInterval(timer);
  }, []);
  const eta = etaSeconds(state, now());
  const live = [...state.inFlight.values()].slice(0, 8);
  return (
    <>
      <Static items={finished}>{(f) => <Text key={f.key} color={f.failed ? 'red' : undefined}>{f.line}</Text>}</Static>
      <Box flexDirection="column">
        {live.map((c) => (
          <Text key={c.id} dimColor>
            … {c.action} {c.id}
          </Text>
        ))}
        <Text>
          {state.done}/{state.total} done{state.failed ? `, ${state.failed} failed` : ''}
          {state.skipped ? `, ${state.skipped} skipped` : ''}
          {eta !== undefined && state.done + state.failed + state.skipped < state.total ? ` · about ${eta}s left` : ''}
        </Text>
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
      await new Promise((r) => setTimeout(r, 20));
      app.unmount();
      await app.waitUntilExit();
    },
  };
}
