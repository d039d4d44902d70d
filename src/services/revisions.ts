import { inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { documents, revisions, spaceDocuments } from '../db/schema';
import { sha256Hex } from '../lib/ids';
import { valuesOf } from '../lib/sql-lists';
import type { JSONDocument } from './markdown';

/**
 * The content model: a revision's manifest is its page tree, files, variables and reusable contents.
 * Page bodies are not in it: a page names its document by hash, and documents are stored once in
 * `documents`, so a new revision writes only the documents that changed.
 */

export type VariableValue = string | number | boolean;

export interface PageLayout {
  width: 'default' | 'wide';
  cover: boolean;
  coverSize: 'hero' | 'full';
  title: boolean;
  description: boolean;
  tableOfContents: boolean;
  outline: boolean;
  pagination: boolean;
  metadata: boolean;
}

export const DEFAULT_LAYOUT: PageLayout = {
  width: 'default',
  cover: true,
  coverSize: 'hero',
  title: true,
  description: true,
  tableOfContents: true,
  outline: true,
  pagination: true,
  metadata: true,
};

export interface PageEntry {
  id: string;
  type: 'document';
  title: string;
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
  /** Hash of the page's document in `documents`; absent for an empty page. */
  document?: string;
  createdAt: string;
  updatedAt: string;
  pages: PageEntry[];
}

export interface FileEntry {
  id: string;
  name: string;
  contentType: string;
  size: number;
  /** SHA-256 of the bytes: the R2 key is `files/<hash>`. */
  hash: string;
  dimensions?: { width: number; height: number };
}

export interface ReusableContentEntry {
  id: string;
  title: string;
  document?: string;
}

export interface Manifest {
  pages: PageEntry[];
  files: FileEntry[];
  variables: Record<string, VariableValue>;
  reusableContents: ReusableContentEntry[];
}

export function parseManifest(text: string): Manifest {
  const parsed = JSON.parse(text) as Partial<Manifest>;
  return { pages: parsed.pages ?? [], files: parsed.files ?? [], variables: parsed.variables ?? {}, reusableContents: parsed.reusableContents ?? [] };
}

export type RevisionRow = typeof revisions.$inferSelect;

/** A page located in its tree: its parent (null at the root), its siblings and its path. */
export interface PageLocation {
  page: PageEntry;
  parent: PageEntry | null;
  siblings: PageEntry[];
  path: string;
  /** Path of the parent (`''` at the root): where relative links of the page start. */
  parentPath: string;
}

/** Every page of a tree by id, in depth-first order. */
export function indexPages(pages: PageEntry[]): Map<string, PageLocation> {
  const index = new Map<string, PageLocation>();
  const walk = (list: PageEntry[], parent: PageEntry | null, prefix: string) => {
    for (const page of list) {
      const path = prefix ? `${prefix}/${page.slug}` : page.slug;
      index.set(page.id, { page, parent, siblings: list, path, parentPath: prefix });
      walk(page.pages, page, path);
    }
  };
  walk(pages, null, '');
  return index;
}

/** Ids of a page and all its descendants. */
export function subtreeIds(page: PageEntry): string[] {
  const ids = [page.id];
  for (const child of page.pages) ids.push(...subtreeIds(child));
  return ids;
}

/** A URL-safe slug from a title: `Getting Started!` -> `getting-started`. */
export function slugify(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100)
    .replace(/-+$/, '');
  return slug || 'page';
}

/** `base`, or `base-2`, `base-3`... : the first slug no sibling (other than `self`) uses. */
export function uniqueSlug(base: string, siblings: PageEntry[], self?: string): string {
  const taken = new Set(siblings.filter((p) => p.id !== self).map((p) => p.slug));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base.slice(0, 95)}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

export function cloneManifest(manifest: Manifest): Manifest {
  return structuredClone(manifest);
}

// ---------------------------------------------------------------------------------------------
// Documents

/** JSON with object keys sorted, so equal documents hash equally whatever order a client sent. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

export interface StoredDocument {
  hash: string;
  body: string;
}

export async function toStoredDocument(document: JSONDocument): Promise<StoredDocument> {
  const body = canonicalJson(document);
  return { hash: await sha256Hex(body), body };
}

/**
 * Insert statements for new documents of a space, skipping those already stored (content addressing
 * makes that safe), and the space's references to them (what the purge checks before deleting one).
 */
export function insertDocuments(db: Db, spaceId: string, stored: StoredDocument[], now: string) {
  const unique = [...new Map(stored.map((d) => [d.hash, d])).values()];
  if (unique.length === 0) return [];
  return [
    ...unique.map((d) => db.insert(documents).values({ hash: d.hash, body: d.body, createdAt: now }).onConflictDoNothing()),
    // `where true`: after insert-select, SQLite needs it to read `on conflict` as an upsert clause.
    db
      .insert(spaceDocuments)
      .select(sql`select ${spaceId}, value from json_each(${JSON.stringify(unique.map((d) => d.hash))}) where true`)
      .onConflictDoNothing(),
  ];
}

/** The references of a new space to the documents of revision `revisionId` (a duplicate shares them). */
export function copyDocumentReferences(db: Db, spaceId: string, revisionId: string) {
  return db
    .insert(spaceDocuments)
    .select(sql`select distinct ${spaceId}, j.value from revisions r, json_tree(r.manifest) j where r.id = ${revisionId} and j.key = 'document'`)
    .onConflictDoNothing();
}

export async function loadDocuments(db: Db, hashes: string[]): Promise<Map<string, JSONDocument>> {
  if (hashes.length === 0) return new Map();
  const rows = await db.select().from(documents).where(inArray(documents.hash, valuesOf(hashes))).all();
  return new Map(rows.map((row) => [row.hash, JSON.parse(row.body) as JSONDocument]));
}
