import type { Plan } from '../plan/index.js';
import { renderPlanJson, renderPlanMarkdown, renderPlanText } from '../plan/index.js';

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
