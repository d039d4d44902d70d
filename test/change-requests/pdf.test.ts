import { env } from 'cloudflare:workers';
import { PDFDict, PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';
import { extractText, getDocumentProxy } from 'unpdf';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_PDF_CONTENT_PAGES, pdfCacheKey, pdfRenders } from '../../src/services/pdf/export';
import { renderPdf } from '../../src/services/pdf/render';
import { ADMIN_TOKEN, BASE, api, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { PNG_1x1, applyChanges, createSpace, openChangeRequest } from '../helpers/content';
import { largeManifest, seedContent } from '../helpers/large-content';
import { fetchWorker } from '../helpers/worker';

/**
 * getChangeRequestPDF: a signed URL to the change request's content as a PDF, rendered with pdf-lib
 * inside workerd and read back here with unpdf (pdf.js) and pdf-lib, both running in workerd too.
 */

let org: TestOrg;
let owner: string;
let spaceId: string;
let cr: { id: string; number: number };
let parentId: string;
let childId: string;
let fileHash: string;

const base = () => `/v1/spaces/${spaceId}/change-requests/${cr.number}`;
const exportPdf = (query = '', token: string | null = owner, path = base()) => api('GET', `${path}/pdf${query}`, { token });

/** Follows the signed URL through the Worker, with no token; the PDF's bytes and the response. */
async function download(url: string) {
  const target = new URL(url);
  const res = await fetchWorker(`${BASE}${target.pathname}${target.search}`);
  expect(res.status).toBe(200);
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

interface OutlineEntry {
  title: string;
  page: number;
  items: OutlineEntry[];
}

/** What a reader sees: text of each page, the outline (with target page numbers), and the links. */
async function readPdf(bytes: Uint8Array) {
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  const { totalPages, text } = await extractText(pdf, { mergePages: false });
  const pageOf = async (dest: unknown) => {
    const array = typeof dest === 'string' ? await pdf.getDestination(dest) : (dest as unknown[]);
    return (await pdf.getPageIndex(array![0] as never)) + 1;
  };
  const outlineOf = async (items: any[] | null): Promise<OutlineEntry[]> =>
    Promise.all((items ?? []).map(async (item) => ({ title: item.title, page: await pageOf(item.dest), items: await outlineOf(item.items) })));
  const outline = await outlineOf(await pdf.getOutline());
  const links: Array<{ from: number; url?: string; page?: number }> = [];
  for (let n = 1; n <= totalPages; n++) {
    for (const annotation of await (await pdf.getPage(n)).getAnnotations()) {
      if (annotation.subtype !== 'Link') continue;
      links.push({ from: n, ...(annotation.url ? { url: annotation.url } : { page: await pageOf(annotation.dest) }) });
    }
  }
  return { totalPages, pages: text as string[], all: (text as string[]).join('\n'), outline, links };
}

/** Font names and image objects of the PDF, read with pdf-lib's low-level API. */
async function structureOf(bytes: Uint8Array) {
  const doc = await PDFDocument.load(bytes);
  const fonts = new Set<string>();
  let images = 0;
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    const dict = object instanceof PDFDict ? object : object instanceof PDFRawStream ? object.dict : undefined;
    if (!dict) continue;
    if (dict.get(PDFName.of('Type')) === PDFName.of('Font')) fonts.add(String(dict.get(PDFName.of('BaseFont'))));
    if (dict.get(PDFName.of('Subtype')) === PDFName.of('Image')) images++;
  }
  return { fonts, images, pageCount: doc.getPageCount(), catalog: doc.catalog };
}

async function revisionOf(number: number) {
  return expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests/${number}`, { token: owner }), 200).body.revision as string;
}

const CHILD_MARKDOWN = (parent: string, file: string) => `Intro with **bold words**, _italic words_, \`inline code\` and ~~struck text~~. Back to [the guide](/pages/${parent}) or visit [the example site](https://example.com/docs?a=(1)).

## Setup steps

1. First step
2. Second step
   - nested bullet

- Bullet alpha
- Bullet beta

### Code sample

\`\`\`js
const answer = 42;
console.log(answer);
\`\`\`

| Name | Value |
| --- | --- |
| alpha | one |
| beta | **two** |

{% hint style="warning" %}
Mind the gap.
{% endhint %}

![Logo](/files/${file})

Unicode: Привет 😀 → ok ≤ ā.
`;

beforeAll(async () => {
  org = await seedOrg();
  owner = org.owner.token;
  spaceId = (await createSpace(org.id, owner, 'Handbook')).id;
  cr = await openChangeRequest(spaceId, owner, 'Release notes');
  const created = await applyChanges(spaceId, cr.number, owner, [
    { operation: 'insert_files', files: [{ ref: 'logo.png', name: 'logo.png', contentType: 'image/png', base64: PNG_1x1 }] },
    { operation: 'insert_page', ref: 'guide', title: 'Guide', document: { markdown: 'Placeholder.\n' } },
    { operation: 'insert_page', ref: 'details', into: 'guide', title: 'Details', document: { markdown: 'Placeholder.\n' } },
  ]);
  [parentId, childId] = created.changes.map((c: any) => c.page.id);
  const file = created.insertedFiles[0];
  fileHash = new URL(file.downloadURL).pathname.split('/')[2];
  await applyChanges(spaceId, cr.number, owner, [
    { operation: 'update_page', page: parentId, document: { markdown: `The guide's own text. Read the [details page](/pages/${childId}).\n` } },
    { operation: 'update_page', page: childId, document: { markdown: CHILD_MARKDOWN(parentId, file.id) } },
  ]);
});

describe('getChangeRequestPDF', () => {
  it('answers a signed URL to a PDF with every page, in tree order, with an outline, links and page numbers', async () => {
    // The document really holds the blocks the PDF has to render.
    const child = expectStatus(await api('GET', `${base()}/content/page/${childId}`, { token: owner }), 200).body.document;
    const types = new Set<string>();
    const walk = (nodes: any[]) => nodes?.forEach((n) => (types.add(n.type), walk(n.nodes)));
    walk(child.nodes);
    for (const type of ['heading-1', 'heading-2', 'list-ordered', 'list-unordered', 'code', 'table', 'hint', 'images', 'link']) expect(types).toContain(type);

    const res = expectStatus(await exportPdf(), 200);
    expect(Object.keys(res.body)).toEqual(['url']);
    const url = new URL(res.body.url);
    expect(url.origin).toBe(BASE);
    expect(url.pathname).toMatch(/^\/files\/[0-9a-f]{64}\/Release%20notes\.pdf$/);
    expect(url.searchParams.get('type')).toBe('application/pdf');
    // Valid for an hour (rounded up to the minute).
    const ttl = Number(url.searchParams.get('expires')) - Date.now() / 1000;
    expect(ttl).toBeGreaterThan(3540);
    expect(ttl).toBeLessThanOrEqual(3660);

    const { res: file, bytes } = await download(res.body.url);
    expect(file.headers.get('content-type')).toBe('application/pdf');
    expect(file.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''Release%20notes.pdf");
    expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe('%PDF-');

    const pdf = await readPdf(bytes);
    expect(pdf.totalPages).toBeGreaterThan(0);
    const guideAt = pdf.pages.findIndex((t) => t.includes("The guide's own text."));
    const detailsAt = pdf.pages.findIndex((t) => t.includes('Intro with'));
    expect(guideAt).toBe(0);
    expect(detailsAt).toBeGreaterThan(guideAt);
    for (const text of [
      'Guide',
      'Details',
      'bold words',
      'italic words',
      'inline code',
      'struck text',
      'Setup steps',
      'First step',
      'nested bullet',
      'Bullet beta',
      'Code sample',
      'const answer = 42;',
      'console.log(answer);',
      'Name',
      'alpha',
      'two',
      'Warning',
      'Mind the gap.',
      '-> ok <= a.',
    ]) {
      expect(pdf.all).toContain(text);
    }
    // Characters the standard fonts cannot encode are replaced, not a crash.
    expect(pdf.all).toContain('Unicode: ?????? ? -> ok');
    // Page numbers in every footer.
    pdf.pages.forEach((text, i) => expect(text).toContain(`${i + 1} / ${pdf.totalPages}`));

    // One outline entry per page, nested like the tree, each going to the page's first PDF page.
    expect(pdf.outline).toEqual([{ title: 'Guide', page: guideAt + 1, items: [{ title: 'Details', page: detailsAt + 1, items: [] }] }]);
    // Page references are internal links; URLs are URI links.
    expect(pdf.links).toContainEqual({ from: guideAt + 1, page: detailsAt + 1 });
    expect(pdf.links).toContainEqual({ from: detailsAt + 1, page: guideAt + 1 });
    expect(pdf.links).toContainEqual({ from: detailsAt + 1, url: 'https://example.com/docs?a=(1)' });

    // Standard fonts (Helvetica for text, Courier for code) and the PNG drawn as an image.
    const structure = await structureOf(bytes);
    expect(structure.pageCount).toBe(pdf.totalPages);
    expect(structure.fonts).toContain('/Helvetica');
    expect(structure.fonts).toContain('/Helvetica-Bold');
    expect(structure.fonts).toContain('/Courier');
    // The PNG, drawn as an image (its alpha channel is a second image object, the soft mask).
    expect(structure.images).toBeGreaterThanOrEqual(1);
    expect(structure.catalog.get(PDFName.of('PageMode'))).toBe(PDFName.of('UseOutlines'));
  });

  it('renders only one page with only=true&page=<id>', async () => {
    const res = expectStatus(await exportPdf(`?only=true&page=${childId}`), 200);
    const pdf = await readPdf((await download(res.body.url)).bytes);
    expect(pdf.all).toContain('Intro with');
    expect(pdf.all).toContain('Mind the gap.');
    expect(pdf.all).not.toContain("The guide's own text.");
    expect(pdf.outline).toEqual([{ title: 'Details', page: 1, items: [] }]);
    // The guide is not in this PDF: its reference stays text, without a link; the URL link remains.
    expect(pdf.links.filter((l) => l.page !== undefined)).toEqual([]);
    expect(pdf.links).toContainEqual({ from: 1, url: 'https://example.com/docs?a=(1)' });
    // A page without only=true is checked, and changes nothing: the whole content.
    const whole = expectStatus(await exportPdf(`?page=${childId}`), 200);
    expect(new URL(whole.body.url).pathname).toBe(new URL(expectStatus(await exportPdf(), 200).body.url).pathname);
    expect(new URL(whole.body.url).pathname).not.toBe(new URL(res.body.url).pathname);
  });

  it('reuses the PDF of a revision: the second request does not render, new content does', async () => {
    const before = pdfRenders.count;
    const first = expectStatus(await exportPdf('?only=true&page=' + parentId), 200).body.url;
    expect(pdfRenders.count).toBe(before + 1);
    const second = expectStatus(await exportPdf('?only=true&page=' + parentId, org.members.read.token), 200).body.url;
    expect(pdfRenders.count).toBe(before + 1);
    expect(new URL(second).pathname).toBe(new URL(first).pathname);

    // The cache record, keyed by revision and options, names the stored bytes.
    const revision = await revisionOf(cr.number);
    const record = await env.FILES.get(pdfCacheKey(revision, parentId));
    const { hash } = JSON.parse(await record!.text());
    expect(new URL(first).pathname.split('/')[2]).toBe(hash);
    // Whatever the record names is what is answered: proof that nothing was rendered again.
    await env.FILES.put(pdfCacheKey(revision, parentId), JSON.stringify({ hash: fileHash, size: 1, pdfPages: 1, pages: 1 }));
    expect(new URL(expectStatus(await exportPdf('?only=true&page=' + parentId), 200).body.url).pathname.split('/')[2]).toBe(fileHash);
    // A record whose bytes are gone renders again.
    await env.FILES.put(pdfCacheKey(revision, parentId), JSON.stringify({ hash: 'f'.repeat(64), size: 1, pdfPages: 1, pages: 1 }));
    expectStatus(await exportPdf('?only=true&page=' + parentId), 200);
    expect(pdfRenders.count).toBe(before + 2);

    // New content is a new revision: rendered again, to other bytes.
    await applyChanges(spaceId, cr.number, owner, [{ operation: 'update_page', page: parentId, document: { markdown: 'Rewritten guide.\n' } }]);
    const third = expectStatus(await exportPdf('?only=true&page=' + parentId), 200).body.url;
    expect(pdfRenders.count).toBe(before + 3);
    expect(new URL(third).pathname).not.toBe(new URL(first).pathname);
    const rewritten = (await download(third)).bytes;
    expect((await readPdf(rewritten)).all).toContain('Rewritten guide.');
    expect((await structureOf(rewritten)).images).toBe(0);
  });

  it('names the download after the change request number when it has no subject', async () => {
    const untitled = expectStatus(await api('POST', `/v1/spaces/${spaceId}/change-requests`, { token: owner, body: {} }), 201).body;
    const res = expectStatus(await exportPdf('', owner, `/v1/spaces/${spaceId}/change-requests/${untitled.id}`), 200);
    const name = decodeURIComponent(new URL(res.body.url).pathname.split('/')[3]);
    expect(name).toMatch(untitled.subject ? /\.pdf$/ : new RegExp(`^Change request ${untitled.number}\\.pdf$`));
  });

  it('keeps the download name short enough for a URL of at most 2,048 characters', async () => {
    const long = await openChangeRequest(spaceId, owner, '文'.repeat(98) + '/x');
    const url = expectStatus(await exportPdf('', owner, `/v1/spaces/${spaceId}/change-requests/${long.number}`), 200).body.url;
    expect(url.length).toBeLessThanOrEqual(2048);
    // 98 characters of 9 bytes each once encoded: cut to 66, before the slash.
    expect(decodeURIComponent(new URL(url).pathname.split('/')[3])).toBe(`${'文'.repeat(66)}.pdf`);
    expect((await download(url)).res.headers.get('content-type')).toBe('application/pdf');
  });

  it('refuses bad input with 400', async () => {
    expectError(await exportPdf('?only=true'), 400, 'page');
    expectError(await exportPdf('?only=true&page=nope'), 400, 'not a page');
    expectError(await exportPdf('?page=nope'), 400, 'not a page');
    expectError(await exportPdf(`?only=yes&page=${childId}`), 400, 'only');
    expectError(await exportPdf(`?only=true&page=${'x'.repeat(129)}`), 400, 'page');
  });

  it('needs a token and the read role; other organizations and invisible spaces answer 404', async () => {
    expectError(await exportPdf('', null), 401);
    expectError(await exportPdf('', ADMIN_TOKEN), 403);
    expectError(await exportPdf('', org.members.guest.token), 404);
    expectError(await exportPdf('', org.outsider.token), 404);
    expectStatus(await exportPdf('', org.members.read.token), 200);
    expectError(await exportPdf('', owner, `/v1/spaces/${spaceId}/change-requests/999`), 404);

    // Another organization's change request, asked for by a member of this one (directly, or under this space).
    const other = await seedOrg();
    const otherSpace = await createSpace(other.id, other.owner.token, 'Elsewhere');
    const otherCr = await openChangeRequest(otherSpace.id, other.owner.token, 'Theirs');
    expectError(await exportPdf('', owner, `/v1/spaces/${otherSpace.id}/change-requests/${otherCr.id}`), 404);
    expectError(await exportPdf('', owner, `/v1/spaces/${spaceId}/change-requests/${otherCr.id}`), 404);

    // A tampered link is refused by the download route.
    const url = new URL(expectStatus(await exportPdf('', org.members.read.token), 200).body.url);
    url.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 60));
    const res = await fetchWorker(`${BASE}${url.pathname}${url.search}`);
    expect(res.status).toBe(403);
  });

  it(`renders at most ${MAX_PDF_CONTENT_PAGES} pages and says how many were left out`, async () => {
    const space = await createSpace(org.id, owner, 'Large');
    await seedContent(space.id, largeManifest(0, MAX_PDF_CONTENT_PAGES + 20));
    const large = await openChangeRequest(space.id, owner, 'Large export');
    const res = expectStatus(await exportPdf('', owner, `/v1/spaces/${space.id}/change-requests/${large.number}`), 200);
    const { bytes } = await download(res.body.url);
    const doc = await PDFDocument.load(bytes);
    // One PDF page per (empty) content page, and the closing note.
    expect(doc.getPageCount()).toBe(MAX_PDF_CONTENT_PAGES + 1);
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    const outline = await pdf.getOutline();
    expect(outline).toHaveLength(MAX_PDF_CONTENT_PAGES);
    expect(outline[0].title).toBe('Page 0-0');
    expect(outline[MAX_PDF_CONTENT_PAGES - 1].title).toBe(`Page 0-${MAX_PDF_CONTENT_PAGES - 1}`);
    const { text } = await extractText(pdf, { mergePages: false });
    expect((text as string[])[MAX_PDF_CONTENT_PAGES]).toContain(`first ${MAX_PDF_CONTENT_PAGES} of ${MAX_PDF_CONTENT_PAGES + 20} pages`);
  }, 120_000);

  it('renders malformed documents and text outside WinAnsi without failing, and stops at the PDF page cap with a note', async () => {
    const text = (value: unknown) => ({ object: 'text', leaves: [{ object: 'leaf', text: value, marks: [] }] });
    const paragraph = (value: unknown) => ({ object: 'block', type: 'paragraph', nodes: [text(value)] });
    const junk: any = {
      object: 'document',
      data: {},
      nodes: [
        { object: 'block', type: 'paragraph', nodes: [text(42), null, 7, { object: 'inline', type: 'link', data: { ref: { kind: 'url', url: 'javascript:alert(1)' } }, nodes: [text('script link')] }] },
        { object: 'block', type: 'table', data: { view: { columns: 5 }, records: null, definition: { a: 3 } } },
        { object: 'block', type: 'images', nodes: [{ type: 'image', data: { ref: { kind: 'url', url: 'https://example.test/a.png' } } }, { type: 'image', data: {} }, null] },
        { object: 'block', type: 'code', data: {}, nodes: [{ nodes: [{ leaves: [{ text: '\u0000ctrl\ttab\u200bzw\uD800lone 中文 🚀' }] }] }, 'x'] },
        { object: 'block', type: 'list-ordered', data: { start: 'x' }, nodes: [{ type: 'list-item' }] },
        { object: 'block', type: 'mystery', nodes: [paragraph('inside an unknown block')] },
        { object: 'block', type: 'heading-2', data: {}, nodes: [text('x'.repeat(400))] },
      ],
    };
    const long = { object: 'document', data: {}, nodes: Array.from({ length: 400 }, (_, i) => paragraph(`Line ${i} Ελληνικά`)) } as any;
    const pages = [
      { id: 'a', title: 'Junk 😀', document: junk },
      { id: 'b', title: 'Long', parent: 'a', document: long },
      { id: 'c', title: 'Never reached', document: { object: 'document', data: {}, nodes: null } as any },
    ];
    const result = await renderPdf({ title: 'Stress', pages, files: new Map(), images: new Map(), date: new Date(0), maxPdfPages: 4 });
    expect(result.pdfPages).toBe(5);
    expect(result.renderedPages).toBe(1);
    const pdf = await readPdf(result.bytes);
    expect(pdf.all).toContain('script link');
    expect(pdf.all).toContain('inside an unknown block');
    expect(pdf.all).toMatch(/ctrl +tabzw\?lone \?\? \?/);
    expect(pdf.all).toContain('Line 0 ????????');
    expect(pdf.pages[4]).toContain('This export stops after 4 PDF pages, in the middle of "Long": 1 of 3 pages are complete.');
    // Outline titles keep every character: they are UTF-16.
    expect(pdf.outline).toEqual([{ title: 'Junk 😀', page: 1, items: [{ title: 'Long', page: 2, items: [] }] }]);
    // No link for a javascript: URL; an image by URL is not fetched, its caption links to it.
    expect(pdf.links).toEqual([{ from: 1, url: 'https://example.test/a.png' }]);
  });
});

describe("renderPdf: GitBook's other blocks", () => {
  it('prints every tab and step under its title, expandables open, embeds and content references as links, math as its formula; if-gated content left out', async () => {
    const { markdownToDocument } = await import('../../src/services/markdown');
    const { document } = markdownToDocument(
      [
        '{% tabs %}\n{% tab title="Ruby" %}\nruby body\n{% endtab %}\n\n{% tab title="Go" %}\ngo body\n{% endtab %}\n{% endtabs %}',
        '{% stepper %}\n{% step %}\nfirst step body\n{% endstep %}\n{% endstepper %}',
        '<details>\n\n<summary>More here</summary>\n\nexpandable body\n\n</details>',
        '{% embed url="https://video.example/watch" %}',
        '{% content-ref url="https://docs.example/guide" %}\n[guide](https://docs.example/guide)\n{% endcontent-ref %}',
        '$$e = mc^2$$',
        '{% columns %}\n{% column %}\nleft column\n{% endcolumn %}\n\n{% column %}\nright column\n{% endcolumn %}\n{% endcolumns %}',
        '{% if visitor.claims.pro %}\ngated body\n{% endif %}',
      ].join('\n\n'),
    );
    const result = await renderPdf({ title: 'Blocks', pages: [{ id: 'p1', title: 'Blocks', document }], files: new Map(), images: new Map(), date: new Date(0), maxPdfPages: 10 });
    const pdf = await readPdf(result.bytes);
    for (const text of ['Ruby', 'ruby body', 'Go', 'go body', 'Step 1', 'first step body', 'More here', 'expandable body', 'e = mc^2', 'left column', 'right column']) {
      expect(pdf.all).toContain(text);
    }
    expect(pdf.all).not.toContain('gated body');
    expect(pdf.links).toEqual([
      { from: 1, url: 'https://video.example/watch' },
      { from: 1, url: 'https://docs.example/guide' },
    ]);
  });
});
