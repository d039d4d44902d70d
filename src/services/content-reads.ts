import { eq, sql, type SQL } from 'drizzle-orm';
import { runBatch, type BatchItem, type Db } from '../db/client';
import { changeRequests, documents, revisions } from '../db/schema';
import type { Env } from '../env';
import { ApiError } from '../lib/errors';
import { pageParams, toPage } from '../lib/pagination';
import { RANK } from '../lib/roles';
import { changeRequestAppUrl, toChangeRequest } from '../schemas/change-request';
import { urlContext, type UrlContext } from '../schemas/common';
import { spaceAppUrl } from '../schemas/space';
import { toRevision, toRevisionFile, toRevisionPage, type ContentUrls } from '../schemas/revision';
import { dereferenceDocument, evaluateDocument, reusableContentIds } from './evaluate';
import { documentToMarkdown, type JSONDocument } from './markdown';
import { changeRequestMatch, changeRequestQuery, requireChangeRequest, type ChangeRequestWithContext } from './change-requests';
import { createSigner, downloadUrl } from './files';
import { indexPages, loadDocuments, parseManifest, type FileEntry, type Manifest, type RevisionRow } from './revisions';
import { checkSpace, selectSpaceWithRank, type SpaceWithRank } from './spaces';

/**
 * Reads of a space's content or of a change request's: the space (with the caller's role), the
 * revision, and on demand one page's document and the change request a merge revision came from,
 * all in one batch.
 */

export type ContentSource = { spaceId: string; changeRequest?: string };

export interface ContentRead {
  space: SpaceWithRank;
  changeRequest?: ChangeRequestWithContext;
  revision: RevisionRow;
  manifest: Manifest;
  urls: ContentUrls;
  /** The requested page's document (canonical JSON), null when the page is empty or absent. */
  documentBody: string | null;
  mergedFrom?: ChangeRequestWithContext;
}

function revisionIdOf(source: ContentSource): SQL {
  if (source.changeRequest === undefined) return sql`(select s.revision_id from spaces s where s.id = ${source.spaceId})`;
  return sql`(select ${changeRequests.revisionId} from ${changeRequests} where ${changeRequestMatch(source.spaceId, source.changeRequest)})`;
}

/** The body of page `pageId` of the revision: its `document` hash is found next to its `id` in the manifest. */
function pageDocumentQuery(db: Db, revisionId: SQL, pageId: string) {
  return db
    .select({ body: documents.body })
    .from(documents)
    .where(
      sql`${documents.hash} = (
        select doc.value from revisions r, json_tree(r.manifest, '$.pages') page_id, json_tree(r.manifest, '$.pages') doc
        where r.id = ${revisionId} and page_id.key = 'id' and page_id.value = ${pageId}
          and doc.parent = page_id.parent and doc.key = 'document' limit 1)`,
    );
}

export async function readContent(
  db: Db,
  source: ContentSource,
  userId: string,
  options: { pageId?: string; withMergedFrom?: boolean; urls: UrlContext },
): Promise<ContentRead> {
  const revisionId = revisionIdOf(source);
  const statements: BatchItem[] = [selectSpaceWithRank(db, source.spaceId, userId), db.select().from(revisions).where(eq(revisions.id, revisionId))];
  const extra: Record<string, number> = {};
  const add = (name: string, statement: BatchItem) => {
    extra[name] = statements.length;
    statements.push(statement);
  };
  if (source.changeRequest !== undefined) add('cr', changeRequestQuery(db, changeRequestMatch(source.spaceId, source.changeRequest)));
  if (options.pageId !== undefined) add('page', pageDocumentQuery(db, revisionId, options.pageId));
  if (options.withMergedFrom) {
    add('mergedFrom', changeRequestQuery(db, sql`${changeRequests.id} = (select r.merged_from from revisions r where r.id = ${revisionId})`));
  }
  const results = (await runBatch(db, statements)) as unknown[][];
  const space = checkSpace(results[0] as SpaceWithRank[], RANK.read, true);
  const cr = extra.cr !== undefined ? requireChangeRequest(results[extra.cr][0] as ChangeRequestWithContext | undefined) : undefined;
  const revision = results[1][0] as RevisionRow | undefined;
  if (!revision) throw new ApiError(404, 'Revision not found');
  const app = cr
    ? changeRequestAppUrl(options.urls, space.space.orgId, space.space.id, cr.cr.number)
    : spaceAppUrl(options.urls, space.space.orgId, space.space.id);
  return {
    space,
    changeRequest: cr,
    revision,
    manifest: parseManifest(revision.manifest),
    urls: { app },
    documentBody: extra.page !== undefined ? ((results[extra.page][0] as { body: string } | undefined)?.body ?? null) : null,
    mergedFrom: extra.mergedFrom !== undefined ? (results[extra.mergedFrom][0] as ChangeRequestWithContext | undefined) : undefined,
  };
}

/** API files with freshly signed download URLs. */
export async function toApiFiles(env: Env, origin: string, files: FileEntry[]) {
  const sign = createSigner(env);
  const now = Date.now();
  return Promise.all(files.map(async (file) => toRevisionFile(file, await downloadUrl(env, origin, file, now, sign))));
}

/** Files of a revision, a page at a time; the cursor is the last file's position and id (files are only appended). */
export function pageOfFiles(files: FileEntry[], query: { page?: string; limit?: number }) {
  const { cursor, limit } = pageParams(query);
  let start = 0;
  if (cursor) {
    const [position, id] = cursor;
    const at = files.findIndex((f) => f.id === id);
    start = (at >= 0 ? at : Number(position)) + 1;
  }
  const rows = files.slice(start, start + limit + 1).map((file, i) => ({ file, position: start + i }));
  return toPage(rows, limit, files.length, (r) => [r.position, r.file.id], (r) => r.file);
}

export function findFile(manifest: Manifest, fileId: string): FileEntry {
  const file = manifest.files.find((f) => f.id === fileId);
  if (!file) throw new ApiError(404, 'File not found');
  return file;
}

export type PageFormat = 'document' | 'markdown';
export interface PageOptions {
  format: PageFormat;
  evaluated: boolean | 'deterministic-only';
  dereferenced: boolean | 'reusable-contents';
}

/** The page of a content read with its body, as a document or Markdown, evaluated and dereferenced on demand. */
export async function pageWithContent(db: Db, read: ContentRead, pageId: string, options: PageOptions) {
  const location = indexPages(read.manifest.pages).get(pageId);
  if (!location) throw new ApiError(404, 'Page not found');
  const page = toRevisionPage(location.page, read.urls, location.parentPath);
  let document: JSONDocument = read.documentBody ? (JSON.parse(read.documentBody) as JSONDocument) : { object: 'document', data: {}, nodes: [] };
  if (options.dereferenced) document = await dereference(db, read.manifest, document);
  if (options.evaluated) document = evaluateDocument(document, read.manifest.variables, location.page.variables);
  if (options.format === 'document') return { ...page, document };
  // Written the way content batches read Markdown back: the title as the leading heading, the
  // description as frontmatter, so a page read and posted back as Markdown stays the same page.
  const frontmatter = location.page.description ? { description: location.page.description } : undefined;
  return { ...page, markdown: documentToMarkdown(document, { title: location.page.title, frontmatter }) };
}

async function dereference(db: Db, manifest: Manifest, document: JSONDocument): Promise<JSONDocument> {
  const wanted = new Set(reusableContentIds(document));
  const hashes = manifest.reusableContents.filter((rc) => wanted.has(rc.id) && rc.document).map((rc) => [rc.id, rc.document!] as const);
  if (hashes.length === 0) return document;
  const bodies = await loadDocuments(db, hashes.map(([, hash]) => hash));
  const reusable = new Map(hashes.flatMap(([id, hash]) => (bodies.has(hash) ? [[id, bodies.get(hash)!] as const] : [])));
  return dereferenceDocument(document, reusable);
}

// ---------------------------------------------------------------------------------------------
// Responses shared by the space content and change request content routes

/** One content read request: who asks, about which content, through which URL (for `urls` and download links). */
export interface ContentRequest {
  db: Db;
  env: Env;
  url: string;
  userId: string;
  source: ContentSource;
}

const readFor = (r: ContentRequest, options: { pageId?: string; withMergedFrom?: boolean; urls?: UrlContext } = {}) =>
  readContent(r.db, r.source, r.userId, { ...options, urls: options.urls ?? urlContext(r.url, r.env.APP_URL) });

export async function revisionResponse(r: ContentRequest) {
  const urls = urlContext(r.url, r.env.APP_URL);
  const read = await readFor(r, { withMergedFrom: true, urls });
  const files = await toApiFiles(r.env, new URL(r.url).origin, read.manifest.files);
  const mergedFrom = read.mergedFrom ? toChangeRequest(read.mergedFrom, urls) : undefined;
  return toRevision(read.revision, read.manifest, read.urls, files, mergedFrom);
}

export async function pagesResponse(r: ContentRequest) {
  const read = await readFor(r);
  return { pages: read.manifest.pages.map((page) => toRevisionPage(page, read.urls)) };
}

export async function filesResponse(r: ContentRequest, query: { page?: string; limit?: number }) {
  const read = await readFor(r);
  const page = pageOfFiles(read.manifest.files, query);
  return { ...page, items: await toApiFiles(r.env, new URL(r.url).origin, page.items) };
}

export async function fileResponse(r: ContentRequest, fileId: string) {
  const read = await readFor(r);
  const [file] = await toApiFiles(r.env, new URL(r.url).origin, [findFile(read.manifest, fileId)]);
  return file;
}

export async function pageResponse(r: ContentRequest, pageId: string, options: PageOptions) {
  return pageWithContent(r.db, await readFor(r, { pageId }), pageId, options);
}
