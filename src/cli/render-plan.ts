import type { Plan } from '../plan/index.js';
import { planTextPieces, renderPlanJson, renderPlanMarkdown, renderPlanText } from '../plan/index.js';

export const PLAN_FORMATS = ['text', 'json', 'markdown'] as const;
export type PlanFormat = (typeof PLAN_FORMATS)[number];

import { useColor } from './color.js';

export function renderPlan(plan: Plan, format: PlanFormat): string {
  switch (format) {
    case 'json':
      return renderPlanJson(plan);
    case 'markdown':
      return renderPlanMarkdown(plan);
    case 'text':
      return renderPlanText(plan, { color: useColor() });
  }
}

/** The plan as text, written piece by piece as it is made (a large plan is never one string). */
export function writePlanText(plan: Plan, write: (text: string) => void): void {
  for (const piece of planTextPieces(plan, { color: useColor() })) write(piece);
}
