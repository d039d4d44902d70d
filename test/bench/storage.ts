/**
 * Storage benchmark (`npm run bench -- storage`, also part of `npm run bench`): what a page and a one-page edit cost
 * in D1, measured on real documentation written through the API. The AxonIQ reference guide (the shared corpus,
 * read in place) is imported as pages of one space through content batches and merged; then one page of about the
 * corpus's mean size is edited (a sentence added) in a change request that is merged. D1's own table sizes are not
 * readable there (`dbstat` is unavailable in D1), so every table's bytes are the sum of its rows' values' lengths,
 * and every index's the sum of the values it repeats: its columns and the row's key (8 bytes for a row id, the primary
 * key's other columns for a WITHOUT ROWID table), the indexes SQLite makes for a primary key or a unique constraint
 * included. A FTS5 index is its shadow tables. No SQLite page is counted: these are the bytes stored, not the pages
 * holding them (record headers, cell pointers and free space in pages are left out, in every figure alike).
 * Last, the read cost of each stored form: a page read's CPU per request with its document as a delta (of its first
 * version: services/content/document-deltas), packed whole and unpacked, in one run.
 *
 *   npm run bench -- storage                 the AxonIQ corpus
 *   npm run bench -- storage --corpus=<dir>  another GitBook repository (every `.md` file but SUMMARY.md)
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import process from 'node:process';
import { documentText, packDocument } from '../../src/services/content/packed-documents';
import { COMPOSED_BODY } from '../helpers/stored-documents';
import { client, getLoad, seedUser, start, type Call } from './routes';
import { tableSizes, type TableSize } from './table-sizes';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string | undefined]));
const CORPUS = args.get('corpus') ?? path.resolve(import.meta.dirname, '../../../shared/corpus/gitbook-format/axoniq-reference-guide');
/** Under the content batch's limit on Markdown (MAX_BATCH_MARKDOWN_CHARS). */
const BATCH_CHARS = 400_000;

interface CorpusPage {
  title: string;
  markdown: string;
}

function readCorpus(dir: string): CorpusPage[] {
  const pages: CorpusPage[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at).sort()) {
      const full = path.join(at, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.md') && name !== 'SUMMARY.md') {
        const markdown = readFileSync(full, 'utf8');
        const heading = /^#\s+(.+)$/m.exec(markdown)?.[1]?.trim();
        pages.push({ title: (heading ?? name.replace(/\.md$/, '')).slice(0, 200), markdown });
      }
    }
  };
  walk(dir);
  return pages;
}

/**
 * What the database's SQLite file holds, read beside D1 (the bench's D1 is kept in a directory; D1 itself offers no
 * `dbstat`): the bytes of the pages its b-trees use (`dbstat`'s page sizes: what a database's size is made of, free
 * pages aside) and of their records (`dbstat`'s payload: values with their record headers). Where the values' sum
 * above leaves out SQLite's overhead, these include it, page granularity included.
 */
interface FileSize {
  pageBytes: number;
  payloadBytes: number;
}

function sqliteFileOf(persist: string): string {
  const dir = path.join(persist, 'd1', 'miniflare-D1DatabaseObject');
  const file = readdirSync(dir).find((f) => f.endsWith('.sqlite') && f !== 'metadata.sqlite');
  if (!file) throw new Error(`storage bench: no D1 database file in ${dir}`);
  return path.join(dir, file);
}

function fileSize(file: string): FileSize {
  const sqlite = new DatabaseSync(file, { readOnly: true });
  try {
    const row = sqlite.prepare("select sum(pgsize) as pages, sum(payload) as payload from dbstat where name not like '_cf_%' and name not like 'd1_%'").get() as { pages: number; payload: number };
    return { pageBytes: row.pages, payloadBytes: row.payload };
  } finally {
    sqlite.close();
  }
}

const fileGrowth = (after: FileSize, before: FileSize, per: number, markdown: number) =>
  `pages ${kb((after.pageBytes - before.pageBytes) / per)} KB (${((after.pageBytes - before.pageBytes) / per / markdown).toFixed(2)}×), records ${kb((after.payloadBytes - before.payloadBytes) / per)} KB (${((after.payloadBytes - before.payloadBytes) / per / markdown).toFixed(2)}×)`;

const total = (sizes: TableSize[]) => sizes.reduce((n, s) => n + s.bytes, 0);
const kb = (bytes: number) => (bytes / 1024).toFixed(1);

function difference(after: TableSize[], before: TableSize[]): TableSize[] {
  const was = new Map(before.map((s) => [s.name, s]));
  return after
    .map((s) => ({ name: s.name, bytes: s.bytes - (was.get(s.name)?.bytes ?? 0), rows: s.rows - (was.get(s.name)?.rows ?? 0) }))
    .filter((s) => s.bytes !== 0 || s.rows !== 0)
    .sort((a, b) => b.bytes - a.bytes);
}

function printSizes(sizes: TableSize[], per: number, markdownPer: number) {
  for (const s of sizes) {
    console.log(`  ${s.name.padEnd(44)} ${String(s.rows).padStart(7)} ${kb(s.bytes / per).padStart(9)} ${(s.bytes / per / markdownPer).toFixed(2).padStart(7)}×`);
  }
}

async function importCorpus(call: Call, token: string, orgId: string, pages: CorpusPage[]) {
  const space = (await call('POST', `/v1/orgs/${orgId}/spaces`, token, { title: 'Corpus' })).body;
  const cr = (await call('POST', `/v1/spaces/${space.id}/change-requests`, token, { subject: 'Import' })).body;
  const ids: string[] = [];
  let batch: CorpusPage[] = [];
  let size = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const changes = batch.map((p) => ({ operation: 'insert_page', title: p.title, document: { markdown: p.markdown } }));
    const answer = (await call('POST', `/v1/spaces/${space.id}/change-requests/${cr.number}/content?compat=false`, token, { changes })).body;
    ids.push(...answer.changes.map((c: { page: { id: string } }) => c.page.id));
    batch = [];
    size = 0;
  };
  for (const page of pages) {
    if (size + page.markdown.length > BATCH_CHARS || batch.length >= 50) await flush();
    batch.push(page);
    size += page.markdown.length;
  }
  await flush();
  await call('POST', `/v1/spaces/${space.id}/change-requests/${cr.number}/merge`, token);
  return { spaceId: space.id as string, ids };
}

/** Merges the FTS5 index's segments into one (FTS5's `optimize`): what automerge does over time, at once. */
const mergeSearchIndex = (db: D1Database) => db.prepare("insert into search_sections(search_sections) values ('optimize')").run();

/** The FTS5 index's part of a list of sizes: its shadow tables (`search_sections_data`, `_idx`, `_docsize`...). */
const ftsPart = (sizes: TableSize[]) => total(sizes.filter((s) => /^search_sections_(data|idx|docsize|config|content)$/.test(s.name.trim())));

/**
 * What edits cost once many were made (an FTS5 segment measured right after one edit is merged away by automerge
 * later), and what history collection frees: EDITS one-page edits, each merged in a change request of its own; then a
 * change request saved EDITS times (an editor's autosaves: each batch replaces the one before) and merged; then the
 * space's history collected as the cron would once the retention window is past (services/content/history).
 */
const EDITS = 10;

async function editsAndHistory(call: Call, db: D1Database, apiUrl: string, token: string, file: () => FileSize, edit: { spaceId: string; page: string; markdown: string; pageCount: number; mean: number }) {
  const { spaceId, page } = edit;
  const editMarkdown = Buffer.byteLength(edit.markdown);
  const update = (cr: number, n: number) =>
    call('POST', `/v1/spaces/${spaceId}/change-requests/${cr}/content?compat=false`, token, {
      changes: [{ operation: 'update_page', page, document: { markdown: `${edit.markdown.trimEnd()}\n\nEdit ${n} of the storage benchmark.\n` } }],
    });
  const before = await tableSizes(db);
  const beforeFile = file();
  for (let n = 1; n <= EDITS; n++) {
    const cr = (await call('POST', `/v1/spaces/${spaceId}/change-requests`, token, { subject: `Edit ${n}` })).body;
    await update(cr.number, n);
    await call('POST', `/v1/spaces/${spaceId}/change-requests/${cr.number}/merge`, token);
  }
  const edits = difference(await tableSizes(db), before);
  console.log(`\n${EDITS} one-page edits, each merged: per edit`);
  printSizes(edits, EDITS, editMarkdown);
  console.log(`  in the SQLite file, per edit: ${fileGrowth(file(), beforeFile, EDITS, editMarkdown)}`);
  console.log(`  ${`D1 bytes per one-page edit, over ${EDITS}`.padEnd(52)} ${kb(total(edits) / EDITS).padStart(9)} ${(total(edits) / EDITS / editMarkdown).toFixed(2).padStart(7)}× its Markdown (of it FTS5 ${(ftsPart(edits) / EDITS / editMarkdown).toFixed(2)}×)`);

  const beforeSaves = await tableSizes(db);
  const cr = (await call('POST', `/v1/spaces/${spaceId}/change-requests`, token, { subject: 'Autosaves' })).body;
  for (let n = 1; n <= EDITS; n++) await update(cr.number, 100 + n);
  await call('POST', `/v1/spaces/${spaceId}/change-requests/${cr.number}/merge`, token);
  const saves = total(difference(await tableSizes(db), beforeSaves));
  console.log(`  a change request saved ${EDITS} times, merged: ${kb(saves)} KB (${(saves / editMarkdown).toFixed(2)}× the page's Markdown)`);
  // A delta's base is whole (document-deltas): no chain is longer than one delta.
  const chains = await db
    .prepare('select count(*) as deltas, coalesce(max((select count(*) from documents b where b.hash = d.base and b.base is not null)), 0) as deeper from documents d where d.base is not null')
    .first<{ deltas: number; deeper: number }>();
  console.log(`  documents stored as deltas: ${chains!.deltas}; of their bases, deltas themselves: ${chains!.deeper} (a chain is one delta long)`);

  // Past the retention window (30 days, and a day for the superseded heads' own window).
  const beforeCollection = await tableSizes(db);
  const later = Date.now() + 32 * 24 * 60 * 60 * 1000;
  const collected = (await (await fetch(`${apiUrl}/__bench/collect-history/${spaceId}?now=${later}`, { method: 'POST' })).json()) as {
    revisions: number;
    documents: number;
    runs: number;
  };
  const after = await tableSizes(db);
  const freed = total(beforeCollection) - total(after);
  console.log(`\nHistory collected (${collected.runs} run(s)): ${collected.revisions} revision(s) and ${collected.documents} document(s)/node(s) deleted, ${kb(freed)} KB freed`);
  console.log(`  D1 bytes before ${kb(total(beforeCollection))} KB, after ${kb(total(after))} KB: ${kb(total(after) / edit.pageCount)} KB per page, ${(total(after) / edit.pageCount / edit.mean).toFixed(2)}× its Markdown`);
}

/**
 * A one-page edit's FTS5 part once merged. An edit's new rows go into a segment of their own (level 0), which holds
 * every word of the changed sections with its text, until automerge merges it with the next edits' segments, where
 * the words are shared: the first edit after the corpus pays that segment, whose bytes later edits reuse (0.00 per
 * edit over 10). Measured last, for merging the index (FTS5's `optimize`, at once what automerge does over time)
 * changes what later edits meet: the same edit as the first, from a merged index to a merged index.
 */
async function settledEdit(call: Call, db: D1Database, token: string, edit: { spaceId: string; page: string; markdown: string }) {
  const { spaceId, page } = edit;
  const markdown = `${edit.markdown.trimEnd()}\n\nThe last edit of the storage benchmark.\n`;
  await mergeSearchIndex(db);
  const before = await tableSizes(db);
  const cr = (await call('POST', `/v1/spaces/${spaceId}/change-requests`, token, { subject: 'Last edit' })).body;
  await call('POST', `/v1/spaces/${spaceId}/change-requests/${cr.number}/content?compat=false`, token, { changes: [{ operation: 'update_page', page, document: { markdown } }] });
  await call('POST', `/v1/spaces/${spaceId}/change-requests/${cr.number}/merge`, token);
  const raw = difference(await tableSizes(db), before);
  await mergeSearchIndex(db);
  const settled = difference(await tableSizes(db), before);
  const bytes = Buffer.byteLength(markdown);
  const ratio = (sizes: TableSize[]) => `${(total(sizes) / bytes).toFixed(2)}× (of it FTS5 ${(ftsPart(sizes) / bytes).toFixed(2)}×)`;
  console.log(`\nA last one-page edit, from a merged full-text index: D1 bytes ${ratio(raw)} its Markdown; its FTS5 segment merged, ${ratio(settled)}`);
}

/** Seconds of load per measurement, and rounds (packed and unpacked alternate, so that both meet the same load). */
const READ_SECONDS = 2;
const READ_ROUNDS = 3;

const readLoad = (url: string, token: string) => getLoad(url, token, READ_SECONDS);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * What reading a page costs in each stored form: its Brotli decompression on every read, and for a delta its base's too
 * and the delta applied. The page's read as JSON and as Markdown, with its document as the edits stored it (a delta
 * of the page's first version: document-deltas), packed whole, and stored as the JSON text it packs (as documents were
 * before migration 0052, which every reader still takes), alternating, in the same run. The ratios are CPU per
 * request, over the unpacked form's.
 */
async function readCost(db: D1Database, apiUrl: string, token: string, spaceId: string, pageId: string) {
  const row = await db
    .prepare(
      `select d.hash, d.body, d.refs, d.base from revisions r, json_each((select body from documents where hash = r.pages_root)) g,
        json_each(case when g.key glob '~[0-7]' then (select body from documents where hash = g.value) else json_object(g.key, g.value) end) m,
        json_each((select body from documents where hash = m.value)) c, json_each((select body from documents where hash = c.value)) l,
        documents d
       where r.id = (select revision_id from spaces where id = ?) and l.key = ? and d.hash = json_extract(l.value, '$.document')`,
    )
    .bind(spaceId, pageId)
    .first<{ hash: string; body: ArrayBuffer | number[]; refs: string | null; base: string | null }>();
  if (!row || typeof row.body === 'string') throw new Error('storage bench: the edited page\'s document is not packed');
  const composed = await db.prepare(`select ${COMPOSED_BODY} as body from documents where hash = ?`).bind(row.hash).first<{ body: ArrayBuffer | number[] }>();
  const bytes = (body: ArrayBuffer | number[]) => (Array.isArray(body) ? Uint8Array.from(body) : new Uint8Array(body));
  const stored = bytes(row.body);
  const json = documentText(bytes(composed!.body));
  const whole = packDocument(json, 10);
  const forms = {
    delta: [stored, row.refs, row.base],
    packed: [whole, row.refs, null],
    unpacked: [json, null, null],
  } as const;
  type Form = keyof typeof forms;
  const order: Form[] = row.base ? ['delta', 'packed', 'unpacked'] : ['packed', 'unpacked'];
  const store = (form: Form) =>
    db
      .prepare('update documents set body = ?, refs = ?, base = ? where hash = ?')
      .bind(...forms[form], row.hash)
      .run();
  const reads = [
    ['page as JSON', `${apiUrl}/v1/spaces/${spaceId}/content/page/${pageId}`],
    ['page as Markdown', `${apiUrl}/v1/spaces/${spaceId}/content/page/${pageId}?format=markdown`],
  ] as const;
  const samples = new Map<string, Array<{ rps: number; cpuMs: number }>>();
  for (let round = 0; round < READ_ROUNDS; round++) {
    for (const form of order) {
      await store(form);
      for (const [label, url] of reads) {
        await readLoad(url, token); // warm: the first requests of a form are not its cost
        samples.set(`${label}|${form}`, [...(samples.get(`${label}|${form}`) ?? []), await readLoad(url, token)]);
      }
    }
  }
  await store(order[0]);
  const what = row.base ? `stored as a delta of ${kb(stored.length)} KB against its first version, ` : '';
  console.log(`\nRead cost of the edited page (${kb(json.length)} KB of JSON, ${what}packed whole to ${kb(whole.length)} KB), ${READ_ROUNDS} rounds of ${READ_SECONDS} s, medians`);
  console.log(`  ${'read'.padEnd(22)} ${order.map((f) => `req/s ${f}`.padStart(15)).join(' ')} ${order.map((f) => `ms CPU ${f}`.padStart(16)).join(' ')}  CPU / unpacked`);
  for (const [label] of reads) {
    const of = (form: Form) => samples.get(`${label}|${form}`)!;
    const cpu = (form: Form) => median(of(form).map((x) => x.cpuMs));
    const rps = (form: Form) => median(of(form).map((x) => x.rps));
    const ratios = order.filter((f) => f !== 'unpacked').map((f) => `${f} ${(cpu(f) / cpu('unpacked')).toFixed(2)}`).join(', ');
    console.log(`  ${label.padEnd(22)} ${order.map((f) => rps(f).toFixed(0).padStart(15)).join(' ')} ${order.map((f) => cpu(f).toFixed(2).padStart(16)).join(' ')}  ${ratios}`);
  }
}

async function main() {
  const pages = readCorpus(CORPUS);
  const markdownBytes = pages.reduce((n, p) => n + Buffer.byteLength(p.markdown), 0);
  const mean = markdownBytes / pages.length;
  const persist = mkdtempSync(path.join(os.tmpdir(), 'dpa-storage-bench-'));
  const { mf, db, apiUrl } = await start({ persist });
  const file = () => fileSize(sqliteFileOf(persist));
  try {
    const call = client(apiUrl);
    const { token, org } = await seedUser(call);
    const empty = await tableSizes(db);
    const emptyFile = file();
    const { spaceId, ids } = await importCorpus(call, token, org.id, pages);
    const imported = await tableSizes(db);
    const importedFile = file();
    const perPage = difference(imported, empty);
    console.log(`\nStorage: ${pages.length} pages of ${path.basename(CORPUS)} written through the API (mean Markdown ${kb(mean)} KB)`);
    console.log(`  ${'table / index'.padEnd(44)} ${'rows'.padStart(7)} ${'KB/page'.padStart(9)} ${'×md'.padStart(8)}`);
    printSizes(perPage, pages.length, mean);
    const pageBytes = total(perPage) / pages.length;
    console.log(`  ${'D1 bytes per page'.padEnd(52)} ${kb(pageBytes).padStart(9)} ${(pageBytes / mean).toFixed(2).padStart(7)}× its Markdown (goal ≤ 2.5×)`);
    const split = await db
      .prepare("select typeof(body) = 'blob' as packed, count(*) as n, sum(length(body)) + sum(coalesce(length(refs), 0)) as bytes from documents group by 1 order by 1 desc")
      .all<{ packed: number; n: number; bytes: number }>();
    for (const part of split.results) {
      const what = part.packed ? 'page documents (packed, with refs)' : 'nodes of page and file maps (JSON)';
      console.log(`  ${`  of documents: ${what}`.padEnd(44)} ${String(part.n).padStart(7)} ${kb(part.bytes / pages.length).padStart(9)} ${(part.bytes / pages.length / mean).toFixed(2).padStart(7)}×`);
    }
    console.log(`  in the SQLite file, per page: ${fileGrowth(importedFile, emptyFile, pages.length, mean)}`);
    console.log(`  one 10 GB database holds about ${Math.floor((10 * 1024 ** 3) / pageBytes).toLocaleString('en')} such pages`);

    // A one-page edit: the page nearest the mean size gets one sentence more, in a change request that is merged.
    const index = pages.reduce((best, p, i) => (Math.abs(p.markdown.length - mean) < Math.abs(pages[best].markdown.length - mean) ? i : best), 0);
    const edited = `${pages[index].markdown.trimEnd()}\n\nOne sentence added by the storage benchmark.\n`;
    const before = await tableSizes(db);
    const beforeFile = file();
    const cr = (await call('POST', `/v1/spaces/${spaceId}/change-requests`, token, { subject: 'One edit' })).body;
    await call('POST', `/v1/spaces/${spaceId}/change-requests/${cr.number}/content?compat=false`, token, {
      changes: [{ operation: 'update_page', page: ids[index], document: { markdown: edited } }],
    });
    const writerTrips = async () => ((await (await fetch(`${apiUrl}/__bench/writer-round-trips/${spaceId}`)).json()) as { roundTrips: number }).roundTrips;
    const tripsBefore = await writerTrips();
    await call('POST', `/v1/spaces/${spaceId}/change-requests/${cr.number}/merge`, token);
    const mergeTrips = (await writerTrips()) - tripsBefore;
    const edit = difference(await tableSizes(db), before);
    const editMarkdown = Buffer.byteLength(edited);
    console.log(`\nOne-page edit merged (a page of ${kb(editMarkdown)} KB of Markdown): what D1 grew by`);
    printSizes(edit, 1, editMarkdown);
    const editBytes = total(edit);
    console.log(`  ${'D1 bytes per one-page edit'.padEnd(52)} ${kb(editBytes).padStart(9)} ${(editBytes / editMarkdown).toFixed(2).padStart(7)}× its Markdown (goal ≤ 1×)`);
    console.log(`  D1 round trips of its merge in the SpaceWriter (fast-forward, search and link indexes included): ${mergeTrips} (goal ≤ 3)`);
    console.log(`  of it the FTS5 index ${(ftsPart(edit) / editMarkdown).toFixed(2)}× (its segment, pending until automerge: see the last edit below)`);
    console.log(`  in the SQLite file: ${fileGrowth(file(), beforeFile, 1, editMarkdown)}`);
    const page = (await call('GET', `/v1/spaces/${spaceId}/content/page/${ids[index]}`, token)).body;
    const form = await db.prepare('select length(body) as n, base from documents where hash = ?').bind(page.documentId).first<{ n: number; base: string | null }>();
    console.log(`  the page's new document: ${form!.base ? `a delta of ${form!.n} bytes against its previous version` : `stored whole, ${form!.n} bytes`}`);
    await editsAndHistory(call, db, apiUrl, token, file, { spaceId, page: ids[index], markdown: edited, pageCount: pages.length, mean });
    await readCost(db, apiUrl, token, spaceId, ids[index]);
    await settledEdit(call, db, token, { spaceId, page: ids[index], markdown: edited });
  } finally {
    await mf.dispose();
    rmSync(persist, { recursive: true, force: true });
  }
}

await main();
