import { PDFHexString, PDFName, type PDFDict, type PDFDocument, type PDFPage, type PDFRef } from 'pdf-lib';

/**
 * The parts of the PDF that pdf-lib has no helper for, built with its low-level object API: the
 * document outline (bookmarks, `/Outlines` in the catalog, PDF 32000-1 §12.3.3) and link
 * annotations (`/Subtype /Link` with a `/Dest` inside the document or a `/URI` action, §12.5.6.5).
 */

/** A place in the document: a page, and the height (from the page's bottom) to show at the top of the window. */
export interface Destination {
  page: PDFPage;
  top: number;
}

export interface OutlineItem {
  title: string;
  destination: Destination;
  children: OutlineItem[];
}

const name = (value: string) => PDFName.of(value);

/** `[page /XYZ null top null]`: the page scrolled to `top`, the zoom unchanged. */
function destinationArray(doc: PDFDocument, destination: Destination) {
  return doc.context.obj([destination.page.ref, 'XYZ', null, Math.round(destination.top), null]);
}

/** Hex string of ASCII text: never needs escaping, whatever parentheses or backslashes a URL has. */
function asciiHexString(text: string): PDFHexString {
  let hex = '';
  for (let i = 0; i < text.length; i++) hex += (text.charCodeAt(i) & 0x7f).toString(16).padStart(2, '0');
  return PDFHexString.of(hex);
}

/**
 * Adds the outline, every item open, and asks viewers to show it. Titles are UTF-16 text strings, so
 * they keep every character the page bodies cannot draw.
 */
export function addOutline(doc: PDFDocument, items: OutlineItem[]): void {
  if (items.length === 0) return;
  const context = doc.context;
  const rootRef = context.nextRef();

  /** Writes `siblings` under `parent`; answers the first and last refs and how many items are visible below. */
  const write = (siblings: OutlineItem[], parent: PDFRef): { first: PDFRef; last: PDFRef; count: number } => {
    const refs = siblings.map(() => context.nextRef());
    let count = 0;
    siblings.forEach((item, index) => {
      const dict = context.obj({}) as PDFDict;
      dict.set(name('Title'), PDFHexString.fromText(item.title));
      dict.set(name('Parent'), parent);
      if (index > 0) dict.set(name('Prev'), refs[index - 1]);
      if (index < refs.length - 1) dict.set(name('Next'), refs[index + 1]);
      dict.set(name('Dest'), destinationArray(doc, item.destination));
      count += 1;
      if (item.children.length > 0) {
        const below = write(item.children, refs[index]);
        dict.set(name('First'), below.first);
        dict.set(name('Last'), below.last);
        // Positive: the item is open and shows this many descendants.
        dict.set(name('Count'), context.obj(below.count));
        count += below.count;
      }
      context.assign(refs[index], dict);
    });
    return { first: refs[0], last: refs[refs.length - 1], count };
  };

  const top = write(items, rootRef);
  context.assign(rootRef, context.obj({ Type: 'Outlines', First: top.first, Last: top.last, Count: top.count }));
  doc.catalog.set(name('Outlines'), rootRef);
  doc.catalog.set(name('PageMode'), name('UseOutlines'));
}

export type Rect = [x1: number, y1: number, x2: number, y2: number];

/** A clickable area of `page` going to `target`: a place in this document or an external URL. */
export function addLink(doc: PDFDocument, page: PDFPage, rect: Rect, target: Destination | { uri: string }): void {
  const context = doc.context;
  const annotation = context.obj({
    Type: 'Annot',
    Subtype: 'Link',
    Rect: rect.map((n) => Math.round(n * 100) / 100),
    Border: [0, 0, 0],
  }) as PDFDict;
  if ('uri' in target) {
    annotation.set(name('A'), context.obj({ Type: 'Action', S: 'URI', URI: asciiHexString(target.uri) }));
  } else {
    annotation.set(name('Dest'), destinationArray(doc, target));
  }
  page.node.addAnnot(context.register(annotation));
}

/** The external URL a link may open: absolute http(s) or mailto only, in its ASCII form; null otherwise. */
export function linkableUrl(url: string): string | null {
  try {
    const parsed = new URL(url);
    if (!['http:', 'https:', 'mailto:'].includes(parsed.protocol)) return null;
    const href = parsed.href;
    return href.length <= 2048 && /^[\x21-\x7e]+$/.test(href) ? href : null;
  } catch {
    return null;
  }
}
