import { inArray, sql } from 'drizzle-orm';
import { rawAll, runBatch, type Db } from '../../db/client';
import { documents } from '../../db/schema';
import type { Env } from '../../env';
import { badRequest } from '../../lib/errors';
import { sha256Hex } from '../../lib/ids';
import { valuesOf } from '../../lib/sql-lists';
import { urlContext } from '../../schemas/common';
import { leavesSql } from '../content/tree';
import { composedBodySql, parseStoredBody, type StoredBody } from '../content/packed-documents';
import { readContent, type ContentRead } from '../content/reads';
import { dereferenceDocument, evaluateDocument, reusableContentIds } from '../content/evaluate';
import { downloadUrl, fileKey, imageDimensions } from '../content/files';
import type { JSONDocument } from '../markdown';
import { isGroupPage, loadDocuments, type FileEntry, type PageEntry } from '../content/revisions';
import type { PdfPageInput } from './render';

/**
 * A change request's content as a PDF (GitBook's getChangeRequestPDF): rendered once per revision
 * and options, stored in R2 like any file (`files/<sha256>`), and answered as a signed download URL
 * of this Worker, valid for an hour (services/content/files).
 *
 * - `only=true&page=<id>` renders that page alone; otherwise every page, in tree order (a `page`
 *   without `only=true` is checked but changes nothing). A `page` that is not in the change request
 *   is a 400, like any query parameter that names nothing: the path's resource exists.
 * - Cache: `pdf/<version>/<revisionId>/<all|page:<id>>` in R2 holds `{hash, ...}` of the rendered
 *   bytes. Revisions are immutable and the PDF depends on nothing else (not on the change request's
 *   subject, which is only the download's name), so a hit is always right; change requests that
 *   share a revision share its PDF. `<version>` changes when rendering changes.
 * - Limits (Worker CPU and memory): at most MAX_PDF_CONTENT_PAGES content pages in tree order, the
 *   rest truncated with a closing note saying how many were left out (a 400 would refuse large
 *   spaces outright; single pages stay exportable); at most MAX_PDF_PAGES PDF pages (same note); at
 *   most MAX_PDF_IMAGE_BYTES of images and MAX_PDF_PNG_PIXELS of PNG pixels (the others get a caption).
 */

/**
 * The PDF renderer (pdf-lib, its fonts and PNG decoder: the largest module of the space content group), loaded by the
 * first render: the group's other routes (a page read first of all) never evaluate it in a cold isolate.
 */
const pdfRenderer = () => import('./render');

export const MAX_PDF_CONTENT_PAGES = 500;
export const MAX_PDF_PAGES = 2000;
export const MAX_PDF_IMAGE_BYTES = 24 * 1024 * 1024;
/** pdf-lib keeps PNGs decoded (3-4 bytes a pixel) until the PDF is saved: their pixels are capped in all. */
export const MAX_PDF_PNG_PIXELS = 8_000_000;
const RENDER_VERSION = 'v1';
const DRAWABLE_IMAGES = new Set(['image/png', 'image/jpeg', 'image/jpg']);

/** How many PDFs this isolate rendered: lets tests tell a cache hit from a render. */
export const pdfRenders = { count: 0 };

export interface PdfRequest {
  db: Db;
  env: Env;
  /** The request's URL: its origin is the download URL's. */
  url: string;
  userId: string;
  spaceId: string;
  /** A change request's content (id or number); without it, the space's current content (getSpacePDF). */
  changeRequest?: string;
  only: boolean;
  page?: string;
}

interface CacheRecord {
  hash: string;
  size: number;
  pdfPages: number;
  pages: number;
}

export const pdfCacheKey = (revisionId: string, page?: string) => `pdf/${RENDER_VERSION}/${revisionId}/${page === undefined ? 'all' : `page:${page}`}`;

/** The PDF of a change request's content, or of the space's current content. */
export async function contentPdf(r: PdfRequest): Promise<{ url: string }> {
  if (r.only && r.page === undefined) throw badRequest('Invalid query: page is required when only=true');
  const read = await readContent(
    r.db,
    r.changeRequest === undefined ? { spaceId: r.spaceId } : { spaceId: r.spaceId, changeRequest: r.changeRequest },
    r.userId,
    { urls: urlContext(r.url, r.env.APP_URL), ...(r.only ? { page: r.page } : { tree: true }) },
  );
  const selected = selectPages(read, r.only, r.page);
  const key = pdfCacheKey(read.revision.id, r.only ? r.page : undefined);

  let record = await cached(r.env.FILES, key);
  if (!record) {
    record = await render(r.db, r.env.FILES, read, selected);
    await r.env.FILES.put(key, JSON.stringify(record), { httpMetadata: { contentType: 'application/json' } });
  }
  const cr = read.changeRequest?.cr;
  const title = cr ? cr.subject || `Change request ${cr.number}` : read.space.space.title || 'Space';
  const name = `${fileNameOf(title)}.pdf`;
  const file: FileEntry = { id: record.hash, name, contentType: 'application/pdf', size: record.size, hash: record.hash };
  return { url: await downloadUrl(r.env, new URL(r.url).origin, file) };
}

interface SelectedPage {
  entry: PageEntry;
  parent?: string;
}

/** The pages to render, in reading order, and how many there are in all. */
function selectPages(read: ContentRead, only: boolean, pageId: string | undefined): { pages: SelectedPage[]; total: number } {
  if (only) {
    if (!read.located) throw badRequest(`Invalid query: page "${pageId}" is not a page of ${read.changeRequest ? 'this change request' : 'this space'}`);
    if (isGroupPage(read.located.page)) throw badRequest(`Invalid query: page "${pageId}" is a group: it has no content of its own`);
    return { pages: [{ entry: read.located.page }], total: 1 };
  }
  const pages: SelectedPage[] = [];
  let total = 0;
  let found = pageId === undefined;
  // Depth first, parents before children: the order of the table of contents.
  const stack: Array<{ entry: PageEntry; parent?: string }> = [...(read.pages ?? [])].reverse().map((entry) => ({ entry }));
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (next.entry.id === pageId) found = true;
    const children = next.entry.pages ?? [];
    // A group is a heading of the table of contents, no page: its pages are rendered at the top level.
    const group = isGroupPage(next.entry);
    for (let i = children.length - 1; i >= 0; i--) stack.push({ entry: children[i], ...(group ? {} : { parent: next.entry.id }) });
    if (group) continue;
    total++;
    if (pages.length < MAX_PDF_CONTENT_PAGES) pages.push(next);
  }
  if (!found) throw badRequest(`Invalid query: page "${pageId}" is not a page of ${read.changeRequest ? 'this change request' : 'this space'}`);
  return { pages, total };
}

/** Every page's title by id, left-out pages too: what a mention without a label of its own shows. */
function pageTitlesOf(entries: PageEntry[]): Map<string, string> {
  const titles = new Map<string, string>();
  const stack = [...entries];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    titles.set(entry.id, entry.title);
    stack.push(...(entry.pages ?? []));
  }
  return titles;
}

async function cached(bucket: R2Bucket, key: string): Promise<CacheRecord | undefined> {
  const object = await bucket.get(key);
  if (!object) return undefined;
  try {
    const record = JSON.parse(await object.text()) as CacheRecord;
    if (typeof record.hash !== 'string' || !/^[0-9a-f]{64}$/.test(record.hash)) return undefined;
    // The bytes may have been removed since: render again rather than answer a dead link.
    return (await bucket.head(fileKey(record.hash))) ? record : undefined;
  } catch {
    return undefined;
  }
}

/** Loads documents, files and images, renders, and stores the bytes under their hash. */
async function render(db: Db, bucket: R2Bucket, read: ContentRead, selected: { pages: SelectedPage[]; total: number }): Promise<CacheRecord> {
  const revisionId = read.revision.id;
  const meta = read.revision.meta;
  const hashes = [...new Set(selected.pages.flatMap((p) => (p.entry.document ? [p.entry.document] : [])))];
  // One round trip for the page documents and the revision's files (pinned to the revision read).
  const filesRoot = sql`(select files_root from revisions where id = ${revisionId})`;
  const [documentRows, fileRows] = (await runBatch(db, [
    db
      .select({ hash: documents.hash, body: sql<StoredBody>`${composedBodySql('documents')}` })
      .from(documents)
      .where(inArray(documents.hash, valuesOf(hashes.length > 0 ? hashes : ['-']))),
    rawAll<{ value: string }>(db, sql`select body as value from (${leavesSql(filesRoot)})`),
  ])) as unknown as [Array<{ hash: string; body: StoredBody }>, Array<{ value: string }> | { results?: Array<{ value: string }> }];
  const bodies = new Map(documentRows.map((row) => [row.hash, parseStoredBody<JSONDocument>(row.body)]));
  const files = new Map<string, FileEntry>();
  for (const row of Array.isArray(fileRows) ? fileRows : (fileRows.results ?? [])) {
    for (const entry of Object.values(JSON.parse(row.value) as Record<string, FileEntry>)) files.set(entry.id, entry);
  }

  const empty: JSONDocument = { object: 'document', data: {}, nodes: [] };
  let pageDocuments = selected.pages.map((p) => (p.entry.document ? (bodies.get(p.entry.document) ?? empty) : empty));
  // Reusable contents are shown where they are included, and expressions as their values: the page as a reader sees it.
  const included = new Set(pageDocuments.flatMap((d) => reusableContentIds(d)));
  const reusableHashes = meta.reusableContents.filter((rc) => included.has(rc.id) && rc.document).map((rc) => [rc.id, rc.document!] as const);
  if (reusableHashes.length > 0) {
    const loaded = await loadDocuments(db, reusableHashes.map(([, hash]) => hash));
    const reusable = new Map(reusableHashes.flatMap(([id, hash]) => (loaded.has(hash) ? [[id, loaded.get(hash)!] as const] : [])));
    pageDocuments = pageDocuments.map((d) => dereferenceDocument(d, reusable));
  }
  pageDocuments = pageDocuments.map((d, i) => evaluateDocument(d, meta.variables, selected.pages[i].entry.variables));

  const images = await loadImages(bucket, pageDocuments, files);
  const rendered = new Set(selected.pages.map((p) => p.entry.id));
  const pages: PdfPageInput[] = selected.pages.map((p, i) => ({
    id: p.entry.id,
    title: p.entry.title,
    description: p.entry.description,
    parent: p.parent !== undefined && rendered.has(p.parent) ? p.parent : undefined,
    document: pageDocuments[i],
  }));
  const left = selected.total - selected.pages.length;
  const notice =
    left > 0
      ? `This export includes the first ${selected.pages.length} of ${selected.total} pages, the most one PDF holds; ${left} pages are left out. ` +
        'Export single pages (only=true&page=<id>) to read the others.'
      : undefined;

  pdfRenders.count++;
  const { renderPdf } = await pdfRenderer();
  const result = await renderPdf({
    title: pages[0]?.title ?? 'Content',
    pages,
    pageTitles: pageTitlesOf(read.pages ?? []),
    files,
    images,
    notice,
    date: validDate(read.revision.createdAt),
    maxPdfPages: MAX_PDF_PAGES,
  });
  const hash = await sha256Hex(result.bytes);
  await bucket.put(fileKey(hash), result.bytes, { sha256: hash, httpMetadata: { contentType: 'application/pdf' } });
  return { hash, size: result.bytes.byteLength, pdfPages: result.pdfPages, pages: result.renderedPages };
}

/**
 * PNG and JPEG files that image blocks of the documents show, in document order, read from R2 within
 * the byte and pixel budgets; an image past them is left out (the renderer captions it).
 */
async function loadImages(bucket: R2Bucket, docs: JSONDocument[], files: Map<string, FileEntry>): Promise<Map<string, Uint8Array>> {
  const wanted = new Map<string, FileEntry>();
  let bytesLeft = MAX_PDF_IMAGE_BYTES;
  const visit = (nodes: unknown) => {
    if (!Array.isArray(nodes)) return;
    for (const node of nodes as Array<{ type?: string; data?: { ref?: { kind?: string; file?: unknown } }; nodes?: unknown; fragments?: unknown }>) {
      if (!node || typeof node !== 'object') continue;
      const ref = node.data?.ref;
      if (node.type === 'image' && ref?.kind === 'file' && typeof ref.file === 'string') {
        const file = files.get(ref.file);
        if (file && DRAWABLE_IMAGES.has(file.contentType.toLowerCase()) && !wanted.has(file.hash) && file.size <= bytesLeft) {
          wanted.set(file.hash, file);
          bytesLeft -= file.size;
        }
      }
      visit(node.nodes);
      visit(node.fragments);
    }
  };
  for (const doc of docs) visit(doc.nodes);
  const loaded = await Promise.all(
    [...wanted.keys()].map(async (hash) => {
      const object = await bucket.get(fileKey(hash));
      return object ? new Uint8Array(await object.arrayBuffer()) : undefined;
    }),
  );
  const images = new Map<string, Uint8Array>();
  let pixelsLeft = MAX_PDF_PNG_PIXELS;
  [...wanted.keys()].forEach((hash, index) => {
    const bytes = loaded[index];
    if (!bytes) return;
    // JPEG bytes go into the PDF as they are; a PNG is decoded, so its pixels count.
    const isPng = bytes[0] === 0x89 && bytes[1] === 0x50;
    if (isPng) {
      const size = imageDimensions(bytes);
      const pixels = size ? size.width * size.height : Infinity;
      if (pixels > pixelsLeft) return;
      pixelsLeft -= pixels;
    }
    images.set(hash, bytes);
  });
  return images;
}

function validDate(iso: string): Date {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? new Date(0) : date;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A download name from a subject: no control characters, slashes or broken Unicode, at most 200
 * characters and 600 once percent-encoded (GitBook's URL schema allows 2,048 characters in all).
 */
function fileNameOf(subject: string): string {
  const clean = subject.replace(LONE_SURROGATE, '').replace(/[\u0000-\u001f\u007f/\\]+/g, ' ').replace(/\s+/g, ' ').trim();
  const chars = [...clean].slice(0, 200);
  while (chars.length > 0 && encodeURIComponent(chars.join('')).length > 600) chars.pop();
  return chars.join('').trim() || 'change-request';
}

/** The name the change request route knows it by. */
export const changeRequestPdf = (r: PdfRequest & { changeRequest: string }) => contentPdf(r);
