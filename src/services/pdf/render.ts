import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFImage, type PDFPage, type RGB } from 'pdf-lib';
import type { FileEntry } from '../content/revisions';
import type { JSONDocument } from '../markdown';
import { PageCanvas } from './canvas';
import { addLink, addOutline, linkableUrl, type Destination, type OutlineItem, type Rect } from './structure';
import { WinAnsiText } from './text';

/**
 * Renders pages of content (GitBook's document model, services/markdown/document.ts) as a PDF with
 * real text, laid out by hand with pdf-lib: a title per page, headings, paragraphs with marks, lists,
 * code, tables, hints, quotes, PNG and JPEG images, internal and external links, an outline with one
 * item per page, and page numbers. Each content page starts on a new PDF page.
 *
 * Layout is synchronous and top-down: a cursor `y` moves down the current PDF page, and whatever does
 * not fit below it goes to a new page. Documents come from storage and were validated when written,
 * but every field is read defensively: a malformed node is skipped, never a crash.
 *
 * Not rendered: characters outside WinAnsi (see text.ts; replaced), inline images (their alt text is
 * shown), images other than PNG and JPEG and images by URL (a caption names them; nothing is fetched),
 * text colors and syntax highlighting, table column types other than text (shown as their value).
 */

export const PAGE_SIZE: [number, number] = [595.28, 841.89]; // A4, in points
const MARGIN = { top: 56, bottom: 64, left: 56, right: 56 };
const FOOTER_Y = 30;
const BODY_SIZE = 10.5;
const LINE_FACTOR = 1.45;
const CODE_SIZE = 8.8;
const CODE_LINE = 11.5;
const LIST_INDENT = 18;
const MIN_WIDTH = 120;
const HEADING_SIZES: Record<string, number> = { 'heading-1': 17, 'heading-2': 14.5, 'heading-3': 12.5 };

const COLORS = {
  text: rgb(0.13, 0.13, 0.15),
  muted: rgb(0.42, 0.43, 0.47),
  link: rgb(0.1, 0.35, 0.78),
  rule: rgb(0.8, 0.81, 0.84),
  codeBackground: rgb(0.95, 0.95, 0.96),
  headerBackground: rgb(0.94, 0.95, 0.97),
  hint: {
    info: rgb(0.2, 0.45, 0.85),
    warning: rgb(0.9, 0.58, 0.1),
    danger: rgb(0.85, 0.2, 0.2),
    success: rgb(0.18, 0.62, 0.34),
  } as Record<string, RGB>,
};

export interface PdfPageInput {
  id: string;
  title: string;
  description?: string;
  /** The page's parent among the pages rendered, for the outline's nesting. */
  parent?: string;
  document: JSONDocument;
}

export interface PdfRenderInput {
  /** The document's title (metadata). */
  title: string;
  /** In reading order. */
  pages: PdfPageInput[];
  /**
   * The title of every page of the content read, by id (rendered or not): a mention without a label of its own shows
   * its target's title as it is now, as GitBook's site does.
   */
  pageTitles?: ReadonlyMap<string, string>;
  /** The revision's files by id: what image and file blocks refer to. */
  files: ReadonlyMap<string, FileEntry>;
  /** Bytes of the PNG and JPEG images to draw, by file hash (others, or absent ones, get a caption). */
  images: ReadonlyMap<string, Uint8Array>;
  /** A note at the end, e.g. that pages were left out. */
  notice?: string;
  /** Creation date written in the metadata (fixed, so the same content gives the same bytes). */
  date: Date;
  /** At most this many PDF pages (plus one for the closing note); the rest is left out with a note. */
  maxPdfPages: number;
}

export interface PdfRenderResult {
  bytes: Uint8Array;
  pdfPages: number;
  /** How many content pages were rendered (fewer than given when the PDF page cap was reached). */
  renderedPages: number;
}

export async function renderPdf(input: PdfRenderInput): Promise<PdfRenderResult> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const fonts = await embedFonts(doc);
  const images = await embedImages(doc, input.images);
  const renderer = new Renderer(doc, fonts, images, input);
  const renderedPages = renderer.renderAll();
  doc.setTitle(input.title);
  doc.setProducer('Docs Platform API');
  doc.setCreator('Docs Platform API');
  doc.setCreationDate(input.date);
  doc.setModificationDate(input.date);
  const bytes = await doc.save({ useObjectStreams: true });
  return { bytes, pdfPages: doc.getPageCount(), renderedPages };
}

// ---------------------------------------------------------------------------------------------
// Fonts, images, styles

interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
  italic: PDFFont;
  boldItalic: PDFFont;
  mono: PDFFont;
  monoBold: PDFFont;
  monoItalic: PDFFont;
  monoBoldItalic: PDFFont;
}

async function embedFonts(doc: PDFDocument): Promise<Fonts> {
  const [regular, bold, italic, boldItalic, mono, monoBold, monoItalic, monoBoldItalic] = await Promise.all(
    [
      StandardFonts.Helvetica,
      StandardFonts.HelveticaBold,
      StandardFonts.HelveticaOblique,
      StandardFonts.HelveticaBoldOblique,
      StandardFonts.Courier,
      StandardFonts.CourierBold,
      StandardFonts.CourierOblique,
      StandardFonts.CourierBoldOblique,
    ].map((font) => doc.embedFont(font)),
  );
  return { regular, bold, italic, boldItalic, mono, monoBold, monoItalic, monoBoldItalic };
}

/** PNG or JPEG by their signature; anything that fails to embed (corrupt, unsupported) is left out. */
async function embedImages(doc: PDFDocument, images: ReadonlyMap<string, Uint8Array>): Promise<Map<string, PDFImage>> {
  const out = new Map<string, PDFImage>();
  // In hash order: the same images give the same objects, so the same content gives the same bytes.
  for (const [hash, bytes] of [...images].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    try {
      if (isPng(bytes)) out.set(hash, await doc.embedPng(bytes));
      else if (isJpeg(bytes)) out.set(hash, await doc.embedJpg(bytes));
    } catch {
      // Not drawable: the image block gets a caption instead.
    }
  }
  return out;
}

const isPng = (b: Uint8Array) => b.length > 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47;
const isJpeg = (b: Uint8Array) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;

interface Style {
  font: PDFFont;
  size: number;
  color: RGB;
  underline?: boolean;
  strike?: boolean;
  codeBackground?: boolean;
}

type LinkTarget = { kind: 'page'; page: string; anchor?: string } | { kind: 'url'; url: string };

interface Run {
  text: string;
  style: Style;
  link?: LinkTarget;
}

interface Piece extends Run {
  width: number;
}

interface Line {
  pieces: Piece[];
  width: number;
  height: number;
  size: number;
}

type Align = 'start' | 'center' | 'end';

/** Any node of a stored document, read defensively. */
interface AnyNode {
  object?: string;
  type?: string;
  data?: Record<string, any>;
  nodes?: AnyNode[];
  leaves?: Array<{ text?: unknown; marks?: Array<{ type?: string }> }>;
  fragments?: Array<{ fragment?: string; nodes?: AnyNode[] }>;
}

const nodesOf = (node: { nodes?: unknown } | undefined): AnyNode[] =>
  Array.isArray(node?.nodes) ? (node!.nodes as unknown[]).filter((n): n is AnyNode => !!n && typeof n === 'object') : [];

class PageLimitReached extends Error {}

interface Frame {
  kind: 'hint' | 'quote';
  color: RGB;
  left: number;
  right: number;
  top: number;
}

interface PendingLink {
  page: PDFPage;
  rect: Rect;
  target: LinkTarget;
}

// ---------------------------------------------------------------------------------------------
// The renderer

class Renderer {
  private readonly text: WinAnsiText;
  private readonly rendering: Set<string>;
  /** What is being drawn on the current PDF page (see canvas.ts). */
  private canvas!: PageCanvas;
  private y = 0;
  private left = MARGIN.left;
  private right = PAGE_SIZE[0] - MARGIN.right;
  private frames: Frame[] = [];
  private marker: string | undefined;
  private listDepth = 0;
  /** The color of body text: muted inside quotes. */
  private textColor = COLORS.text;
  private current = '';
  private readonly starts = new Map<string, Destination>();
  private readonly anchors = new Map<string, Destination>();
  private readonly links: PendingLink[] = [];
  /** Set once the PDF page cap is reached: only the closing note may add a page then. */
  private unlimited = false;

  constructor(
    private readonly doc: PDFDocument,
    private readonly fonts: Fonts,
    private readonly images: Map<string, PDFImage>,
    private readonly input: PdfRenderInput,
  ) {
    this.text = new WinAnsiText(new Set(fonts.regular.getCharacterSet()));
    this.rendering = new Set(input.pages.map((p) => p.id));
  }

  /** Lays out every page, then the note, links, outline and footers; answers how many pages were rendered. */
  renderAll(): number {
    let rendered = 0;
    let stoppedIn: PdfPageInput | undefined;
    for (const page of this.input.pages) {
      try {
        this.renderPage(page);
        rendered++;
      } catch (error) {
        if (!(error instanceof PageLimitReached)) throw error;
        stoppedIn = page;
        break;
      }
    }
    const notes = [this.input.notice];
    if (stoppedIn) {
      const where = this.starts.has(stoppedIn.id) ? `, in the middle of "${stoppedIn.title}"` : '';
      notes.push(
        `This export stops after ${this.input.maxPdfPages} PDF pages${where}: ${rendered} of ${this.input.pages.length} pages are complete. ` +
          'Export single pages (only=true&page=<id>) to read the others.',
      );
    }
    const text = notes.filter(Boolean).join('\n');
    if (text || this.doc.getPageCount() === 0) this.closingNote(text || 'This change request has no pages.');
    this.canvas.finish();
    this.resolveLinks();
    this.outline();
    this.footers();
    return rendered;
  }

  // -- pages and space --------------------------------------------------------------------------

  private get page(): PDFPage {
    return this.canvas.page;
  }

  private get width() {
    return this.right - this.left;
  }

  private get top() {
    return PAGE_SIZE[1] - MARGIN.top;
  }

  private newPage() {
    if (!this.unlimited && this.doc.getPageCount() >= this.input.maxPdfPages) throw new PageLimitReached();
    for (const frame of this.frames) this.drawFrame(frame, this.y);
    this.canvas?.finish();
    this.canvas = new PageCanvas(this.doc, this.doc.addPage(PAGE_SIZE));
    this.y = this.top;
    for (const frame of this.frames) frame.top = this.y;
    // A hint continued from the previous page: its text starts below the border.
    if (this.frames.some((f) => f.kind === 'hint')) this.y -= 6;
  }

  /** Moves to a new page unless `height` fits below the cursor (or the cursor is already at a page's top). */
  private ensure(height: number) {
    if (this.y - height < MARGIN.bottom && this.y < this.top) this.newPage();
  }

  private gap(height: number) {
    if (this.y < this.top) this.y -= height;
  }

  private indented<T>(left: number, right: number, body: () => T): T {
    const saved = [this.left, this.right] as const;
    if (this.right - right - (this.left + left) >= MIN_WIDTH) {
      this.left += left;
      this.right -= right;
    }
    try {
      return body();
    } finally {
      [this.left, this.right] = saved;
    }
  }

  private renderPage(page: PdfPageInput) {
    this.current = page.id;
    this.frames = [];
    this.marker = undefined;
    this.listDepth = 0;
    this.textColor = COLORS.text;
    this.newPage();
    this.starts.set(page.id, { page: this.page, top: PAGE_SIZE[1] });
    this.flow(this.wrap([{ text: this.clean(page.title || 'Untitled'), style: this.style({ bold: true, size: 22 }) }], this.width));
    if (page.description) {
      this.gap(2);
      this.flow(this.wrap([{ text: this.clean(page.description), style: this.style({ size: 12, color: COLORS.muted }) }], this.width));
    }
    this.gap(6);
    this.rule();
    this.gap(10);
    const depth = this.frames.length;
    try {
      this.blocks(nodesOf(page.document));
    } catch (error) {
      if (error instanceof PageLimitReached) throw error;
      // A node we could not lay out: the rest of the page is replaced by a note, the export goes on.
      this.frames.length = depth;
      this.marker = undefined;
      this.paragraphRuns([{ text: '[The rest of this page could not be rendered.]', style: this.style({ italic: true, color: COLORS.muted }) }]);
    }
    for (const frame of this.frames) this.drawFrame(frame, this.y);
    this.frames = [];
  }

  private closingNote(text: string) {
    this.unlimited = true;
    this.current = '';
    this.frames = [];
    this.newPage();
    for (const paragraph of text.split('\n')) {
      this.paragraphRuns([{ text: this.clean(paragraph), style: this.style({ italic: true, color: COLORS.muted }) }]);
    }
  }

  private rule() {
    this.ensure(4);
    this.canvas.line(this.left, this.y - 2, this.right, this.y - 2, COLORS.rule);
    this.y -= 4;
  }

  // -- text -------------------------------------------------------------------------------------

  private clean(text: unknown, tabWidth = 4): string {
    return typeof text === 'string' ? this.text.clean(text, tabWidth) : '';
  }

  private style(options: { bold?: boolean; italic?: boolean; mono?: boolean; size?: number; color?: RGB } = {}): Style {
    return { font: this.font(options), size: options.size ?? BODY_SIZE, color: options.color ?? this.textColor };
  }

  private font({ bold, italic, mono }: { bold?: boolean; italic?: boolean; mono?: boolean }): PDFFont {
    const f = this.fonts;
    if (mono) return bold ? (italic ? f.monoBoldItalic : f.monoBold) : italic ? f.monoItalic : f.mono;
    return bold ? (italic ? f.boldItalic : f.bold) : italic ? f.italic : f.regular;
  }

  private isBold(font: PDFFont) {
    const f = this.fonts;
    return font === f.bold || font === f.boldItalic || font === f.monoBold || font === f.monoBoldItalic;
  }

  private isItalic(font: PDFFont) {
    const f = this.fonts;
    return font === f.italic || font === f.boldItalic || font === f.monoItalic || font === f.monoBoldItalic;
  }

  /** The style of a text leaf: the base style changed by its marks. */
  private marked(base: Style, marks: Array<{ type?: string }> | undefined): Style {
    const types = new Set((Array.isArray(marks) ? marks : []).map((m) => m?.type));
    const code = types.has('code') || types.has('keyboard');
    const bold = types.has('bold') || this.isBold(base.font);
    const italic = types.has('italic') || this.isItalic(base.font);
    const mono = code || base.font === this.fonts.mono || base.font === this.fonts.monoBold;
    return {
      ...base,
      font: this.font({ bold, italic, mono }),
      size: code ? base.size * 0.92 : base.size,
      strike: base.strike || types.has('strikethrough'),
      codeBackground: base.codeBackground || code,
    };
  }

  /** Where a content reference leads in this PDF, if anywhere. */
  private linkTarget(ref: unknown): LinkTarget | undefined {
    if (!ref || typeof ref !== 'object') return undefined;
    const r = ref as Record<string, unknown>;
    if (typeof r.space === 'string') return undefined; // another space: not in this export
    if (r.kind === 'url' && typeof r.url === 'string') {
      const url = linkableUrl(r.url);
      return url ? { kind: 'url', url } : undefined;
    }
    if (r.kind === 'page' && typeof r.page === 'string' && this.rendering.has(r.page)) return { kind: 'page', page: r.page };
    if (r.kind === 'anchor' && typeof r.anchor === 'string') {
      const page = typeof r.page === 'string' ? r.page : this.current;
      return this.rendering.has(page) ? { kind: 'page', page, anchor: r.anchor } : undefined;
    }
    return undefined;
  }

  /**
   * The author's label (`[Label](ref "mention")` keeps it as the mention's text), else the title of the page it names
   * in this space as it is now (GitBook's mention holds no label: a renamed page relabels its mentions), else what
   * the reference names.
   */
  private mentionLabel(node: AnyNode): string {
    const own = plainText(nodesOf(node)).trim();
    if (own) return own;
    const ref = (node.data?.ref && typeof node.data.ref === 'object' ? node.data.ref : {}) as Record<string, unknown>;
    const sameSpace = typeof ref.space !== 'string' || !ref.space;
    const title = sameSpace && typeof ref.page === 'string' ? this.input.pageTitles?.get(ref.page)?.trim() : undefined;
    return title || contentRefLabel(ref);
  }

  /** The runs of inline content (texts, links, inline images, expressions). */
  private runs(nodes: AnyNode[], base: Style, link?: LinkTarget, out: Run[] = []): Run[] {
    for (const node of nodes) {
      if (node.object === 'text') {
        for (const leaf of Array.isArray(node.leaves) ? node.leaves : []) {
          const text = this.clean(leaf?.text);
          if (text) out.push({ text, style: this.marked(base, leaf.marks), link });
        }
      } else if (node.object === 'inline' && node.type === 'link') {
        const target = this.linkTarget(node.data?.ref);
        const style = target ? { ...base, color: COLORS.link, underline: true } : base;
        this.runs(nodesOf(node), style, target ?? link, out);
      } else if (node.object === 'inline' && node.type === 'inline-image') {
        const alt = typeof node.data?.alt === 'string' && node.data.alt ? node.data.alt : 'image';
        out.push({ text: this.clean(`[${alt}]`), style: { ...base, font: this.font({ italic: true }), color: COLORS.muted }, link });
      } else if (node.object === 'inline' && node.type === 'expression') {
        out.push({ text: this.clean(`{{ ${String(node.data?.expression ?? '')} }}`), style: base, link });
      } else if (node.object === 'inline' && node.type === 'inline-math') {
        out.push({ text: this.clean(String(node.data?.formula ?? '')), style: { ...base, font: this.font({ italic: true }) }, link });
      } else if (node.object === 'inline' && node.type === 'button') {
        const target = this.linkTarget(node.data?.ref);
        out.push({ text: this.clean(String(node.data?.label ?? '')), style: target ? { ...base, color: COLORS.link, underline: true } : base, link: target ?? link });
      } else if (node.object === 'inline' && node.type === 'mention') {
        const target = this.linkTarget(node.data?.ref);
        const label = this.mentionLabel(node);
        out.push({ text: this.clean(label), style: target ? { ...base, color: COLORS.link, underline: true } : base, link: target ?? link });
      } else if (node.object === 'block' || node.object === 'inline') {
        this.runs(nodesOf(node), base, link, out);
      }
    }
    return out;
  }

  /** Breaks runs into lines of at most `maxWidth`: at spaces, at newlines, and inside words longer than a line. */
  private wrap(runs: Run[], maxWidth: number): Line[] {
    const lines: Line[] = [];
    let pieces: Piece[] = [];
    let width = 0;
    let space: Piece | undefined;
    let word: Piece[] = [];
    let lastSize = runs[0]?.style.size ?? BODY_SIZE;

    const flush = () => {
      lines.push(makeLine(pieces, lastSize));
      pieces = [];
      width = 0;
      space = undefined;
    };
    const place = (piece: Piece) => {
      pieces.push(piece);
      width += piece.width;
    };
    const endWord = () => {
      if (word.length === 0) return;
      const wordWidth = word.reduce((sum, p) => sum + p.width, 0);
      const spaceWidth = pieces.length > 0 && space ? space.width : 0;
      if (pieces.length > 0 && width + spaceWidth + wordWidth > maxWidth) flush();
      if (pieces.length > 0 && space) place(space);
      space = undefined;
      if (wordWidth <= maxWidth - width) word.forEach(place);
      else this.breakWord(word, maxWidth, () => width, place, flush);
      word = [];
    };

    for (const run of runs) {
      lastSize = run.style.size;
      for (const part of run.text.split(/(\n| +)/)) {
        if (part === '') continue;
        if (part === '\n') {
          endWord();
          flush();
        } else if (part[0] === ' ') {
          endWord();
          if (pieces.length > 0) space = { ...run, text: ' ', width: this.measure(' ', run.style) };
        } else {
          word.push({ ...run, text: part, width: this.measure(part, run.style) });
        }
      }
    }
    endWord();
    if (pieces.length > 0) flush();
    return lines;
  }

  /** Places a word wider than what is left of the line, cutting it between characters. */
  private breakWord(word: Piece[], maxWidth: number, used: () => number, place: (p: Piece) => void, flush: () => void) {
    for (const piece of word) {
      let chunk = '';
      for (const char of piece.text) {
        const next = chunk + char;
        if (used() + this.measure(next, piece.style) > maxWidth && (chunk !== '' || used() > 0)) {
          if (chunk) place({ ...piece, text: chunk, width: this.measure(chunk, piece.style) });
          flush();
          chunk = char;
        } else chunk = next;
      }
      if (chunk) place({ ...piece, text: chunk, width: this.measure(chunk, piece.style) });
    }
  }

  private measure(text: string, style: Style): number {
    return style.font.widthOfTextAtSize(text, style.size);
  }

  /** Draws lines down the page at the current indentation, breaking pages between lines. */
  private flow(lines: Line[], align: Align = 'start') {
    for (const line of lines) {
      this.ensure(line.height);
      this.drawLine(line, this.left, this.width, this.y, align);
      this.y -= line.height;
    }
  }

  /** Draws one line whose box starts at `top`; a pending list marker goes left of it. */
  private drawLine(line: Line, x: number, width: number, top: number, align: Align) {
    const baseline = top - (line.height - line.size) / 2 - line.size * 0.8;
    this.drawMarker(baseline);
    let cursor = x + (align === 'center' ? (width - line.width) / 2 : align === 'end' ? width - line.width : 0);
    for (const fragment of mergePieces(line.pieces)) {
      const { style } = fragment;
      if (style.codeBackground) {
        this.canvas.rect(cursor - 1, baseline - style.size * 0.28, fragment.width + 2, style.size * 1.2, { fill: COLORS.codeBackground });
      }
      this.canvas.text(fragment.text, cursor, baseline, style.font, style.size, style.color);
      if (style.underline) this.hline(cursor, cursor + fragment.width, baseline - style.size * 0.15, style.color);
      if (style.strike) this.hline(cursor, cursor + fragment.width, baseline + style.size * 0.3, style.color);
      if (fragment.link) this.addPendingLink([cursor, baseline - style.size * 0.25, cursor + fragment.width, baseline + style.size * 0.9], fragment.link);
      cursor += fragment.width;
    }
  }

  private hline(x1: number, x2: number, y: number, color: RGB) {
    this.canvas.line(x1, y, x2, y, color);
  }

  private drawMarker(baseline: number) {
    if (this.marker === undefined) return;
    const style = this.style();
    const width = this.measure(this.marker, style);
    this.canvas.text(this.marker, this.left - width - 5, baseline, style.font, style.size, style.color);
    this.marker = undefined;
  }

  private addPendingLink(rect: Rect, target: LinkTarget) {
    const last = this.links[this.links.length - 1];
    // One annotation for the pieces of one link on one line.
    if (last && last.page === this.page && last.target === target && Math.abs(last.rect[2] - rect[0]) < 0.5 && Math.abs(last.rect[1] - rect[1]) < 0.5) {
      last.rect[2] = rect[2];
      last.rect[3] = Math.max(last.rect[3], rect[3]);
      return;
    }
    this.links.push({ page: this.page, rect, target });
  }

  private paragraphRuns(runs: Run[], align: Align = 'start', after = 6) {
    const lines = this.wrap(runs, this.width);
    if (lines.length === 0) {
      if (this.marker !== undefined) this.flow([makeLine([], BODY_SIZE)]);
      return;
    }
    this.flow(lines, align);
    this.gap(after);
  }

  // -- blocks -----------------------------------------------------------------------------------

  private blocks(nodes: AnyNode[]) {
    for (const node of nodes) this.block(node);
  }

  private block(node: AnyNode): void {
    const type = node.type ?? '';
    const spacing = this.listDepth > 0 ? 3 : 6;
    switch (type) {
      case 'paragraph':
        return this.paragraphRuns(this.runs(nodesOf(node), this.style()), alignOf(node.data?.align), spacing);
      case 'heading-1':
      case 'heading-2':
      case 'heading-3':
        return this.heading(node, HEADING_SIZES[type]);
      case 'list-ordered':
      case 'list-unordered':
      case 'list-tasks':
        return this.list(node);
      case 'divider':
        this.gap(4);
        this.rule();
        this.gap(6);
        return;
      case 'blockquote':
        return this.framed('quote', COLORS.rule, undefined, nodesOf(node));
      case 'hint': {
        const style = typeof node.data?.style === 'string' && COLORS.hint[node.data.style] ? node.data.style : 'info';
        return this.framed('hint', COLORS.hint[style], style[0].toUpperCase() + style.slice(1), nodesOf(node));
      }
      case 'code':
        return this.code(node);
      case 'images':
        for (const image of nodesOf(node)) this.image(image, node.data?.align);
        return;
      case 'file':
        return this.file(node);
      case 'table':
        return this.table(node);
      case 'reusable-content':
        return this.paragraphRuns([{ text: '[Reusable content that is not part of this revision]', style: this.style({ italic: true, color: COLORS.muted }) }]);
      case 'tabs':
      case 'stepper':
        // Every tab (step) in turn, under its title: on paper nothing is hidden.
        nodesOf(node).forEach((item, index) => {
          const title = type === 'tabs' ? String(item.data?.title ?? '') || `Tab ${index + 1}` : `Step ${index + 1}`;
          this.paragraphRuns([{ text: this.clean(title), style: this.style({ bold: true }) }], 'start', 3);
          this.blocks(nodesOf(item));
        });
        return;
      case 'updates':
        for (const update of nodesOf(node)) {
          const date = typeof update.data?.date === 'string' ? update.data.date.slice(0, 10) : '';
          if (date) this.paragraphRuns([{ text: this.clean(date), style: this.style({ bold: true, color: COLORS.muted }) }], 'start', 3);
          this.blocks(nodesOf(update));
        }
        return;
      case 'expandable': {
        const fragments = Array.isArray(node.fragments) ? node.fragments : [];
        const title = fragments.find((f) => f?.fragment === 'expandable-title');
        const body = fragments.find((f) => f?.fragment === 'expandable-body');
        for (const paragraph of nodesOf(title ?? {})) this.paragraphRuns(this.runs(nodesOf(paragraph), this.style({ bold: true })), 'start', 3);
        return this.blocks(nodesOf(body ?? {}));
      }
      case 'embed':
        return this.block(linkParagraph({ kind: 'url', url: String(node.data?.url ?? '') }, String(node.data?.url ?? '')));
      case 'content-ref':
        return this.block(linkParagraph(node.data?.ref, contentRefLabel(node.data?.ref)));
      case 'math':
        return this.paragraphRuns([{ text: this.clean(String(node.data?.formula ?? '')), style: this.style({ italic: true }) }], 'center');
      case 'drawing':
        return this.image(node, 'center');
      case 'prompt':
        return this.framed('quote', COLORS.rule, undefined, nodesOf(node));
      case 'swagger':
      case 'openapi-webhook': {
        const name = String(node.data?.[type === 'swagger' ? 'path' : 'name'] ?? '');
        return this.paragraphRuns([{ text: this.clean(`${String(node.data?.method ?? '').toUpperCase()} ${name}`.trim()), style: this.style({ mono: true }) }]);
      }
      case 'integration':
        return this.paragraphRuns([{ text: this.clean(`[Integration block: ${String(node.data?.integration ?? '')}/${String(node.data?.block ?? '')}]`), style: this.style({ italic: true, color: COLORS.muted }) }]);
      case 'if':
        // A condition on the visitor, which an export cannot evaluate: gated content is left out (as on the site).
        return;
      default:
        // A block type this renderer does not know: its child blocks, if any, are still shown.
        if (node.object === 'block') this.blocks(nodesOf(node).filter((n) => n.object === 'block'));
    }
  }

  private heading(node: AnyNode, size: number) {
    this.gap(size * 0.6);
    // Kept with at least one line of what follows.
    this.ensure(size * LINE_FACTOR + BODY_SIZE * LINE_FACTOR * 2);
    if (typeof node.data?.id === 'string' && node.data.id) {
      this.anchors.set(`${this.current}#${node.data.id}`, { page: this.page, top: this.y + 4 });
    }
    this.flow(this.wrap(this.runs(nodesOf(node), this.style({ bold: true, size })), this.width), alignOf(node.data?.align));
    this.gap(4);
  }

  private list(node: AnyNode) {
    const items = nodesOf(node).filter((n) => n.type === 'list-item');
    const start = typeof node.data?.start === 'number' && Number.isFinite(node.data.start) ? Math.trunc(node.data.start) : 1;
    const depth = this.listDepth;
    this.listDepth++;
    try {
      items.forEach((item, index) => {
        this.indented(LIST_INDENT, 0, () => {
          if (node.type === 'list-ordered') this.marker = `${start + index}.`;
          else if (node.type === 'list-tasks') this.marker = item.data?.checked ? '[x]' : '[  ]';
          else this.marker = depth % 2 === 0 ? '\u2022' : '\u2013';
          this.blocks(nodesOf(item));
          // An empty item still shows its marker.
          if (this.marker !== undefined) this.flow([makeLine([], BODY_SIZE)]);
        });
      });
    } finally {
      this.listDepth--;
    }
    if (depth === 0) this.gap(4);
  }

  /** A hint (colored bar, border and label) or a quote (gray bar), drawn around its blocks on every page it spans. */
  private framed(kind: Frame['kind'], color: RGB, label: string | undefined, children: AnyNode[]) {
    this.gap(2);
    this.ensure(BODY_SIZE * LINE_FACTOR * 2 + 12);
    const frame: Frame = { kind, color, left: this.left, right: this.right, top: this.y };
    this.frames.push(frame);
    const savedDepth = this.listDepth;
    this.listDepth = 0;
    try {
      this.y -= kind === 'hint' ? 6 : 2;
      this.indented(kind === 'hint' ? 14 : 12, kind === 'hint' ? 8 : 0, () => {
        if (label) this.flow(this.wrap([{ text: label, style: this.style({ bold: true, size: 9.5, color }) }], this.width));
        const saved = this.textColor;
        if (kind === 'quote') this.textColor = COLORS.muted;
        try {
          this.blocks(children);
        } finally {
          this.textColor = saved;
        }
      });
      this.y -= kind === 'hint' ? 0 : 2;
    } finally {
      this.listDepth = savedDepth;
      this.frames.pop();
    }
    this.drawFrame(frame, this.y);
    this.gap(8);
  }

  private drawFrame(frame: Frame, bottom: number) {
    const height = frame.top - bottom;
    if (height <= 0) return;
    if (frame.kind === 'hint') {
      this.canvas.rect(frame.left, bottom, frame.right - frame.left, height, { stroke: frame.color, lineWidth: 0.6 });
    }
    this.canvas.rect(frame.left, bottom, 3, height, { fill: frame.color });
  }

  private code(node: AnyNode) {
    const font = this.fonts.mono;
    const pad = 6;
    const lines = nodesOf(node).map((line) =>
      nodesOf(line)
        .flatMap((text) => (Array.isArray(text.leaves) ? text.leaves.map((leaf) => (typeof leaf?.text === 'string' ? leaf.text : '')) : []))
        .join(''),
    );
    if (typeof node.data?.title === 'string' && node.data.title) {
      this.flow(this.wrap([{ text: this.clean(node.data.title), style: this.style({ bold: true, size: 9, color: COLORS.muted }) }], this.width));
    }
    const charWidth = font.widthOfTextAtSize('M', CODE_SIZE);
    const perLine = Math.max(10, Math.floor((this.width - pad * 2) / charWidth));
    const background = (height: number) => this.canvas.rect(this.left, this.y - height, this.width, height, { fill: COLORS.codeBackground });
    this.ensure(CODE_LINE + pad);
    background(pad);
    this.y -= pad;
    for (const raw of lines.length > 0 ? lines : ['']) {
      const text = this.clean(raw.replace(/\n/g, ' '));
      const chunks = [...text].length <= perLine ? [text] : chunk([...text], perLine).map((c) => c.join(''));
      for (const part of chunks) {
        if (this.y - CODE_LINE < MARGIN.bottom && this.y < this.top) this.newPage();
        background(CODE_LINE);
        const baseline = this.y - CODE_LINE + 3.2;
        this.drawMarker(baseline);
        this.canvas.text(part, this.left + pad, baseline, font, CODE_SIZE, COLORS.text);
        this.y -= CODE_LINE;
      }
    }
    if (this.y - pad >= MARGIN.bottom) background(pad);
    this.y -= pad;
    this.gap(this.listDepth > 0 ? 3 : 8);
  }

  private caption(node: AnyNode): Run[] {
    const caption = (node.fragments ?? []).find((f) => f?.fragment === 'caption');
    const style = this.style({ italic: true, size: 9, color: COLORS.muted });
    const runs = caption ? nodesOf(caption).flatMap((p) => this.runs(nodesOf(p), style)) : [];
    return runs;
  }

  private image(node: AnyNode, align: unknown) {
    const ref = node.data?.ref as Record<string, unknown> | undefined;
    const alt = typeof node.data?.alt === 'string' ? node.data.alt : '';
    const muted = this.style({ italic: true, size: 9, color: COLORS.muted });
    const caption = this.caption(node);
    const file = ref?.kind === 'file' && typeof ref.file === 'string' ? this.input.files.get(ref.file) : undefined;
    const image = file ? this.images.get(file.hash) : undefined;
    const position: Align = align === 'left' ? 'start' : align === 'right' ? 'end' : 'center';
    if (!image) {
      let note: Run;
      if (ref?.kind === 'url' && typeof ref.url === 'string') {
        const url = linkableUrl(ref.url);
        note = { text: this.clean(`[Image: ${ref.url}]`), style: url ? { ...muted, color: COLORS.link, underline: true } : muted, link: url ? { kind: 'url', url } : undefined };
      } else if (file) note = { text: this.clean(`[Image not included: ${alt || file.name} (${file.contentType})]`), style: muted };
      else note = { text: this.clean(`[Image not found in this revision${alt ? `: ${alt}` : ''}]`), style: muted };
      this.paragraphRuns([note, ...(caption.length ? [{ text: '\n', style: muted }, ...caption] : [])], position);
      return;
    }
    // Pixels at 96 per inch, never wider than the column nor taller than half a page.
    const natural = file?.dimensions ?? { width: image.width, height: image.height };
    const maxHeight = (PAGE_SIZE[1] - MARGIN.top - MARGIN.bottom) * 0.5;
    const scale = Math.min(0.75, this.width / natural.width, maxHeight / natural.height);
    const width = Math.max(1, natural.width * scale);
    const height = Math.max(1, natural.height * scale);
    this.gap(2);
    this.ensure(height + 4);
    const x = this.left + (position === 'center' ? (this.width - width) / 2 : position === 'end' ? this.width - width : 0);
    this.drawMarker(this.y - Math.min(height, BODY_SIZE));
    this.canvas.image(image, x, this.y - height, width, height);
    this.y -= height + 4;
    if (caption.length) this.paragraphRuns(caption, position, 2);
    this.gap(6);
  }

  private file(node: AnyNode) {
    const ref = node.data?.ref as Record<string, unknown> | undefined;
    const file = typeof ref?.file === 'string' ? this.input.files.get(ref.file) : undefined;
    const style = this.style({ italic: true, color: COLORS.muted });
    const text = file ? `[Attached file: ${file.name}, ${formatSize(file.size)}]` : '[Attached file not found in this revision]';
    const caption = this.caption(node);
    this.paragraphRuns([{ text: this.clean(text), style }, ...(caption.length ? [{ text: '\n', style }, ...caption] : [])]);
  }

  // -- tables -----------------------------------------------------------------------------------

  private table(node: AnyNode) {
    const data = node.data ?? {};
    const definition = (data.definition && typeof data.definition === 'object' ? data.definition : {}) as Record<string, Record<string, unknown>>;
    const columnIds: string[] = Array.isArray(data.view?.columns) ? data.view.columns.filter((c: unknown) => typeof c === 'string') : Object.keys(definition);
    const columns = columnIds.map((id) => ({ id, def: definition[id] })).filter((c) => c.def && typeof c.def === 'object');
    if (columns.length === 0) return;
    const records = Object.values((data.records && typeof data.records === 'object' ? data.records : {}) as Record<string, { orderIndex?: unknown; values?: Record<string, unknown> }>)
      .filter((r) => r && typeof r === 'object')
      .sort((a, b) => (String(a.orderIndex ?? '') < String(b.orderIndex ?? '') ? -1 : String(a.orderIndex ?? '') > String(b.orderIndex ?? '') ? 1 : 0));
    const fragments = new Map((node.fragments ?? []).filter((f) => f && typeof f.fragment === 'string').map((f) => [f.fragment!, f]));
    const columnWidth = this.width / columns.length;
    const pad = 4;
    const inner = Math.max(8, columnWidth - pad * 2);
    const cellStyle = this.style({ size: 9.5 });

    const cell = (value: unknown): Line[] => {
      const fragment = typeof value === 'string' ? fragments.get(value) : undefined;
      if (fragment) return this.cellParagraphs(nodesOf(fragment), cellStyle).flatMap((runs) => this.wrap(runs, inner));
      const text = Array.isArray(value) ? value.filter((v) => typeof v !== 'object').join(', ') : value === null || value === undefined || typeof value === 'object' ? '' : String(value);
      return this.wrap([{ text: this.clean(text), style: cellStyle }], inner);
    };
    const aligns = columns.map((c) => (c.def.textAlignment === 'center' ? 'center' : c.def.textAlignment === 'right' ? 'end' : 'start') as Align);

    this.gap(2);
    if (!data.view?.hideHeader) {
      const title = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');
      const header = columns.map((c) => this.wrap([{ text: this.clean(title(c.def.title)), style: this.style({ bold: true, size: 9.5 }) }], inner));
      this.tableRow(header, columnWidth, pad, aligns, true);
    }
    for (const record of records) {
      const values = record.values && typeof record.values === 'object' ? record.values : {};
      this.tableRow(columns.map((c) => cell(values[c.id])), columnWidth, pad, aligns, false);
    }
    this.gap(8);
  }

  /** A cell's blocks as paragraphs of runs (lists get their marker as text, code its monospace font). */
  private cellParagraphs(nodes: AnyNode[], style: Style, prefix = ''): Run[][] {
    const out: Run[][] = [];
    for (const node of nodes) {
      const type = node.type ?? '';
      if (type === 'paragraph' || type.startsWith('heading-')) {
        const base = type === 'paragraph' ? style : { ...style, font: this.fonts.bold };
        out.push([...(prefix ? [{ text: prefix, style }] : []), ...this.runs(nodesOf(node), base)]);
        prefix = '';
      } else if (type.startsWith('list-')) {
        nodesOf(node).forEach((item, index) => {
          const marker = type === 'list-ordered' ? `${index + 1}. ` : type === 'list-tasks' ? (item.data?.checked ? '[x] ' : '[ ] ') : '\u2022 ';
          out.push(...this.cellParagraphs(nodesOf(item), style, marker));
        });
      } else if (type === 'code') {
        const mono = { ...style, font: this.fonts.mono, size: style.size * 0.92 };
        for (const line of nodesOf(node)) out.push(this.runs(nodesOf(line), mono));
      } else if (type === 'images') {
        out.push([{ text: '[image]', style: { ...style, font: this.fonts.italic, color: COLORS.muted } }]);
      } else if (type === 'file') {
        const id = node.data?.ref?.file;
        const file = typeof id === 'string' ? this.input.files.get(id) : undefined;
        out.push([{ text: this.clean(`[${file?.name ?? 'file'}]`), style: { ...style, font: this.fonts.italic, color: COLORS.muted } }]);
      } else if (node.object === 'block') {
        out.push(...this.cellParagraphs(nodesOf(node), style, prefix));
      }
    }
    return out;
  }

  /** One row of cells; a row taller than what is left of the page continues on the next one. */
  private tableRow(cells: Line[][], columnWidth: number, pad: number, aligns: Align[], header: boolean) {
    const count = Math.max(1, ...cells.map((c) => c.length));
    const heights = Array.from({ length: count }, (_, k) => Math.max(...cells.map((c) => c[k]?.height ?? 0), 9.5 * LINE_FACTOR));
    const total = heights.reduce((a, b) => a + b, 0) + pad * 2;
    const fullPage = PAGE_SIZE[1] - MARGIN.top - MARGIN.bottom;
    // A row that fits on a page is never split.
    this.ensure(total <= fullPage ? total : heights[0] + pad * 2);
    let top = this.y;
    const borders = (bottom: number) => {
      const height = top - bottom;
      if (height <= 0) return;
      this.canvas.rect(this.left, bottom, columnWidth * cells.length, height, { stroke: COLORS.rule, lineWidth: 0.6 });
      for (let c = 1; c < cells.length; c++) {
        const x = this.left + c * columnWidth;
        this.canvas.line(x, bottom, x, top, COLORS.rule);
      }
    };
    if (header && total <= fullPage) {
      this.canvas.rect(this.left, this.y - total, columnWidth * cells.length, total, { fill: COLORS.headerBackground });
    }
    this.y -= pad;
    for (let k = 0; k < count; k++) {
      if (this.y - heights[k] - pad < MARGIN.bottom && this.y < this.top) {
        borders(this.y - pad);
        this.newPage();
        top = this.y;
        this.y -= pad;
      }
      cells.forEach((lines, c) => {
        const line = lines[k];
        if (line) this.drawLine(line, this.left + c * columnWidth + pad, columnWidth - pad * 2, this.y, aligns[c]);
      });
      this.y -= heights[k];
    }
    this.y -= pad;
    borders(this.y);
  }

  // -- links, outline, footers ------------------------------------------------------------------

  private resolveLinks() {
    for (const link of this.links) {
      const target = link.target;
      if (target.kind === 'url') addLink(this.doc, link.page, link.rect, { uri: target.url });
      else {
        const destination = (target.anchor ? this.anchors.get(`${target.page}#${target.anchor}`) : undefined) ?? this.starts.get(target.page);
        // A page left out (the PDF page cap was reached) keeps its link text, without a link.
        if (destination) addLink(this.doc, link.page, link.rect, destination);
      }
    }
  }

  private outline() {
    const items = new Map<string, OutlineItem>();
    const roots: OutlineItem[] = [];
    for (const page of this.input.pages) {
      const destination = this.starts.get(page.id);
      if (!destination) continue;
      const item: OutlineItem = { title: page.title || 'Untitled', destination, children: [] };
      items.set(page.id, item);
      const parent = page.parent ? items.get(page.parent) : undefined;
      (parent ? parent.children : roots).push(item);
    }
    addOutline(this.doc, roots);
  }

  private footers() {
    const pages = this.doc.getPages();
    const font = this.fonts.regular;
    pages.forEach((page, index) => {
      const label = `${index + 1} / ${pages.length}`;
      const width = font.widthOfTextAtSize(label, 8.5);
      const canvas = new PageCanvas(this.doc, page);
      canvas.text(label, (PAGE_SIZE[0] - width) / 2, FOOTER_Y, font, 8.5, COLORS.muted);
      canvas.finish(false);
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

function makeLine(pieces: Piece[], fallbackSize: number): Line {
  while (pieces.length > 0 && pieces[pieces.length - 1].text === ' ') pieces.pop();
  const size = pieces.length > 0 ? Math.max(...pieces.map((p) => p.style.size)) : fallbackSize;
  const width = pieces.reduce((sum, p) => sum + p.width, 0);
  return { pieces, width, height: size * LINE_FACTOR, size };
}

/** Neighbouring pieces with the same style and link, drawn with one text operator. */
function mergePieces(pieces: Piece[]): Piece[] {
  const out: Piece[] = [];
  for (const piece of pieces) {
    const last = out[out.length - 1];
    if (last && last.style === piece.style && last.link === piece.link) {
      out[out.length - 1] = { ...last, text: last.text + piece.text, width: last.width + piece.width };
    } else out.push(piece);
  }
  return out;
}

function alignOf(value: unknown): Align {
  return value === 'center' ? 'center' : value === 'end' ? 'end' : 'start';
}

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function formatSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 1024) return `${Math.max(0, Math.round(bytes || 0))} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A paragraph holding one link, for blocks that print as their target (embeds, content references). */
function linkParagraph(ref: unknown, label: string): AnyNode {
  const text = { object: 'text', leaves: [{ object: 'leaf', text: label, marks: [] }] };
  return { object: 'block', type: 'paragraph', nodes: [{ object: 'inline', type: 'link', data: { ref }, nodes: [text] }] } as unknown as AnyNode;
}

function plainText(nodes: AnyNode[]): string {
  return nodes
    .map((node) => (node.object === 'text' ? (Array.isArray(node.leaves) ? node.leaves : []).map((leaf) => String(leaf?.text ?? '')).join('') : plainText(nodesOf(node))))
    .join('');
}

function contentRefLabel(ref: unknown): string {
  const r = (ref ?? {}) as Record<string, unknown>;
  const value = r.url ?? r.page ?? r.anchor ?? r.file ?? r.space ?? '';
  return typeof value === 'string' ? value : '';
}
