/**
 * What the rules must not second-guess: names declared in parts of the configuration that did not parse
 * or that the schema refused (see accept.ts). A reference to such a name is not "unknown", and a warning
 * about something a refused part mentions is not reported: either would be a follow-on of a problem
 * already reported, gone once that one is fixed.
 */
import type { Section } from '../types/desired.js';

export class Refused {
  /** A file did not parse: nothing it declares is known, so no name can be called unknown. */
  everything = false;
  private readonly names = new Map<Section, Set<string>>();
  private readonly unknowable = new Set<Section>();
  private readonly mentioned = new Set<string>();
  private readonly trimmed = new Set<string>();

  addName(section: Section, key: string): void {
    let set = this.names.get(section);
    if (!set) this.names.set(section, (set = new Set()));
    set.add(key);
  }

  addUnknowable(section: Section): void {
    this.unknowable.add(section);
  }

  addTrimmed(section: Section, key: string): void {
    this.trimmed.add(`${section}\0${key}`);
  }

  addMentions(strings: Iterable<string>): void {
    for (const s of strings) this.mentioned.add(s);
  }

  /** Names declared in refused entries of `section` (for "did you mean"). */
  namesOf(section: Section): Iterable<string> {
    return this.names.get(section) ?? [];
  }

  /** True when `key` may be declared in `section` by a part the rules cannot see. */
  covers(section: Section, key: string): boolean {
    return this.everything || this.unknowable.has(section) || (this.names.get(section)?.has(key) ?? false);
  }

  /**
   * True when the entry lost a field the schema did not know (`actoins:`): what it meant is unknown, so
   * nothing that field would have said (the resource's actions, the user's tenants) is checked.
   */
  isTrimmed(section: Section, key: string): boolean {
    return this.trimmed.has(`${section}\0${key}`);
  }

  /** True when a refused part may use `key` (a role it gives, a group it links to). */
  mentions(key: string): boolean {
    return this.everything || this.mentioned.has(key);
  }
}
