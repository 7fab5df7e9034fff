import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The docs ship in the package (package.json `files`: docs/, README.md), so they may rely only on what
 * ships with them (issue #41: docs/config.md and docs/server.md sent readers to "api-notes", the
 * project's own notes outside the package; what the docs need of them is in docs/service-api.md). Each
 * link between them reaches a file and a heading that exist.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const pages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const text = new Map(pages.map((p) => [p, readFileSync(join(ROOT, p), 'utf8')]));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
/** The headings of a page, fenced code left out (a YAML comment is no heading). */
const anchors = (page: string) =>
  new Set(
    [
      ...text
        .get(page)!
        .replace(/^\s*```[\s\S]*?^\s*```/gm, '')
        .matchAll(/^#{1,6} (.+)$/gm),
    ].map((m) => slug(m[1])),
  );

describe('the docs that ship in the package', () => {
  it('name no file outside it (the project notes, the specification folder)', () => {
    const outside = /api-notes|abac-facts|\.\.\/shared\/spec/;
    const found = pages
      .flatMap((p) =>
        text
          .get(p)!
          .split('\n')
          .map((line, i) => [p, i + 1, line] as const),
      )
      .filter(([, , line]) => outside.test(line));
    expect(found.map(([p, n, line]) => `${p}:${n}: ${line.trim()}`)).toEqual([]);
  });

  it('link to pages and headings that exist', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of pages) {
      for (const m of text.get(page)!.matchAll(/\]\(([\w./-]*\.md)?(?:#([\w-]+))?\)/g)) {
        const [link, file, anchor] = m;
        if (!file && !anchor) continue;
        checked++;
        const target = file ? posix.normalize(posix.join(posix.dirname(page), file)) : page;
        if (!text.has(target)) broken.push(`${page}: ${link} (no such page)`);
        else if (anchor && !anchors(target).has(anchor)) broken.push(`${page}: ${link} (no such heading in ${target})`);
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(broken).toEqual([]);
  });

  it('docs/service-api.md holds the decisions the other pages send readers to', () => {
    expect(anchors('docs/service-api.md')).toContain('attribute-based-access-abac');
    expect(text.get('docs/config.md')).toContain('(service-api.md#attribute-based-access-abac)');
    expect(text.get('docs/server.md')).toContain('(service-api.md#conventions-of-every-endpoint)');
  });
});
