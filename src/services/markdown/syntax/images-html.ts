/**
 * GitBook's HTML forms of blocks with data Markdown has no syntax for. An aligned paragraph is
 * `<p align="center">text</p>`. An images block: `<figure><img><figcaption>` per image, several of them (a gallery) in a
 * `<div>`, `<div align="left">`, `<div data-full-width="false">` or `<div data-with-frame="true">` carrying the block's
 * `align`, `fullWidth` and `withFrame`; an image with a dark-mode variant as `<picture><source srcset media><img>`.
 */
import type { Element, ElementContent } from 'hast';
import { attribute, elementText, elementsOf, htmlElements } from './html';

export interface ImagesHtml {
  data: { align?: 'left' | 'center' | 'right'; fullWidth?: boolean; withFrame?: boolean };
  images: ImageHtml[];
}

export interface ImageHtml {
  img: Element;
  darkSrc?: string;
  caption: string;
  /** The caption's inline HTML (its `<p>`'s content): what a caption holding more than text (a link) is read from. */
  captionHtml?: ElementContent[];
}

/** The images of an HTML block that is only `<figure>`s, or one `<div>` of them; null for any other HTML. */
export function readImagesHtml(html: string): ImagesHtml | null {
  const elements = htmlElements(html);
  const div = elements.length === 1 && elements[0].tagName === 'div' ? elements[0] : null;
  const items = div ? elementsOf(div.children) : elements;
  if (div && hasText(div.children)) return null;
  if (items.length === 0) return null;
  const images: ImageHtml[] = [];
  for (const item of items) {
    const image = item.tagName === 'figure' ? figureImage(item) : div ? pictureOrImg(item) : null;
    if (!image) return null;
    images.push(image);
  }
  return { data: div ? divData(div) : {}, images };
}

function figureImage(figure: Element): ImageHtml | null {
  const children = elementsOf(figure.children);
  const image = children.map(pictureOrImg).find((found) => found !== null);
  if (!image) return null;
  const caption = children.find((child) => child.tagName === 'figcaption');
  if (!caption) return { ...image, caption: '' };
  const parts = elementsOf(caption.children);
  const inner = parts.length === 1 && parts[0].tagName === 'p' && !hasText(caption.children) ? parts[0].children : caption.children;
  const rich = inner.some((child) => child.type === 'element');
  return { ...image, caption: elementText(caption).trim(), ...(rich ? { captionHtml: inner } : {}) };
}

function pictureOrImg(element: Element): ImageHtml | null {
  if (element.tagName === 'img') return { img: element, caption: '' };
  if (element.tagName !== 'picture') return null;
  const children = elementsOf(element.children);
  const img = children.find((child) => child.tagName === 'img');
  if (!img) return null;
  const dark = children.find((child) => child.tagName === 'source' && /prefers-color-scheme:\s*dark/i.test(attribute(child, 'media') ?? ''));
  const darkSrc = dark && attribute(dark, 'srcSet');
  return { img, ...(darkSrc ? { darkSrc } : {}), caption: '' };
}

function divData(div: Element): ImagesHtml['data'] {
  const align = attribute(div, 'align')?.toLowerCase();
  const fullWidth = attribute(div, 'dataFullWidth');
  const withFrame = attribute(div, 'dataWithFrame');
  return {
    ...(align === 'left' || align === 'center' || align === 'right' ? { align } : {}),
    ...(fullWidth === 'true' || fullWidth === 'false' ? { fullWidth: fullWidth === 'true' } : {}),
    ...(withFrame === 'true' || withFrame === 'false' ? { withFrame: withFrame === 'true' } : {}),
  };
}

const hasText = (children: readonly ElementContent[]) => children.some((child) => child.type === 'text' && child.value.trim() !== '');

/** Elements that make a `<p>` more than one paragraph. */
const BLOCK_TAGS = new Set(['p', 'div', 'table', 'ul', 'ol', 'figure', 'pre', 'blockquote', 'details', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr']);

/** HTML's `align` as GitBook's TextAlignment (`start`, `center`, `end`). */
const TEXT_ALIGNMENTS: Record<string, 'start' | 'center' | 'end'> = { left: 'start', center: 'center', right: 'end' };

/** `<p align="center">...</p>` (GitBook's aligned paragraph): its alignment and content, or null for any other HTML. */
export function readAlignedParagraph(html: string): { align: 'start' | 'center' | 'end'; children: ElementContent[] } | null {
  if (!/^\s*<p\s/i.test(html)) return null;
  const elements = htmlElements(html);
  const p = elements.length === 1 && elements[0].tagName === 'p' ? elements[0] : null;
  const align = p ? TEXT_ALIGNMENTS[attribute(p, 'align')?.toLowerCase() ?? ''] : undefined;
  if (!p || !align) return null;
  const nested = (node: ElementContent): boolean => node.type === 'element' && (BLOCK_TAGS.has(node.tagName) || node.children.some(nested));
  if (p.children.some(nested)) return null;
  return { align, children: p.children };
}
