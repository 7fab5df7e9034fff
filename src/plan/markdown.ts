/**
 * Text inside a Markdown table cell. GitHub ends a cell at every unescaped `|`, inside a code span too
 * (`service|ci-bot` is a valid user key, docs/config.md): each is written `\|`, which GitHub shows as
 * `|` in both. A line break would end the row: it becomes a space.
 */
export function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** An identity or key as code inside a table cell. */
export function codeCell(text: string): string {
  return `\`${cell(text)}\``;
}
