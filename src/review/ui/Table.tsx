import { Box, Text } from 'ink';
import { columnsFor, formatHeader, formatRow } from '../format.js';
import type { Tab } from '../filter.js';
import type { VisibleRow } from '../rows.js';
import { colorOf } from './theme.js';

export interface QueueTableProps {
  rows: VisibleRow[];
  width: number;
  /** Rows of the list area; empty lines fill the rest, so the screen does not jump. */
  height: number;
  now: number;
  color: boolean;
  tab: Tab;
  /** The configuration cell of a row (`oncall 12h`); absent when the queue has one configuration (no column). */
  configOf?: (config: string | undefined) => string;
}

/** The queue: a column header and only the visible rows. */
export function QueueTable({ rows, width, height, now, color, tab, configOf }: QueueTableProps) {
  const c = columnsFor(width, { config: configOf !== undefined });
  const filler = Array.from({ length: Math.max(0, height - rows.length) }, (_, i) => <Text key={`empty-${i}`}> </Text>);
  return (
    <Box flexDirection="column">
      <Text bold color={colorOf('dim', color)} wrap="truncate-end">
        {'  ' + formatHeader(c, tab)}
      </Text>
      {rows.map((row) => {
        const marker = row.selected ? '› ' : '  ';
        if (!row.request) {
          const text = row.state === 'failed' ? 'could not load this page (R retries)' : 'loading…';
          return (
            <Text
              key={`row-${row.index}`}
              color={colorOf(row.state === 'failed' ? 'error' : 'dim', color)}
              wrap="truncate-end"
            >
              {marker + text}
            </Text>
          );
        }
        const r = row.request;
        const decided = r.status !== 'pending';
        const tone = row.inflight
          ? 'info'
          : row.revoked
            ? 'dim'
            : r.status === 'approved'
              ? 'success'
              : r.status === 'denied'
                ? 'error'
                : decided || r.own
                  ? 'dim'
                  : undefined;
        return (
          <Text
            key={`row-${row.index}`}
            inverse={row.selected && color}
            bold={row.selected}
            color={colorOf(tone, color)}
            wrap="truncate-end"
          >
            {marker +
              formatRow(r, c, now, {
                inflight: row.inflight,
                tab,
                duplicates: row.duplicates,
                config: configOf?.(r.config),
                revoked: row.revoked,
              })}
          </Text>
        );
      })}
      {filler}
    </Box>
  );
}
