/**
 * Rules about assertions of exact sets (docs/check.md "Exact sets"): `{who_can, on, exactly}` and
 * `{user, can, on_type, exactly}`: their shape, and that every name they hold is declared.
 */
import type { RawAssertion } from '../raw.generated.js';
import type { Loc, Problem } from '../source.js';
import { declared, report, targetDeclared, unknown, type RuleContext } from './context.js';
import { actionProblem, isExact } from './assertions.js';

type Field = keyof RawAssertion;

/** Each form: the fields it needs, and those it cannot have. */
const FORMS = {
  who_can: {
    needs: ['who_can', 'on', 'exactly'],
    refuses: ['user', 'users_in', 'can', 'cannot', 'has_role', 'on_type'],
    example: '{ who_can: approve, on: expense:exp-001, exactly: [heidi, ivan] }',
  },
  what_can: {
    needs: ['user', 'can', 'on_type', 'exactly'],
    refuses: ['users_in', 'cannot', 'has_role', 'on'],
    example: '{ user: alice, can: read, on_type: document, exactly: [readme] }',
  },
} as const satisfies Record<string, { needs: Field[]; refuses: Field[]; example: string }>;

const formOf = (raw: RawAssertion): keyof typeof FORMS => (raw.who_can !== undefined ? 'who_can' : 'what_can');

/** Written as one of the two forms, with nothing missing and nothing of another form. */
function shapeProblems(loc: Loc, raw: RawAssertion): Problem[] {
  const form = FORMS[formOf(raw)];
  const out: Problem[] = [];
  const missing = form.needs.filter((f) => raw[f] === undefined);
  if (missing.length > 0)
    out.push(report(loc, [], `an exact-set assertion needs ${missing.join(', ')}`, { hint: `e.g. ${form.example}` }));
  for (const f of form.refuses.filter((f) => raw[f] !== undefined))
    out.push(report(loc, [f], `an exact-set assertion cannot have ${f}`, { on: 'key', hint: `e.g. ${form.example}` }));
  return out;
}

export function exactAssertionShape({ index }: RuleContext): Problem[] {
  return index.assertions.filter(({ raw }) => isExact(raw)).flatMap(({ loc, raw }) => shapeProblems(loc, raw));
}

/** Everything an exact-set assertion names is declared: its action, instance or resource, user, and each listed name. */
export function exactAssertionsResolve(ctx: RuleContext): Problem[] {
  const out: Problem[] = [];
  ctx.desired.assertions.forEach((a, i) => {
    const entry = ctx.index.assertions[i];
    if (!entry || !isExact(entry.raw) || shapeProblems(entry.loc, entry.raw).length > 0) return;
    const { loc } = entry;
    const push = (sub: (string | number)[], kind: Parameters<typeof unknown>[1], name: string) => {
      const u = unknown(ctx, kind, name);
      out.push(report(loc, sub, u.message, u.options));
    };
    if (a.check === 'who_can') {
      if (!targetDeclared(ctx, a.on)) push(['on'], 'resource instance', a.on);
      else {
        const p = actionProblem(ctx, loc, 'who_can', a.subject, a.on.slice(0, a.on.indexOf(':')), a.on);
        if (p) out.push(p);
      }
      (a.exactly ?? []).forEach((u, j) => {
        if (!declared(ctx, 'users', u)) push(['exactly', j], 'user', u);
      });
      return;
    }
    if (!declared(ctx, 'users', a.user ?? '')) push(['user'], 'user', a.user ?? '');
    if (!declared(ctx, 'resources', a.on)) return push(['on_type'], 'resource', a.on);
    const p = actionProblem(ctx, loc, 'can', a.subject, a.on, a.on);
    if (p) out.push(p);
    (a.exactly ?? []).forEach((key, j) => {
      if (!targetDeclared(ctx, `${a.on}:${key}`)) push(['exactly', j], 'resource instance', `${a.on}:${key}`);
    });
  });
  return out;
}
