import { and, eq, sql, type SQL } from 'drizzle-orm';
import { rawAll, rawRun, runBatch, type BatchItem, type Db } from '../../db/client';
import { changeRequests, commentReactions, spaces } from '../../db/schema';
import type { Env } from '../../env';
import { ApiError, badRequest } from '../../lib/errors';
import { RANK } from '../../lib/roles';
import { toReactions, type Comment, type CommentReply, type DocumentFormat, type ReactionRow } from '../../schemas/comment';
import type { UrlContext } from '../../schemas/common';
import { toUser, type UserRow } from '../../schemas/user';
import { changeRequestMatch, changeRequestQuery, requireChangeRequest, type ChangeRequestWithContext } from '../content/change-requests';
import { lookupSql, SAFE_KEY } from '../content/tree';
import { documentHasKeySql, parseStoredBody, storedBodySql, type StoredBody } from '../content/packed-documents';
import { documentToMarkdown, type JSONDocument } from '../markdown';
import { userJson } from './user-json';

export { userJson } from './user-json';
import { assertWithinCap, capOf, capReached, failedOnCapGuard } from '../limits/caps';
import { checkSpace, selectSpaceWithRank, type SpaceWithRank } from '../spaces/spaces';
import { ROOT } from '../content/pages';

/**
 * Comments and replies of a space or of one of its change requests. Every read is one statement
 * that brings each comment with its author, resolver, reactions, reply count, repliers and whether
 * its target still exists (looked up in the current revision's page map), so a list page costs one
 * query whatever its length; writes recount the space's or change request's open comments in the
 * same batch.
 */

/** Where comments live: a space, or a change request of it (by id or number). */
export interface CommentScope {
  spaceId: string;
  changeRequest?: string;
}

export interface LoadedScope {
  space: SpaceWithRank;
  changeRequest?: ChangeRequestWithContext;
}

/** The space with the caller's rank and, for a change request scope, the change request: to batch. */
export function scopeStatements(db: Db, scope: CommentScope, userId: string): BatchItem[] {
  const statements: BatchItem[] = [selectSpaceWithRank(db, scope.spaceId, userId)];
  if (scope.changeRequest !== undefined) statements.push(changeRequestQuery(db, changeRequestMatch(scope.spaceId, scope.changeRequest)));
  return statements;
}

/** Checks the scope rows (404 for what the caller cannot see; `needed` rank; writes refuse a trashed space). */
export function checkScope(scope: CommentScope, rows: unknown[][], needed: number): LoadedScope {
  const space = checkSpace(rows[0] as SpaceWithRank[], RANK.read, true);
  const changeRequest = scope.changeRequest === undefined ? undefined : requireChangeRequest(rows[1][0] as ChangeRequestWithContext | undefined);
  checkSpace([space], needed, needed === RANK.read);
  return { space, changeRequest };
}

/** The change request id of a scope as SQL (null for the space itself). */
export function scopeChangeRequestSql(scope: CommentScope): SQL {
  if (scope.changeRequest === undefined) return sql`null`;
  return sql`(select ${changeRequests.id} from ${changeRequests} where ${changeRequestMatch(scope.spaceId, scope.changeRequest)})`;
}

/** Rows of the scope's comments only: the space's own (`change_request_id is null`) or the change request's. */
export function inScopeSql(scope: CommentScope): SQL {
  return scope.changeRequest === undefined
    ? sql`c.space_id = ${scope.spaceId} and c.change_request_id is null`
    : sql`c.space_id = ${scope.spaceId} and c.change_request_id = ${scopeChangeRequestSql(scope)}`;
}

/** The revision whose content a scope's targets live in: the change request's head, or the space's. */
export function scopeRevisionSql(scope: CommentScope): SQL {
  return scope.changeRequest === undefined
    ? sql`(select ${spaces.revisionId} from ${spaces} where ${spaces.id} = ${scope.spaceId})`
    : sql`(select ${changeRequests.revisionId} from ${changeRequests} where ${changeRequestMatch(scope.spaceId, scope.changeRequest)})`;
}

/** Recounts the open comments of the space (its own) and of the change request, inside the write's batch. */
export function refreshCommentCounts(db: Db, scope: CommentScope): BatchItem {
  const open = sql`(select count(*) from comments c where ${inScopeSql(scope)} and c.status = 'open')`;
  if (scope.changeRequest === undefined) return db.update(spaces).set({ commentsCount: open }).where(sql`${spaces.id} = ${scope.spaceId}`);
  return db.update(changeRequests).set({ commentsCount: open }).where(changeRequestMatch(scope.spaceId, scope.changeRequest));
}

// ---------------------------------------------------------------------------------------------
// Reading


/** Reactions of the comment or reply `target` (a column), as a JSON array of ReactionRow, in the order they were made. */
const reactionsSql = (target: SQL) => sql`(select json_group_array(json_object('emoji', x.emoji, 'reactedAt', x.reacted_at, 'user', ${userJson('xu')}))
  from (select * from comment_reactions where target_id = ${target} order by reacted_at, rowid) x join users xu on xu.id = x.user_id)`;

/** The page record of a comment's target page in the revision its scope reads now (null when gone). */
const targetRecordSql = sql`${lookupSql(
  sql`(select r.pages_root from revisions r where r.id = coalesce(
    (select cr.revision_id from change_requests cr where cr.id = c.change_request_id),
    (select s.revision_id from spaces s where s.id = c.space_id)))`,
  sql`c.page_id`,
)}`;

/** Whether the commented block (by key) is still in the target page's document. */
const nodePresentSql = sql`coalesce(${documentHasKeySql(sql`json_extract(${targetRecordSql}, '$.document')`, sql`c.node_key`)}, 0) > 0`;

const COMMENT_COLUMNS = sql`c.id, c.space_id as spaceId, c.change_request_id as changeRequestId, c.review_id as reviewId, c.page_id as pageId,
  c.node_key as nodeKey, c.table_cell as tableCell, c.revision_id as revisionId, c.body, c.posted_at as postedAt, c.edited_at as editedAt,
  c.status, c.resolved_at as resolvedAt,
  ${userJson('u')} as poster,
  case when ru.id is null then null else ${userJson('ru')} end as resolver,
  (select count(*) from comment_replies rp where rp.comment_id = c.id) as replies,
  ${reactionsSql(sql`c.id`)} as reactions,
  (select json_group_array(json_object('count', g.n, 'updatedAt', g.last, 'user', ${userJson('gu')}))
    from (select posted_by, count(*) as n, max(posted_at) as last from comment_replies where comment_id = c.id group by posted_by) g
    join users gu on gu.id = g.posted_by) as repliers,
  case when c.page_id is null then null else ${targetRecordSql} end as pageRecord,
  case when c.node_key is null then 1 else ${nodePresentSql} end as nodePresent`;

export interface CommentRow {
  id: string;
  spaceId: string;
  changeRequestId: string | null;
  reviewId: string | null;
  pageId: string | null;
  nodeKey: string | null;
  tableCell: string | null;
  revisionId: string;
  body: string;
  postedAt: string;
  editedAt: string | null;
  status: string;
  resolvedAt: string | null;
  poster: string;
  resolver: string | null;
  replies: number;
  reactions: string;
  repliers: string;
  pageRecord: string | null;
  nodePresent: number;
}

/** Comments with everything their API object shows, `where` over the alias `c`. */
export function commentsQuery(db: Db, where: SQL, tail: SQL = sql``) {
  return rawAll<CommentRow>(
    db,
    sql`select ${COMMENT_COLUMNS} from comments c join users u on u.id = c.posted_by left join users ru on ru.id = c.resolved_by where ${where} ${tail}`,
  );
}

/** One comment of the scope (an id that cannot be one matches nothing). */
export function commentQuery(db: Db, scope: CommentScope, commentId: string) {
  return commentsQuery(db, sql`c.id = ${commentId} and ${inScopeSql(scope)}`);
}

export function requireComment(rows: CommentRow[]): CommentRow {
  if (!rows[0]) throw new ApiError(404, 'Comment not found');
  return rows[0];
}

export interface ReplyRow {
  id: string;
  commentId: string;
  body: string;
  postedAt: string;
  editedAt: string | null;
  poster: string;
  reactions: string;
}

export function repliesQuery(db: Db, where: SQL, tail: SQL = sql``) {
  return rawAll<ReplyRow>(
    db,
    sql`select rp.id, rp.comment_id as commentId, rp.body, rp.posted_at as postedAt, rp.edited_at as editedAt, ${userJson('u')} as poster,
      ${reactionsSql(sql`rp.id`)} as reactions
    from comment_replies rp join users u on u.id = rp.posted_by where ${where} ${tail}`,
  );
}

/** One reply of a comment of the scope. */
export function replyQuery(db: Db, scope: CommentScope, commentId: string, replyId: string) {
  return repliesQuery(db, sql`rp.id = ${replyId} and rp.comment_id = (select c.id from comments c where c.id = ${commentId} and ${inScopeSql(scope)})`);
}

export function requireReply(rows: ReplyRow[]): ReplyRow {
  if (!rows[0]) throw new ApiError(404, 'Reply not found');
  return rows[0];
}

// ---------------------------------------------------------------------------------------------
// Mapping

export interface Viewer {
  userId: string;
  rank: number;
  urls: UrlContext;
  format: DocumentFormat;
}

/** What a caller may do with a comment or reply: edit their own, delete their own or as the space's admin. */
function permissionsFor(viewer: Viewer, authorId: string) {
  const mine = viewer.userId === authorId;
  return {
    view: viewer.rank >= RANK.read,
    edit: mine && viewer.rank >= RANK.comment,
    reply: viewer.rank >= RANK.comment,
    delete: (mine && viewer.rank >= RANK.comment) || viewer.rank >= RANK.admin,
  };
}

/** A body as asked (`format`): the stored document, or it rendered as Markdown. */
function toBody(document: JSONDocument, format: DocumentFormat): Comment['body'] {
  return format === 'markdown' ? { markdown: documentToMarkdown(document) } : { document: document as unknown as Record<string, unknown> };
}

export const commentAuthor = (row: { poster: string }) => (JSON.parse(row.poster) as UserRow).id;

function commentLocation(urls: UrlContext, row: { spaceId: string; changeRequestId: string | null; id: string }) {
  const scope = row.changeRequestId ? `/spaces/${row.spaceId}/change-requests/${row.changeRequestId}` : `/spaces/${row.spaceId}`;
  return `${urls.api}${scope}/comments/${row.id}`;
}

function targetPage(row: CommentRow): NonNullable<Comment['target']['page']> | undefined {
  if (!row.pageId) return undefined;
  if (!row.changeRequestId) return { id: row.pageId };
  const record = row.pageRecord ? (JSON.parse(row.pageRecord) as { title?: string; emoji?: string; createdAt?: string; updatedAt?: string }) : null;
  return {
    id: row.pageId,
    ...(record?.title !== undefined ? { title: record.title } : {}),
    ...(record?.emoji ? { emoji: record.emoji } : {}),
    ...(record?.createdAt ? { createdAt: record.createdAt, updatedAt: record.updatedAt } : {}),
    outdated: record === null || !row.nodePresent,
  };
}

export function toComment(row: CommentRow, viewer: Viewer): Comment {
  const poster = JSON.parse(row.poster) as UserRow;
  const repliers = JSON.parse(row.repliers) as Array<{ count: number; updatedAt: string; user: UserRow }>;
  const page = targetPage(row);
  const base = {
    object: 'comment' as const,
    id: row.id,
    postedBy: toUser(poster, viewer.urls),
    postedAt: row.postedAt,
    ...(row.editedAt ? { editedAt: row.editedAt } : {}),
    reactions: toReactions(JSON.parse(row.reactions) as ReactionRow[], viewer.urls),
    replies: row.replies,
    repliers: repliers
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
      .map((r) => ({ updatedAt: r.updatedAt, count: r.count, user: toUser(r.user, viewer.urls) })),
    body: toBody(JSON.parse(row.body) as JSONDocument, viewer.format),
    target: {
      space: row.spaceId,
      revision: row.revisionId,
      ...(row.changeRequestId ? { changeRequest: row.changeRequestId } : {}),
      ...(row.reviewId ? { review: row.reviewId } : {}),
      ...(page ? { page } : {}),
      ...(row.nodeKey ? { node: { id: row.nodeKey } } : {}),
      ...(row.tableCell ? { tableCell: JSON.parse(row.tableCell) as { record: string; definition: string } } : {}),
    },
    urls: { location: commentLocation(viewer.urls, row) },
    permissions: permissionsFor(viewer, poster.id),
  };
  if (row.status === 'resolved' && row.resolvedAt && row.resolver) {
    return { ...base, status: 'resolved', resolvedAt: row.resolvedAt, resolvedBy: toUser(JSON.parse(row.resolver) as UserRow, viewer.urls) };
  }
  return { ...base, status: 'open' };
}

export function toReply(row: ReplyRow, comment: { spaceId: string; changeRequestId: string | null; id: string }, viewer: Viewer): CommentReply {
  const poster = JSON.parse(row.poster) as UserRow;
  return {
    object: 'comment-reply',
    id: row.id,
    postedBy: toUser(poster, viewer.urls),
    postedAt: row.postedAt,
    ...(row.editedAt ? { editedAt: row.editedAt } : {}),
    reactions: toReactions(JSON.parse(row.reactions) as ReactionRow[], viewer.urls),
    body: toBody(JSON.parse(row.body) as JSONDocument, viewer.format),
    urls: { location: `${commentLocation(viewer.urls, comment)}/replies/${row.id}` },
    permissions: permissionsFor(viewer, poster.id),
  };
}

// ---------------------------------------------------------------------------------------------
// Targets

export interface TargetInput {
  page?: string;
  node?: string;
  tableCell?: { record: string; definition: string };
}

/** The target page's record and document body in the scope's current revision (to batch with the scope). */
export function targetPageQuery(db: Db, scope: CommentScope, pageId: string) {
  const key = SAFE_KEY.test(pageId) && pageId !== ROOT ? pageId : '-';
  const record = lookupSql(sql`(select r.pages_root from revisions r where r.id = ${scopeRevisionSql(scope)})`, sql`${key}`);
  return rawAll<{ record: string | null; body: StoredBody | null }>(
    db,
    sql`select ${record} as record, ${storedBodySql(sql`json_extract(${record}, '$.document')`)} as body`,
  );
}

type Block = { key?: string; type?: string; nodes?: Block[]; fragments?: Block[]; data?: { records?: Record<string, unknown>; definition?: Record<string, unknown> } };

function findBlock(nodes: Block[] | undefined, key: string): Block | undefined {
  const stack = [...(nodes ?? [])];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.key === key) return node;
    stack.push(...(node.nodes ?? []), ...(node.fragments ?? []));
  }
  return undefined;
}

/**
 * Checks a comment's target against the page read by `targetPageQuery`: the page must exist, the node be a
 * block of its document, and a table cell name a record and a column of that (table) block. 400 naming what is missing.
 */
export function checkTarget(target: TargetInput, page: { record: string | null; body: StoredBody | null } | undefined) {
  if (target.page === undefined) {
    if (target.node !== undefined) throw badRequest('node: a node is a block of a page: give its page too');
    if (target.tableCell !== undefined) throw badRequest('tableCell: a table cell is in a page: give its page and node too');
    return;
  }
  if (!page?.record) throw badRequest(`page: no page ${target.page} in this content`);
  if (target.node === undefined) {
    if (target.tableCell !== undefined) throw badRequest('tableCell: give the node of the table too');
    return;
  }
  const document = page.body ? parseStoredBody<{ nodes?: Block[] }>(page.body) : { nodes: [] };
  const block = findBlock(document.nodes, target.node);
  if (!block) throw badRequest(`node: no block ${target.node} in page ${target.page}`);
  if (target.tableCell === undefined) return;
  const { record, definition } = target.tableCell;
  if (block.type !== 'table') throw badRequest(`tableCell: block ${target.node} is not a table`);
  if (!block.data?.records?.[record]) throw badRequest(`tableCell.record: no record ${record} in table ${target.node}`);
  if (!block.data?.definition?.[definition]) throw badRequest(`tableCell.definition: no column ${definition} in table ${target.node}`);
}

// ---------------------------------------------------------------------------------------------
// The comments-per-page cap (MAX_COMMENTS_PER_PAGE)

/**
 * A page's comments and replies are counted in `page_comment_counts` by the triggers of migration 0011, keyed by
 * the page id, whichever scope posted them: a change request's comments on a page share the page's budget with
 * the space's own. Comments on no page count per change request (`change-request:<id>`: its reviews' comments
 * too) or, for the space's own, as one more page (''), as the triggers' own expression keys them. Posting reads the count in its read batch and refuses past
 * the cap; editing, resolving and deleting never look (a deletion frees its slots through the triggers).
 */
const pageKeySql = (pageId: SQL | string | null, changeRequestId: SQL): SQL => sql`coalesce(${pageId}, 'change-request:' || ${changeRequestId}, '')`;

/** The key of a new comment's page in the scope (`pageId` undefined or null: on no page). */
const pageKey = (scope: CommentScope, pageId: string | null | undefined): SQL => pageKeySql(pageId ?? null, scopeChangeRequestSql(scope));

function pageCommentCountQuery(db: Db, spaceId: string, page: SQL) {
  return rawAll<{ count: number }>(
    db,
    sql`select coalesce((select p.count from page_comment_counts p where p.space_id = ${spaceId} and p.page_id = ${page}), 0) as count`,
  );
}

/** The count of the page a new comment targets (`pageId` undefined: on no page), to batch with the scope. */
export function newCommentPageCountQuery(db: Db, scope: CommentScope, pageId: string | undefined) {
  return pageCommentCountQuery(db, scope.spaceId, pageKey(scope, pageId));
}

/** The count of the page of a comment of the scope (where its replies count), to batch with the comment. */
export function commentPageCountQuery(db: Db, scope: CommentScope, commentId: string) {
  return pageCommentCountQuery(db, scope.spaceId, sql`(select ${pageKeySql(sql`c.page_id`, sql`c.change_request_id`)} from comments c where c.id = ${commentId} and ${inScopeSql(scope)})`);
}

/** 403 naming MAX_COMMENTS_PER_PAGE when one more comment or reply would pass the cap (rows of a count query above). */
export function checkPageCommentCap(env: Env, rows: unknown): void {
  assertWithinCap(env, 'commentsPerPage', (rows as Array<{ count: number }>)[0]?.count ?? 0);
}

/**
 * The first statement of a batch that adds a comment or reply to a page. It changes nothing, but when the page
 * already holds the cap it sets the count to null, which its NOT NULL refuses: the whole batch (one transaction)
 * fails and nothing is written. The check on the read answers every request that does not race; this keeps two
 * posts racing at cap - 1 from both passing it.
 */
export function pageCommentGuard(db: Db, env: Env, scope: CommentScope, pageId: string | null | undefined) {
  return rawRun(
    db,
    sql`update page_comment_counts set count = case when count < ${capOf(env, 'commentsPerPage')} then count else null end
      where space_id = ${scope.spaceId} and page_id = ${pageKey(scope, pageId)}`,
  );
}

/** Runs a batch that starts with `pageCommentGuard`: the guard's failure answers the cap's 403. */
export async function runPageCommentWrite(env: Env, db: Db, statements: BatchItem[]): Promise<unknown[][]> {
  try {
    return (await runBatch(db, statements)) as unknown[][];
  } catch (error) {
    if (failedOnCapGuard(error, 'page_comment_counts.count')) throw capReached('commentsPerPage', capOf(env, 'commentsPerPage'));
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Reactions

/** Statements adding and removing the caller's reactions on a comment or reply (idempotent). */
export function reactionStatements(db: Db, on: { commentId: string; replyId?: string }, userId: string, added: string[], removed: string[], now: string): BatchItem[] {
  const statements: BatchItem[] = [];
  const targetId = on.replyId ?? on.commentId;
  for (const emoji of new Set(added)) {
    statements.push(db.insert(commentReactions).values({ targetId, commentId: on.commentId, replyId: on.replyId, emoji, userId, reactedAt: now }).onConflictDoNothing());
  }
  for (const emoji of new Set(removed)) {
    statements.push(
      db.delete(commentReactions).where(and(eq(commentReactions.targetId, targetId), eq(commentReactions.emoji, emoji), eq(commentReactions.userId, userId))),
    );
  }
  return statements;
}
