import { Box, Text } from 'ink';
import type { DetailLine } from '../details.js';
import { KEYMAP } from '../keys.js';
import { truncate } from '../format.js';
import { colorOf } from './theme.js';

const fill = (n: number, prefix: string) =>
  Array.from({ length: Math.max(0, n) }, (_, i) => <Text key={`${prefix}-${i}`}> </Text>);

/** The selected request in full. Lines beyond the pane's height are cut, with a marker. */
export function DetailPane({
  lines: all,
  top,
  width,
  height,
  color,
}: {
  lines: DetailLine[];
  top: number;
  width: number;
  height: number;
  color: boolean;
}) {
  const lines = all.slice(Math.max(0, Math.min(top, all.length - height + 1)));
  const cut = lines.length > height;
  const shown = cut ? lines.slice(0, height - 1) : lines;
  return (
    <Box flexDirection="column">
      {shown.map((l, i) => (
        <Text key={`d-${i}`} bold={l.tone === 'title'} color={colorOf(l.tone, color)} wrap="truncate-end">
          {truncate(l.text, width - 1) || ' '}
        </Text>
      ))}
      {cut ? (
        <Text color={colorOf('dim', color)}>{`… ${lines.length - shown.length} more lines (ctrl-d scrolls)`}</Text>
      ) : null}
      {fill(height - shown.length - (cut ? 1 : 0), 'df')}
    </Box>
  );
}

/** The key map (`?`). Decision keys are marked off under --readonly. */
export function HelpPane({ readonly, height, color }: { readonly: boolean; height: number; color: boolean }) {
  const rows = KEYMAP.slice(0, Math.max(0, height - 2));
  return (
    <Box flexDirection="column">
      <Text bold color={colorOf('title', color)}>
        Keys{readonly ? ' (read-only: decision keys are off)' : ''}
      </Text>
      {rows.map((k) => (
        <Text key={k.keys} color={colorOf(readonly && k.decision ? 'dim' : undefined, color)} wrap="truncate-end">
          {`  ${k.keys.padEnd(22)} ${k.action}${readonly && k.decision ? ' (off)' : ''}`}
        </Text>
      ))}
      <Text color={colorOf('dim', color)}>esc, ? or q closes this help</Text>
      {fill(height - rows.length - 2, 'hf')}
    </Box>
  );
}

/** Choosing the role to grant before approving (`r`). */
export function RolePicker({
  choices,
  cursor,
  asked,
  height,
  color,
}: {
  choices: string[];
  cursor: number;
  asked: string;
  height: number;
  color: boolean;
}) {
  const room = Math.max(1, height - 1);
  const start = Math.max(0, Math.min(cursor - Math.floor(room / 2), choices.length - room));
  const visible = choices.slice(start, start + room);
  return (
    <Box flexDirection="column">
      <Text bold color={colorOf('title', color)}>{`Approve as which role? (asked: ${asked})`}</Text>
      {visible.map((role, i) => {
        const at = start + i === cursor;
        return (
          <Text key={role} inverse={at && color} bold={at} wrap="truncate-end">
            {`${at ? '› ' : '  '}${role}${role === asked ? ' (asked)' : ''}`}
          </Text>
        );
      })}
      {fill(room - visible.length, 'rf')}
    </Box>
  );
}
