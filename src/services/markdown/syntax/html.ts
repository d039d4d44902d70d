/**
 * The HTML GitBook's Markdown uses for blocks and marks Markdown has no syntax for: `<figure>` images
 * with captions, `<img data-size>` inline images, `<img class="gitbook-drawing">` drawings, `<mark>`
 * colors, `<kbd>`, `<sup>`, `<sub>`, `<details>` expandables, `<code class="expression">` and heading
 * anchors `<a href="#id" id="id"></a>`. HTML is read with a real HTML parser (parse5 through
 * hast-util-from-html), never matched by patterns: attributes may come in any order and quoting.
 */
import type { Element, ElementContent, Root as HastRoot } from 'hast';
import { fromHtml } from 'hast-util-from-html';

/**
 * The elements of an HTML fragment, whitespace text between them dropped. The last fragment's are kept: an HTML block
 * is asked in turn whether it is a table, a drawing, figures (issue 40: three parses of each of GitBook's figures).
 * Like `openingTag`'s, the elements are only read.
 */
export function htmlElements(html: string): Element[] {
  if (lastFragment?.html === html) return [...lastFragment.elements];
  const elements = elementsOf((fromHtml(html, { fragment: true }) as HastRoot).children as ElementContent[]);
  // A large fragment's tree is not held past its reading (a table is read at the first question).
  lastFragment = html.length <= MAX_KEPT_FRAGMENT ? { html, elements } : undefined;
  return [...elements];
}

let lastFragment: { html: string; elements: Element[] } | undefined;
const MAX_KEPT_FRAGMENT = 16 * 1024;

export function elementsOf(children: readonly ElementContent[] | readonly HastRoot['children'][number][]): Element[] {
  return (children as ElementContent[]).filter((child): child is Element => child.type === 'element');
}

/** Opening tags repeat (`<mark style="...">` on every colored word): each is parsed once. */
const openingTags = new Map<string, Element | null>();
const MAX_CACHED_TAGS = 2000;

/** The only element of an HTML opening tag such as `<mark style="...">`, or null. */
export function openingTag(html: string): Element | null {
  const trimmed = html.trim();
  if (!trimmed.startsWith('<') || trimmed.startsWith('</') || trimmed.startsWith('<!') || trimmed.startsWith('<?')) return null;
  const cached = openingTags.get(trimmed);
  if (cached !== undefined) return cached;
  const [element, ...more] = htmlElements(trimmed);
  const result = element && more.length === 0 ? element : null;
  if (openingTags.size >= MAX_CACHED_TAGS) openingTags.clear();
  if (trimmed.length < 500) openingTags.set(trimmed, result);
  return result;
}

/** The tag name of a closing tag `</mark>`, or null. */
export function closingTagName(html: string): string | null {
  const match = /^<\/([A-Za-z][\w-]*)\s*>$/.exec(html.trim());
  return match ? match[1].toLowerCase() : null;
}

export function attribute(element: Element, name: string): string | undefined {
  const value = element.properties?.[name];
  if (value === undefined || value === null || value === false) return undefined;
  return Array.isArray(value) ? value.join(' ') : String(value);
}

export function hasClass(element: Element, name: string): boolean {
  const value = element.properties?.className;
  return Array.isArray(value) && value.map(String).includes(name);
}

/** Text of an element, as a reader sees it (tags dropped, whitespace kept). */
export function elementText(node: Element | ElementContent): string {
  if (node.type === 'text') return node.value;
  if (node.type !== 'element') return '';
  return node.children.map(elementText).join('');
}

/** `color:orange;background-color:purple;` -> `{ text: 'orange', background: 'purple' }`. */
export function markColors(style: string | undefined): { text: string; background: string } {
  const colors = { text: 'default', background: 'default' };
  for (const declaration of (style ?? '').split(';')) {
    const [property, value] = declaration.split(':').map((part) => part?.trim().toLowerCase());
    if (!value) continue;
    if (property === 'color') colors.text = value;
    else if (property === 'background-color' || property === 'background') colors.background = value;
  }
  return colors;
}

/** The colors GitBook's schema knows (`DocumentTextColor`). */
export const TEXT_COLORS = ['default', 'green', 'blue', 'red', 'orange', 'yellow', 'purple', 'pink', 'violet', 'cyan', '$primary', '$info', '$success', '$warning', '$danger', '$tint'];
