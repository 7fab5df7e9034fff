import { describe, expect, it } from 'vitest';
import {
  checkTransition,
  parseStatusFilter,
  reviewerRoles,
  type Actor,
  type StoredStatus,
  type Transition,
} from '../../src/server/domain/access-requests.js';

/** The pure access-request rules, table-driven. */

const anActor = (over: Partial<Actor> = {}): Actor => ({
  userId: 'u',
  isRequester: false,
  isModerator: false,
  ...over,
});
const requester = anActor({ isRequester: true });
const moderator = anActor({ isModerator: true });
const selfModerator = anActor({ isRequester: true, isModerator: true });
const bystander = anActor();
/** The API key on the `/v2/elements/...` operations: the environment's administrator, no user. */
const administrator = anActor({ userId: null, isAdministrator: true });

type Want = 'ok' | 'NOT_FOUND' | 'FORBIDDEN_ACCESS' | 'CONFLICT';
const verdict = (status: StoredStatus, t: Transition, a: Actor): Want => {
  const v = checkTransition(status, t, a);
  return v.ok ? 'ok' : v.code;
};

describe('checkTransition', () => {
  it.each<[string, Actor, Transition, StoredStatus, Want]>([
    // A pending request: each transition has one kind of actor.
    ['moderator approves', moderator, 'approve', null, 'ok'],
    ['moderator denies', moderator, 'deny', null, 'ok'],
    ['moderator updates', moderator, 'update', null, 'ok'],
    ['moderator cancels', moderator, 'cancel', null, 'FORBIDDEN_ACCESS'],
    ['requester cancels', requester, 'cancel', null, 'ok'],
    ['requester approves', requester, 'approve', null, 'FORBIDDEN_ACCESS'],
    ['requester denies', requester, 'deny', null, 'FORBIDDEN_ACCESS'],
    ['requester updates', requester, 'update', null, 'FORBIDDEN_ACCESS'],
    ['self-moderator approves own', selfModerator, 'approve', null, 'FORBIDDEN_ACCESS'],
    ['self-moderator denies own', selfModerator, 'deny', null, 'FORBIDDEN_ACCESS'],
    ['self-moderator updates own', selfModerator, 'update', null, 'FORBIDDEN_ACCESS'],
    ['self-moderator cancels own', selfModerator, 'cancel', null, 'ok'],
    // Invisible: 404 whatever the status, so nothing leaks.
    ['bystander approves', bystander, 'approve', null, 'NOT_FOUND'],
    ['bystander cancels', bystander, 'cancel', null, 'NOT_FOUND'],
    ['bystander approves decided', bystander, 'approve', 'approved', 'NOT_FOUND'],
    // The administrator takes every transition of a pending request.
    ...(['approve', 'deny', 'update', 'cancel'] as const).map((t): [string, Actor, Transition, StoredStatus, Want] => [
      `administrator ${t}s`,
      administrator,
      t,
      null,
      'ok',
    ]),
    // Decided requests: the right actor gets 409; the wrong one still 403 (authority before state).
    ...(['approved', 'deny', 'cancel'] as const).flatMap((s): [string, Actor, Transition, StoredStatus, Want][] => [
      [`moderator approves ${s}`, moderator, 'approve', s, 'CONFLICT'],
      [`moderator denies ${s}`, moderator, 'deny', s, 'CONFLICT'],
      [`moderator updates ${s}`, moderator, 'update', s, 'CONFLICT'],
      [`requester cancels ${s}`, requester, 'cancel', s, 'CONFLICT'],
      [`moderator cancels ${s}`, moderator, 'cancel', s, 'FORBIDDEN_ACCESS'],
      [`requester approves ${s}`, requester, 'approve', s, 'FORBIDDEN_ACCESS'],
      [`administrator approves ${s}`, administrator, 'approve', s, 'CONFLICT'],
      [`administrator cancels ${s}`, administrator, 'cancel', s, 'CONFLICT'],
    ]),
  ])('%s', (_, actor, t, status, want) => {
    expect(verdict(status, t, actor)).toBe(want);
  });

  it('a conflict names the current status', () => {
    expect(checkTransition('deny', 'approve', moderator)).toMatchObject({
      ok: false,
      code: 'CONFLICT',
      message: expect.stringContaining('deny'),
    });
  });
});

describe('parseStatusFilter', () => {
  it.each<[string, StoredStatus | undefined]>([
    ['null', null],
    ['pending', null],
    ['Pending', null],
    ['NULL', null],
    ['approved', 'approved'],
    ['APPROVED', 'approved'],
    ['deny', 'deny'],
    ['denied', 'deny'],
    ['cancel', 'cancel'],
    ['canceled', 'cancel'],
    ['cancelled', 'cancel'],
    ['', undefined],
    ['approve', undefined],
    ['rejected', undefined],
    ['any', undefined],
    [' pending', undefined],
  ])('%j → %j', (text, want) => {
    expect(parseStatusFilter(text)).toBe(want);
  });
});

describe('reviewerRoles', () => {
  it.each<[string, Record<string, string[]>, string[]]>([
    ['LEVEL_1 and LEVEL_2, sorted, without duplicates', { LEVEL_2: ['b', 'a'], LEVEL_1: ['a', 'c'] }, ['a', 'b', 'c']],
    ['LEVEL_3 and LEVEL_4 do not review', { LEVEL_3: ['x'], LEVEL_4: ['y'] }, []],
    ['no levels', {}, []],
  ])('%s', (_, levels, want) => {
    expect(reviewerRoles(levels)).toEqual(want);
  });
});
