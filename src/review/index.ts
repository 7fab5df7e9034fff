/**
 * `roster review`: the reviewer's terminal UI. The CLI calls `renderReview` only; everything else here
 * is plain TypeScript (model, paging, filter, decisions, source) that never imports Ink, except ui/.
 */
import type { ReactElement } from 'react';
import type { ApiClient, WaitingInfo } from '../api/index.js';
import { createReviewController, type ReviewController } from './controller.js';
import type { LogEntry } from './state.js';
import { createReviewSource, type ReviewSource } from './source.js';
import { isCi } from '../ci.js';

export { createReviewSource, type ReviewSource } from './source.js';
export { createReviewController, type ReviewController } from './controller.js';
export { readAccessRequest, targetOf, type AccessRequest } from './request.js';

export interface ReviewOptions {
  client: ApiClient;
  user: string;
  tenant: string;
  /** Element configuration key or id; default `default`. */
  config?: string;
  /** One queue across these element configurations (each row names its own); default: `config` alone. */
  configs?: readonly string[];
  /** `grant_for` by configuration, when the repository's configuration declares them. */
  lifetimes?: Readonly<Record<string, string>>;
  readonly?: boolean;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  /** Default: on unless NO_COLOR is set or stdout is not a terminal. */
  color?: boolean;
  now?: () => number;
  /**
   * Sends the client's "still waiting for …" notices to the given sink instead of stderr until undone
   * (src/usecases/waiting.ts): while the UI is mounted they show on its status line, since a line written
   * to stderr would land in the middle of the frame.
   */
  routeWaiting?: (sink: (info: WaitingInfo) => void) => () => void;
  /** Draws the app; default Ink's `render` on stdout and stdin. Tests pass ink-testing-library's. */
  mount?: (app: ReactElement) => { unmount(): void; waitUntilExit?(): Promise<unknown> };
}

export interface ReviewSummary {
  /** Decisions confirmed by the service, in order. */
  log: LogEntry[];
}

/**
 * Why the UI cannot start here, or undefined when it can. Without a terminal (or in CI) the caller says
 * so and points to `roster requests`.
 */
export function whyNotInteractive(
  env: NodeJS.ProcessEnv = process.env,
  stdin = process.stdin,
  stdout = process.stdout,
): string | undefined {
  if (isCi(env)) return 'CI is set';
  if (!stdin.isTTY) return 'standard input is not a terminal';
  if (!stdout.isTTY) return 'standard output is not a terminal';
  return undefined;
}

/** Starts the Ink app and resolves when the user quits. Errors inside are shown, never thrown out. */
export async function renderReview(o: ReviewOptions): Promise<ReviewSummary> {
  // React's development build checks much more on every render; the CLI is not a development build.
  process.env.NODE_ENV ??= 'production';
  const [{ render }, React, { ReviewApp }] = await Promise.all([import('ink'), import('react'), import('./ui/App.js')]);
  const stdout = o.stdout ?? process.stdout;
  const color = o.color ?? (!process.env.NO_COLOR && stdout.isTTY === true);
  const now = o.now ?? Date.now;
  const source = createReviewSource({
    client: o.client,
    user: o.user,
    tenant: o.tenant,
    config: o.config ?? o.configs?.[0],
  });
  let quit!: () => void;
  const done = new Promise<void>((resolve) => (quit = resolve));
  const controller = createReviewController({
    source,
    user: o.user,
    tenant: o.tenant,
    readonly: o.readonly,
    configs: o.configs,
    lifetimes: o.lifetimes,
    width: stdout.columns || 80,
    rows: stdout.rows || 24,
    onQuit: () => quit(),
  });
  const unroute = o.routeWaiting?.(controller.waiting);
  try {
    // The first page is asked for before the first render, so the two overlap.
    controller.dispatch({ type: 'start' });
    const element = React.createElement(ReviewApp, {
      store: controller,
      onKey: controller.key,
      onResize: controller.resize,
      now,
      color,
    });
    const app = o.mount
      ? o.mount(element)
      : render(element, { stdout, stdin: o.stdin ?? process.stdin, exitOnCtrlC: false });
    await Promise.race([done, ...(app.waitUntilExit ? [app.waitUntilExit()] : [])]);
    app.unmount();
  } finally {
    // Unmounted: what is still in flight says it is slow on stderr again.
    unroute?.();
  }
  return { log: controller.getState().log };
}

/** For tests and the bench: the controller alone, over a source. */
export function startQueue(
  source: ReviewSource,
  o: { readonly?: boolean; width?: number; rows?: number; perPage?: number; configs?: readonly string[] } = {},
): ReviewController {
  const c = createReviewController({ source, user: source.user, tenant: source.tenant, ...o });
  c.dispatch({ type: 'start' });
  return c;
}
