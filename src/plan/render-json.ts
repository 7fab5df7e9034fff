import type { Plan } from './types.js';

/** The plan as JSON (docs/plan-format.md): the plan value itself, which `apply --plan` reads back. */
export function renderPlanJson(plan: Plan): string {
  return JSON.stringify(plan, null, 2) + '\n';
}
