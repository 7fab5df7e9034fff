import type { ReviewSource } from '../../review/index.js';
import type { RequesterFacts } from '../../review/impact.js';
import { duplicateWarnings, heldWarnings, unreviewableWarning } from '../../review/warnings.js';
import type { Outcome } from './requests.js';

/**
 * What `roster requests` warns about after its answer (on stderr, so JSON on stdout stays whole):
 * duplicate pending requests, requests for a role already held, and a tenant nobody can review.
 * `list` looks at the page shown; `create` at the new request and its requester's other pending ones.
 */
export async function readWarnings(source: ReviewSource, o: Outcome, config: string): Promise<string[]> {
  if (o.kind === 'one' && o.verb !== 'create') return [];
  let items = o.kind === 'list' ? o.items : [o.request];
  if (o.kind === 'one') {
    const r = o.request;
    const same = await source.listPage({ status: 'pending', role: r.role, ...(r.resource ? { resource: r.resource } : {}), ...(r.instance ? { resourceInstance: `${r.resource}:${r.instance}` } : {}) }, 1, 100);
    items = same.items.filter((x) => x.requester === r.requester && x.role === r.role && x.resource === r.resource && x.instance === r.instance);
    if (!items.some((x) => x.id === r.id)) items = [...items, r];
  }
  const pending = items.filter((r) => r.status === 'pending');
  if (pending.length === 0) return [];
  const people = new Map<string, RequesterFacts>();
  // The roles too: a role named on an instance is its type's resource role when there is one.
  const [roles] = await Promise.all([source.readRoles(), ...[...new Set(pending.map((r) => r.requester))].map(async (u) => people.set(u, await source.readRequester(u)))]);
  const reviewers = await source.readReviewers();
  const held = heldWarnings(o.kind === 'one' ? [o.request] : pending, people, roles);
  const unreviewable = unreviewableWarning(source.tenant, config, reviewers.roles, reviewers.reviewers);
  return [...duplicateWarnings(pending), ...held, ...(unreviewable ? [unreviewable] : [])];
}
