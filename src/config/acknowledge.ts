/**
 * After the rules: warnings the configuration acknowledges (docs/config.md, `acknowledge:`), by rule and
 * object, are not reported. Acknowledgements from every file add up, so a shared folder can acknowledge
 * for every environment and an environment's folder for itself. An acknowledgement that matches no
 * warning is silent: in a shared folder it may hold in some environments only.
 */
import { groupId } from '../types/refs.js';
import type { RawFile } from './normalise.js';
import type { Problem } from './source.js';

/** How each rule's objects are written in `acknowledge:` and named in its warnings. */
const OBJECT_ID: Record<string, (written: string) => string> = {
  'unused-role': (k) => k,
  'empty-group': groupId,
  'empty-set': (k) => k,
};

export function withoutAcknowledged(warnings: Problem[], files: RawFile[]): Problem[] {
  const acknowledged = new Set<string>();
  for (const { raw } of files) {
    for (const [rule, objects] of Object.entries(raw.acknowledge ?? {})) {
      const id = OBJECT_ID[rule];
      if (id && Array.isArray(objects)) for (const o of objects) acknowledged.add(`${rule}\0${id(o)}`);
    }
  }
  if (acknowledged.size === 0) return warnings;
  return warnings.filter(
    (w) => w.rule === undefined || w.object === undefined || !acknowledged.has(`${w.rule}\0${w.object}`),
  );
}
