import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import type { Plan } from '../plan/index.js';
import { checksumPlan } from '../plan/checksum.js';

/**
 * A saved plan is the plan value as JSON. It holds no key and no URL: only the project, environment,
 * changes, their checksum and the fingerprint of the live state it was computed from.
 */
export function savePlanFile(file: string, plan: Plan): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(plan, null, 2) + '\n');
  renameSync(tmp, file);
}

export function readPlanFile(file: string): Plan {
  let plan: Plan;
  try {
    plan = JSON.parse(readFileSync(file, 'utf8')) as Plan;
  } catch (err) {
    throw new ConfigError(`cannot read the plan file ${file}: ${(err as Error).message}`);
  }
  if (plan?.formatVersion !== 1 || !Array.isArray(plan.changes))
    throw new ConfigError(`${file} is not a roster plan (formatVersion 1)`);
  if (checksumPlan(plan) !== plan.checksum) {
    throw new ConfigError(
      `${file} was edited after it was made: it no longer matches its checksum; run roster plan again`,
    );
  }
  return plan;
}
