/**
 * A file that did not parse still lets the other files be checked. What it declares is unknown, but
 * where it declares it usually is not: its top-level keys (`users:` at column 1) name its sections. The
 * rules then take every name in those sections as possibly declared (no "unknown user" that the broken
 * file may well declare), and keep checking references into every other section. When even the sections
 * cannot be read (a flow mapping, no key at column 1), nothing can be called unknown, as before.
 */
import { SECTIONS, type Section } from '../types/desired.js';
import type { Refused } from './refused.js';
import type { Problem } from './source.js';

const TOP_LEVEL_KEY = /^(?:"([^"\n]*)"|'([^'\n]*)'|([A-Za-z_][\w-]*))[ \t]*:(?:[ \t]|$)/gm;
const TOKEN = /[^\s"',[\]{}#:]+(?::[^\s"',[\]{}#:]+)*/g;

/** The sections a file that did not parse seems to declare; undefined when its shape cannot be read. */
export function sectionsOfUnparsed(text: string): Section[] | undefined {
  const keys = new Set<string>();
  for (const m of text.matchAll(TOP_LEVEL_KEY)) keys.add(m[1] ?? m[2] ?? m[3]);
  if (keys.size === 0) return undefined;
  return SECTIONS.filter((s) => keys.has(s));
}

/**
 * Tells `refused` what the unparsed file may declare and mention, and returns the note that says which
 * checks were skipped and why (a warning on the file, so that the report is honest about what it did not do).
 */
export function coverUnparsed(file: string, text: string, refused: Refused): Problem {
  const sections = sectionsOfUnparsed(text);
  if (sections === undefined) {
    refused.everything = true;
    return {
      file,
      severity: 'warning',
      message:
        'did not parse, and its sections cannot be told: no reference in any file was checked against undeclared names',
      hint: 'fix its errors above and run again',
    };
  }
  for (const section of sections) refused.addUnknowable(section);
  // Any word of the file may be a role it gives or a group it links to: no "unused" warning for those.
  refused.addMentions(text.match(TOKEN) ?? []);
  const skipped = sections.length === 0 ? 'no section' : sections.map((s) => s.replace('_', ' ')).join(', ');
  return {
    file,
    severity: 'warning',
    message:
      sections.length === 0
        ? 'did not parse; it seems to declare no section, so every reference was still checked'
        : `did not parse: references to names in ${skipped} (the sections it declares) were not checked in any file; the other checks ran`,
    hint: 'fix its errors above and run again',
  };
}
