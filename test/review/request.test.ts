import { describe, expect, it } from 'vitest';
import { readAccessRequest } from '../../src/review/request.js';
import { aRawRequest, keyOf, userId } from './builders.js';

/** readAccessRequest over read models in the public shape: users by id, turned into keys by `keyOf`. */

describe('readAccessRequest', () => {
  it('names the requester and the reviewer by the keys of their ids', () => {
    const r = readAccessRequest(
      aRawRequest({ requester: 'alice', reviewer: 'carol', status: 'approved', reviewerComment: 'ok' }),
      'bob',
      keyOf,
    );
    expect(r).toMatchObject({
      requester: 'alice',
      reviewer: 'carol',
      status: 'approved',
      reviewerComment: 'ok',
      own: false,
      canReview: true,
    });
    expect(r.raw.requesting_user_id).toBe(userId('alice'));
  });

  it('shows an id it has no key for as the id (a user deleted since, or a lookup not made)', () => {
    const raw = aRawRequest({ requester: 'alice', reviewer: 'carol', status: 'deny' });
    expect(readAccessRequest(raw, 'bob')).toMatchObject({
      requester: userId('alice'),
      reviewer: userId('carol'),
      own: false,
    });
    expect(readAccessRequest(raw, 'bob', (id) => (id === userId('alice') ? 'alice' : undefined))).toMatchObject({
      requester: 'alice',
      reviewer: userId('carol'),
    });
  });

  it("own is the acting user's key matching the requester's; the keys are offered on every request but one's own", () => {
    expect(readAccessRequest(aRawRequest({ requester: 'bob' }), 'bob', keyOf)).toMatchObject({
      own: true,
      canReview: false,
    });
    expect(readAccessRequest(aRawRequest({ requester: 'dave' }), 'bob', keyOf)).toMatchObject({
      own: false,
      canReview: true,
    });
    // Without the key the id is not the actor's key: not own.
    expect(readAccessRequest(aRawRequest({ requester: 'bob' }), 'bob')).toMatchObject({ own: false });
  });

  it("does not read the fields of our server's old dialect (requesting_user_key, reviewer_user_key, can_review, cancel_reason)", () => {
    const raw = {
      ...aRawRequest({ requester: 'dave', reviewer: null }),
      requesting_user_key: 'mallory',
      reviewer_user_key: 'eve',
      can_review: false,
      cancel_reason: 'gone',
    };
    const r = readAccessRequest(raw, 'mallory', keyOf);
    expect(r).toMatchObject({ requester: 'dave', reviewer: null, own: false, canReview: true });
    expect(r).not.toHaveProperty('cancelReason');
    // Kept as sent for the detail pane and --format json.
    expect(r.raw).toBe(raw);
  });

  it.each([
    { sent: null, status: 'pending' },
    { sent: 'pending', status: 'pending' },
    { sent: 'approved', status: 'approved' },
    { sent: 'deny', status: 'denied' },
    { sent: 'denied', status: 'denied' },
    { sent: 'cancel', status: 'canceled' },
    { sent: 'canceled', status: 'canceled' },
  ])('status $sent reads as $status', ({ sent, status }) => {
    expect(readAccessRequest(aRawRequest({ status: sent }), 'bob', keyOf).status).toBe(status);
  });

  it.each([
    { details: { resource: 'document', resource_instance: 'readme' }, resource: 'document', instance: 'readme' },
    { details: { resource_instance: 'document:readme' }, resource: 'document', instance: 'readme' },
    { details: { resource: 'document' }, resource: 'document', instance: null },
    { details: {}, resource: null, instance: null },
  ])('details $details: resource $resource, instance $instance', ({ details, resource, instance }) => {
    const raw = { ...aRawRequest(), access_request_details: { tenant: 'acme', role: 'editor', ...details } };
    expect(readAccessRequest(raw, 'bob', keyOf)).toMatchObject({ tenant: 'acme', role: 'editor', resource, instance });
  });

  it('a read model without a requester shows "?"; optional fields left out read as null', () => {
    const { requesting_user_id: _, reason: __, ...raw } = aRawRequest();
    expect(readAccessRequest(raw, 'bob', keyOf)).toMatchObject({
      requester: '?',
      reason: null,
      reviewer: null,
      reviewedAt: null,
      own: false,
    });
  });
});
