/**
 * What a GitBook tag line says, and which tag lines pair up. A tag is `{% name arguments %}`; its end
 * is `{% endname %}`. Arguments are `key="value"` attributes, except for `include` (a quoted path) and
 * `if` (an expression). Pairing is done among siblings of one container in a single pass with a stack
 * per name, so a page of thousands of tags, closed or not, is paired in linear time.
 */

import { BLOCK_TAG_NAMES } from '../block-tags';

export interface ParsedTag {
  /** `hint`, `tab`, `@mermaid/diagram`; for an end tag, the name it closes. */
  name: string;
  closing: boolean;
  /** Everything after the name, trimmed. */
  rest: string;
  attributes: Record<string, string>;
}

// The lookahead after the name keeps matching linear: a shorter name is never retried (backtracking into
// a 100,000-letter name would be quadratic).
const TAG_SOURCE = /^\{%-?\s*(end)?([A-Za-z@][\w\-./@]*)(?![\w\-./@])([\s\S]*?)-?%\}$/;

export function parseTag(source: string): ParsedTag | null {
  const match = TAG_SOURCE.exec(source.trim());
  if (!match) return null;
  const [, end, name, rest] = match;
  return { name, closing: Boolean(end), rest: rest.trim(), attributes: readAttributes(rest) };
}

/**
 * The tag a paragraph's line begins with where text follows it on the line, a tag no block holds (`{% api-method
 * host="https://..." %} more`): the line of a legacy tag whose text was edited in the app. Its tag is the text as
 * written, read without a literal autolink and written back unescaped, so that the line reads back as it was edited.
 */
export function leadingUnknownTag(line: string): string | null {
  const match = /^\{%[^\n]*?%\}(?=[ \t]+\S)/.exec(line);
  const tag = match && parseTag(match[0]);
  return tag && !tag.name.startsWith('@') && !(BLOCK_TAG_NAMES as readonly string[]).includes(tag.name) ? match[0] : null;
}

/** What `encodeTagAttribute` writes for `"`, CR, LF and the `}` of `%}`. */
const ATTRIBUTE_REFERENCES: Record<string, string> = { '&quot;': '"', '&#13;': '\r', '&#10;': '\n', '&#125;': '}' };

export function readAttributes(text: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  // An attribute name starts after a non-name character, so a long word is scanned once, not from each letter.
  for (const match of text.matchAll(/(?<![\w-])([A-Za-z][\w-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    const value = match[2] ?? match[3];
    attributes[match[1]] = value.replace(/&quot;|&#13;|&#10;|&#125;/g, (reference) => ATTRIBUTE_REFERENCES[reference]);
  }
  return attributes;
}

/**
 * An attribute value as it is written in a tag: one line, with no `"` and no `%}` in it, so the tag
 * ends where it should. `readAttributes` reads these references back.
 */
export function encodeTagAttribute(value: string): string {
  return value.replace(/"/g, '&quot;').replace(/\r/g, '&#13;').replace(/\n/g, '&#10;').replace(/%\}/g, '%&#125;');
}

/**
 * For each opening tag among `tags` (null for siblings that are not tag lines), the index of its end tag,
 * or -1. An end tag closes the nearest unclosed opening tag of its name; pairs that would cross another
 * pair are left to `nestedWithin` to reject.
 */
export function matchTags(tags: ReadonlyArray<ParsedTag | null>): Int32Array {
  const matches = new Int32Array(tags.length).fill(-1);
  const open = new Map<string, number[]>();
  tags.forEach((tag, index) => {
    if (!tag) return;
    let stack = open.get(tag.name);
    if (!tag.closing) {
      if (!stack) open.set(tag.name, (stack = []));
      stack.push(index);
      return;
    }
    const opening = stack?.pop();
    if (opening !== undefined) matches[opening] = index;
  });
  return matches;
}
