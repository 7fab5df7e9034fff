import { buildImpact, rolesInTenant, type Impact } from './impact.js';
import { buildLiveImpact } from './impact-live.js';
import { duplicateKey, grantGone, pendingByKey, selected } from './rows.js';
import { describeGrant, grantOf } from './revoke.js';
import type { QueueState } from './state.js';
import { placeOf, STATUS_LABEL, type AccessRequest } from './request.js';
import { optimisticStatus } from './decisions.js';
import { pad, truncate, wrapAll } from './format.js';

/** One line of the detail pane, with how loud it is. */
export interface DetailLine {
  text: string;
  tone?: 'title' | 'dim' | 'gain' | 'warning' | 'error';
}

/** Read-model fields already shown under a name of ours; every other field follows as sent. */
const SHOWN = new Set([
  'id',
  'status',
  'requesting_user_id',
  'access_request_details',
  'reason',
  'created_at',
  'updated_at',
  'reviewer_user_id',
  'reviewed_at',
  'reviewer_comment',
]);

/** Two spellings of one field (the specification's and the public API's; servers may send both): shown once. */
const ALIASES: Record<string, string> = { org_id: 'organization_id', env_id: 'environment_id' };

/** The read model's other fields, each once: a specification spelling is dropped when its public twin is there. */
function otherFields(raw: Record<string, unknown>): [string, unknown][] {
  return Object.entries(raw).filter(([k]) => !SHOWN.has(k) && !(ALIASES[k] !== undefined && ALIASES[k] in raw));
}

const shown = (v: unknown) =>
  v === null || v === undefined || v === '' ? '—' : typeof v === 'string' ? v : JSON.stringify(v);

/**
 * Pure: the detail pane of the selected request, most useful first: what it asks, what approving would
 * change, the requester's roles, then every field of the read model (two columns when there is room).
 */
export function buildDetailLines(s: QueueState): DetailLine[] {
  const r = selected(s);
  if (!r) return [{ text: 'nothing selected', tone: 'dim' }];
  const inflight = s.inflight[r.id];
  const revoked = !inflight && grantGone(s, r);
  const status = inflight ? optimisticStatus(inflight.kind) : revoked ? 'revoked' : STATUS_LABEL[r.status];
  const lines: DetailLine[] = [
    {
      text: `${r.own ? 'Your request' : `Request by ${r.requester}`}: ${r.role} ${placeOf(r)} — ${status}`,
      tone: 'title',
    },
    // The reason whole, wrapped: it is what the reviewer decides on.
    ...wrapAll(r.reason ?? '—', s.width - 1, 'reason: ', '  ').map((text) => ({ text })),
  ];
  if (r.status !== 'pending') {
    const by = r.reviewer ? ` by ${r.reviewer}` : '';
    lines.push(
      ...wrap(
        s,
        `${r.status}${by}${r.reviewedAt ? ` at ${r.reviewedAt}` : ''}${r.reviewerComment ? `: "${r.reviewerComment}"` : ''}`,
      ),
    );
  }
  if (revoked) {
    lines.push(
      ...wrap(
        s,
        `revoked since: ${describeGrant(grantOf(r))} is not a role assignment any more (revoked, expired or removed by an apply); the service still records the request as approved`,
        'warning',
      ),
    );
  }
  if (s.configs.length > 1 && r.config) {
    const life = s.lifetimes[r.config];
    lines.push({ text: `configuration: ${r.config}${life ? ` (grant_for ${life}: an approval lasts ${life})` : ''}` });
  }
  const config = r.config ?? s.configs[0] ?? 'default';
  if (r.own && r.status === 'pending' && s.reviewing.state === 'loaded' && s.reviewing.value.alone?.includes(config)) {
    lines.push(
      ...wrap(
        s,
        `nobody can decide this request: you are the only user holding a reviewer role of configuration ${config} tenant-wide in ${r.tenant}, and nobody may review their own request; it stays pending until someone else reviews there (x cancels it)`,
        'warning',
      ),
    );
  }
  const same = r.status === 'pending' ? (pendingByKey(s).get(duplicateKey(r)) ?? []) : [];
  if (same.length > 1) {
    lines.push(
      ...wrap(
        s,
        `duplicates: ${same.length} pending requests by ${r.requester} for ${r.role} ${placeOf(r)} among the rows read (${same.map((x) => x.id.slice(0, 8)).join(', ')}): deny or cancel all but one`,
        'warning',
      ),
    );
  }
  lines.push(...impactLines(s, r), ...requesterLines(s, r), { text: 'Fields', tone: 'title' });
  const fields: [string, unknown][] = [
    ['id', r.id],
    [
      'requester',
      `${r.requester}${r.raw.requesting_user_id && r.raw.requesting_user_id !== r.requester ? ` (${String(r.raw.requesting_user_id)})` : ''}`,
    ],
    ['tenant', r.tenant],
    ['role', r.role],
    ['resource', r.resource],
    ['instance', r.instance],
    ['created', r.createdAt],
    ['updated', r.updatedAt],
    ['reviewer', r.reviewer],
    ['reviewed', r.reviewedAt],
    ['reviewer comment', r.reviewerComment],
    ['you may review', r.canReview ? 'yes' : r.own ? 'no (your own request)' : 'no'],
    ...otherFields(r.raw),
  ];
  lines.push(...packFields(fields, s.width - 1));
  return lines;
}

/** A line wrapped at the pane's width, never cut; continuation lines indented under it. */
function wrap(s: QueueState, text: string, tone?: DetailLine['tone'], indent = ''): DetailLine[] {
  return wrapAll(text, s.width - 1, indent, `${indent}  `).map((t) => ({ text: t, ...(tone ? { tone } : {}) }));
}

/** `name value` cells, two a line when the terminal is wide enough; a value too long for its line is wrapped, never cut. */
function packFields(fields: [string, unknown][], width: number): DetailLine[] {
  const cell = (name: string, value: unknown, w: number) => truncate(`${name.padEnd(16)} ${shown(value)}`, w);
  const whole = (name: string, value: unknown): DetailLine[] =>
    wrapAll(shown(value), width, `  ${name.padEnd(16)} `, ' '.repeat(19)).map((text) => ({ text }));
  if (width < 76) return fields.flatMap(([k, v]) => whole(k, v));
  const half = Math.floor((width - 2) / 2);
  const fits = (f: [string, unknown]) => 17 + [...shown(f[1])].length <= half - 1;
  const out: DetailLine[] = [];
  for (let i = 0; i < fields.length; i++) {
    const [k, v] = fields[i];
    // A value too long for half a line gets a line of its own, so ids are never cut.
    if (fits(fields[i]) && fields[i + 1] && fits(fields[i + 1])) {
      out.push({
        text: `  ${pad(cell(k, v, half - 1), half)}${cell(fields[i + 1][0], fields[i + 1][1], half - 1)}`.trimEnd(),
      });
      i++;
    } else out.push(...whole(k, v));
  }
  return out;
}

function requesterLines(s: QueueState, r: AccessRequest): DetailLine[] {
  const person = s.people[r.requester];
  const title = `${r.requester}'s roles in ${r.tenant}: `;
  if (!person || person.state === 'loading') return [{ text: `${title}reading…`, tone: 'dim' }];
  if (person.state === 'failed')
    return [{ text: `${title}could not read them (${person.message}): R retries`, tone: 'error' }];
  const roles = rolesInTenant(person.value, r.tenant);
  return wrap(s, `${title}${roles.length > 0 ? roles.join(', ') : 'none'}`);
}

function impactLines(s: QueueState, r: AccessRequest): DetailLine[] {
  if (r.status !== 'pending') return [];
  const intent = s.inflight[r.id];
  const role = intent?.role ?? r.role;
  const title: DetailLine = { text: `If approved${role !== r.role ? ` as ${role}` : ''}`, tone: 'title' };
  // The whole environment once read; until then (or when it cannot be read) the partial view from the
  // requester's own roles, saying so.
  if (s.live?.state === 'loaded') return [title, ...renderImpact(s, buildLiveImpact(r, s.live.value, role), 'dim')];
  const person = s.people[r.requester];
  if (s.roles.state === 'failed')
    return [title, { text: `  could not read the roles (${s.roles.message}): R retries`, tone: 'error' }];
  if (person?.state === 'failed')
    return [title, { text: `  unknown: ${r.requester}'s roles could not be read`, tone: 'error' }];
  if (s.roles.state === 'loading' || !person || person.state === 'loading')
    return [title, { text: '  reading…', tone: 'dim' }];
  const impact = buildImpact(r, s.roles.value, person.value, role, [], s.setRules);
  const whole =
    s.live?.state === 'failed'
      ? `the environment could not be read (${s.live.message}): R retries; `
      : 'reading the whole environment; until then, ';
  return [title, ...renderImpact(s, { ...impact, note: `${whole}${impact.note}` })];
}

function renderImpact(s: QueueState, impact: Impact, noteTone: DetailLine['tone'] = 'warning'): DetailLine[] {
  const out: DetailLine[] = [];
  // Each line whole, wrapped under itself: a role granting many permissions lists them all.
  for (const line of impact.lines) {
    const lead = /^ */.exec(line)![0];
    const tone = line.startsWith('+') ? 'gain' : line.startsWith('?') || line.startsWith('-') ? 'warning' : undefined;
    out.push(
      ...wrapAll(line.slice(lead.length), s.width - 1, `  ${lead}`, `  ${lead}    `).map((text): DetailLine => ({
        text,
        ...(tone ? { tone } : {}),
      })),
    );
  }
  // The caveat whole, wrapped, right under what it qualifies.
  out.push(
    ...wrapAll(`(${impact.note})`, s.width - 1, '  ', '   ').map((text): DetailLine => ({ text, tone: noteTone })),
  );
  return out;
}
