/**
 * The YAML library's messages in the house style: lower-case, saying what is wrong in the user's terms,
 * with a hint for the usual causes (a tab, a key out of line, an unclosed bracket or quote, text after a
 * value that has ended). The place (file:line:column) is the problem's own; the library's " at line L,
 * column C" tail is dropped.
 */

/** The house-style message and hint for a yaml error or warning, by its code. */
export function yamlMessage(code: string, message: string): { message: string; hint?: string } {
  const text = message.replace(/ at line \d+, column \d+:?[\s\S]*$/, '').trim();
  switch (code) {
    case 'TAB_AS_INDENT':
      return { message: 'a tab indents this line', hint: 'YAML indents with spaces only: replace the tab with spaces' };
    case 'BAD_INDENT':
      // Placed at the bracket that opened it (yaml-places.ts).
      if (/^Flow map/.test(text))
        return {
          message: 'this { ... } mapping is not closed',
          hint: 'close it with }, or indent its continuation lines under its key',
        };
      if (/^Flow sequence/.test(text))
        return {
          message: 'this [ ... ] list is not closed',
          hint: 'close it with ], or indent its continuation lines under its key',
        };
      if (/same column/.test(text)) {
        return {
          message: 'this key is out of line with the keys before it',
          hint: 'indent it with as many spaces as its siblings: a key indented less ends the mapping above, a key indented more needs a parent key',
        };
      }
      break;
    case 'OVER_INDENTED_KEY': // yaml-places.ts: one error, at the key itself
      return {
        message: 'this key is indented more than the key above it',
        hint: 'indent it with as many spaces as the keys beside it: the key above has a value, so nothing can be nested under it',
      };
    case 'MISSING_CHAR':
      if (/quote/.test(text))
        return { message: 'a quoted string is not closed', hint: 'end it with the same quote it starts with' };
      break;
    case 'BLOCK_AS_IMPLICIT_KEY':
      return {
        message: 'a second `key: value` on the line of a value',
        hint: 'quote the value if its colon is part of it ("a: b"), or put the nested mapping on lines of its own',
      };
    case 'MULTILINE_IMPLICIT_KEY':
      return {
        message: 'a key runs over more than one line',
        hint: 'a key must fit on one line; check for a missing colon or closing quote above',
      };
    case 'MULTIPLE_DOCS':
      return { message: text }; // rewritten where multi-document files are handled
    case 'UNEXPECTED_TOKEN':
      // `- a: {x: 1}, b: {y: 2}`: a flow collection or a quoted scalar ends the value, and the line goes on.
      if (/ at node end$/.test(text)) {
        return {
          message: 'more follows a value that has already ended on this line',
          hint: 'a { ... }, [ ... ] or quoted value ends where it closes: for several keys on one line, put them all in one { ... } (- { a: {...}, b: {...} }) or give each key a line of its own; for a quoted value, quote all of it',
        };
      }
      break;
    case 'DUPLICATE_KEY':
      return { message: houseStyle(text), hint: 'merge the two entries into one' };
  }
  return { message: houseStyle(text) };
}

/** Lower-case first letter (unless the word is an acronym or a name), no final period. */
export function houseStyle(text: string): string {
  const trimmed = text.replace(/\.$/, '');
  return /^[A-Z][a-z]/.test(trimmed) ? trimmed[0].toLowerCase() + trimmed.slice(1) : trimmed;
}
