import type { ApiClient } from '../api/index.js';
import { fieldsOf, type Change, type ChangeFields } from '../plan/change.js';
import { ABAC_WRITERS } from './writes/abac.js';
import { ELEMENT_WRITERS } from './writes/elements.js';
import { FACT_WRITERS } from './writes/facts.js';
import { GROUP_WRITERS } from './writes/groups.js';
import { SCHEMA_WRITERS } from './writes/schema.js';
import type { Writer, Writers } from './writes/writer.js';

export { AlreadyThere } from './writes/common.js';
export { assignmentBody, conditionSetBody, setRuleBody, tupleBody, userBody } from './writes/bodies.js';

/** One writer for every kind of change (a missing kind is a type error). */
const WRITERS: Writers = { ...SCHEMA_WRITERS, ...FACT_WRITERS, ...GROUP_WRITERS, ...ABAC_WRITERS, ...ELEMENT_WRITERS };

/**
 * Carries out one change with the public API's forms (plural `/groups`, `/v2/facts/.../resource_instances`).
 * A create that meets 409 throws AlreadyThere, which the apply counts as done.
 */
export async function applyOne(client: ApiClient, c: Change): Promise<void> {
  const { kind, fields } = fieldsOf(c);
  return (WRITERS[kind] as Writer<keyof ChangeFields>)(client, c, fields as never);
}
