import { sql, type SQL } from 'drizzle-orm';
import { rawAll, type Db } from '../../db/client';
import type { JSONDocument } from '../markdown/document';
import { parseStoredBodyNative } from './packed-form';
import { composedBodySql } from './packed-sql';
import type { PageMarkdown } from './presenter';
import type { ReadPage } from './revisions';

/**
 * The Markdown of every page of a whole-tree read (the page list, a revision) and of a page read's subpages (reads'
 * pageJson), read as the list is written rather than all before it: the list held every page's Markdown (and, for a
 * document stored without Markdown, converted it) before its first byte, so a 717-page space's list went over a 48 MB
 * heap that its import stayed under (issue 40); a read of its 632-page group did the same. Now:
 * - the tree statement answers, beside the tree, the stored bodies of its documents (since migration 0051 every page
 *   document is stored without its Markdown) within TREE_MARKDOWN_BUDGET bytes (`budgetedMarkdownRowsSql`; a space
 *   under it costs no round trip more than before), and names the others (`more`);
 * - the list asks, before it writes a page whose Markdown is not held, for the Markdown of the pages that follow it in
 *   the list's order (that page first), within BATCH_MARKDOWN_BUDGET bytes and BATCH_DOCUMENTS documents: one
 *   statement a batch, so a large space's list costs a round trip per 256 KiB of stored documents over the first;
 * - a page's body is converted to Markdown when the page is written, and dropped once the list is past the last page
 *   that shows it.
 * What is held at once is then the tree and about two budgets of bodies, whatever the space's size. The bytes written
 * are those of the Markdown read whole (tests `space-content/large-group-reads`, `page-read-subtree-bounded`).
 */

/**
 * Bytes of stored bodies (or characters of stored Markdown) the tree statement answers with the tree: beyond, read as
 * the list is written. Small, because the D1 binding answers a BLOB as an array of numbers (one element a byte, through
 * JSON text of about 3.6 characters a byte): 256 KiB of packed bodies cost some 2-3 MB of heap while they are read.
 */
export const TREE_MARKDOWN_BUDGET = 256 * 1024;
/** The same bound for a later read (its first document always, whatever its size). */
export const BATCH_MARKDOWN_BUDGET = 256 * 1024;
/** Documents a later read asks for at most. */
export const BATCH_DOCUMENTS = 100;

/**
 * One row per distinct document of `hashes` (a subquery with a `hash` column and an `at` column: the order the reader
 * needs them in), keyed by its hash: kind `markdown` with the Markdown it was stored with, or `body` with its body (a
 * document stored before migration 0015, which the Worker converts), while the running total of their lengths stays
 * within `budget` (the first row always); after that, kind `more` with no value: the reader asks for it later. A hash
 * that names no document has no row.
 */
export function budgetedMarkdownRowsSql(hashes: SQL, budget: number): SQL {
  const within = sql`(m.running <= ${sql.raw(String(Math.floor(budget)))} or m.i = 1)`;
  return sql`select case when ${within} then m.kind else 'more' end as kind, m.hash as key, case when ${within} then m.value end as value
    from (select s.kind, s.hash, s.value, sum(length(s.value)) over (order by s.at, s.hash rows unbounded preceding) as running,
        row_number() over (order by s.at, s.hash) as i
      from (select case when d.markdown is null then 'body' else 'markdown' end as kind, h.hash as hash, coalesce(d.markdown, ${composedBodySql('d')}) as value, h.at as at
        from (select hash, min(at) as at from (${hashes}) where hash is not null group by hash) h join documents d on d.hash = h.hash) s) m`;
}

/** The statement of a later read: the documents `wanted` (hashes, in the order they are needed). */
function batchSql(wanted: string[]): SQL {
  return budgetedMarkdownRowsSql(sql`select value as hash, key as at from json_each(${JSON.stringify(wanted)})`, BATCH_MARKDOWN_BUDGET);
}

type MarkdownRow = { kind: string; key?: string | null; n?: number | string; value: unknown };
type Writer = typeof import('../markdown/to-markdown');
type Generated = (computed: NonNullable<ReadPage['generated']>, seed: string) => JSONDocument;

/** A document page's stored document, whose Markdown the list writes (a generated page's is generated, not read). */
const documentOf = (page: ReadPage): string | undefined => (page.generated ? undefined : page.document || undefined);

export interface TreeMarkdownOptions {
  db: Db;
  /**
   * The pages as the list writes them (after computed pages are expanded and a visitor's hidden pages cut): a tree's,
   * or a page read's child pages (the page statement's `markdown`, `body` and `more` rows are of its subtree).
   */
  pages: ReadPage[];
  /** The tree (or page) statement's `markdown`, `body` and `more` rows, among others it ignores. */
  rows: MarkdownRow[];
  /** The Markdown writer and computed pages' generator: given when the tree has computed pages (their generated pages are written). */
  writer?: Writer;
  generated?: Generated;
}

export class TreeMarkdown {
  private readonly db: Db;
  /** Markdown held, by document hash ('' for a document that has no row: an empty body, as before). */
  private readonly held = new Map<string, string>();
  /** Bodies the tree statement answered, converted when their page is written. */
  private readonly bodies = new Map<string, unknown>();
  /** Documents the tree statement named without their Markdown (`more`): read later. */
  private readonly order: ReadPage[] = [];
  private readonly indexOf = new Map<ReadPage, number>();
  /** By page index: the documents whose last page in the list is that page (dropped once the list is past it). */
  private readonly lastUses = new Map<number, string[]>();
  private dropped = 0;
  private writer?: Writer;
  private readonly generated?: Generated;
  /** Later reads made (a test's and the bench's count). */
  reads = 0;

  constructor(options: TreeMarkdownOptions) {
    this.db = options.db;
    this.writer = options.writer;
    this.generated = options.generated;
    const more = new Set<string>();
    for (const row of options.rows) {
      const hash = String(row.key ?? row.n);
      if (row.kind === 'markdown' && typeof row.value === 'string') this.held.set(hash, row.value);
      else if (row.kind === 'body' && row.value !== null && row.value !== undefined) this.bodies.set(hash, row.value);
      else if (row.kind === 'more') more.add(hash);
    }
    // The list's order (pre-order: a page, then its child pages), as pages-json writes it.
    const stack = [...options.pages].reverse();
    const last = new Map<string, number>();
    while (stack.length > 0) {
      const page = stack.pop()!;
      this.indexOf.set(page, this.order.length);
      const hash = documentOf(page);
      if (hash) last.set(hash, this.order.length);
      this.order.push(page);
      for (let i = page.pages.length - 1; i >= 0; i--) stack.push(page.pages[i]);
    }
    for (const [hash, index] of last) this.lastUses.set(index, [...(this.lastUses.get(index) ?? []), hash]);
    // A document of the tree the statement answered no row for has none (as before: its page's Markdown is empty).
    for (const hash of last.keys()) if (!this.held.has(hash) && !this.bodies.has(hash) && !more.has(hash)) this.held.set(hash, '');
  }

  /**
   * Before `page` is written: drops the Markdown of the pages written before it, and reads (or converts) that of the
   * page and of those that follow it when it is not held. Undefined when nothing is to be awaited.
   */
  ready(page: ReadPage): Promise<void> | undefined {
    const index = this.indexOf.get(page);
    if (index === undefined) return undefined;
    for (; this.dropped < index; this.dropped++) for (const hash of this.lastUses.get(this.dropped) ?? []) this.held.delete(hash);
    const hash = documentOf(page);
    if (!hash || this.held.has(hash)) return undefined;
    return this.bodies.has(hash) ? this.convert(hash) : this.read(index);
  }

  /** The Markdown of a page `ready` prepared (the list's PageMarkdown). */
  readonly of: PageMarkdown = (page) => {
    if (page.generated) return this.writer!.documentToMarkdown(this.generated!(page.generated, page.computedSeed ?? page.id));
    const hash = documentOf(page);
    if (!hash) return '';
    const markdown = this.held.get(hash);
    // Only a bug makes this: a page written without `ready` (a 500, never a page shown without its body).
    if (markdown === undefined) throw new Error(`the Markdown of document ${hash} was not read before its page was written`);
    return markdown;
  };

  private async convert(hash: string): Promise<void> {
    const body = this.bodies.get(hash);
    this.bodies.delete(hash);
    this.writer ??= await import('../markdown/to-markdown');
    this.held.set(hash, this.writer.documentToMarkdown(await parseStoredBodyNative<JSONDocument>(body as never)));
  }

  /** Reads the Markdown of the page at `index` and of the pages after it not held, one statement. */
  private async read(index: number): Promise<void> {
    const wanted: string[] = [];
    const asked = new Set<string>();
    for (let i = index; i < this.order.length && wanted.length < BATCH_DOCUMENTS; i++) {
      const hash = documentOf(this.order[i]);
      if (!hash || asked.has(hash) || this.held.has(hash) || this.bodies.has(hash)) continue;
      asked.add(hash);
      wanted.push(hash);
    }
    this.reads++;
    const rows = await rawAll<{ kind: string; key: string; value: unknown }>(this.db, batchSql(wanted));
    const answered = new Set<string>();
    for (const row of rows) {
      answered.add(row.key);
      if (row.kind === 'markdown') this.held.set(row.key, String(row.value));
      else if (row.kind === 'body') this.bodies.set(row.key, row.value);
    }
    // A document with no row has none: its page's Markdown is empty, as when the tree statement read it.
    for (const hash of wanted) if (!answered.has(hash)) this.held.set(hash, '');
    const first = wanted[0];
    if (this.bodies.has(first)) await this.convert(first);
  }
}
