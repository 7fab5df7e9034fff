import { Box, Static, Text } from 'ink';
import { commentLabel, confirmQuestion, describeRequest, VERB } from '../decisions.js';
import { buildDetailLines } from '../details.js';
import { TABS } from '../filter.js';
import { configLabel, fitHints, formatPosition, formatWaiting, truncate, wrapLines } from '../format.js';
import { findRequest, listHeight, tabCount, visibleRows } from '../rows.js';
import type { LogEntry, QueueState } from '../state.js';
import { DetailPane, HelpPane, RolePicker } from './Panes.js';
import { QueueTable } from './Table.js';
import { colorOf } from './theme.js';

export interface ScreenProps {
  state: QueueState;
  /** Milliseconds since the epoch, for ages. */
  now: number;
  color: boolean;
}

/** The whole live screen, from the queue state alone. */
export function ReviewScreen({ state: s, now, color }: ScreenProps) {
  const width = s.width;
  const body = listHeight(s) + 1; // the column header and the rows
  let main;
  if (s.prompt?.kind === 'role') {
    const r = findRequest(s, s.prompt.id);
    main = (
      <RolePicker
        choices={s.prompt.choices}
        cursor={s.prompt.cursor}
        asked={s.prompt.asked}
        height={body}
        color={color}
      />
    );
  } else if (s.view === 'help') main = <HelpPane readonly={s.readonly} height={body} color={color} />;
  else if (s.view === 'detail')
    main = <DetailPane lines={buildDetailLines(s)} top={s.detailTop} width={width} height={body} color={color} />;
  else
    main = (
      <QueueTable
        rows={visibleRows(s)}
        width={width}
        height={listHeight(s)}
        now={now}
        color={color}
        tab={s.tab}
        configOf={s.configs.length > 1 ? (c) => configLabel(s, c) : undefined}
      />
    );
  return (
    <Box flexDirection="column" width={width}>
      <TitleBar state={s} color={color} />
      <TabBar state={s} color={color} />
      {main}
      {s.waiting ? (
        <Text color={colorOf('warning', color)} wrap="truncate-end">
          {truncate(formatWaiting(s.waiting), width - 1)}
        </Text>
      ) : (
        <Text color={colorOf('dim', color)} wrap="truncate-end">
          {truncate(formatPosition(s), width - 1)}
        </Text>
      )}
      <Box height={2} flexDirection="column">
        <MessageLine state={s} color={color} />
      </Box>
      <Text color={colorOf('dim', color)} wrap="truncate-end">
        {hints(s)}
      </Text>
    </Box>
  );
}

function TitleBar({ state: s, color }: { state: QueueState; color: boolean }) {
  const right = s.readonly ? ' [read-only]' : '';
  return (
    <Text bold color={colorOf('title', color)} wrap="truncate-end">
      {truncate(`roster review — ${s.user} in ${s.tenant}${right}`, s.width - 1)}
    </Text>
  );
}

function TabBar({ state: s, color }: { state: QueueState; color: boolean }) {
  return (
    <Box>
      {TABS.map((t, i) => {
        const n = tabCount(s, t);
        const label = `${i + 1} ${t}${n === undefined ? '' : ` (${n.toLocaleString('en-US')})`}`;
        return (
          <Text key={t} bold={t === s.tab} color={colorOf(t === s.tab ? 'accent' : 'dim', color)}>
            {t === s.tab ? `[${label}] ` : ` ${label}  `}
          </Text>
        );
      })}
      <Text color={colorOf('dim', color)}>{` ${s.order} first`}</Text>
      <Text color={colorOf('dim', color)} wrap="truncate-end">
        {s.filter.text ? ` filter: ${truncate(s.filter.text, Math.max(10, s.width - 44))}` : ''}
      </Text>
    </Box>
  );
}

function MessageLine({ state: s, color }: { state: QueueState; color: boolean }) {
  const p = s.prompt;
  const w = s.width - 1;
  if (p?.kind === 'filter')
    return (
      <Text color={colorOf('accent', color)} wrap="truncate-end">
        {truncate(`/${p.draft}▏`, w)}
      </Text>
    );
  if (p?.kind === 'comment') {
    const r = findRequest(s, p.intent.id);
    const what = r ? describeRequest(r, p.intent.role) : 'request';
    const verb = VERB[p.intent.kind].doing.replace(/^./, (c) => c.toUpperCase());
    // The end of a long draft stays visible while typing.
    const label = `${verb} ${what}. ${commentLabel(p.intent.kind)}: `;
    const room = Math.max(10, w - Math.min(label.length, Math.floor(w / 2)) - 1);
    const draft = [...p.draft].length > room ? '…' + [...p.draft].slice(-(room - 1)).join('') : p.draft;
    return (
      <Text color={colorOf('accent', color)} wrap="truncate-end">
        {truncate(label, w - draft.length - 1) + draft + '▏'}
      </Text>
    );
  }
  if (p?.kind === 'confirm') {
    const r = findRequest(s, p.intent.id);
    return (
      <Text bold color={colorOf('warning', color)}>
        {wrapLines(`${r ? confirmQuestion(p.intent, r) : '?'} [y/N]`, w, 2).join('\n')}
      </Text>
    );
  }
  if (p?.kind === 'role') return <Text color={colorOf('accent', color)}>choose the role to grant</Text>;
  if (!s.message) return <Text> </Text>;
  return <Text color={colorOf(s.message.kind, color)}>{wrapLines(s.message.text, w, 2).join('\n')}</Text>;
}

function hints(s: QueueState): string {
  const p = s.prompt;
  const w = s.width - 1;
  if (p?.kind === 'filter')
    return truncate('enter apply · esc cancel · role:R resource:T[:K] instance:K @user words', w);
  if (p?.kind === 'comment') return 'type a comment · enter next · esc cancel';
  if (p?.kind === 'confirm') return 'y confirm · n / enter / esc cancel';
  if (p?.kind === 'role') return 'j/k choose · enter approve as this role · esc cancel';
  if (s.view === 'help') return 'esc back';
  // Lower numbers win when the line is short: quit and help always, then deciding, then moving.
  const decide: [string, number][] = s.readonly
    ? []
    : [
        ['a approve', 2],
        ['d deny', 2],
        ['r role', 4],
        ['c comment', 5],
        ['x cancel', 5],
      ];
  const head: [string, number][] =
    s.view === 'detail'
      ? [
          ['esc back', 1],
          ['j/k next', 3],
          ['ctrl-d scroll', 6],
        ]
      : [
          ['j/k move', 3],
          ['enter details', 3],
        ];
  const tail: [string, number][] =
    s.view === 'detail'
      ? []
      : [
          ['/ filter', 4],
          ['tab view', 4],
          ['s sort', 6],
          ['R refresh', 6],
        ];
  return fitHints([...head, ...decide, ...tail, ['? help', 0], ['q quit', 0]], w);
}

/** Finished decisions, printed once above the live screen (they stay in the scrollback after quitting). */
export function DecisionLog({ entries, color }: { entries: LogEntry[]; color: boolean }) {
  return (
    <Static items={entries}>
      {(e) => (
        <Text key={e.id} color={colorOf(e.kind, color)}>
          {`${e.kind === 'success' ? '✓' : '!'} ${e.text}`}
        </Text>
      )}
    </Static>
  );
}
