export { planChanges, type PlanOptions } from './plan.js';
export type { Change, Plan, Kind, FieldChange } from './types.js';
export { KINDS } from './types.js';
export { emptyLiveState, type LiveState } from '../types/live.js';
export { assertSafe, defaultMaxDeletes, deletesOf } from './safety.js';
export { renderPlanText } from './render-text.js';
export { renderPlanJson } from './render-json.js';
export { renderPlanMarkdown, MARKDOWN_MARKER } from './render-markdown.js';
export { summaryLine } from './render-common.js';
