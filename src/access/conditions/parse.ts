/** The parser of conditions: in src/types/conditions.ts (shared with the configuration's rules), re-exported here. */
export {
  parseConditions,
  attributeRef,
  attributesNamed,
  SUPPORTED_FORMS,
  type ParseResult,
} from '../../types/conditions.js';
