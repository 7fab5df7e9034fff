/** The access graph: who holds which role on which instance, and why. Pure; see README.md. */
export type {
  AccessFacts,
  AccessPath,
  Decision,
  EffectiveGrant,
  Explanation,
  Missing,
  RoleFact,
  RoleHolding,
  Via,
} from './facts.js';
export { buildAccessGraph, type AccessGraph, type AccessGraphOptions } from './graph.js';
export { diffAccess, eachAccessChange, type AccessChange, type AccessDiff, type AccessDiffOptions } from './diff.js';
export { formatSummaryEntry, type AccessSummaryEntry } from './summary.js';
export type { TenantWideAccessChange } from './tenant-wide.js';
export { CoveredInstances } from './covered.js';
export { comparePaths, formatPath } from './paths.js';
export {
  abacFromState,
  bagsFor,
  instanceBags,
  decideAbacIn,
  type AbacSource,
  type AbacView,
  type AbacCheck,
  type DefinedAttributes,
} from './abac/model.js';
