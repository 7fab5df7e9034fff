/** The ABAC conditions language: parse, evaluate, the attributes a check sees, sets and rules. Pure. */
export * from './types.js';
export { parseConditions, attributeRef, attributesNamed, SUPPORTED_FORMS, type ParseResult } from './parse.js';
export { compareValues, valuesEqual, membersOf } from './compare.js';
export { applyOperator } from './operators.js';
export { evaluate, resolve, type Bags, type EvaluateOptions } from './evaluate.js';
export {
  checkAttributes,
  mergeAll,
  asJsonObject,
  BUILT_IN_USER_ATTRIBUTES,
  GENERATED,
  type CheckFacts,
} from './attributes.js';
export {
  autogenSets,
  setChain,
  setMatches,
  decideAbac,
  AUTOGEN_PREFIX,
  type SetDef,
  type RuleDef,
  type AbacModel,
  type AbacDecision,
} from './sets.js';
export {
  judge,
  judgeTree,
  judgeChain,
  judgeChainTrees,
  decidingLeaves,
  andVerdict,
  orVerdict,
  notVerdict,
  NOTHING_UNKNOWN,
  CONTEXT_UNKNOWN,
  statusOf,
  andStatus,
  orStatus,
  allowsWithout,
  dependsOnContext,
  type Verdict,
  type Judgement,
  type Judged,
  type JudgedLeaf,
  type JudgeOptions,
  type UnknownAttributes,
  type Status,
  type ChainLink,
} from './judge.js';
