import { useEffect, useSyncExternalStore } from 'react';
import { useInput, useStdout, type Key } from 'ink';
import type { KeyPress } from '../keys.js';
import type { QueueState } from '../state.js';
import { DecisionLog, ReviewScreen } from './Screen.js';

export interface ReviewAppProps {
  /** The queue state to show and how to hear of changes (the controller). */
  store: { getState(): QueueState; subscribe(listener: () => void): () => void };
  onKey(press: KeyPress): void;
  onResize(width: number, rows: number): void;
  now(): number;
  color: boolean;
}

/** Translates Ink's key report into the model's plain `KeyPress`. */
export function toKeyPress(input: string, k: Key): KeyPress {
  const name = k.upArrow
    ? 'up'
    : k.downArrow
      ? 'down'
      : k.leftArrow
        ? 'left'
        : k.rightArrow
          ? 'right'
          : k.pageUp
            ? 'pageup'
            : k.pageDown
              ? 'pagedown'
              : k.home
                ? 'home'
                : k.end
                  ? 'end'
                  : k.return
                    ? 'return'
                    : k.escape
                      ? 'escape'
                      : k.tab
                        ? 'tab'
                        : // Most terminals send DEL for Backspace, which Ink reports as `delete`.
                          k.backspace || k.delete
                          ? 'backspace'
                          : undefined;
  return {
    input: name ? '' : input,
    ...(name ? { name } : {}),
    ...(k.ctrl ? { ctrl: true } : {}),
    ...(k.shift ? { shift: true } : {}),
    ...(k.meta ? { meta: true } : {}),
  };
}

/** The app: subscribes to the store, forwards keys and terminal size, renders. */
export function ReviewApp({ store, onKey, onResize, now, color }: ReviewAppProps) {
  const state = useSyncExternalStore(store.subscribe, store.getState);
  const { stdout } = useStdout();
  useEffect(() => {
    const measure = () => onResize(stdout.columns || 80, stdout.rows || 24);
    measure();
    stdout.on('resize', measure);
    return () => {
      stdout.off('resize', measure);
    };
  }, [stdout, onResize]);
  useInput((input, k) => onKey(toKeyPress(input, k)));
  return (
    <>
      <DecisionLog entries={state.log} color={color} />
      <ReviewScreen state={state} now={now()} color={color} />
    </>
  );
}
