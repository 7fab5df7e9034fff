/**
 * The worked cases (role-cases.ts) asked of the access graph: the environment as the state the public
 * calls leave, made facts (`factsFromState`) and a graph. test/server/role-cases.test.ts asks the same
 * table of `roster serve`.
 */
import { describe, expect, it } from 'vitest';
import { buildAccessGraph } from '../../src/access/index.js';
import { factsFromState } from '../../src/access/from-state.js';
import { ROLE_CASES } from './role-cases.js';
import { caseState } from './role-cases-env.js';

describe('the worked cases of roles, on the access graph', () => {
  it.each(ROLE_CASES.map((c) => [c.name, c] as const))('%s', (_, c) => {
    const graph = buildAccessGraph(factsFromState(caseState(c.env)));
    const answers = c.ask.map(([user, action, instance]) => graph.can(user, action, instance).allowed);
    const show = (allowed: boolean[]) =>
      c.ask.map(([user, action, instance], i) => `${user} ${action} ${instance}: ${allowed[i] ? 'allowed' : 'denied'}`);
    expect(show(answers)).toEqual(show(c.ask.map((q) => q[3])));
  });
});
