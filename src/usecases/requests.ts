import { ConfigError } from '../errors.js';
import { openTarget, type TargetOptions } from './target.js';
import type { AccessRequest, ReviewSource } from '../review/index.js';
import type { FeedQuery, ListStatus } from '../review/paging.js';
import { revokeRequestGrant, type Revoked } from '../review/revoke.js';
import { createReviewSource } from '../review/index.js';
import { checkActor } from '../review/actor.js';
import { repositoryScope } from './repository-scope.js';
import { queueConfigs, readDeclaredLifetimes } from './requests-queue.js';
import { readWarnings } from './requests-warnings.js';
import { locateRequest } from '../review/locate.js';
import { explainCreateRefusal } from './requests-suggest.js';
import { compareNewestFirst } from '../review/request.js';

export type RequestsVerb = 'list' | 'get' | 'create' | 'approve' | 'deny' | 'cancel' | 'update' | 'revoke';

export interface RequestsOptions extends TargetOptions {
  user: string;
  tenant: string;
  /** The element configuration; absent: `default` to list and create, every configuration to find an id. */
  config?: string;
  format: string;
  status?: string;
  role?: string;
  resource?: string;
  instance?: string;
  /** list: only this requester's requests (a user key). */
  requester?: string;
  page?: string;
  perPage?: string;
  comment?: string;
  reason?: string;
}

export type Outcome =
  | {
      kind: 'list';
      items: AccessRequest[];
      raw: unknown;
      total?: number;
      page: number;
      perPage: number;
      configs?: ListConfigs;
    }
  | { kind: 'one'; verb: RequestsVerb; request: AccessRequest }
  | { kind: 'revoked'; revoked: Revoked };

/**
 * The element configurations of a list across them: each one's lifetime as the repository's configuration
 * declares it (`null`: declared without `grant_for`, never expires; absent: not known, the service does
 * not hold it), and where it was looked for, for the note under the table.
 */
export interface ListConfigs {
  lifetimes: Record<string, string | null>;
  /** `p/e`, when no repository configuration of that environment was read. */
  unknownIn?: string;
}

const STATUSES: Record<string, ListStatus> = {
  pending: 'pending',
  null: 'pending',
  approved: 'approved',
  denied: 'denied',
  deny: 'denied',
  canceled: 'canceled',
  cancelled: 'canceled',
  cancel: 'canceled',
};

/**
 * `roster requests <verb>`: access requests for scripts, CI and chat bots. The outcome goes to `show` as
 * soon as it is known; then, when `warn`, the warnings are read (duplicates, held roles, reviewers) and
 * returned. Refusals by the service are thrown as `ApiError`.
 */
export async function runRequestsVerb(
  verb: RequestsVerb,
  id: string | undefined,
  opts: RequestsOptions,
  show: (o: Outcome) => void,
  warn: boolean,
): Promise<string[]> {
  if (verb !== 'list' && verb !== 'create' && !id)
    throw new ConfigError(`roster requests ${verb} needs the request id`);
  // Inside a repository, the environment its configuration names (no configuration path is taken here).
  const target = await openTarget(opts, await repositoryScope(opts, `requests ${verb}`));
  try {
    // An unknown user or tenant is said as such (with the name meant), not as an empty list.
    const actor = await checkActor(target.client, opts.user, opts.tenant);
    let source: ReviewSource;
    let config = opts.config ?? 'default';
    if (verb === 'list' && !opts.config) {
      // One list across every element configuration the user may see requests in.
      const [configs, declared] = await Promise.all([
        queueConfigs(target.client, undefined),
        readDeclaredLifetimes(target, opts.env),
      ]);
      if (configs.length > 1 || configs.some((c) => declared?.[c] !== undefined)) {
        const sources = configs.map((c) => createReviewSource({ client: target.client, ...actor, config: c }));
        const listed: ListConfigs = {
          lifetimes: declared ?? {},
          ...(declared ? {} : { unknownIn: `${target.project}/${target.environment}` }),
        };
        const outcome: Outcome = { ...(await listAcross(sources, opts)), configs: listed };
        show(outcome);
        if (!warn) return [];
        // Per configuration: its reviewers are its own.
        const per = sources.map((s, i) =>
          readWarnings(s, { ...outcome, items: outcome.items.filter((r) => r.config === configs[i]) }, configs[i]),
        );
        return (await Promise.all(per)).flat();
      }
      config = configs[0];
    }
    if (id) {
      // By id or a unique prefix, in whichever configuration it was filed through.
      const found = await locateRequest(target.client, { ...actor, config: opts.config }, id);
      ({ source, id, config } = found);
    } else source = createReviewSource({ client: target.client, ...actor, config });
    const outcome: Outcome =
      verb === 'revoke'
        ? { kind: 'revoked', revoked: await revokeRequestGrant(target.client, source, id!, config) }
        : await runRequests(source, verb, id, opts).catch(async (err: unknown) => {
            // The service's 404 for a role or instance that does not exist, said with the name meant.
            if (verb !== 'create' || !opts.role) throw err;
            throw (
              (await explainCreateRefusal(target.client, err, {
                role: opts.role,
                resource: opts.resource,
                instance: opts.instance,
              })) ?? err
            );
          });
    show(outcome);
    // Warnings are for a person reading text: JSON is for scripts, which pay for no read they do not print.
    if (!warn) return [];
    // The answer is out; a warning that cannot be computed is said, not fatal.
    return await readWarnings(source, outcome, config).catch((err: Error) => [
      `could not check for duplicates, held roles and reviewers (${err.message})`,
    ]);
  } finally {
    await target.close();
  }
}

/** The use case: one call on the source per verb. */
export async function runRequests(
  source: ReviewSource,
  verb: RequestsVerb,
  id: string | undefined,
  o: RequestsOptions,
): Promise<Outcome> {
  const need = () => {
    if (!id) throw new ConfigError(`roster requests ${verb} needs the request id`);
    return id;
  };
  switch (verb) {
    case 'list': {
      const { page, perPage, query } = listQuery(o);
      if (o.requester)
        return { kind: 'list', ...(await listByRequester(source, query, o.requester, page, perPage)), page, perPage };
      const got = await source.listPage(query, page, perPage);
      return { kind: 'list', items: got.items, raw: got.raw, total: got.total, page, perPage };
    }
    case 'get':
      return { kind: 'one', verb, request: await source.get(need()) };
    case 'create':
      if (!o.role) throw new ConfigError('roster requests create needs --role');
      return {
        kind: 'one',
        verb,
        request: await source.create({ role: o.role, resource: o.resource, instance: o.instance, reason: o.reason }),
      };
    case 'approve':
      return { kind: 'one', verb, request: await source.approve(need(), { comment: o.comment, role: o.role }) };
    case 'deny':
      return { kind: 'one', verb, request: await source.deny(need(), { comment: o.comment }) };
    case 'update':
      return { kind: 'one', verb, request: await source.update(need(), { comment: o.comment, role: o.role }) };
    case 'cancel':
      return { kind: 'one', verb, request: await source.cancel(need(), { reason: o.reason ?? o.comment }) };
    case 'revoke':
      // Not the source's: it removes a role assignment (requestsCommand).
      throw new ConfigError('roster requests revoke needs the service client');
  }
}

/** Pages of the service's list read to find one requester's requests (100 each, the public maximum). */
const SCAN_PAGE = 100;

/**
 * `list` across element configurations: the asked page of the lists merged newest first. Each list is
 * read from its start until it holds `page × per-page` rows (in pages of that many, up to 100) or ends,
 * which is all the merged page can need; the total is the lists' totals summed (with `--requester`, once
 * every list has ended). Each row names its configuration.
 */
async function listAcross(sources: ReviewSource[], o: RequestsOptions): Promise<Extract<Outcome, { kind: 'list' }>> {
  const { page, perPage, query } = listQuery(o);
  const want = page * perPage;
  const size = Math.min(SCAN_PAGE, want);
  const keep = o.requester ? (r: AccessRequest) => r.requester === o.requester : undefined;
  const per = await Promise.all(
    sources.map(async (source) => {
      const matched: AccessRequest[] = [];
      let total: number | undefined;
      for (let p = 1; ; p++) {
        const got = await source.listPage(query, p, size);
        total = got.total;
        matched.push(...(keep ? got.items.filter(keep) : got.items));
        if (got.items.length < size || (got.total !== undefined && p * size >= got.total))
          return { matched, total: keep ? matched.length : (total ?? matched.length) };
        if (matched.length >= want) return { matched, total: keep ? undefined : total };
      }
    }),
  );
  const items = per
    .flatMap((x) => x.matched)
    .sort(compareNewestFirst)
    .slice((page - 1) * perPage, want);
  const total = per.every((x) => x.total !== undefined) ? per.reduce((a, x) => a + x.total!, 0) : undefined;
  const raw = {
    data: items.map((r) => r.raw),
    ...(total === undefined ? {} : { total_count: total, page_count: Math.ceil(total / perPage) }),
  };
  return { kind: 'list', items, raw, total, page, perPage };
}

function listQuery(o: RequestsOptions): { page: number; perPage: number; query: FeedQuery } {
  const page = positive(o.page, '--page', 1);
  const perPage = positive(o.perPage, '--per-page', 30);
  const status = o.status === undefined ? undefined : STATUSES[o.status.toLowerCase()];
  if (o.status !== undefined && !status)
    throw new ConfigError(`unknown --status "${o.status}": use pending, approved, denied or canceled`);
  const instance = o.instance && o.resource && !o.instance.includes(':') ? `${o.resource}:${o.instance}` : o.instance;
  return { page, perPage, query: { status, role: o.role, resource: o.resource, resourceInstance: instance } };
}

/**
 * `--requester`: the public list has no requester filter (it ignores filters it does not declare), so the
 * service's list is read in order and filtered here, until the asked page is full or the list ends. The
 * JSON answer is an envelope of the matching read models; its total is known once the list has ended.
 */
async function listByRequester(
  source: ReviewSource,
  query: FeedQuery,
  requester: string,
  page: number,
  perPage: number,
) {
  const matched: AccessRequest[] = [];
  const want = page * perPage;
  let ended = false;
  for (let p = 1; matched.length < want; p++) {
    const got = await source.listPage(query, p, SCAN_PAGE);
    matched.push(...got.items.filter((r) => r.requester === requester));
    if (got.items.length < SCAN_PAGE || (got.total !== undefined && p * SCAN_PAGE >= got.total)) {
      ended = true;
      break;
    }
  }
  const items = matched.slice((page - 1) * perPage, want);
  const total = ended ? matched.length : undefined;
  const raw = {
    data: items.map((r) => r.raw),
    ...(total === undefined ? {} : { total_count: total, page_count: Math.ceil(total / perPage) }),
  };
  return { items, raw, total };
}

function positive(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new ConfigError(`${flag} must be a whole number of at least 1, got "${value}"`);
  return n;
}
