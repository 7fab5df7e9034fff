/**
 * Key presses as plain data, independent of Ink (the UI translates Ink's `useInput` arguments), and the
 * key map shown by `?` and in docs/review.md. Keys follow gh-dash, k9s and lazygit.
 */
export type KeyName =
  'up' | 'down' | 'left' | 'right' | 'return' | 'escape' | 'tab' | 'backspace' | 'pageup' | 'pagedown' | 'home' | 'end';

export interface KeyPress {
  /** The character(s) typed; '' for a named key. */
  input: string;
  name?: KeyName;
  ctrl?: boolean;
  shift?: boolean;
  meta?: boolean;
}

export const key = (input: string, extra: Partial<KeyPress> = {}): KeyPress => ({ input, ...extra });
export const named = (name: KeyName, extra: Partial<KeyPress> = {}): KeyPress => ({ input: '', name, ...extra });

export const KEYMAP: readonly { keys: string; action: string; decision?: boolean }[] = [
  { keys: 'j / ↓, k / ↑', action: 'move down / up' },
  { keys: 'ctrl-d/u, pgdn/pgup', action: 'half a page down / up (details: scroll)' },
  { keys: 'g / G', action: 'top / bottom' },
  { keys: 'enter', action: 'details of the selected request' },
  { keys: 'esc', action: 'back: close details, help, a prompt; clear the filter' },
  { keys: 'tab, shift-tab, 1 2 3', action: 'view: pending / decided / mine' },
  { keys: 's', action: 'sort: oldest first (default) / newest first' },
  { keys: '/', action: 'filter: role:R resource:T[:K] instance:K @user words' },
  { keys: 'a', action: 'approve (optional comment, then confirm)', decision: true },
  { keys: 'd', action: 'deny (optional comment, then confirm)', decision: true },
  { keys: 'r', action: 'choose another role, then approve', decision: true },
  { keys: 'c', action: 'comment only (reviewer update)', decision: true },
  { keys: 'x', action: 'cancel (your own requests only)', decision: true },
  { keys: 'R', action: 'refresh (also retries what failed)' },
  { keys: '?', action: 'help' },
  { keys: 'q / ctrl-c', action: 'quit' },
];
