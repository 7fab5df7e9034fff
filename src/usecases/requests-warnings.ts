import type { AccessRequest, ReviewSource } from '../review/index.js';
import type { RequesterFacts } from '../review/impact.js';
import { duplicateWarnings, heldWarnings, onlyReviewerWarnings, unreviewableWarning } from '../review/warnings.js';

/** What warnings read of the command's `Outcome` (requests.ts, which loads this file: not imported back). */
type WarnedOutcome =
  | { kind: 'list'; items: AccessRequest[] }
  | { kind: 'one'; verb: string; request: AccessRequest }
  | { kind: 'revoked' };

/**
 * What `roster requests` warns about after its answer (on stderr; text output only, so `--format json`
 * costs no read for them): duplicate pending requests, requests for a role already held, a tenant nobody
 * can review, and a request whose requester is the only reviewer there. `list` looks at the page shown;
 * `create` at the new request and its requester's other pending ones. Only what the warnings need is
 * read: nothing unless something is pending; each pending requester's assignments in the tenant (not in
 * every tenant); the configuration, and its reviewer roles' holders in the tenant until two are found.
 */
export async function readWarnings(source: ReviewSource, o: WarnedOutcome, config: string): Promise<string[]> {
  if (o.kind === 'revoked' || (o.kind === 'one' && o.verb !== 'create')) return [];
  let items = o.kind === 'list' ? o.items : [o.request];
  if (o.kind === 'one') {
    const r = o.request;
    const same = await source.listPage(
      {
        status: 'pending',
        role: r.role,
        ...(r.resource ? { resource: r.resource } : {}),
        ...(r.instance ? { resourceInstance: `${r.resource}:${r.instance}` } : {}),
      },
      1,
      100,
    );
    items = same.items.filter(
      (x) => x.requester === r.requester && x.role === r.role && x.resource === r.resource && x.instance === r.instance,
    );
    if (!items.some((x) => x.id === r.id)) items = [...items, r];
  }
  const pending = items.filter((r) => r.status === 'pending');
  if (pending.length === 0) return [];
  const people = new Map<string, RequesterFacts>();
  // The roles too: a role named on an instance is its type's resource role when there is one.
  const [roles, reviewers] = await Promise.all([
    source.readRoles(),
    source.readReviewers(config),
    ...[...new Set(pending.map((r) => r.requester))].map(
      async (u) => void people.set(u, await source.readRequester(u, { tenant: source.tenant })),
    ),
  ]);
  const held = heldWarnings(o.kind === 'one' ? [o.request] : pending, people, roles);
  const unreviewable = unreviewableWarning(source.tenant, config, reviewers.roles, reviewers.holders.length);
  const only = reviewers.complete ? onlyReviewerWarnings(pending, config, reviewers.roles, reviewers.holders) : [];
  return [...duplicateWarnings(pending), ...held, ...(unreviewable ? [unreviewable] : []), ...only];
}
