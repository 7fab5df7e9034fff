import type { AccessRequest } from '../review/index.js';
import { age } from '../review/format.js';
import { renderRevokedText } from '../review/revoke.js';
import type { Outcome, RequestsVerb } from '../usecases/requests.js';

/** How `roster requests` prints its outcome (src/usecases/requests.ts): the read model as JSON, or text. */
/**
 * The read model as the service sent it, with what the text view shows beside it: `status_label`
 * (`pending` where the service says `null`), and the users' keys beside their ids.
 */
export function renderJson(o: Outcome): string {
  if (o.kind === 'revoked')
    return (
      JSON.stringify(
        {
          revoked: true,
          grant: o.revoked.grant,
          elements_config: o.revoked.config,
          request: labelled(o.revoked.request),
        },
        null,
        2,
      ) + '\n'
    );
  if (o.kind === 'one') return JSON.stringify(labelled(o.request), null, 2) + '\n';
  const raw = (typeof o.raw === 'object' && o.raw !== null && !Array.isArray(o.raw) ? o.raw : {}) as Record<
    string,
    unknown
  >;
  return JSON.stringify({ ...raw, data: o.items.map((r) => labelled(r, o.configs?.lifetimes)) }, null, 2) + '\n';
}

function labelled(r: AccessRequest, lifetimes?: Record<string, string | null>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r.raw)) {
    out[k] = v;
    if (k === 'status') out.status_label = r.status;
    if (k === 'requesting_user_id') out.requesting_user_key = r.requester;
    if (k === 'reviewer_user_id') out.reviewer_user_key = r.reviewer;
  }
  out.status_label ??= r.status;
  if (r.config !== undefined) out.elements_config = r.config;
  if (r.config !== undefined && lifetimes?.[r.config]) out.grant_for = lifetimes[r.config];
  return out;
}

const DONE: Record<RequestsVerb, string> = {
  list: '',
  get: '',
  create: 'created',
  approve: 'approved',
  deny: 'denied',
  cancel: 'canceled',
  update: 'updated',
  revoke: 'revoked',
};

export function renderText(o: Outcome, now: number): string {
  if (o.kind === 'revoked') return renderRevokedText(o.revoked);
  if (o.kind === 'one') {
    const r = o.request;
    const head = DONE[o.verb] ? `${DONE[o.verb]} access request ${r.id}\n` : '';
    const rows: [string, string | null][] = [
      ['id', r.id],
      ['status', r.status],
      ['requester', r.requester],
      ['tenant', r.tenant],
      ['role', r.role],
      ['resource', r.resource],
      ['instance', r.instance],
      ['reason', r.reason],
      ['created', r.createdAt],
      ['reviewer', r.reviewer],
      ['reviewed', r.reviewedAt],
      ['reviewer comment', r.reviewerComment],
    ];
    return (
      head +
      rows
        .filter(([, v]) => v !== null && v !== '')
        .map(([k, v]) => `  ${k.padEnd(17)}${v}`)
        .join('\n') +
      '\n'
    );
  }
  if (o.items.length === 0) return o.page > 1 ? `no access request on page ${o.page}\n` : 'no access request\n';
  // Across several configurations, each row names its own and its lifetime: `grant_for` as the
  // repository's configuration declares it, `never` when it declares none, `unknown` when it is not known.
  const across = o.configs !== undefined;
  const table = [
    [
      'ID',
      'STATUS',
      'REQUESTER',
      'TENANT',
      'ROLE',
      'RESOURCE/INSTANCE',
      ...(across ? ['CONFIG', 'LIFETIME'] : []),
      'AGE',
      'REASON',
    ],
  ];
  let unknown = false;
  for (const r of o.items) {
    const target = r.resource && r.instance ? `${r.resource}:${r.instance}` : (r.resource ?? 'tenant-wide');
    const life = r.config !== undefined ? o.configs?.lifetimes[r.config] : undefined;
    unknown ||= across && life === undefined;
    const config = across ? [r.config ?? '', life === null ? 'never' : (life ?? 'unknown')] : [];
    table.push([
      r.id,
      r.status,
      r.requester,
      r.tenant,
      r.role,
      target,
      ...config,
      age(r.createdAt, now),
      (r.reason ?? '').replace(/\s+/g, ' ').slice(0, 60),
    ]);
  }
  const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
  const lines = table.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd(),
  );
  const first = (o.page - 1) * o.perPage + 1;
  const of =
    o.total !== undefined ? ` of ${o.total} · page ${o.page}/${Math.max(1, Math.ceil(o.total / o.perPage))}` : '';
  const where = o.configs?.unknownIn
    ? `no configuration of ${o.configs.unknownIn} here declares it`
    : 'the configuration here does not declare it';
  const note = unknown ? `lifetime unknown: grant_for is not on the service, and ${where}\n` : '';
  return `${lines.join('\n')}\n${first}–${first + o.items.length - 1}${of}\n${note}`;
}
