/** `explain`'s attributes for the check: --with (the shape of an assertion's with:) and the key=value flags. Pure. */
import { describe, expect, it } from 'vitest';
import { passedFromFlags } from '../../src/cli/commands/check-attributes.js';

describe('passedFromFlags', () => {
  it.each([
    [{}, undefined],
    [{ userAttr: [], resourceAttr: [], context: [] }, undefined],
    [
      { userAttr: ['level=3', 'region=eu', 'tags=["a","b"]', 'flag=true', 'code="7"'] },
      { user: { level: 3, region: 'eu', tags: ['a', 'b'], flag: true, code: '7' } },
    ],
    [
      { resourceAttr: ['amount=500'], context: ['urgent=true'] },
      { resource: { amount: 500 }, context: { urgent: true } },
    ],
    [
      { userAttr: ['address.country=fr', 'address.city=Paris'] },
      { user: { address: { country: 'fr', city: 'Paris' } } },
    ],
    [
      { with: '{"user": {"level": 1, "region": "us"}, "context": {}}', userAttr: ['level=4'] },
      { user: { level: 4, region: 'us' }, context: {} },
    ],
    [{ with: '{}' }, undefined],
    [{ userAttr: ['empty='] }, { user: { empty: '' } }],
  ])('%j → %j', (flags, passed) => {
    expect(passedFromFlags(flags)).toEqual(passed);
  });

  it.each([
    [{ with: 'nope' }, /--with must be a JSON object/],
    [{ with: '[1]' }, /--with must be a JSON object .* got \[1\]/],
    [{ with: '{"tenant": {}}' }, /--with: unknown key 'tenant': the check passes user, resource, context/],
    [{ with: '{"user": 3}' }, /--with: user must be an object of attributes, got 3/],
    [{ userAttr: ['level'] }, /--user-attr takes key=value, got 'level'/],
    [{ context: ['=x'] }, /--context takes key=value/],
    [{ resourceAttr: ['a..b=1'] }, /--resource-attr: 'a..b' is not an attribute key/],
  ])('%j is refused: %s', (flags, message) => {
    expect(() => passedFromFlags(flags)).toThrow(message);
  });
});
