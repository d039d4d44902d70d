import { and, eq, getTableColumns, isNull, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { lookedUpToken, rawAll, rawAllOfShape, rowsOf, runBatch, selectOfBuiltShape, type BatchItem, type Db } from '../../db/client';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { changeRequests, revisions, spaces } from '../../db/schema/index';
import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { pageParams, toPage } from '../../lib/keyset-pages';
import { RANK } from '../../lib/roles';
import { changeRequestAppUrl } from '../../schemas/mappers';
import { urlContext, type UrlContext } from '../../schemas/mappers';
import type { PageOptions } from '../../schemas/page-query';
import { spaceAppUrl } from '../../schemas/mappers';
import { toChangeRequest, toRevision, toRevisionFile, toRevisionPage, type ContentUrls, type PageMarkdown } from './presenter';
import { pagesJsonStream } from './pages-json';
import { budgetedMarkdownRowsSql, TREE_MARKDOWN_BUDGET, TreeMarkdown } from './tree-markdown';
import { expandPage, expandPages, findGenerated, generatedDocument, generatedDocuments, readSpecState, type SpecState } from '../openapi/computed-pages';
import { siteTokenSpaceQuery, type SiteTokenPayload } from '../sites/site-token';
import { dereferenceDocument, evaluateDocument, reusableContentIds } from './evaluate';
import type { JSONDocument } from '../markdown/document';
import { PAGE_FIELD_FRONTMATTER_KEYS } from '../markdown/page-fields';
import { layoutFrontmatter } from '../markdown/page-layout';
import { CHANGE_REQUEST_NUMBER, changeRequestMatch, changeRequestOfSpaceQuery, changeRequestQuery, requireChangeRequest, type ChangeRequestWithContext } from './change-requests';
import { createSigner, downloadUrl } from './files';
import { parseMeta, type RevisionMeta } from './convert';
import { entryOf, nestPages, ROOT, type ChildRef, type PageRecord, type TreeRecord } from './pages';
import { chunkLists, wholeTree } from './tree-rows';
import { leavesSql, lookupSql, SAFE_KEY } from './tree';
import { pageStatement, pageStatementValues } from './page-statement';
import { constantSelect } from '../../db/constant-select';
import { composedBodySql, documentRefsSql, storedBodySql } from './packed-sql';
import { parseStoredBodyNative } from './packed-form';
import { documentTextOf, knownDocumentHint, markdownOf, type DocumentHint } from './document-cache';
import { heldPageRows, holdPageRows, type HeldPageRows } from './page-rows-cache';
import type { FileEntry, PageEntry, ReadPage, ReusableContentEntry } from './revisions';
import { checkSpace, type SpaceWithRank } from '../spaces/spaces';
import { spaceRoleSql } from '../access/access';

/**
 * Reads of a space's content or of a change request's: the space (with the caller's role), the
 * revision, and what the read needs of its page and file maps (one page with its ancestors and
 * subtree, a file, a page of files, or everything), all in one batch: one D1 round trip, whose cost
 * depends on what is read, not on the size of the space (see services/content/tree).
 */

/**
 * Whose content: the space's main content, a change request's (by id or number), or any revision of
 * the space by id (`revision`; one of another space is in none).
 * `published`: read as a site token's visitor (services/sites/site-token), instead of as a member: only
 * while the token's site publishes the space, and only its published content (the space's current
 * revision: an older one, like a change request, is not found).
 */
export type ContentSource = { spaceId: string; changeRequest?: string; revision?: string; published?: SiteTokenPayload };

/** What of the revision's maps a read needs. */
export interface ContentWanted {
  /** One page: its record, its ancestors (for its path), its subtree and its document. */
  page?: string;
  /** One page by its path (its slugs from the top level), read like `page`. */
  path?: string[];
  /**
   * With `page` or `path`: the documents of the reusable contents the page's document includes, in the
   * same statement, so a dereferenced read costs no round trip more.
   */
  reusable?: boolean;
  /** One reusable content of the revision: its document, and those of the reusable contents it includes. */
  reusableContent?: string;
  /** One file. */
  file?: string;
  /** Files in id order after `after` (a keyset page), `limit + 1` of them. */
  files?: { after: string | null; limit: number };
  /** The whole page tree. */
  tree?: boolean;
  /** Every file. */
  allFiles?: boolean;
  withMergedFrom?: boolean;
  /** The revision's git metadata (GitBook's `Revision.git`: the commit Git Sync imported it from or exported it as). */
  withGit?: boolean;
  /**
   * Expand computed pages (GitBook's `computed=true`): the page and tree statements also return the
   * specs their computed pages name, and a generated page can be read by id. Off by default: the
   * API's reads ask for it; derived work (PDF export, links) reads pages as stored.
   */
  computed?: boolean;
  /**
   * Every document page of the tree, and of the page's subtree, carries its body as Markdown (GitBook's
   * RevisionPageDocument): the tree and page statements also return the Markdown their documents were
   * stored with. The API's reads ask for it; derived work (PDF export, links) does not.
   */
  markdown?: boolean;
}

export interface RevisionHeader {
  id: string;
  parents: string[];
  type: string;
  createdAt: string;
  meta: RevisionMeta;
  pageCount: number;
  fileCount: number;
}

/** A page read by id, located in its tree. */
export interface LocatedPage {
  page: ReadPage;
  parentPath: string;
  /** The conditions of the page's chain, from the page (or the computed page that generated it) up to the top level. */
  conditions: (string | undefined)[];
}

export interface ContentRead {
  space: SpaceWithRank;
  changeRequest?: ChangeRequestWithContext;
  revision: RevisionHeader;
  urls: ContentUrls;
  located?: LocatedPage;
  /** The requested page's document (canonical JSON), null when the page is empty, computed, generated or absent. */
  documentBody: string | null;
  /** The hash `documentBody` is stored under (null with it). */
  documentHash: string | null;
  pages?: ReadPage[];
  files?: FileEntry[];
  /** Files of the revision a site token's visitor may not read (`filesHiddenFrom`), left out of `files`. */
  hiddenFileCount: number;
  mergedFrom?: ChangeRequestWithContext;
  /** With `withGit`: the revision's commit, if Git Sync made or pushed it. */
  git?: { oid: string; message: string; createdByGitBook: boolean; url: string | null; ref: string | null };
  /**
   * With `markdown`: the Markdown body of a page of the tree or of the page's subtree (not the page's own), read as the
   * pages are written: `markdownReady(page)` before each, in the list's order (pages-json does), or `markdownOf` throws.
   */
  markdownOf?: PageMarkdown;
  markdownReady?: (page: ReadPage) => Promise<void> | undefined;
  /** With `reusable` or `reusableContent`. */
  reusable?: ReusableRead;
}

/** Reusable contents a read returned. */
export interface ReusableRead {
  /** Documents of the reusable contents the read document includes, by id (empty ones absent). */
  included: Map<string, JSONDocument>;
  /** With `reusableContent`: its entry in the revision (none: the revision has no such content)... */
  entry?: ReusableContentEntry;
  /** ...and its document (none: it is empty). */
  document?: JSONDocument;
}

/** An id that cannot be a key of a map (see SAFE_KEY) is looked up as one that is in none. */
const safeKey = (id: string) => (SAFE_KEY.test(id) && id !== ROOT ? id : '-');

function revisionIdOf(source: ContentSource): SQL {
  if (source.revision !== undefined && source.published) {
    return sql`(select s.revision_id from spaces s where s.id = ${source.spaceId} and s.revision_id = ${source.revision})`;
  }
  if (source.revision !== undefined) return sql`(select r.id from revisions r where r.id = ${source.revision} and r.space_id = ${source.spaceId})`;
  if (source.changeRequest === undefined) return sql`(select s.revision_id from spaces s where s.id = ${source.spaceId})`;
  return sql`(select ${changeRequests.revisionId} from ${changeRequests} where ${changeRequestMatch(source.spaceId, source.changeRequest)})`;
}

/**
 * `revisionIdOf` with placeholders (`spaceId`, `revision`, `changeRequest`) where its values go, for statements built
 * once per isolate (db/client `rawAllOfShape`, `selectOfShape`): `shape` names its SQL text, `values` fills it.
 */
interface RevisionShape {
  shape: string;
  sql: SQL;
  values: Record<string, unknown>;
}

export function revisionShape(source: ContentSource): RevisionShape {
  const spaceId = sql.placeholder('spaceId');
  const values: Record<string, unknown> = { spaceId: source.spaceId, revision: source.revision, changeRequest: source.changeRequest };
  if (source.revision !== undefined && source.published) {
    return { shape: 'published-revision', values, sql: sql`(select s.revision_id from spaces s where s.id = ${spaceId} and s.revision_id = ${sql.placeholder('revision')})` };
  }
  if (source.revision !== undefined) {
    return { shape: 'revision', values, sql: sql`(select r.id from revisions r where r.id = ${sql.placeholder('revision')} and r.space_id = ${spaceId})` };
  }
  if (source.changeRequest === undefined) return { shape: 'main', values, sql: sql`(select s.revision_id from spaces s where s.id = ${spaceId})` };
  // changeRequestMatch's two forms: by number or by id.
  const byNumber = CHANGE_REQUEST_NUMBER.test(source.changeRequest);
  const match = and(
    eq(changeRequests.spaceId, spaceId),
    byNumber ? eq(changeRequests.number, sql.placeholder('changeRequest')) : eq(changeRequests.id, sql.placeholder('changeRequest')),
  );
  return {
    shape: byNumber ? 'change-request-number' : 'change-request-id',
    values: { ...values, changeRequest: byNumber ? Number(source.changeRequest) : source.changeRequest },
    sql: sql`(select ${changeRequests.revisionId} from ${changeRequests} where ${match})`,
  };
}

const childId = (list: SQL) => sql`json_extract(${list}.value, '$[0]')`;

/**
 * One row per OpenAPI spec of the space's organization whose slug `slugs` (a subquery) gives: what
 * computed pages are generated from (services/openapi/computed-pages `readSpecState`). Only that
 * organization's specs: another's with the same slug is not there.
 */
export function specStatesSql(spaceId: string | Placeholder<string>, slugs: SQL) {
  const json = (column: SQL) => sql`case when json_valid(${column}) then json(${column}) end`;
  return sql`select 'spec', s.slug, json_object('slug', s.slug, 'state', s.processing_state, 'errorCode', s.last_process_error_code,
      'errors', ${json(sql`s.last_processed_errors`)}, 'outline', ${json(sql`v.outline`)}, 'versionCreatedAt', v.created_at,
      'public', s.visibility = 'public')
    from openapi_specs s left join openapi_spec_versions v on v.id = s.last_version_id
    where s.org_id = (select sp.org_id from spaces sp where sp.id = ${spaceId}) and s.slug in (${slugs})`;
}

const SPEC_OF = '$.computed.dependencies.spec.ref.spec';

/**
 * One page of the revision with its ancestors (`up`, level 0 is the page) and its descendants
 * (`down`, through inline child lists and chunked ones), plus the chunks of the lists it returns.
 * With `computed` (the space's id), also the specs its computed pages name, and an id that is in no
 * map but whose part before `-` is (a generated page's) reads that page instead: the computed page
 * that generates it.
 */
function pageTreeQuery(db: Db, rev: RevisionShape, reader: SpaceReader, target: PageTarget, hint: DocumentHint, computed = false, withMarkdown = false, withReusable = false) {
  const byPath = 'path' in target;
  const values = {
    ...rev.values,
    ...(reader.published ? {} : { userId: reader.userId }),
    ...(byPath ? { segments: JSON.stringify(target.path), pathLength: target.path.length } : { pageId: target.id }),
    knownDocument: hint.hash,
  };
  const statement = pageStatement({ revision: rev.shape, published: reader.published, byPath, computed, markdown: withMarkdown, reusable: withReusable });
  return constantSelect(db, statement.text, pageStatementValues(statement, values), (row) => row as PageTreeRow);
}

/**
 * pageTreeQuery's statement, with placeholders: `spaceId` (and what `revisionId` has), `userId` unless `published`,
 * and `pageId`, or with `byPath` `segments` (the path's slugs as a JSON array) and `pathLength`. Its `space` row is
 * what spaceAndRevisionStatement answers (spaceRowSql): a page read is one statement.
 */
export function pageTreeSql(revisionId: SQL, published: boolean, byPath: boolean, computed: boolean, withMarkdown: boolean, withReusable: boolean) {
  const root = sql`(select root from rev)`;
  const find = (key: SQL) => lookupSql(root, key);
  // Every node is read by its hash through a subquery (an index lookup), never joined: a join would
  // let SQLite's planner scan the whole documents table.
  const chunkBody = sql`(select body from documents where hash = json_extract(k.value, '$[0]'))`;
  // D1 allows 5 terms in a compound select: the optional rows are one term, a compound of their own.
  const extras = [
    spaceRowSql(revisionId, published),
    ...(computed ? [specStatesSql(sql.placeholder('spaceId'), sql`select json_extract(rec, ${SPEC_OF}) from up where level = 0 union all select json_extract(rec, ${SPEC_OF}) from down`)] : []),
    // The subtree's Markdown within a budget, the rest named (`more`) and read as the answer is written (tree-markdown):
    // a group of hundreds of pages answered them all here, at once.
    ...(withMarkdown ? [budgetedMarkdownRowsSql(sql`select json_extract(rec, '$.document') as hash, 0 as at from down`, TREE_MARKDOWN_BUDGET)] : []),
    ...(withReusable
      ? [includedReusableSql(revisionId, sql`select json_extract(up.rec, '$.document') from up where up.level = 0`)]
      : []),
  ];
  const pageId = sql.placeholder('pageId');
  const start = byPath ? pathStartSql(find, chunkBody) : sql`start(id) as (select ${computed ? generatedStartSql(find, pageId) : sql`${pageId}`})`;
  return sql`
    with recursive
    rev(root) as (select pages_root from revisions where id = ${revisionId}),
    ${start},
    ${pageTreeWalkSql(find, chunkBody)}
    select 'up' as kind, level as n, rec as value from up where rec is not null
    union all
    select 'down', depth, rec from down where rec is not null
    union all
    select 'document', json_extract(up.rec, '$.document'),
      case when json_extract(up.rec, '$.document') = ${sql.placeholder('knownDocument')} then null
        else ${storedBodySql(sql`json_extract(up.rec, '$.document')`)} end
    from up where up.level = 0 and json_extract(up.rec, '$.document') is not null
    union all
    select 'chunk', json_extract(k.value, '$[0]'), ${chunkBody}
    from (select rec from up where level = 0 union all select rec from down) s cross join json_each(s.rec, '$.chunks') k
    union all select * from (${sql.join(extras, sql` union all `)})`;
}

/**
 * The CTEs `up` (the page, level 0, and its ancestors) and `down` (its subtree, by depth), as views of one recursive
 * walk `tree` whose every row is read from the page map by the walk's one lookup: each row names the rows it leads to
 * (its parent, its children inline and in chunks) and the step looks them up. SQLite compiles a lookup (a four-table
 * join) each time the statement writes one, and local D1 prepares the statement on every page read: one lookup where
 * `up` and `down` wrote six makes its program 41% shorter and its preparation about a third faster
 * (test/bench/statement-compile.ts).
 */
function pageTreeWalkSql(find: (key: SQL) => SQL, chunkBody: SQL) {
  const c = sql.raw('c');
  const key = sql`json_extract(nx.value, '$[1]')`;
  // What a row leads to, as [kind, id, level]: the page itself from `start`, an ancestor's parent, and the children of
  // the page and of every descendant, as far as MAX_DEPTH. D1 allows 5 terms in a compound select.
  const childrenOf = sql`(t.kind = 'up' and t.n = 0) or (t.kind = 'down' and t.n < ${MAX_DEPTH})`;
  const next = sql`(select json_group_array(json_array(x.kind, x.id, x.n)) from (
      select 'up' as kind, t.id as id, 0 as n where t.kind = 'start'
      union all
      select 'up', json_extract(t.rec, '$.parent'), t.n + 1 where t.kind = 'up' and json_extract(t.rec, '$.parent') is not null and t.n < ${MAX_DEPTH}
      union all
      select 'down', ${childId(c)}, t.n + 1 from json_each(t.rec, '$.children') c where ${childrenOf}
      union all
      select 'down', ${childId(c)}, t.n + 1 from json_each(t.rec, '$.chunks') k cross join json_each(${chunkBody}) c where ${childrenOf}
    ) x)`;
  return sql`tree(kind, id, rec, n) as (
      select 'start', start.id, null, -1 from start
      union all
      select json_extract(nx.value, '$[0]'), ${key}, ${find(key)}, json_extract(nx.value, '$[2]') from tree t cross join json_each(${next}) nx
    ),
    up(id, rec, level) as (select id, rec, n from tree where kind = 'up'),
    down(id, rec, depth) as (select id, rec, n from tree where kind = 'down')`;
}

/** What a page read starts from: a page id, or a path of slugs from the top level. */
type PageTarget = { id: string } | { path: string[] };

/**
 * The CTEs `walk` and `start` of a read by path: from the top-level list, each level keeps the child
 * whose slug (stored beside its id in the parent's list, inline or chunked) is the next segment; `start`
 * is the page at the last segment, none when a segment matches no child. Only stored pages are walked:
 * the pages a computed page generates are not found by path.
 */
function pathStartSql(find: (key: SQL) => SQL, chunkBody: SQL) {
  const segments = sql.placeholder('segments');
  const pathLength = sql.placeholder('pathLength');
  const segment = sql`json_extract(${segments}, '$[' || walk.level || ']')`;
  const c = sql.raw('c');
  return sql`walk(level, id) as (
      select 0, ${ROOT}
      union all
      select walk.level + 1, ${childId(c)} from walk cross join json_each(${find(sql`walk.id`)}, '$.children') c
        where walk.level < ${pathLength} and json_extract(c.value, '$[1]') = ${segment}
      union all
      select walk.level + 1, ${childId(c)} from walk cross join json_each(${find(sql`walk.id`)}, '$.chunks') k cross join json_each(${chunkBody}) c
        where walk.level < ${pathLength} and json_extract(c.value, '$[1]') = ${segment}
    ),
    start(id) as (select id from walk where level = ${pathLength} and level > 0 limit 1)`;
}

/**
 * One row of kind `reusable` per reusable content of the revision that the documents `hashes` (a
 * subquery of document hashes) include: its id and its document's body (null for an empty one). What
 * dereferencing those documents needs, read in the statement that reads them (a content included deeper
 * than the top level is read too, and unused).
 */
function includedReusableSql(revisionId: SQL, hashes: SQL) {
  return sql`select 'reusable', json_extract(rc.value, '$.id'), ${storedBodySql(sql`json_extract(rc.value, '$.document')`)}
    from revisions r cross join json_each(r.meta, '$.reusableContents') rc
    where r.id = ${revisionId} and json_extract(rc.value, '$.id') in (${documentRefsSql(hashes, 'reusable')})`;
}

/**
 * One reusable content of the revision: a row of kind `entry` (its entry in the revision's meta), one
 * of kind `document` (its body, when it has one) and the `reusable` rows of the contents it includes.
 */
function reusableContentQuery(db: Db, revisionId: SQL, id: string) {
  return rawAll<PageTreeRow>(db, sql`
    with entry(value) as (
      select rc.value from revisions r cross join json_each(r.meta, '$.reusableContents') rc
      where r.id = ${revisionId} and json_extract(rc.value, '$.id') = ${id} limit 1),
    doc(body) as (select ${storedBodySql(sql`json_extract(entry.value, '$.document')`)} from entry)
    select 'entry' as kind, 0 as n, value from entry
    union all select 'document', 0, body from doc where body is not null
    union all ${includedReusableSql(revisionId, sql`select json_extract(entry.value, '$.document') from entry`)}`);
}

/**
 * The page a read by id starts from with `computed`: the id itself, unless the map has no such page and
 * the part of the id before `-` is a computed page (never the top-level record `~`), which generates it.
 */
function generatedStartSql(find: (key: SQL) => SQL, pageId: Placeholder<string>) {
  const stem = sql`substr(${pageId}, 1, instr(${pageId}, '-') - 1)`;
  return sql`case when instr(${pageId}, '-') > 1 and ${stem} <> ${ROOT} and ${find(sql`${pageId}`)} is null
      and json_extract(${find(stem)}, '$.computed') is not null then ${stem} else ${pageId} end`;
}

/** `n`: a level, a depth, or a hash (`document`, `chunk`, `markdown`, `body`, `more` rows: the document's). */
type PageTreeRow = { kind: 'up' | 'down' | 'document' | 'chunk' | 'spec' | 'markdown' | 'body' | 'more' | 'reusable' | 'entry' | 'space'; n: number | string; value: string };

/** Deeper than any tree a client can build through content batches: a bound on the recursion. */
const MAX_DEPTH = 1000;

/**
 * Every leaf of the page map and every chunk of its child lists; with `computed` (the space's id),
 * also the specs its computed pages name (only leaves that mention `"computed"` are looked into); with
 * `withMeta`, the revision's meta as a row of kind `meta` (the published site reads it with the tree);
 * with `withMarkdown`, the Markdown of its page documents within a budget, the others named (tree-markdown's
 * `budgetedMarkdownRowsSql`: the rest is read as the list is written).
 */
export function wholeTreeQuery(db: Db, revisionId: SQL, computed?: { spaceId: string }, withMeta = false, withMarkdown = false) {
  return rawAll<TreeRow>(db, wholeTreeSql(revisionId, computed?.spaceId, withMeta, withMarkdown));
}

/** `wholeTreeQuery` of a revision shape (readContent's): its text built once per isolate for each of its forms. */
function wholeTreeOfShape(db: Db, rev: RevisionShape, computed: boolean, withMarkdown: boolean) {
  const shape = `wholeTree:${rev.shape}:${computed ? 'computed' : ''}:${withMarkdown ? 'markdown' : ''}`;
  return rawAllOfShape<TreeRow>(db, shape, () => wholeTreeSql(rev.sql, computed ? sql.placeholder('spaceId') : undefined, false, withMarkdown), rev.values);
}

export function wholeTreeSql(revisionId: SQL, computedSpaceId: string | Placeholder<string> | undefined, withMeta: boolean, withMarkdown: boolean) {
  const computed = computedSpaceId === undefined ? undefined : { spaceId: computedSpaceId };
  return sql`
    with leaves(body) as (${leavesSql(sql`(select pages_root from revisions where id = ${revisionId})`)})
    select 'leaf' as kind, null as key, body as value from leaves
    union all
    select 'chunk', json_extract(k.value, '$[0]'), (select body from documents where hash = json_extract(k.value, '$[0]'))
    from leaves l cross join json_each(l.body) e cross join json_each(e.value, '$.chunks') k
    ${withMeta ? sql`union all select 'meta', null, meta from revisions where id = ${revisionId}` : sql``}
    ${computed ? sql`union all ${specStatesSql(computed.spaceId, sql`select json_extract(e.value, ${SPEC_OF}) from leaves l cross join json_each(l.body) e where instr(l.body, '"computed"') > 0`)}` : sql``}
    ${withMarkdown ? sql`union all select * from (${budgetedMarkdownRowsSql(sql`select json_extract(e.value, '$.document') as hash, 0 as at from leaves l cross join json_each(l.body) e`, TREE_MARKDOWN_BUDGET)})` : sql``}`;
}

export type TreeRow = { kind: 'leaf' | 'chunk' | 'spec' | 'meta' | 'markdown' | 'body' | 'more'; key: string | null; value: string };

const filesRootOf = (revisionId: SQL) => sql`(select files_root from revisions where id = ${revisionId})`;

/*
 * readContent's reads of files, of a revision shape: each text built once per isolate (db/client `rawAllOfShape`).
 */

function allFilesQuery(db: Db, rev: RevisionShape) {
  return rawAllOfShape<{ value: string }>(db, `allFiles:${rev.shape}`, () => sql`select body as value from (${leavesSql(filesRootOf(rev.sql))})`, rev.values);
}

function filesPageQuery(db: Db, rev: RevisionShape, after: string | null, limit: number) {
  const build = () => sql`
    select e.value as value from (${leavesSql(filesRootOf(rev.sql))}) l cross join json_each(l.body) e
    where e.key > ${sql.placeholder('after')} order by e.key limit ${sql.placeholder('limit')}`;
  return rawAllOfShape<{ value: string }>(db, `filesPage:${rev.shape}`, build, { ...rev.values, after: after ?? '', limit: limit + 1 });
}

function fileQuery(db: Db, rev: RevisionShape, fileId: string) {
  const build = () => sql`select ${lookupSql(filesRootOf(rev.sql), sql`${sql.placeholder('fileId')}`)} as value`;
  return rawAllOfShape<{ value: string | null }>(db, `file:${rev.shape}`, build, { ...rev.values, fileId });
}

function gitQuery(db: Db, rev: RevisionShape) {
  const build = () => sql`select oid, message, created_by_gitbook as createdByGitBook, url, ref from revision_git where revision_id = ${rev.sql}`;
  return rawAllOfShape<{ oid: string; message: string; createdByGitBook: number; url: string | null; ref: string | null }>(db, `git:${rev.shape}`, build, rev.values);
}

/**
 * The space with the reader's role: a member's, or for a site token's visitor `read` on a live space, the
 * token's site checked in the same batch (the `published` statement, see checkPublished).
 */
/** The revision's header as a content read answers it (`ContentRead['revision']` before its meta is parsed). */
type RevisionHeaderRow = Omit<RevisionHeader, 'meta'> & { meta: string | null };

/**
 * The space with the caller's rank on it (a site token's visitor reads, and only a space not in the trash) and the
 * header of the revision `rev` reads, in one statement: the revision is left-joined, null when there is none. Two
 * statements before; each statement of a batch is work for D1 (under Miniflare, three SQLite calls of its Durable
 * Object), and every content read has both. Built once per isolate for each shape (db/client `selectOfBuiltShape`).
 */
function spaceAndRevisionStatement(db: Db, source: ContentSource, userId: string, rev: RevisionShape) {
  const published = source.published !== undefined;
  const build = () =>
    db
      .select({
        space: spaces,
        rank: published ? sql<number>`${RANK.read}` : spaceRoleSql(sql.placeholder('userId') as unknown as SQL),
        revision: {
          id: revisionColumn(revisions.id),
          parents: revisionColumn(revisions.parents),
          type: revisionColumn(revisions.type),
          createdAt: revisionColumn(revisions.createdAt),
          meta: revisionColumn(revisions.meta),
          pageCount: revisionColumn(revisions.pageCount),
          fileCount: revisionColumn(revisions.fileCount),
        },
      })
      .from(spaces)
      .leftJoin(revisions, eq(revisions.id, rev.sql))
      .where(published ? and(eq(spaces.id, sql.placeholder('spaceId')), isNull(spaces.deletedAt)) : eq(spaces.id, sql.placeholder('spaceId')));
  const values = published ? rev.values : { ...rev.values, userId };
  return selectOfBuiltShape(db, `contentSpaceRevision:${published ? 'published' : 'member'}:${rev.shape}`, build, values);
}

type SpaceAndRevision = SpaceWithRank & { revision: RevisionHeaderRow | { [K in keyof RevisionHeaderRow]: null } | null };

/**
 * A revision column under a name of its own (`read_revision_<name>`), decoded as the column is: D1 answers a batch's rows
 * as objects keyed by column name, where the space's `id` and `created_at` would hide the revision's (and `revision_id` is the space's).
 */
function revisionColumn<C extends AnySQLiteColumn>(column: C): SQL.Aliased<C['_']['data']> {
  return sql<C['_']['data']>`${column}`.mapWith(column).as(`read_revision_${column.name}`);
}

/** Who reads a space: a member (their role is computed), or a site token's visitor (`read` on a space not in the trash). */
type SpaceReader = { published: true } | { published: false; userId: string };

/** The space's columns, in the order spaceRowSql packs them, with what decodes each (as drizzle maps it). */
const SPACE_FIELDS = Object.entries(getTableColumns(spaces));
const REVISION_FIELDS = (['id', 'parents', 'type', 'createdAt', 'meta', 'pageCount', 'fileCount'] as const).map((key) => [key, revisions[key]] as const);

/**
 * The row of kind `space` of a page statement: what spaceAndRevisionStatement answers, in the statement that reads the
 * page (one statement where a page read ran two: each statement is work for D1, under Miniflare three SQLite calls of its
 * Durable Object). `n` is the caller's rank, `value` a JSON array of the space's columns then the revision's header
 * (nulls when the space has no such revision); no row when there is no such space (or, for a site token, it is in the
 * trash). A compound's terms share their columns, hence the array (`spaceAndRevisionOf` decodes it).
 */
function spaceRowSql(revisionId: SQL, published: boolean): SQL {
  const rank = published ? sql`${RANK.read}` : spaceRoleSql(sql.placeholder('userId') as unknown as SQL);
  const columns = [...SPACE_FIELDS, ...REVISION_FIELDS].map(([, column]) => sql`${column}`);
  const where = published ? sql` and ${spaces.deletedAt} is null` : sql``;
  return sql`select 'space', ${rank}, json_array(${sql.join(columns, sql`, `)})
    from ${spaces} left join ${revisions} on ${revisions.id} = ${revisionId} where ${spaces.id} = ${sql.placeholder('spaceId')}${where}`;
}

/** The `space` row of a page statement as spaceAndRevisionStatement's rows: the space with the rank, and the revision. */
function spaceAndRevisionOf(rows: PageTreeRow[]): SpaceAndRevision[] {
  const row = rows.find((r) => r.kind === 'space');
  if (!row) return [];
  const values = JSON.parse(row.value) as unknown[];
  const decode = (column: AnySQLiteColumn, value: unknown) => (value === null ? null : column.mapFromDriverValue(value));
  const space = Object.fromEntries(SPACE_FIELDS.map(([key, column], i) => [key, decode(column, values[i])]));
  const revision = Object.fromEntries(REVISION_FIELDS.map(([key, column], i) => [key, decode(column, values[SPACE_FIELDS.length + i])]));
  return [{ space: space as SpaceWithRank['space'], rank: Number(row.n), revision: revision as SpaceAndRevision['revision'] }];
}

/** A site token reads a space only while its site is published and has the space: anything else is not found. */
function checkPublished(spaceRows: SpaceWithRank[], placement: unknown[]): void {
  if (spaceRows.length === 0 || placement.length === 0) throw new ApiError(404, 'Space not found');
}

export async function readContent(db: Db, source: ContentSource, userId: string, wanted: ContentWanted & { urls: UrlContext }, useHeld = true): Promise<ContentRead> {
  // Site tokens read the published content only: never a change request's.
  if (source.published && source.changeRequest !== undefined) throw new ApiError(404, 'Change request not found');
  const rev = revisionShape(source);
  // The statements that are not built once per isolate take the revision's id with its values in place.
  let revisionIdSql: SQL | undefined;
  const revisionId = () => (revisionIdSql ??= revisionIdOf(source));
  const computed = wanted.computed ? { spaceId: source.spaceId } : undefined;
  const target: PageTarget | undefined = wanted.page !== undefined ? { id: safeKey(wanted.page) } : wanted.path ? { path: wanted.path } : undefined;
  // The page's document is left out of the answer when this isolate holds the one it last read there (document-cache).
  const hint = target ? knownDocumentHint(placeOf(source, target)) : undefined;
  const reader: SpaceReader = source.published ? { published: true } : { published: false, userId };
  // The page's rows as this isolate last read them (page-rows-cache), when it holds them: the space's statement alone
  // then, whose revision says whether they are the page's now. Not when the token cost a round trip already: a
  // revision moved on would take a third (DESIGN.md's budget is two).
  const heldKey = target ? `${placeOf(source, target)}|${+!!computed}${+!!wanted.markdown}${+!!wanted.reusable}` : undefined;
  const held = heldKey && useHeld && !lookedUpToken(db) ? usableHeldRows(heldKey, hint!) : undefined;
  // A page statement answers the space and the revision's header too (its `space` row).
  const statements: BatchItem[] = [
    target && !held
      ? pageTreeQuery(db, rev, reader, target, hint!, computed !== undefined, wanted.markdown, wanted.reusable)
      : spaceAndRevisionStatement(db, source, userId, rev),
  ];
  const extra: Record<string, number> = {};
  const add = (name: string, statement: unknown) => {
    extra[name] = statements.length;
    statements.push(statement as BatchItem);
  };
  if (source.changeRequest !== undefined) add('cr', changeRequestOfSpaceQuery(db, source.spaceId, source.changeRequest));
  if (source.published) add('published', siteTokenSpaceQuery(db, source.published, source.spaceId));
  if (wanted.reusableContent !== undefined) add('reusableContent', reusableContentQuery(db, revisionId(), wanted.reusableContent));
  if (wanted.tree) add('tree', wholeTreeOfShape(db, rev, computed !== undefined, wanted.markdown === true));
  if (wanted.allFiles) add('allFiles', allFilesQuery(db, rev));
  if (wanted.files) add('files', filesPageQuery(db, rev, wanted.files.after, wanted.files.limit));
  if (wanted.file !== undefined) add('file', fileQuery(db, rev, safeKey(wanted.file)));
  // A site token's visitor reads no file that only pages hidden from them use (`filesHiddenFrom`): the tree tells
  // which pages those are, the link index which files each page uses.
  const gateFiles = source.published !== undefined && (wanted.allFiles || wanted.files !== undefined || wanted.file !== undefined);
  if (gateFiles) {
    if (!wanted.tree) add('gateTree', wholeTreeOfShape(db, rev, false, false));
    add('fileRefs', fileReferencesQuery(db, source.spaceId));
  }
  if (wanted.withMergedFrom) {
    add('mergedFrom', changeRequestQuery(db, sql`${changeRequests.id} = (select r.merged_from from revisions r where r.id = ${revisionId()})`));
  }
  if (wanted.withGit) {
    add('git', gitQuery(db, rev));
  }
  const results = (await runBatch(db, statements)) as unknown[][];
  const rows = <T>(name: string) => (extra[name] === undefined ? undefined : (rowsOf(results[extra[name]]) as T[]));
  const pageStatementRows = target ? (held?.rows ?? rowsOf<PageTreeRow>(results[0])) : undefined;
  const spaceRows = pageStatementRows && !held ? spaceAndRevisionOf(pageStatementRows) : (results[0] as SpaceAndRevision[]);
  if (source.published) checkPublished(spaceRows, results[extra.published]);
  const { space: spaceRow, rank } = checkSpace(spaceRows, RANK.read, true);
  const space: SpaceWithRank = { space: spaceRow, rank };
  const cr = extra.cr !== undefined ? requireChangeRequest(results[extra.cr][0] as ChangeRequestWithContext | undefined) : undefined;
  // Drizzle nulls a left-joined object only when its fields are the joined table's columns: these are aliases.
  const row = spaceRows[0].revision;
  if (!row?.id) throw new ApiError(404, 'Revision not found');
  // Rows held for another revision than the content's now: read again, the page's statement in full.
  if (held && held.revisionId !== row.id) return readContent(db, source, userId, wanted, false);
  if (heldKey && !held) holdRows(heldKey, row.id, pageStatementRows!);
  const app = cr
    ? changeRequestAppUrl(wanted.urls, space.space.orgId, space.space.id, cr.cr.number)
    : spaceAppUrl(wanted.urls, space.space.orgId, space.space.id);
  const pageRows = pageStatementRows?.filter((r) => r.kind !== 'space');
  const treeRows = rows<TreeRow>('tree');
  const specs = computed ? specStates([...(pageRows ?? []), ...(treeRows ?? [])]) : undefined;
  const tree = treeRows ? wholeTree(treeRows) : undefined;
  // Expanding copies every page: only done when the tree has a computed page to expand.
  const expand = tree?.computed && specs;
  const fileRows = rows<{ value: string | null }>('allFiles') ?? rows<{ value: string | null }>('files') ?? rows<{ value: string | null }>('file');
  const located = pageRows ? locateRead(pageRows, wanted.page ?? pathTargetId(pageRows), specs) : undefined;
  const pages = tree && expand ? expandPages(tree.pages, expand) : tree?.pages;
  const claims = source.published?.claims;
  const holds = claims ? await conditionsHolding(claims) : undefined;
  const hiddenFiles = gateFiles && holds ? filesHiddenFrom(pages ?? wholeTree(rows<TreeRow>('gateTree')!).pages, holds, rows<FileReference>('fileRefs')!) : undefined;
  const readFiles = fileRows ? filesOf(fileRows, extra.allFiles !== undefined) : undefined;
  const readPages = holds && pages ? pagesFor(pages, holds) : pages;
  const readLocated = holds && located ? locatedFor(located, holds) : located;
  return {
    space,
    changeRequest: cr,
    revision: { ...row, meta: parseMeta(row.meta) },
    urls: { app },
    located: readLocated,
    ...(await pageDocumentOf(pageRows, hint)),
    pages: readPages,
    files: hiddenFiles?.size ? readFiles?.filter((file) => !hiddenFiles.has(file.id)) : readFiles,
    hiddenFileCount: hiddenFiles?.size ?? 0,
    mergedFrom: extra.mergedFrom !== undefined ? (results[extra.mergedFrom][0] as ChangeRequestWithContext | undefined) : undefined,
    git: gitOf(rows<{ oid: string; message: string; createdByGitBook: number; url: string | null; ref: string | null }>('git')?.[0]),
    ...(wanted.markdown ? await markdownOfRead(db, [...(pageRows ?? []), ...(treeRows ?? [])], readPages ?? readLocated?.page.pages) : {}),
    reusable: wanted.reusable || wanted.reusableContent !== undefined ? await reusableOf([...(pageRows ?? []).filter((r) => r.kind !== 'document'), ...(rows<PageTreeRow>('reusableContent') ?? [])]) : undefined,
  };
}

/**
 * What a site token's visitor reads of a tree: the pages whose conditions hold for its claims, as the site's
 * HTML reader shows them (site/content `visiblePages`). A page that fails is left out with its subpages;
 * hidden pages stay (a visitor reaches them by URL).
 */
function pagesFor(pages: ReadPage[], holds: Holds, depth = 0): ReadPage[] {
  if (depth > 64) return [];
  return pages.filter((page) => holds(page.condition)).map((page) => ({ ...page, pages: pagesFor(page.pages, holds, depth + 1) }));
}

/** Whether a page's condition holds for a site token's visitor (its claims). */
type Holds = (condition: string | undefined) => boolean;

/**
 * `Holds` for `claims`: the condition evaluator (sites/conditions and jsep, whose evaluation registers its parsers) is
 * loaded by a site token's read only, not by a member's first page read in a cold isolate (issue 42 item 7).
 */
async function conditionsHolding(claims: Record<string, unknown>): Promise<Holds> {
  const { evaluateCondition } = await import('../sites/conditions');
  return (condition) => evaluateCondition(condition, claims);
}

interface FileReference {
  pageId: string;
  fileId: string;
}

/** Which page of the space's main content uses which of its files (images, file blocks, links to files). */
function fileReferencesQuery(db: Db, spaceId: string) {
  return rawAll<FileReference>(
    db,
    sql`select page_id as pageId, target_id as fileId from space_links where space_id = ${spaceId} and target_key like 'file:%' and target_id is not null`,
  );
}

const pageIds = (pages: ReadPage[], into = new Set<string>()): Set<string> => {
  for (const page of pages) {
    into.add(page.id);
    pageIds(page.pages, into);
  }
  return into;
};

/**
 * The files a site token's visitor may not read: those that only pages hidden from them by their conditions (or
 * pages no longer in the tree) use, as the link index of the space's main content says (it follows the head: the
 * SpaceWriter brings it up to date with every head move, the cron catches up one left behind). A file no page uses
 * stays readable, as it is to every visitor of the site.
 */
function filesHiddenFrom(pages: ReadPage[], holds: Holds, references: FileReference[]): Set<string> {
  const visible = pageIds(pagesFor(pages, holds));
  if (visible.size === pageIds(pages).size) return new Set();
  const seen = new Set<string>();
  const hidden = new Set<string>();
  for (const { pageId, fileId } of references) (visible.has(pageId) ? seen : hidden).add(fileId);
  for (const fileId of seen) hidden.delete(fileId);
  return hidden;
}

/** The page a site token's visitor asked for, when it and each of its ancestors pass their conditions: none otherwise (a 404). */
function locatedFor(located: LocatedPage, holds: Holds): LocatedPage | undefined {
  if (!located.conditions.every(holds)) return undefined;
  return { ...located, page: { ...located.page, pages: pagesFor(located.page.pages, holds) } };
}

/**
 * The rows held for a read (page-rows-cache), if they can answer it: the page's document (rows hold its hash, never
 * its body) must be the one the document hint holds for the request.
 */
function usableHeldRows(key: string, hint: DocumentHint): HeldPageRows<PageTreeRow> | undefined {
  const held = heldPageRows<PageTreeRow>(key);
  const document = held?.rows.find((r) => r.kind === 'document');
  if (document && (hint.text === undefined || hint.hash !== String(document.n))) return undefined;
  return held;
}

/**
 * A page statement's rows, held for the revision `revisionId`: without the space's row and the specs (read on every
 * request), the document's body left to document-cache. Not when the page or a subpage is computed: what it
 * generates depends on specs that change apart from the revision; nor when the page was not found.
 */
function holdRows(key: string, revisionId: string, rows: PageTreeRow[]): void {
  if (!rows.some((r) => r.kind === 'up')) return;
  if (rows.some((r) => (r.kind === 'up' || r.kind === 'down') && r.value.includes('"computed"'))) return;
  const pageRows = rows.filter((r) => r.kind !== 'space' && r.kind !== 'spec');
  holdPageRows(key, { revisionId, rows: pageRows.map((r) => (r.kind === 'document' ? { ...r, value: null as unknown as string } : r)) });
}

/** Where a page read reads a document, for document-cache's hint: the content and the page asked for. */
function placeOf(source: ContentSource, target: PageTarget): string {
  const page = 'id' in target ? `id:${target.id}` : `path:${target.path.join('/')}`;
  return `${source.spaceId}|${source.changeRequest ?? ''}|${source.revision ?? ''}|${source.published ? 'published' : ''}|${page}`;
}

/** The page's document as JSON text, and its hash (pageTreeSql's `document` row: the hash, and the body unless `hint` holds it). */
async function pageDocumentOf(rows: PageTreeRow[] | undefined, hint: DocumentHint | undefined): Promise<Pick<ContentRead, 'documentBody' | 'documentHash'>> {
  const row = rows?.find((r) => r.kind === 'document');
  const documentBody = row ? await documentTextOf(String(row.n), row.value, hint) : null;
  return { documentBody, documentHash: documentBody === null ? null : String(row!.n) };
}

/** A read by path found the page its `up` row of level 0 is (none: no page has that path). */
function pathTargetId(rows: PageTreeRow[]): string {
  const self = rows.find((r) => r.kind === 'up' && Number(r.n) === 0);
  return self ? (JSON.parse(self.value) as PageRecord).id : '';
}

/**
 * The reusable content a read asked for (its entry and document) and the documents of those included. Given a page
 * read's rows without their `document` row: that is the page's, read through document-cache.
 */
async function reusableOf(rows: Array<{ kind: string; n?: number | string; value: string | null }>): Promise<ReusableRead> {
  const included = new Map<string, JSONDocument>();
  for (const row of rows) if (row.kind === 'reusable' && row.value !== null) included.set(String(row.n), await parseStoredBodyNative<JSONDocument>(row.value));
  const entry = rows.find((r) => r.kind === 'entry');
  const document = rows.find((r) => r.kind === 'document');
  return {
    included,
    entry: entry?.value ? (JSON.parse(entry.value) as ReusableContentEntry) : undefined,
    document: document?.value ? await parseStoredBodyNative<JSONDocument>(document.value) : undefined,
  };
}

/**
 * A read's Markdown of pages: a whole tree's, or a page read's subpages', read as they are written (tree-markdown:
 * `markdownReady` before each, in the order pages-json writes them). Both statements answer their documents' bodies
 * within a budget and name the others, so that a group of hundreds of pages is not read, and converted, all at once.
 */
async function markdownOfRead(db: Db, rows: Array<PageTreeRow | TreeRow>, pages: ReadPage[] | undefined): Promise<Pick<ContentRead, 'markdownOf' | 'markdownReady'>> {
  if (!pages) return {};
  // Computed pages' generated pages are written from their generated documents: the writer and generator loaded now, as before.
  const computed = rows.some((row) => typeof row.value === 'string' && !MARKDOWN_KINDS.has(row.kind) && row.value.includes('"computed"'));
  const [writer, generated] = computed ? await Promise.all([markdownWriter(), generatedDocuments()]) : [];
  const markdown = new TreeMarkdown({ db, pages, rows, writer, generated });
  return { markdownOf: markdown.of, markdownReady: (page) => markdown.ready(page) };
}

/** Rows of bodies (and a page's own document): none of them a page record that may say "computed". */
const MARKDOWN_KINDS = new Set(['markdown', 'body', 'more', 'document']);

/** The specs computed pages name, by slug, from the rows of a page or tree statement. */
function specStates(rows: Array<{ kind: string; value: string }>): Map<string, SpecState> {
  const out = new Map<string, SpecState>();
  for (const row of rows) {
    if (row.kind !== 'spec') continue;
    const state = readSpecState(row.value);
    if (state) out.set(state.slug, state);
  }
  return out;
}

/**
 * The page a read asked for. With `specs` (computed=true), computed pages are expanded, and an id the
 * page map does not have is looked for among the pages generated by the computed page its statement
 * read instead (see pageTreeQuery).
 */
function locateRead(rows: PageTreeRow[], id: string, specs: Map<string, SpecState> | undefined): LocatedPage | undefined {
  const located = locatePage(rows);
  if (!located) return undefined;
  if (!specs) return located.page.id === id ? located : undefined;
  // Nothing to expand (and no generated page to find) when no page of the subtree is computed.
  const computed = rows.some((r) => (r.kind === 'down' || (r.kind === 'up' && Number(r.n) === 0)) && r.value.includes('"computed"'));
  if (!computed) return located.page.id === id ? located : undefined;
  const page = expandPage(located.page, specs);
  if (page.id === id) return { ...located, page };
  const generated = page.generated ? findGenerated(page, id, located.parentPath) : undefined;
  return generated && { ...generated, conditions: located.conditions };
}

function locatePage(rows: PageTreeRow[]): LocatedPage | undefined {
  const chain = rows
    .filter((r) => r.kind === 'up')
    .sort((a, b) => Number(a.n) - Number(b.n))
    .map((r) => JSON.parse(r.value) as PageRecord);
  if (chain.length === 0) return undefined;
  const descendants = new Map(rows.filter((r) => r.kind === 'down').map((r) => [(JSON.parse(r.value) as PageRecord).id, JSON.parse(r.value) as PageRecord]));
  const listOf = chunkLists(rows);
  const [record, ...ancestors] = chain;
  const parentPath = ancestors
    .reverse()
    .map((p) => p.slug)
    .join('/');
  return { page: { ...entryOf(record), pages: nestPages(listOf(record), descendants, listOf) } as PageEntry, parentPath, conditions: chain.map((r) => r.condition) };
}

/** The whole-tree rows' page tree (tree-rows.ts, which the published site imports alone). */
export { wholeTree };

function filesOf(rows: Array<{ value: string | null }>, leaves: boolean): FileEntry[] {
  if (!leaves) return rows.flatMap((r) => (r.value ? [JSON.parse(r.value) as FileEntry] : []));
  const files = rows.flatMap((r) => Object.values(JSON.parse(r.value!) as Record<string, FileEntry>));
  return files.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** API files with freshly signed download URLs. */
export async function toApiFiles(env: Env, origin: string, files: FileEntry[]) {
  const sign = createSigner(env);
  const now = Date.now();
  return Promise.all(files.map(async (file) => toRevisionFile(file, await downloadUrl(env, origin, file, now, sign))));
}

/**
 * The page a content read found, as the API answers it without its child pages (`pages` empty, where its kind has them)
 * nor its body; a 404 when there is none.
 */
function locatedPage(read: ContentRead) {
  const located = read.located;
  if (!located) throw new ApiError(404, 'Page not found');
  const page = toRevisionPage({ ...located.page, pages: [] }, read.urls, located.parentPath);
  // A computed page read with computed=false (its source), a group or a link page: no body (they have none of their own).
  const bodiless = page.type === 'computed' || page.type === 'link' || page.type === 'group';
  return { located, page, bodiless };
}

/** A page's body, as a document or Markdown, evaluated and dereferenced on demand (a page that has one: not `bodiless`). */
async function pageBody(db: Db, read: ContentRead, located: LocatedPage, options: PageOptions): Promise<{ markdown: string } | { document: JSONDocument }> {
  const generated = located.page.generated;
  // Written the way content batches read Markdown back: the title as the leading heading, the page's
  // fields as front matter, so a page read and posted back as Markdown stays the same page.
  const writeOptions = () => ({ title: located.page.title, frontmatter: frontmatterOf(located.page) });
  // A stored document read as stored writes the same Markdown for the same title and front matter: written once per
  // isolate (document-cache), neither parsed nor written again by a warm read.
  if (options.format === 'markdown' && read.documentHash && read.documentBody && !generated && !options.evaluated && !options.dereferenced) {
    const { title, frontmatter } = writeOptions();
    const body = read.documentBody;
    const markdown = await markdownOf(read.documentHash, JSON.stringify([title, frontmatter]), async () =>
      (await markdownWriter()).documentToMarkdown(JSON.parse(body) as JSONDocument, { title, frontmatter }),
    );
    return { markdown };
  }
  let document: JSONDocument = generated
    ? await generatedDocument(generated, located.page.computedSeed ?? located.page.id)
    : read.documentBody
      ? (JSON.parse(read.documentBody) as JSONDocument)
      : emptyDocument();
  const meta = read.revision.meta;
  if (options.dereferenced) {
    document = read.reusable ? dereferenceDocument(document, read.reusable.included) : await dereference(db, meta.reusableContents, document);
  }
  if (options.evaluated) document = evaluateDocument(document, meta.variables, located.page.variables);
  if (options.format === 'document') return { document };
  const { documentToMarkdown } = await markdownWriter();
  return { markdown: documentToMarkdown(document, writeOptions()) };
}

/**
 * A page read's answer as JSON text: the bytes `JSON.stringify` makes of the page as one object (its API object with
 * its child pages and their Markdown, and its body as a document or Markdown, evaluated and dereferenced on demand).
 * Its child pages are written a page at a time (pages-json), their Markdown read in batches as they are written
 * (tree-markdown), and the text is streamed: a group of hundreds of pages is never held whole, nor its subpages'
 * Markdown (issue 40). A page without child pages answers one string. A page read as it is stored (a document, neither
 * evaluated nor dereferenced) answers its document's JSON text as its statement or this isolate's cache
 * (document-cache) holds it, spliced in: neither parsed into objects nor written back to text, which for a long page
 * was most of a warm read's Worker CPU. `within`: the text of an answer that holds the page (getContentByUrl's), around it.
 */
export async function pageJson(db: Db, read: ContentRead, options: PageOptions, within = { open: '', close: '' }): Promise<string | ReadableStream<Uint8Array>> {
  const { located, page, bodiless } = locatedPage(read);
  const asStored = !bodiless && options.format === 'document' && !options.evaluated && !options.dereferenced && !located.page.generated && !!read.documentBody;
  const body = bodiless ? {} : asStored ? { document: 0 } : await pageBody(db, read, located, options);
  // The stored document's text in place of the `0` that holds its place: the last member, before the closing brace.
  const withDocument = (text: string) => (asStored ? `${text.slice(0, -'0}'.length)}${read.documentBody}}` : text);
  const children = 'pages' in page ? located.page.pages : [];
  if (children.length === 0) return `${within.open}${withDocument(JSON.stringify({ ...page, ...body }))}${within.close}`;
  // Cut where its `pages` array goes: at a placeholder no title or path can spell (random per answer).
  const placeholder = `\u0000${crypto.randomUUID()}\u0000`;
  const quoted = JSON.stringify(placeholder);
  const text = JSON.stringify({ ...page, pages: [placeholder], ...body });
  const at = text.indexOf(`[${quoted}]`);
  const around = {
    open: `${within.open}${text.slice(0, at + 1)}`,
    close: `${withDocument(text.slice(at + 1 + quoted.length))}${within.close}`,
    parentPath: 'path' in page ? page.path : '',
  };
  return pagesJsonStream(children, read.urls, read.markdownOf, read.markdownReady, around);
}

/**
 * The Markdown writer (remark and its extensions), loaded by the first read that answers Markdown: a read that
 * answers documents never evaluates it (a cold isolate's first page read paid a quarter of its time for it).
 */
const markdownWriter = () => import('../markdown/to-markdown');

/**
 * The page's fields that front matter sets (see `frontmatterMetadata` in batch.ts), in GitBook's key order; `{}` when
 * none (no front matter is written then, unless the page was read from a file whose front matter holds others).
 */
export function frontmatterOf(page: Omit<PageEntry, 'pages'>): Record<string, unknown> {
  const frontmatter: Record<string, unknown> = {};
  for (const key of PAGE_FIELD_FRONTMATTER_KEYS) {
    const value = key === 'layout' ? layoutFrontmatter(page.layout) : key === 'if' ? page.condition : page[key];
    if (value !== undefined && value !== '') frontmatter[key] = value;
  }
  return frontmatter;
}

async function dereference(db: Db, reusableContents: ReusableContentEntry[], document: JSONDocument): Promise<JSONDocument> {
  const wanted = new Set(reusableContentIds(document));
  const hashes = reusableContents.filter((rc) => wanted.has(rc.id) && rc.document).map((rc) => [rc.id, rc.document!] as const);
  if (hashes.length === 0) return document;
  // revisions.ts (its document writing, node:zlib and the delta differ) only for a page that includes reusable content.
  const { loadDocuments } = await import('./revisions');
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
  /** GitBook's `computed` query: expand computed pages (default true). */
  computed?: boolean;
}

const readFor = (r: ContentRequest, wanted: ContentWanted = {}, urls?: UrlContext) =>
  readContent(r.db, r.source, r.userId, { computed: r.computed ?? true, markdown: true, ...wanted, urls: urls ?? urlContext(r.url, r.env.APP_URL) });

function gitOf(row: { oid: string; message: string; createdByGitBook: number; url: string | null; ref: string | null } | undefined): ContentRead['git'] {
  return row ? { oid: row.oid, message: row.message, createdByGitBook: row.createdByGitBook === 1, url: row.url, ref: row.ref } : undefined;
}

/**
 * The revision as its JSON text (GitBook's Revision), streamed: its fields before `pages`, then its pages a page at a
 * time (pages-json, their Markdown read as they are written: tree-markdown), then the fields after. The bytes of
 * `JSON.stringify` of the whole object, which held every page's Markdown and API object at once.
 */
export async function revisionResponseStream(r: ContentRequest): Promise<ReadableStream<Uint8Array>> {
  const urls = urlContext(r.url, r.env.APP_URL);
  const read = await readFor(r, { tree: true, allFiles: true, withMergedFrom: true, withGit: true }, urls);
  const files = await toApiFiles(r.env, new URL(r.url).origin, read.files!);
  const mergedFrom = read.mergedFrom ? toChangeRequest(read.mergedFrom, urls) : undefined;
  const manifest = { pages: [], files: read.files!, ...read.revision.meta };
  // The revision with its `pages` at a placeholder no other field can spell (random per answer): cut there.
  const placeholder = `\u0000${crypto.randomUUID()}\u0000`;
  const revision = { ...toRevision(read.revision, manifest, read.urls, files, mergedFrom), pages: [placeholder] };
  const { url, ref, ...git } = read.git ?? { url: null, ref: null };
  const text = JSON.stringify(read.git ? { ...revision, git: { ...git, ...(url ? { url } : {}), ...(ref ? { ref } : {}) } } : revision);
  const at = text.indexOf(`[${JSON.stringify(placeholder)}]`);
  const around = { open: text.slice(0, at + 1), close: text.slice(at + 1 + JSON.stringify(placeholder).length) };
  return pagesJsonStream(read.pages!, read.urls, read.markdownOf, read.markdownReady, around);
}

/** `{ pages }` of the revision as its JSON text, streamed a page at a time (pages-json): what the list routes answer. */
export async function pagesResponseStream(r: ContentRequest): Promise<ReadableStream<Uint8Array>> {
  const read = await readFor(r, { tree: true });
  return pagesJsonStream(read.pages!, read.urls, read.markdownOf, read.markdownReady);
}

/** Files of a revision, a page at a time, in id order; the cursor is the last file's id. */
export async function filesResponse(r: ContentRequest, query: { page?: string; limit?: number }) {
  const { cursor, limit } = pageParams(query);
  const after = cursor ? cursor[1] : null;
  // A site token's visitor may not read some files (`filesHiddenFrom`): its pages are cut from every file, so that
  // none is shorter than the limit while more follow.
  const read = r.source.published ? await readFor(r, { allFiles: true }) : await readFor(r, { files: { after, limit } });
  const files = r.source.published ? read.files!.filter((file) => after === null || file.id > after).slice(0, limit + 1) : read.files!;
  const page = toPage(files, limit, read.revision.fileCount - read.hiddenFileCount, (file) => [0, file.id], (file) => file);
  return { ...page, items: await toApiFiles(r.env, new URL(r.url).origin, page.items) };
}

export async function fileResponse(r: ContentRequest, fileId: string) {
  const read = await readFor(r, { file: fileId });
  const file = read.files![0];
  if (!file) throw new ApiError(404, 'File not found');
  const [apiFile] = await toApiFiles(r.env, new URL(r.url).origin, [file]);
  return apiFile;
}

/** A page by its id, as the JSON text of its answer (pageJson: streamed when it has child pages). */
export async function pageResponseJson(r: ContentRequest, pageId: string, options: PageOptions): Promise<string | ReadableStream<Uint8Array>> {
  return pageJson(r.db, await readFor(r, { page: pageId, reusable: !!options.dereferenced }), options);
}

/** A page by its path in the revision (slugs from the top level, `/`-separated), as pageResponseJson; an unknown path is a 404. */
export async function pageByPathResponseJson(r: ContentRequest, path: string, options: PageOptions): Promise<string | ReadableStream<Uint8Array>> {
  const segments = path.split('/').filter((segment) => segment !== '');
  if (segments.length === 0) throw new ApiError(404, 'Page not found');
  return pageJson(r.db, await readFor(r, { path: segments, reusable: !!options.dereferenced }), options);
}

/** A page's body alone (GitBook's JSONDocument), evaluated and dereferenced on demand. */
export async function pageDocumentResponse(r: ContentRequest, pageId: string, options: Omit<PageOptions, 'format'>): Promise<JSONDocument> {
  const read = await readFor(r, { page: pageId, reusable: !!options.dereferenced, markdown: false });
  const { located, bodiless } = locatedPage(read);
  if (bodiless) return emptyDocument();
  const body = await pageBody(r.db, read, located, { ...options, format: 'document' });
  return 'document' in body ? body.document : emptyDocument();
}

/**
 * A page's meta links (GitBook's RevisionPageMetaLinks: a canonical URL and alternates). No page of this
 * deployment sets either, so a page of the revision answers none; an unknown page is a 404.
 */
export async function pageMetaLinksResponse(r: ContentRequest, pageId: string) {
  const read = await readFor(r, { page: pageId, markdown: false });
  if (!read.located) throw new ApiError(404, 'Page not found');
  return { alternates: [] as never[] };
}

/** A reusable content's body in the revision, evaluated with the revision's variables and dereferenced on demand. */
export async function reusableContentDocumentResponse(r: ContentRequest, reusableContentId: string, options: Omit<PageOptions, 'format'>): Promise<JSONDocument> {
  const read = await readFor(r, { reusableContent: reusableContentId, markdown: false });
  const found = read.reusable!;
  if (!found.entry) throw new ApiError(404, 'Reusable content not found');
  let document = found.document ?? emptyDocument();
  if (options.dereferenced) document = dereferenceDocument(document, found.included);
  if (options.evaluated) document = evaluateDocument(document, read.revision.meta.variables);
  return document;
}

const emptyDocument = (): JSONDocument => ({ object: 'document', data: {}, nodes: [] });

/**
 * A reusable content of the revision (GitBook's RevisionReusableContent): its id, title, Git Sync blob and
 * `document`, the id getDocumentById reads its body by (none: it is empty).
 */
export async function reusableContentResponse(r: ContentRequest, reusableContentId: string) {
  const read = await readFor(r, { reusableContent: reusableContentId, markdown: false });
  const entry = read.reusable!.entry;
  if (!entry) throw new ApiError(404, 'Reusable content not found');
  return {
    id: entry.id,
    title: entry.title,
    ...(entry.git ? { git: { oid: entry.git.oid, path: entry.git.path } } : {}),
    ...(entry.document ? { document: entry.document } : {}),
  };
}
