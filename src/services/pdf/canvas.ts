import type { PDFDocument, PDFFont, PDFImage, PDFPage, RGB } from 'pdf-lib';

/**
 * What the renderer draws on one PDF page, written straight as content-stream operators (PDF
 * 32000-1 §8-9) and compressed when the page is done.
 *
 * pdf-lib's `page.drawText({ font })` registers a new font resource on every call (a scan of the
 * page's resources each time, so quadratic per page) and keeps every operator as objects until
 * `save()`: 1,000 dense pages took about 15 s and 360 MB, over a Worker's 128 MB. Written this way,
 * a page costs one string while it is drawn and its deflated bytes afterwards.
 */
export class PageCanvas {
  private readonly parts: string[] = [];
  private readonly fonts = new Map<PDFFont, string>();
  private readonly images = new Map<PDFImage, string>();

  constructor(
    private readonly doc: PDFDocument,
    readonly page: PDFPage,
  ) {}

  /** One line of text (already encodable by `font`), its baseline starting at (x, y). */
  text(text: string, x: number, y: number, font: PDFFont, size: number, color: RGB): void {
    if (text === '') return;
    const encoded = font.encodeText(text).toString();
    this.parts.push(`BT ${this.fontKey(font)} ${num(size)} Tf ${rgbOf(color)} rg ${num(x)} ${num(y)} Td ${encoded} Tj ET`);
  }

  rect(x: number, y: number, width: number, height: number, options: { fill?: RGB; stroke?: RGB; lineWidth?: number }): void {
    const path = `${num(x)} ${num(y)} ${num(width)} ${num(height)} re`;
    if (options.fill && options.stroke) {
      this.parts.push(`q ${rgbOf(options.fill)} rg ${rgbOf(options.stroke)} RG ${num(options.lineWidth ?? 1)} w ${path} B Q`);
    } else if (options.fill) this.parts.push(`q ${rgbOf(options.fill)} rg ${path} f Q`);
    else if (options.stroke) this.parts.push(`q ${rgbOf(options.stroke)} RG ${num(options.lineWidth ?? 1)} w ${path} S Q`);
  }

  line(x1: number, y1: number, x2: number, y2: number, color: RGB, lineWidth = 0.6): void {
    this.parts.push(`q ${rgbOf(color)} RG ${num(lineWidth)} w ${num(x1)} ${num(y1)} m ${num(x2)} ${num(y2)} l S Q`);
  }

  image(image: PDFImage, x: number, y: number, width: number, height: number): void {
    let key = this.images.get(image);
    if (!key) {
      key = this.page.node.newXObject('Image', image.ref).toString();
      this.images.set(image, key);
    }
    this.parts.push(`q ${num(width)} 0 0 ${num(height)} ${num(x)} ${num(y)} cm ${key} Do Q`);
  }

  /** Adds what was drawn to the page as one content stream, compressed unless it is tiny (a footer). */
  finish(compress = true): void {
    if (this.parts.length === 0) return;
    const contents = this.parts.join('\n');
    const stream = compress ? this.doc.context.flateStream(contents) : this.doc.context.stream(contents);
    this.page.node.addContentStream(this.doc.context.register(stream));
    this.parts.length = 0;
  }

  private fontKey(font: PDFFont): string {
    let key = this.fonts.get(font);
    if (!key) {
      key = this.page.node.newFontDictionary(font.name, font.ref).toString();
      this.fonts.set(font, key);
    }
    return key;
  }
}

/** A number as PDF writes it: at most 3 decimals, no exponent. */
function num(value: number): string {
  if (!Number.isFinite(value)) return '0';
  const rounded = Math.round(value * 1000) / 1000;
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

function rgbOf(color: RGB): string {
  return `${num(color.red)} ${num(color.green)} ${num(color.blue)}`;
}
