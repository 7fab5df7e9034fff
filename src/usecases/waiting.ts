import type { WaitingInfo } from '../api/index.js';

/** The line said every 5 s while an answer is slow to come (src/api/README.md, "Deadline"). */
export function waitingLine(w: WaitingInfo): string {
  return `still waiting for ${w.method} ${w.path}: ${Math.round(w.waitedMs / 1000)} s so far (attempt ${w.attempt}, gives up after ${Math.round(w.deadlineMs / 1000)} s; --timeout)\n`;
}

/** Where a target's slow-answer notices go: a line on stderr, or a full-screen UI while one is mounted. */
export interface WaitingNotices {
  /** The client's `onWaiting`. */
  onWaiting(info: WaitingInfo): void;
  /**
   * Sends the notices to `sink` instead of stderr until the returned function is called: a line written
   * to stderr under a mounted Ink UI (`roster review`) lands in the middle of its frame and garbles it.
   */
  route(sink: (info: WaitingInfo) => void): () => void;
}

export function createWaitingNotices(
  write: (line: string) => void = (line) => void process.stderr.write(line),
): WaitingNotices {
  let sink: ((info: WaitingInfo) => void) | undefined;
  return {
    onWaiting: (info) => (sink ? sink(info) : write(waitingLine(info))),
    route(next) {
      const before = sink;
      sink = next;
      return () => {
        if (sink === next) sink = before;
      };
    },
  };
}
