/**
 * Inline HTML written in a Markdown paragraph, as GitBook reads it: `<strong>`, `<b>`, `<em>`, `<i>`, `<code>`,
 * `<s>`, `<del>`, `<strike>` are the marks Markdown writes with its own syntax; `<mark>`, `<kbd>`, `<sup>`, `<sub>`
 * the marks it has no syntax for; `<a href>` a link (`<a data-mention>` a mention). Elements GitBook's model has no
 * mark for (`<u>`, `<span>`, `<small>`...) keep their content as text: the tags alone are dropped, as GitBook's
 * editor drops them. Anything else (a `<T>` of a generic type, `<see cref>`) is not read here.
 */
import type { Element } from 'hast';
import type { DocumentMark } from '../document';
import { attribute, elementsOf, htmlElements, markColors, TEXT_COLORS } from './html';

type SimpleMark = 'bold' | 'italic' | 'strikethrough' | 'code' | 'keyboard' | 'superscript' | 'subscript';
const simple = (type: SimpleMark) => (): DocumentMark => ({ object: 'mark', type });

/** The mark of each inline HTML element that is one in GitBook's model. */
export const INLINE_HTML_MARKS: Readonly<Record<string, (element: Element) => DocumentMark | null>> = {
  strong: simple('bold'),
  b: simple('bold'),
  em: simple('italic'),
  i: simple('italic'),
  code: simple('code'),
  s: simple('strikethrough'),
  del: simple('strikethrough'),
  strike: simple('strikethrough'),
  kbd: simple('keyboard'),
  sup: simple('superscript'),
  sub: simple('subscript'),
  mark: (element) => {
    const colors = markColors(attribute(element, 'style'));
    if (!TEXT_COLORS.includes(colors.text) || !TEXT_COLORS.includes(colors.background)) return null;
    return { object: 'mark', type: 'color', data: colors };
  },
};

/** Phrasing elements with no mark of their own in GitBook's model: their content is read, the tags dropped. */
const TRANSPARENT_INLINE_TAGS = new Set(['u', 'ins', 'span', 'small', 'big', 'font', 'abbr', 'cite', 'q', 'dfn', 'var', 'samp', 'tt', 'time', 'bdi', 'bdo', 'nobr']);

export type InlineHtmlReading = { kind: 'mark'; mark: DocumentMark } | { kind: 'link'; href: string; mention: boolean } | { kind: 'transparent' };

/** What an inline element (with its closing tag among its siblings) is in GitBook's model, or null. */
export function readInlineElement(element: Element): InlineHtmlReading | null {
  const mark = INLINE_HTML_MARKS[element.tagName]?.(element);
  if (mark) return { kind: 'mark', mark };
  if (element.tagName === 'a') {
    const href = attribute(element, 'href');
    return href !== undefined && href !== '' ? { kind: 'link', href, mention: attribute(element, 'dataMention') !== undefined } : null;
  }
  return TRANSPARENT_INLINE_TAGS.has(element.tagName) ? { kind: 'transparent' } : null;
}

/** An image with a dark-mode variant, as GitBook writes an inline one: `<picture><source srcset media><img></picture>`. */
export interface Picture {
  src: string;
  darkSrc?: string;
  alt?: string;
  size?: 'line' | 'original';
}

/**
 * `<picture><source srcset="dark.svg" media="(prefers-color-scheme: dark)"><img src="light.svg" alt=""></picture>`
 * (GitBook's inline image with `refDark`), or null when the HTML is not one picture with an `<img>`.
 */
export function readPicture(html: string): Picture | null {
  const [picture, ...rest] = htmlElements(html);
  if (!picture || rest.length > 0 || picture.tagName !== 'picture') return null;
  const children = elementsOf(picture.children);
  const img = children.find((child) => child.tagName === 'img');
  const src = img && attribute(img, 'src');
  if (src === undefined) return null;
  const dark = children.find((child) => child.tagName === 'source' && /prefers-color-scheme:\s*dark/i.test(attribute(child, 'media') ?? ''));
  const darkSrc = dark && attribute(dark, 'srcSet');
  const alt = attribute(img!, 'alt');
  const size = attribute(img!, 'dataSize');
  return { src, ...(darkSrc ? { darkSrc } : {}), ...(alt !== undefined ? { alt } : {}), ...(size === 'line' || size === 'original' ? { size } : {}) };
}
