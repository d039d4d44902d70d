import { inArray, sql } from 'drizzle-orm';
import { documents, revisions, spaceDocuments } from '../../db/schema/index';
import { sha256Base64Url } from '../../lib/ids';
import { valuesOf } from '../../lib/sql-lists';
import type { JSONDocument } from '../markdown/document';
import { DEFAULT_PAGE_LAYOUT, type PageLayoutFrontmatter } from '../markdown/page-layout';
import type { ComputedRevisionSource, GeneratedContent } from '../openapi/computed-pages';
import { rawAll, rawRun, rowsOf, type Db } from '../../db/client';
import { canonicalJson } from './canonical-json';
import { deltaAgainst, rememberBase, rememberedBase, type DeltaBase } from './document-deltas';
import { composedBodySql, documentRefs, packDocument, packedBytes, parseStoredBody, type PackingBudget, type StoredBody } from './packed-documents';

// Kept apart (a cold page read evaluates them without this module), and still reached through it.
export { canonicalJson } from './canonical-json';
export { firstFreeSlug, slugify, slugOfTitle, transliteratedSlug, UNREADABLE_TITLE_SLUG, uniqueSlug } from './slugs';
export { copyDocumentReferences } from './document-references';

/**
 * The content model's value types. A revision is a page map and a file map (services/content: pages
 * as records with their parent and child list, in persistent tries of content-addressed nodes) plus
 * its variables and reusable contents. Page bodies are not in the records: a page names its document
 * by hash, and documents are stored once in `documents`. `Manifest` is the same content as one nested
 * value: what whole-tree reads return and what tests and conversions build.
 */

export type VariableValue = string | number | boolean;

/** A page's layout: the fields GitBook's front matter `layout:` sets (read by the Markdown converter). */
export type PageLayout = PageLayoutFrontmatter;
export const DEFAULT_LAYOUT: PageLayout = DEFAULT_PAGE_LAYOUT;

export interface PageEntry {
  id: string;
  /**
   * `group` (GitBook's `RevisionPageGroup`): a heading of the top level that holds pages, as a SUMMARY.md `## Title`
   * writes it. No document, no front matter of a page (description, layout, variables); its slug is part of its
   * pages' paths. Only at the top level, and never inside another group.
   */
  type: 'document' | 'group';
  title: string;
  /**
   * GitBook's navigation title (`linkTitle`, 0.202.0's RevisionPageBase): the page's name in the table of contents,
   * pagination and links, where it differs from its title. Git Sync: the quoted title of its SUMMARY.md item
   * (`* [Page main title](page.md "Page link title")`).
   */
  linkTitle?: string;
  slug: string;
  emoji?: string;
  icon?: string;
  description?: string;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  condition?: string;
  layout?: PageLayout;
  variables?: Record<string, VariableValue>;
  /** Hash of the page's document in `documents`; absent for an empty page (and for a computed page). */
  document?: string;
  /**
   * A computed page (services/openapi/computed-pages): what its content is generated from, as given.
   * It has no document and no stored child pages of its own.
   */
  computed?: ComputedRevisionSource;
  /** The seed of the ids of the pages it generates: its id when it became computed, kept across updates. */
  computedSeed?: string;
  /** Git Sync: the blob the page was last imported from and its path from the repository's root (GitBook's GitSyncBlob). */
  git?: GitSyncBlob;
  /**
   * A link page (GitBook's `RevisionPageLink`): an entry of the table of contents that leads elsewhere, as a
   * SUMMARY.md item `* [Status](https://status.example.com)` writes it. No document and no child pages.
   */
  link?: PageLinkTarget;
  createdAt: string;
  updatedAt: string;
  pages: PageEntry[];
}

export { isGroupPage } from './tree-rows';

/**
 * Where a link page leads: a URL (GitBook's `ContentRefURL`, `* [Status](https://status.example.com)` in a SUMMARY.md),
 * or an anchor of a page of the space (GitBook's `ContentRefAnchor`, `* [Buttons](formatting/inline.md#buttons)` beside
 * the page's own item, as GitBook's own documentation has it).
 */
export type PageLinkTarget = { kind: 'url'; url: string } | { kind: 'anchor'; page: string; anchor: string };

/** GitBook's `GitSyncBlob`: a blob of the synced repository and its path from the repository's root. */
export interface GitSyncBlob {
  oid: string;
  path: string;
}

/**
 * A page as a read returns it: with `computed=true`, a computed page becomes the document page it
 * generates (`generated` says from what, and what its body is), with generated child pages. Never stored.
 */
export interface ReadPage extends PageEntry {
  pages: ReadPage[];
  generated?: GeneratedContent;
}

export interface FileEntry {
  id: string;
  name: string;
  contentType: string;
  size: number;
  /** SHA-256 of the bytes: the R2 key is `files/<hash>`. */
  hash: string;
  dimensions?: { width: number; height: number };
  /** Git Sync: the blob the file was imported from (GitBook's GitSyncBlob). */
  git?: GitSyncBlob;
}

export interface ReusableContentEntry {
  id: string;
  title: string;
  document?: string;
  /** Git Sync: the blob under `.gitbook/includes/` the content was imported from (GitBook's GitSyncBlob). */
  git?: GitSyncBlob;
}

export interface Manifest {
  pages: PageEntry[];
  files: FileEntry[];
  variables: Record<string, VariableValue>;
  reusableContents: ReusableContentEntry[];
}

export type RevisionRow = typeof revisions.$inferSelect;


// ---------------------------------------------------------------------------------------------
// Documents


export interface StoredDocument {
  hash: string;
  /** The canonical JSON (what the hash is of). */
  body: string;
  /** A page document's or reusable content's stored form: `body` packed (nodes of the maps have none). */
  packed?: Uint8Array;
  /** With `packed`: what statements look up inside the document (packed-documents' documentRefs). */
  refs?: string;
  /** When `packed` is a delta (document-deltas): the whole document it is the difference from. */
  base?: string;
  /** With `base`: the document packed whole, stored instead when the base is no longer there. */
  whole?: Uint8Array;
}

/**
 * A document's name: the first 128 bits of its canonical JSON's SHA-256 in base64url, as tree nodes are named
 * (tree.ts NODE_HASH_CHARS says why 128 bits are enough). A document's name is repeated in its row, its key's index,
 * the space's reference to it and that one's index, and its page's record in the page map: 22 characters where hex
 * took 64 are 0.2 KB less per page and per edit of a page (issue 42, storage). Documents written before keep their hex
 * names (a name names its content whatever its form; the same content written again is stored under the new name).
 */
const DOCUMENT_HASH_CHARS = 22;
export const documentHash = async (canonical: string) => (await sha256Base64Url(canonical)).slice(0, DOCUMENT_HASH_CHARS);

/**
 * A page document or reusable content as stored: its canonical JSON's hash, the JSON packed and its refs. It is the
 * one stored form of a page (issue 42): its Markdown is derived from it where a read asks for Markdown, not stored
 * beside it (migration 0051 dropped the copies), and its JSON is stored compressed (migration 0052).
 */
export async function toStoredDocument(document: JSONDocument, budget?: PackingBudget): Promise<StoredDocument> {
  const body = canonicalJson(document);
  return { hash: await documentHash(body), body, packed: packDocument(body, budget?.qualityFor(body.length)), refs: documentRefs(document) };
}

/**
 * Insert statements for new documents of a space, skipping those already stored (content addressing
 * makes that safe), and the space's references to them (what the purge checks before deleting one).
 * A space that refers to a delta refers to its base too (as the row stored has it, whoever stored it first), so the
 * base stays while any space can read the delta (history collection and the purge go by references).
 */
export function insertDocuments(db: Db, spaceId: string, stored: StoredDocument[], now: string) {
  const unique = [...new Map(stored.map((d) => [d.hash, d])).values()];
  if (unique.length === 0) return [];
  const hashes = JSON.stringify(unique.map((d) => d.hash));
  // A document already stored by another space as a delta of a base this space does not refer to is made whole here
  // (this space holds its whole body): a space's references never reach another space's earlier content through a
  // shared document's base, so reading a document by id (documentResponse) finds only what the space itself had.
  const whole = (d: StoredDocument) =>
    db
      .insert(documents)
      .values({ hash: d.hash, body: d.whole ?? d.packed ?? d.body, refs: d.refs ?? null, createdAt: now })
      .onConflictDoUpdate({
        target: documents.hash,
        set: { body: sql`excluded.body`, base: null },
        setWhere: sql`${documents.base} is not null and ${documents.base} not in (select hash from space_documents where space_id = ${spaceId})`,
      });
  // A delta only onto a base stored whole and packed (checked in the batch's transaction: what the writer remembers of
  // it may be gone); the whole document after it is stored only if the delta was not, or stands in for another space's
  // delta (above).
  const delta = (d: StoredDocument) =>
    rawRun(
      db,
      sql`insert into documents (hash, body, refs, base, created_at) select ${d.hash}, ${d.packed!}, ${d.refs ?? null}, ${d.base!}, ${now}
        where exists (select 1 from documents b where b.hash = ${d.base!} and b.base is null and typeof(b.body) = 'blob') on conflict do nothing`,
    );
  return [
    ...unique.flatMap((d) => (d.base ? [delta(d), whole(d)] : [whole(d)])),
    // `where true`: after insert-select, SQLite needs it to read `on conflict` as an upsert clause.
    db
      .insert(spaceDocuments)
      .select(
        sql`select ${spaceId}, value from json_each(${hashes})
          union select ${spaceId}, d.base from documents d where d.hash in (select value from json_each(${hashes})) and d.base is not null`,
      )
      .onConflictDoNothing(),
  ];
}


export async function loadDocuments(db: Db, hashes: string[]): Promise<Map<string, JSONDocument>> {
  if (hashes.length === 0) return new Map();
  const rows = await db
    .select({ hash: documents.hash, body: sql<StoredBody>`${composedBodySql('documents')}` })
    .from(documents)
    .where(inArray(documents.hash, valuesOf(hashes)))
    .all();
  return new Map(rows.map((row) => [row.hash, parseStoredBody<JSONDocument>(row.body)]));
}

/**
 * For each of `hashes` (the documents edited pages had), the whole document a new version may be stored against
 * (document-deltas): the document itself when stored whole and packed, else the base it is a delta of. One statement.
 */
export async function loadDeltaBases(db: Db, hashes: string[]): Promise<Map<string, DeltaBase>> {
  const found = new Map<string, DeltaBase>();
  for (const hash of hashes) {
    const base = rememberedBase(hash);
    if (base) found.set(hash, base);
  }
  const missing = hashes.filter((hash) => !found.has(hash));
  if (missing.length === 0) return found;
  const rows = rowsOf<{ hash: string; base: string; body: StoredBody }>(
    await rawAll(
      db,
      sql`select d.hash, coalesce(d.base, d.hash) as base, coalesce(b.body, d.body) as body
        from documents d left join documents b on b.hash = d.base
        where d.hash in (select value from json_each(${JSON.stringify(missing)})) and typeof(coalesce(b.body, d.body)) = 'blob'`,
    ),
  );
  for (const row of rows) found.set(row.hash, { hash: row.base, packed: packedBytes(row.body as Exclude<StoredBody, string>) });
  return found;
}

/** A new version of a document, stored as a delta against `base` when that is small enough (document-deltas). */
export function asDelta(stored: StoredDocument, base: DeltaBase | undefined): StoredDocument {
  const delta = stored.packed && base && base.hash !== stored.hash ? deltaAgainst(stored.body, base, stored.packed) : null;
  if (delta) {
    rememberBase(stored.hash, base!);
    return { ...stored, packed: delta, base: base!.hash, whole: stored.packed };
  }
  if (stored.packed) rememberBase(stored.hash, { hash: stored.hash, packed: stored.packed });
  return stored;
}
