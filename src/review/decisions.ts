import { placeOf, type AccessRequest } from './request.js';

/**
 * Decisions on one request, as plain data: what may be started, the prompts on the way (comment,
 * confirmation, role), and the sentences shown when the service answers. Pure.
 */

export type DecisionKind = 'approve' | 'deny' | 'update' | 'cancel';

export interface DecisionIntent {
  kind: DecisionKind;
  id: string;
  /** approve/update: the role to grant instead of the requested one. */
  role?: string;
  /** Reviewer comment (approve, deny, update) or cancel reason. */
  comment?: string;
}

export type Prompt =
  | { kind: 'filter'; draft: string }
  | { kind: 'comment'; intent: DecisionIntent; draft: string }
  | { kind: 'confirm'; intent: DecisionIntent }
  /** `choices` and `asked` are role identities (`document#viewer`): the requested role as resolved on the request's target. */
  | { kind: 'role'; id: string; choices: string[]; cursor: number; asked: string };

export const VERB: Record<DecisionKind, { doing: string; done: string; key: string }> = {
  approve: { doing: 'approving', done: 'approved', key: 'a' },
  deny: { doing: 'denying', done: 'denied', key: 'd' },
  update: { doing: 'saving', done: 'commented on', key: 'c' },
  cancel: { doing: 'canceling', done: 'canceled', key: 'x' },
};

/** "bob's request for editor on document:readme" (or "your request …"). */
export function describeRequest(r: AccessRequest, role = r.role): string {
  return `${r.own ? 'your' : `${r.requester}'s`} request for ${role} ${placeOf(r)}`;
}

/**
 * Why `kind` may not start on `r`, or undefined when it may. The service decides in the end (this is
 * what it would answer, said before the user types a comment).
 */
export function refusal(
  kind: DecisionKind,
  r: AccessRequest,
  opts: { readonly: boolean; inflight: boolean },
): string | undefined {
  if (opts.readonly) return 'read-only (--readonly): decision keys are off';
  if (opts.inflight) return 'a decision on this request is already on its way';
  if (r.status !== 'pending') return `this request is already ${r.status}${r.reviewer ? ` by ${r.reviewer}` : ''}`;
  if (kind === 'cancel') return r.own ? undefined : `only the requester may cancel: this is ${r.requester}'s request`;
  // The public read model does not say who moderates a request, so every request but one's own is
  // offered (`canReview` is `!own`); the service refuses a user who is not a reviewer, and that answer is
  // shown (failureText).
  if (r.own) return 'this is your own request: someone else reviews it (x cancels it)';
  return undefined;
}

/** The question of the confirmation step. */
export function confirmQuestion(intent: DecisionIntent, r: AccessRequest): string {
  const what = describeRequest(r, intent.role ?? r.role);
  const comment = intent.comment ? ` with ${intent.kind === 'cancel' ? 'reason' : 'comment'} "${intent.comment}"` : '';
  switch (intent.kind) {
    case 'approve':
      return `Approve ${what}${intent.role && intent.role !== r.role ? ` (asked: ${r.role})` : ''}${comment}?`;
    case 'deny':
      return `Deny ${what}${comment}?`;
    case 'update':
      return `Save ${intent.comment ? `comment "${intent.comment}"` : 'an empty comment'} on ${what}?`;
    case 'cancel':
      return `Cancel ${what}${comment}?`;
  }
}

export function commentLabel(kind: DecisionKind): string {
  return kind === 'cancel' ? 'reason (optional)' : kind === 'update' ? 'comment' : 'comment (optional)';
}

/** After the service confirmed. */
export function successText(intent: DecisionIntent, r: AccessRequest): string {
  const role = intent.role ?? r.role;
  const base = `${VERB[intent.kind].done} ${describeRequest(r, role)}`;
  return intent.kind === 'approve' ? `${base}: ${r.requester} now holds ${role} ${placeOf(r)}` : base;
}

/** Someone else decided first (409): the request as it is now. */
export function conflictText(intent: DecisionIntent, fresh: AccessRequest): string {
  const by = fresh.reviewer ? ` by ${fresh.reviewer}` : '';
  return `not ${VERB[intent.kind].done}: ${describeRequest(fresh)} was already ${fresh.status}${by}; nothing changed`;
}

/** Network trouble or a refusal; the request stays as it was. */
export function failureText(intent: DecisionIntent, error: { message: string; network: boolean }): string {
  if (error.network)
    return `could not reach the service (${error.message}): nothing was changed; press ${VERB[intent.kind].key} to try again`;
  return `the service refused: ${error.message}`;
}

/**
 * A 409 whose fresh state is what we asked for, by us: an earlier attempt of ours went through and its
 * answer was lost, so this is a success.
 */
export function isOwnEarlierDecision(intent: DecisionIntent, fresh: AccessRequest, user: string): boolean {
  const expected =
    intent.kind === 'approve'
      ? 'approved'
      : intent.kind === 'deny'
        ? 'denied'
        : intent.kind === 'cancel'
          ? 'canceled'
          : undefined;
  if (!expected || fresh.status !== expected) return false;
  return intent.kind === 'cancel' ? fresh.own : fresh.reviewer === user;
}

/** The status shown while the decision is in flight. */
export function optimisticStatus(kind: DecisionKind): string {
  return `${VERB[kind].doing}…`;
}
