/** `roster who-can` / `roster what-can` output (text, JSON) of a query's result. Pure. */
import type { Listed, Undecided, WhatCanResult, WhoCanResult } from './queries.js';
import { plural } from '../words.js';

export const QUERY_FORMATS = ['text', 'json'] as const;
export type QueryFormat = (typeof QUERY_FORMATS)[number];

/** Where the answer came from: the configuration (offline) or the decision point (`--live`). */
export type QueryOn = 'desired' | 'live';

export function renderWhoCan(r: WhoCanResult, format: QueryFormat, on: QueryOn): string {
  if (format === 'json') return JSON.stringify({ on, ...r }, null, 2) + '\n';
  const tenant = r.tenant ? ` (tenant ${r.tenant})` : '';
  const head =
    r.users.length === 0
      ? `No user can ${r.permission} on ${r.instance}${tenant}.`
      : `${plural(r.users.length, 'user')} can ${r.permission} on ${r.instance}${tenant}:`;
  return [head, ...listed(r.users), ...undecided(r.undecided, 'user')].join('\n') + '\n';
}

export function renderWhatCan(r: WhatCanResult, format: QueryFormat, on: QueryOn): string {
  if (format === 'json') return JSON.stringify({ on, ...r }, null, 2) + '\n';
  const scope = [r.type ? `of ${r.type}` : '', r.tenant ? `in tenant ${r.tenant}` : ''].filter(Boolean).join(' ');
  const of = scope ? ` ${scope}` : '';
  const head =
    r.instances.length === 0
      ? `${r.user} can ${r.action} on no instances${of}.`
      : `${r.user} can ${r.action} on ${plural(r.instances.length, 'instance')}${of}:`;
  return [head, ...listed(r.instances), ...undecided(r.undecided, 'instance')].join('\n') + '\n';
}

function listed(items: Listed[]): string[] {
  return items.flatMap((i) => [`  ${i.key}`, ...i.ways.map((w) => `    ${w}`)]);
}

function undecided(items: Undecided[], noun: string): string[] {
  if (items.length === 0) return [];
  return [
    '',
    `Not decided offline (a set rule waits for attributes the check passes): ${plural(items.length, noun)}`,
    ...items.map((u) => `  ${u.key}: depends on ${u.dependsOn.join(', ')}`),
  ];
}
