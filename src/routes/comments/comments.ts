import { z } from '@hono/zod-openapi';
import { and, eq, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { commentReplies, comments, orgMembers } from '../../db/schema';
import { runBatch, type BatchItem } from '../../db/client';
import type { AppBindings } from '../../env';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ApiError, forbidden } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { ListQuerySchema, pageParams, toPage } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { nowIso } from '../../lib/time';
import { requireUser } from '../../middleware/auth';
import { BodySchema, CommentReplySchema, CommentSchema, DocumentFormatSchema, TableCellTargetSchema } from '../../schemas/comment';
import { IdSchema, listOf, urlContext } from '../../schemas/common';
import { MemberSchema, toMember, type MemberRow } from '../../schemas/member';
import { checkEmoji, readBody } from '../../services/collaboration/bodies';
import {
  checkPageCommentCap,
  checkScope,
  checkTarget,
  commentAuthor,
  commentPageCountQuery,
  commentQuery,
  commentsQuery,
  inScopeSql,
  newCommentPageCountQuery,
  pageCommentGuard,
  reactionStatements,
  refreshCommentCounts,
  replyQuery,
  repliesQuery,
  requireComment,
  requireReply,
  runPageCommentWrite,
  scopeChangeRequestSql,
  scopeRevisionSql,
  scopeStatements,
  targetPageQuery,
  toComment,
  toReply,
  type CommentRow,
  type CommentScope,
  type ReplyRow,
  type Viewer,
} from '../../services/collaboration/comments';
import { CAPS } from '../../services/limits/caps';
import { memberSelection } from '../../services/organizations/members';

/**
 * Comments and their replies, on a space ("Space comments") or on one of its change requests
 * ("Change request comments"): the same contract under two path bases, built once below for each.
 * Reading needs `read`; posting, replying, reacting and resolving need `comment`; editing a body
 * needs to be its author; deleting needs to be its author or the space's admin.
 */

const SCOPES = {
  space: {
    tag: 'Space comments',
    base: '/spaces/{spaceId}',
    suffix: 'InSpace',
    params: z.object({ spaceId: IdSchema('spaceId') }),
  },
  changeRequest: {
    tag: 'Change request comments',
    base: '/spaces/{spaceId}/change-requests/{changeRequestId}',
    suffix: 'InChangeRequest',
    params: z.object({
      spaceId: IdSchema('spaceId'),
      changeRequestId: IdSchema('changeRequestId').openapi({ description: 'The change request id, or its number in the space' }),
    }),
  },
} as const;

const PAGE_CAP_NOTE = [
  `A page holds at most ${CAPS.commentsPerPage.variable} comments and replies, counted together for the space and its change requests`,
  '(comments on no page count as one page per change request, and one for the space): past it, a 403 names the variable. Deleting a comment (with its replies) or a reply frees its slots.',
].join(' ');

const FormatQuery = z.object({ format: DocumentFormatSchema.optional() });

/** `authors=a&authors=b` (or one value): the query validator gives a string for one, an array for several. */
const AuthorsQuery = z
  .union([z.string().min(1).max(128), z.array(z.string().min(1).max(128)).max(100)])
  .optional()
  .transform((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]))
  .openapi({ type: 'array', items: { type: 'string' }, description: 'Only comments posted by these users (repeat the parameter, at most 100)' });

const ListCommentsQuery = ListQuerySchema.extend({
  order: z.enum(['asc', 'desc']).optional().openapi({ description: 'By post time (default desc: newest first)' }),
  status: z.enum(['all', 'open', 'resolved']).optional().openapi({ description: 'Only comments with this status (default all)' }),
  format: DocumentFormatSchema.optional(),
  targetPage: z.string().min(1).max(128).optional().openapi({ description: 'Only comments on this page' }),
  authors: AuthorsQuery,
});

const ReactionList = (what: string) =>
  z
    .array(z.string().min(1).max(64))
    .max(20)
    .optional()
    .openapi({ description: `Emoji reactions to ${what} (each a single emoji)` });

const PostCommentBody = z.object({
  body: BodySchema,
  page: z.string().min(1).max(128).optional().openapi({ description: 'The page commented on' }),
  node: z.string().min(1).max(128).optional().openapi({ description: "A block of the page (its `key`), with `page`" }),
  tableCell: TableCellTargetSchema.optional().openapi({ description: 'A cell of the table block `node`' }),
});

const UpdateCommentBody = z.object({
  resolved: z.boolean().optional(),
  body: BodySchema.optional(),
  addedReactions: ReactionList('add'),
  removedReactions: ReactionList('remove'),
});

const PostReplyBody = z.object({ body: BodySchema });
const UpdateReplyBody = z.object({
  body: BodySchema.optional(),
  resolved: z.boolean().optional().openapi({ description: 'Resolves (or reopens) the comment the reply belongs to' }),
  addedReactions: ReactionList('add'),
  removedReactions: ReactionList('remove'),
});

const CommentParams = <T extends z.ZodRawShape>(params: z.ZodObject<T>) => params.extend({ commentId: IdSchema('commentId') });
const ReplyParams = <T extends z.ZodRawShape>(params: z.ZodObject<T>) => CommentParams(params).extend({ commentReplyId: IdSchema('commentReplyId') });

type ScopeParams = { spaceId: string; changeRequestId?: string; commentId: string; commentReplyId: string };
type Ctx = Context<AppBindings>;

// Handlers read the validated input of routes built for either scope.
const params = (c: Ctx) => (c.req as unknown as { valid(t: 'param'): ScopeParams }).valid('param');
const query = <T>(c: Ctx) => (c.req as unknown as { valid(t: 'query'): T }).valid('query');
const json = <T>(c: Ctx) => (c.req as unknown as { valid(t: 'json'): T }).valid('json');
const scopeOf = (p: ScopeParams): CommentScope => ({ spaceId: p.spaceId, changeRequest: p.changeRequestId });

function viewer(c: Ctx, rank: number, format?: 'document' | 'markdown'): Viewer {
  return { userId: requireUser(c), rank, urls: urlContext(c.req.url, c.env.APP_URL), format: format ?? 'document' };
}

function checkReactions(added: string[] | undefined, removed: string[] | undefined) {
  added?.forEach((e, i) => checkEmoji(e, `addedReactions[${i}]`));
  removed?.forEach((e, i) => checkEmoji(e, `removedReactions[${i}]`));
}

/**
 * The scope and one comment, checked for `needed`, in one round trip; with `replyId`, a reply of it; with
 * `pageCount`, the comments and replies of its page (a new reply is checked against the cap with it).
 */
async function loadComment(c: Ctx, needed: number, also: { replyId?: string; pageCount?: boolean } = {}) {
  const p = params(c);
  const scope = scopeOf(p);
  const db = c.get('db');
  const statements: BatchItem[] = [...scopeStatements(db, scope, requireUser(c)), commentQuery(db, scope, p.commentId)];
  if (also.replyId !== undefined) statements.push(replyQuery(db, scope, p.commentId, also.replyId));
  if (also.pageCount) statements.push(commentPageCountQuery(db, scope, p.commentId));
  const rows = (await runBatch(db, statements)) as unknown[][];
  const n = scope.changeRequest === undefined ? 1 : 2;
  const loaded = checkScope(scope, rows.slice(0, n), needed);
  let next = n + 1;
  const reply = also.replyId === undefined ? undefined : (rows[next++] as ReplyRow[]);
  const pageCount = also.pageCount ? rows[next++] : undefined;
  return { scope, loaded, comment: rows[n] as CommentRow[], reply, pageCount };
}

function commentRoutes(kind: keyof typeof SCOPES) {
  const { tag, base, suffix, params: Params } = SCOPES[kind];
  const tags = [tag];
  const where = kind === 'space' ? 'the space' : 'the change request';

  const listRoute = defineRoute('get', `${base}/comments`, () => ({
    operationId: `listComments${suffix}`,
    tags,
    summary: `Comments on ${where}, newest first`,
    request: { params: Params, query: ListCommentsQuery },
    responses: { 200: jsonResponse(listOf(CommentSchema, `Comments${suffix}`), 'The comments') },
  }));
  const postRoute = defineRoute('post', `${base}/comments`, () => ({
    operationId: `postComment${suffix}`,
    tags,
    summary: `Comment on ${where}, one of its pages or a block of a page`,
    description: PAGE_CAP_NOTE,
    request: { params: Params, query: FormatQuery, ...jsonBody(PostCommentBody) },
    responses: { 200: jsonResponse(CommentSchema, 'The comment was posted') },
  }));
  const getRoute = defineRoute('get', `${base}/comments/{commentId}`, () => ({
    operationId: `getComment${suffix}`,
    tags,
    summary: 'A comment',
    request: { params: CommentParams(Params), query: FormatQuery },
    responses: { 200: jsonResponse(CommentSchema, 'The comment') },
  }));
  const updateRoute = defineRoute('put', `${base}/comments/{commentId}`, () => ({
    operationId: `updateComment${suffix}`,
    tags,
    summary: "Edit a comment's body (its author), resolve or reopen it, add or remove reactions",
    request: { params: CommentParams(Params), query: FormatQuery, ...jsonBody(UpdateCommentBody) },
    responses: { 200: jsonResponse(CommentSchema, 'The comment') },
  }));
  const deleteRoute = defineRoute('delete', `${base}/comments/{commentId}`, () => ({
    operationId: `deleteComment${suffix}`,
    tags,
    summary: 'Delete a comment with its replies (its author, or an admin of the space)',
    request: { params: CommentParams(Params) },
    responses: { 204: noContent('Deleted, or did not exist') },
  }));
  const listRepliesRoute = defineRoute('get', `${base}/comments/{commentId}/replies`, () => ({
    operationId: `listCommentReplies${suffix}`,
    tags,
    summary: 'Replies to a comment, oldest first',
    request: { params: CommentParams(Params), query: ListQuerySchema.extend({ format: DocumentFormatSchema.optional() }) },
    responses: { 200: jsonResponse(listOf(CommentReplySchema, `CommentReplies${suffix}`), 'The replies') },
  }));
  const postReplyRoute = defineRoute('post', `${base}/comments/{commentId}/replies`, () => ({
    operationId: `postCommentReply${suffix}`,
    tags,
    summary: 'Reply to a comment',
    description: PAGE_CAP_NOTE,
    request: { params: CommentParams(Params), query: FormatQuery, ...jsonBody(PostReplyBody) },
    responses: { 200: jsonResponse(CommentReplySchema, 'The reply was posted') },
  }));
  const getReplyRoute = defineRoute('get', `${base}/comments/{commentId}/replies/{commentReplyId}`, () => ({
    operationId: `getCommentReply${suffix}`,
    tags,
    summary: 'A reply',
    request: { params: ReplyParams(Params), query: FormatQuery },
    responses: { 200: jsonResponse(CommentReplySchema, 'The reply') },
  }));
  const updateReplyRoute = defineRoute('put', `${base}/comments/{commentId}/replies/{commentReplyId}`, () => ({
    operationId: `updateCommentReply${suffix}`,
    tags,
    summary: "Edit a reply's body (its author), add or remove reactions",
    request: { params: ReplyParams(Params), query: FormatQuery, ...jsonBody(UpdateReplyBody) },
    responses: { 200: jsonResponse(CommentReplySchema, 'The reply') },
  }));
  const deleteReplyRoute = defineRoute('delete', `${base}/comments/{commentId}/replies/{commentReplyId}`, () => ({
    operationId: `deleteCommentReply${suffix}`,
    tags,
    summary: 'Delete a reply (its author, or an admin of the space)',
    request: { params: ReplyParams(Params) },
    responses: { 204: noContent('Deleted, or did not exist') },
  }));
  const commentersRoute = defineRoute('get', `${base}/commenters`, () => ({
    operationId: `listCommenters${suffix}`,
    tags,
    summary: `Members who commented or replied on ${where}, most comments first`,
    request: { params: Params, query: ListQuerySchema },
    responses: { 200: jsonResponse(listOf(MemberSchema, `Commenters${suffix}`), 'The commenters') },
  }));

  return createRouter()
    .openapi(listRoute, async (c) => {
      const scope = scopeOf(params(c));
      const q = query<z.infer<typeof ListCommentsQuery>>(c);
      const { cursor, limit } = pageParams(q);
      const db = c.get('db');
      const desc = q.order !== 'asc';
      const filters = [inScopeSql(scope)];
      if (q.status && q.status !== 'all') filters.push(sql`c.status = ${q.status}`);
      if (q.targetPage) filters.push(sql`c.page_id = ${q.targetPage}`);
      if (q.authors) filters.push(sql`c.posted_by in (select value from json_each(${JSON.stringify(q.authors)}))`);
      const matching = sql.join(filters, sql` and `);
      const after = cursor
        ? desc
          ? sql` and (c.posted_at < ${String(cursor[0])} or (c.posted_at = ${String(cursor[0])} and c.id < ${cursor[1]}))`
          : sql` and (c.posted_at > ${String(cursor[0])} or (c.posted_at = ${String(cursor[0])} and c.id > ${cursor[1]}))`
        : sql``;
      const order = desc ? sql`order by c.posted_at desc, c.id desc` : sql`order by c.posted_at asc, c.id asc`;
      const rows = (await runBatch(db, [
        ...scopeStatements(db, scope, requireUser(c)),
        commentsQuery(db, sql`${matching}${after}`, sql`${order} limit ${limit + 1}`),
        db.select({ n: sql<number>`count(*)` }).from(sql`comments c`).where(matching),
      ])) as unknown[][];
      const n = rows.length - 2;
      const { space } = checkScope(scope, rows.slice(0, n), RANK.read);
      const v = viewer(c, space.rank, q.format);
      const total = (rows[n + 1] as Array<{ n: number }>)[0].n;
      return c.json(toPage(rows[n] as CommentRow[], limit, total, (r) => [r.postedAt, r.id], (r) => toComment(r, v)), 200);
    })
    .openapi(postRoute, async (c) => {
      const userId = requireUser(c);
      const scope = scopeOf(params(c));
      const input = json<z.infer<typeof PostCommentBody>>(c);
      const db = c.get('db');
      const statements: BatchItem[] = [...scopeStatements(db, scope, userId), newCommentPageCountQuery(db, scope, input.page)];
      if (input.page !== undefined) statements.push(targetPageQuery(db, scope, input.page));
      const rows = (await runBatch(db, statements)) as unknown[][];
      const n = scope.changeRequest === undefined ? 1 : 2;
      const { space } = checkScope(scope, rows.slice(0, n), RANK.comment);
      checkTarget(input, (rows[n + 1] as Array<{ record: string | null; body: string | null }> | undefined)?.[0]);
      checkPageCommentCap(c.env, rows[n]);
      const body = readBody(input.body);
      const id = newId();
      const written = await runPageCommentWrite(c.env, db, [
        pageCommentGuard(db, c.env, scope, input.page),
        db.insert(comments).values({
          id,
          spaceId: scope.spaceId,
          changeRequestId: scopeChangeRequestSql(scope),
          pageId: input.page,
          nodeKey: input.node,
          tableCell: input.tableCell,
          revisionId: scopeRevisionSql(scope),
          body,
          postedBy: userId,
          postedAt: nowIso(),
        }),
        refreshCommentCounts(db, scope),
        commentQuery(db, scope, id),
      ]);
      return c.json(toComment(requireComment(written[3] as CommentRow[]), viewer(c, space.rank, query<{ format?: 'document' | 'markdown' }>(c).format)), 200);
    })
    .openapi(getRoute, async (c) => {
      const { loaded, comment } = await loadComment(c, RANK.read);
      return c.json(toComment(requireComment(comment), viewer(c, loaded.space.rank, query<{ format?: 'document' | 'markdown' }>(c).format)), 200);
    })
    .openapi(updateRoute, async (c) => {
      const userId = requireUser(c);
      const input = json<z.infer<typeof UpdateCommentBody>>(c);
      const { scope, loaded, comment: rows } = await loadComment(c, RANK.comment);
      const comment = requireComment(rows);
      if (input.body !== undefined && commentAuthor(comment) !== userId) throw forbidden('Only its author can edit a comment');
      checkReactions(input.addedReactions, input.removedReactions);
      const body = input.body === undefined ? undefined : readBody(input.body);
      const now = nowIso();
      const db = c.get('db');
      const statements: BatchItem[] = [];
      if (body !== undefined) statements.push(db.update(comments).set({ body, editedAt: now }).where(eq(comments.id, comment.id)));
      if (input.resolved !== undefined) statements.push(resolveStatement(c, comment.id, input.resolved, userId, now), refreshCommentCounts(db, scope));
      statements.push(...reactionStatements(db, { commentId: comment.id }, userId, input.addedReactions ?? [], input.removedReactions ?? [], now));
      statements.push(commentQuery(db, scope, comment.id));
      const written = (await runBatch(db, statements)) as unknown[][];
      const updated = requireComment(written[written.length - 1] as CommentRow[]);
      return c.json(toComment(updated, viewer(c, loaded.space.rank, query<{ format?: 'document' | 'markdown' }>(c).format)), 200);
    })
    .openapi(deleteRoute, async (c) => {
      const userId = requireUser(c);
      const { scope, loaded, comment: rows } = await loadComment(c, RANK.read);
      const comment = rows[0];
      if (!comment) return c.body(null, 204);
      if (!(commentAuthor(comment) === userId && loaded.space.rank >= RANK.comment) && loaded.space.rank < RANK.admin) {
        throw forbidden('Only its author or an admin of the space can delete a comment');
      }
      if (loaded.space.space.deletedAt) throw new ApiError(400, 'This space is deleted: restore it first');
      const db = c.get('db');
      // Replies and all reactions go with it (foreign keys cascade).
      await runBatch(db, [
        db.delete(comments).where(eq(comments.id, comment.id)),
        refreshCommentCounts(db, scope),
      ]);
      return c.body(null, 204);
    })
    .openapi(listRepliesRoute, async (c) => {
      const p = params(c);
      const scope = scopeOf(p);
      const q = query<{ page?: string; limit?: number; format?: 'document' | 'markdown' }>(c);
      const { cursor, limit } = pageParams(q);
      const db = c.get('db');
      const ofComment = sql`rp.comment_id = (select c.id from comments c where c.id = ${p.commentId} and ${inScopeSql(scope)})`;
      const after = cursor ? sql` and (rp.posted_at > ${String(cursor[0])} or (rp.posted_at = ${String(cursor[0])} and rp.id > ${cursor[1]}))` : sql``;
      const rows = (await runBatch(db, [
        ...scopeStatements(db, scope, requireUser(c)),
        commentQuery(db, scope, p.commentId),
        repliesQuery(db, sql`${ofComment}${after}`, sql`order by rp.posted_at, rp.id limit ${limit + 1}`),
        db.select({ n: sql<number>`count(*)` }).from(sql`comment_replies rp`).where(ofComment),
      ])) as unknown[][];
      const n = rows.length - 3;
      const { space } = checkScope(scope, rows.slice(0, n), RANK.read);
      const comment = requireComment(rows[n] as CommentRow[]);
      const v = viewer(c, space.rank, q.format);
      const total = (rows[n + 2] as Array<{ n: number }>)[0].n;
      return c.json(toPage(rows[n + 1] as ReplyRow[], limit, total, (r) => [r.postedAt, r.id], (r) => toReply(r, comment, v)), 200);
    })
    .openapi(postReplyRoute, async (c) => {
      const userId = requireUser(c);
      const input = json<z.infer<typeof PostReplyBody>>(c);
      const { scope, loaded, comment: rows, pageCount } = await loadComment(c, RANK.comment, { pageCount: true });
      const comment = requireComment(rows);
      checkPageCommentCap(c.env, pageCount);
      const body = readBody(input.body);
      const id = newId();
      const db = c.get('db');
      const written = await runPageCommentWrite(c.env, db, [
        pageCommentGuard(db, c.env, scope, comment.pageId),
        db.insert(commentReplies).values({ id, commentId: comment.id, body, postedBy: userId, postedAt: nowIso() }),
        replyQuery(db, scope, comment.id, id),
      ]);
      const reply = requireReply(written[2] as ReplyRow[]);
      return c.json(toReply(reply, comment, viewer(c, loaded.space.rank, query<{ format?: 'document' | 'markdown' }>(c).format)), 200);
    })
    .openapi(getReplyRoute, async (c) => {
      const { loaded, comment, reply } = await loadComment(c, RANK.read, { replyId: params(c).commentReplyId });
      return c.json(toReply(requireReply(reply!), requireComment(comment), viewer(c, loaded.space.rank, query<{ format?: 'document' | 'markdown' }>(c).format)), 200);
    })
    .openapi(updateReplyRoute, async (c) => {
      const userId = requireUser(c);
      const input = json<z.infer<typeof UpdateReplyBody>>(c);
      const { scope, loaded, comment: commentRows, reply: replyRows } = await loadComment(c, RANK.comment, { replyId: params(c).commentReplyId });
      const comment = requireComment(commentRows);
      const reply = requireReply(replyRows!);
      if (input.body !== undefined && commentAuthor(reply) !== userId) throw forbidden('Only its author can edit a reply');
      checkReactions(input.addedReactions, input.removedReactions);
      const body = input.body === undefined ? undefined : readBody(input.body);
      const now = nowIso();
      const db = c.get('db');
      const statements: BatchItem[] = [];
      if (body !== undefined) statements.push(db.update(commentReplies).set({ body, editedAt: now }).where(eq(commentReplies.id, reply.id)));
      if (input.resolved !== undefined) statements.push(resolveStatement(c, comment.id, input.resolved, userId, now), refreshCommentCounts(db, scope));
      statements.push(...reactionStatements(db, { commentId: comment.id, replyId: reply.id }, userId, input.addedReactions ?? [], input.removedReactions ?? [], now));
      statements.push(replyQuery(db, scope, comment.id, reply.id));
      const written = (await runBatch(db, statements)) as unknown[][];
      const updated = requireReply(written[written.length - 1] as ReplyRow[]);
      return c.json(toReply(updated, comment, viewer(c, loaded.space.rank, query<{ format?: 'document' | 'markdown' }>(c).format)), 200);
    })
    .openapi(deleteReplyRoute, async (c) => {
      const userId = requireUser(c);
      const { loaded, reply: replyRows } = await loadComment(c, RANK.read, { replyId: params(c).commentReplyId });
      const reply = replyRows?.[0];
      if (!reply) return c.body(null, 204);
      if (!(commentAuthor(reply) === userId && loaded.space.rank >= RANK.comment) && loaded.space.rank < RANK.admin) {
        throw forbidden('Only its author or an admin of the space can delete a reply');
      }
      if (loaded.space.space.deletedAt) throw new ApiError(400, 'This space is deleted: restore it first');
      const db = c.get('db');
      // Its reactions go with it (foreign key cascade).
      await db.delete(commentReplies).where(eq(commentReplies.id, reply.id));
      return c.body(null, 204);
    })
    .openapi(commentersRoute, async (c) => {
      const scope = scopeOf(params(c));
      const { cursor, limit } = pageParams(query<{ page?: string; limit?: number }>(c));
      const db = c.get('db');
      const member = sql.raw('"org_members"."user_id"');
      const posts = sql<number>`((select count(*) from comments c where ${inScopeSql(scope)} and c.posted_by = ${member})
        + (select count(*) from comment_replies rp join comments c on c.id = rp.comment_id where ${inScopeSql(scope)} and rp.posted_by = ${member}))`;
      const posters = sql`(select c.posted_by from comments c where ${inScopeSql(scope)}
        union select rp.posted_by from comment_replies rp join comments c on c.id = rp.comment_id where ${inScopeSql(scope)})`;
      const matching = and(eq(orgMembers.orgId, sql`(select s.org_id from spaces s where s.id = ${scope.spaceId})`), sql`${orgMembers.userId} in ${posters}`);
      const after = cursor ? sql`(${posts} < ${Number(cursor[0])} or (${posts} = ${Number(cursor[0])} and ${orgMembers.userId} > ${cursor[1]}))` : undefined;
      const rows = (await runBatch(db, [
        ...scopeStatements(db, scope, requireUser(c)),
        memberSelection(db, { posts })
          .where(and(matching, after))
          .orderBy(sql`${posts} desc`, orgMembers.userId)
          .limit(limit + 1),
        db.select({ n: sql<number>`count(*)` }).from(orgMembers).where(matching),
      ])) as unknown[][];
      const n = rows.length - 2;
      checkScope(scope, rows.slice(0, n), RANK.read);
      const urls = urlContext(c.req.url, c.env.APP_URL);
      const total = (rows[n + 1] as Array<{ n: number }>)[0].n;
      type Row = MemberRow & { posts: number };
      return c.json(toPage(rows[n] as Row[], limit, total, (r) => [r.posts, r.user.id], (r) => toMember(r, urls)), 200);
    });
}

/** Resolving sets the status, time and resolver once; reopening clears them. */
function resolveStatement(c: Ctx, commentId: string, resolved: boolean, userId: string, now: string) {
  const db = c.get('db');
  const set = resolved
    ? {
        status: 'resolved',
        resolvedAt: sql`case when ${comments.status} = 'resolved' then ${comments.resolvedAt} else ${now} end`,
        resolvedBy: sql`case when ${comments.status} = 'resolved' then ${comments.resolvedBy} else ${userId} end`,
      }
    : { status: 'open', resolvedAt: null, resolvedBy: null };
  return db.update(comments).set(set).where(eq(comments.id, commentId));
}

export const spaceCommentsRouter = commentRoutes('space');
export const changeRequestCommentsRouter = commentRoutes('changeRequest');
