import { ApiError } from '../errors.js';
import { redactSecrets } from '../secrets.js';
import { reduce } from './model.js';
import { initQueue, type Action, type Effect, type QueueOptions, type QueueState } from './state.js';
import type { KeyPress } from './keys.js';
import type { ReviewSource } from './source.js';
import type { WaitingInfo } from '../api/index.js';

/**
 * Runs the queue model against a source: dispatches actions, carries out the effects the model asks
 * for and feeds their answers back. No Ink here: the UI subscribes to `getState` and calls `key`.
 */
export interface ReviewController {
  getState(): QueueState;
  subscribe(listener: () => void): () => void;
  dispatch(action: Action): void;
  key(press: KeyPress): void;
  resize(width: number, rows: number): void;
  /** The client's notice that an answer is slow to come (`onWaiting`): shown until nothing is in flight. */
  waiting(info: WaitingInfo): void;
  /** Resolves when every effect started so far has answered (tests and benches). */
  idle(): Promise<void>;
}

export interface ControllerOptions extends QueueOptions {
  source: ReviewSource;
  onQuit?: () => void;
}

/** A short, secret-free sentence for an error, and whether it was the network. */
export function describeError(err: unknown): { message: string; network: boolean; conflict: boolean } {
  if (err instanceof ApiError) {
    const { status, errorCode, detail } = err.info;
    const network = status === 0;
    // The low-level code (ECONNREFUSED) says enough; the rest of the detail repeats it.
    const message = network
      ? `${errorCode ?? 'NETWORK_ERROR'}${detail ? `: ${detail.split(':')[0]}` : ''}`
      : `${status}${errorCode ? ` ${errorCode}` : ''}${detail ? `: ${detail}` : ''}`;
    return { message: redactSecrets(message), network, conflict: status === 409 };
  }
  return { message: redactSecrets(err instanceof Error ? err.message : String(err)), network: false, conflict: false };
}

type Dispatch = (action: Action) => void;

export function createReviewController(o: ControllerOptions): ReviewController {
  let state = initQueue(o);
  const listeners = new Set<() => void>();
  const running = new Set<Promise<void>>();

  const dispatch: Dispatch = (action) => {
    if (state.quit && action.type !== 'key') return;
    const step = reduce(state, action);
    state = step.state;
    for (const l of listeners) l();
    for (const e of step.effects) run(e);
  };

  const track = (p: Promise<void>) => {
    running.add(p);
    void p.finally(() => {
      running.delete(p);
      // The notice named one request of those in flight; once none is, it is stale.
      if (running.size === 0 && state.waiting) dispatch({ type: 'waited' });
    });
  };

  function run(e: Effect): void {
    if (e.type === 'quit') return o.onQuit?.();
    track(carryOut(e, o, dispatch));
  }

  return {
    getState: () => state,
    subscribe(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    dispatch,
    key: (press) => dispatch({ type: 'key', key: press }),
    resize: (width, rows) => dispatch({ type: 'resize', width, rows }),
    waiting: (info) => dispatch({ type: 'waiting', info }),
    async idle() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}

/** Carries out one effect the model asked for (every one but `quit`) and dispatches its answer. */
function carryOut(e: Exclude<Effect, { type: 'quit' }>, o: ControllerOptions, dispatch: Dispatch): Promise<void> {
  const { source } = o;
  switch (e.type) {
    case 'fetchPage':
      return source.listPage(e.query, e.fetch.page, e.perPage).then(
        (r) => dispatch({ type: 'pageLoaded', gen: e.gen, fetch: e.fetch, items: r.items, total: r.total }),
        (err) => dispatch({ type: 'pageFailed', gen: e.gen, fetch: e.fetch, message: describeError(err).message }),
      );
    case 'loadRoles':
      // The set rules with the roles: read once; without them the impact shows roles only and says so.
      return Promise.all([source.readRoles(), source.readSetRules().catch(() => null)]).then(
        ([roles, setRules]) => dispatch({ type: 'rolesLoaded', roles, setRules }),
        (err) => dispatch({ type: 'rolesFailed', message: describeError(err).message }),
      );
    case 'loadCounts':
      return loadCounts(source, e, dispatch);
    case 'loadPerson':
      return source.readRequester(e.user).then(
        (facts) => dispatch({ type: 'personLoaded', user: e.user, facts }),
        (err) => dispatch({ type: 'personFailed', user: e.user, message: describeError(err).message }),
      );
    case 'loadLive':
      return source.readLive().then(
        (live) => dispatch({ type: 'liveLoaded', live }),
        (err) => dispatch({ type: 'liveFailed', message: describeError(err).message }),
      );
    case 'loadReviewing':
      return source.readReviewing(o.configs).then(
        (reviewing) => dispatch({ type: 'reviewingLoaded', reviewing }),
        // What an empty queue says is a convenience: without it, it says "no pending request".
        () => undefined,
      );
    case 'decide':
      return decide(source, e.intent, dispatch);
  }
}

/** Each tab's total (the sum of its queries' totals); a tab whose total cannot be read shows none. */
async function loadCounts(
  source: ReviewSource,
  e: Extract<Effect, { type: 'loadCounts' }>,
  dispatch: Dispatch,
): Promise<void> {
  let pairs;
  try {
    pairs = await Promise.all(
      e.queries.map(async ({ tab, queries }) => {
        const totals = await Promise.all(queries.map(async (q) => (await source.listPage(q, 1, 1)).total));
        return [tab, totals.every((t) => t !== undefined) ? totals.reduce((a, b) => a! + b!, 0) : undefined] as const;
      }),
    );
  } catch {
    // The counts are a convenience: the tabs show none when they cannot be read.
    return;
  }
  dispatch({
    type: 'countsLoaded',
    gen: e.gen,
    counts: Object.fromEntries(pairs.filter(([, n]) => n !== undefined)),
  });
}

async function decide(
  source: ReviewSource,
  intent: Extract<Effect, { type: 'decide' }>['intent'],
  dispatch: Dispatch,
): Promise<void> {
  const { id, comment, role } = intent;
  try {
    const request =
      intent.kind === 'approve'
        ? await source.approve(id, { comment, role })
        : intent.kind === 'deny'
          ? await source.deny(id, { comment })
          : intent.kind === 'update'
            ? await source.update(id, { comment, role })
            : await source.cancel(id, { reason: comment });
    dispatch({ type: 'decided', intent, request });
  } catch (err) {
    const why = describeError(err);
    if (why.conflict) {
      // Someone decided first: show the request as it is now.
      try {
        return dispatch({ type: 'conflict', intent, request: await source.get(id) });
      } catch (again) {
        return dispatch({ type: 'decisionFailed', intent, ...describeError(again) });
      }
    }
    dispatch({ type: 'decisionFailed', intent, ...why });
  }
}
