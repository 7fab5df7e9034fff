/** Rules of the top-level `authoritative` setting (docs/config.md#authoritative). */
import type { Problem } from '../source.js';
import { report, type RuleContext } from './context.js';

/**
 * A section listed in `authoritative` must be managed (present in some file): listing one that no file
 * has would delete nothing, which is not what a reader of `authoritative: [users]` expects; adding an
 * empty `users: {}` would delete every live user. Either way the person must decide.
 */
export function authoritativeSectionsManaged({ desired, index }: RuleContext): Problem[] {
  if (!Array.isArray(desired.authoritative)) return [];
  const out: Problem[] = [];
  for (const section of desired.authoritative) {
    if (desired.sections.has(section)) continue;
    out.push(
      report(index.authoritative, [], `authoritative lists "${section}", a section no file of the configuration has`, {
        hint: `declare the ${section} (an empty \`${section}: {}\` deletes every live one), or remove "${section}" from authoritative`,
      }),
    );
  }
  return out;
}
