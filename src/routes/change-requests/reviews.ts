import { z } from '@hono/zod-openapi';
import { and, eq, sql } from 'drizzle-orm';
import { runBatch, type BatchItem } from '../../db/client';
import { changeRequestReviewRequests, changeRequestReviews, changeRequests, comments } from '../../db/schema';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { badRequest, forbidden } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { ListQuerySchema, pageParams, toPage } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { nowIso } from '../../lib/time';
import { requireUser } from '../../middleware/auth';
import { BodySchema, DocumentFormatSchema } from '../../schemas/comment';
import { ChangeRequestSubjectSchema } from '../../schemas/change-request';
import { IdSchema, listOf, urlContext } from '../../schemas/common';
import { ChangeRequestReviewSchema, RequestedReviewerSchema, ReviewStatusSchema, toRequestedReviewer, toReview, type RequestRow, type ReviewRow } from '../../schemas/review';
import { spaceRoleSql } from '../../services/access/access';
import { readBody } from '../../services/collaboration/bodies';
import { commentsQuery, pageCommentGuard, refreshCommentCounts, runPageCommentWrite, toComment, type CommentRow, type Viewer } from '../../services/collaboration/comments';
import { nextSeqSql, requestsQuery, requireReview, reviewOutdatedSql, reviewsQuery } from '../../services/collaboration/reviews';
import { changeRequestMatch, loadChangeRequest } from '../../services/content/change-requests';
import { readDescription } from '../../services/content/change-request-description';

/**
 * Reviews of a change request and the reviewers asked for them. Reviewing needs the `review` role and
 * not to be the change request's author; asking for reviewers needs `edit`. A review counts for the
 * merge rules while it is current (see services/collaboration/reviews).
 */
const tags = ['Change requests'];
const Params = z.object({
  spaceId: IdSchema('spaceId'),
  changeRequestId: IdSchema('changeRequestId').openapi({ description: 'The change request id, or its number in the space' }),
});

const listRoute = defineRoute('get', '/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', () => ({
  operationId: 'getReviewsByChangeRequestId',
  tags,
  summary: 'Reviews of a change request, newest first',
  request: {
    params: Params,
    query: ListQuerySchema.extend({
      format: DocumentFormatSchema.optional(),
      outdated: z
        .enum(['true', 'false'])
        .optional()
        .transform((v) => (v === undefined ? undefined : v === 'true'))
        .openapi({ type: 'boolean', description: 'Only outdated (true) or only current (false) reviews' }),
    }),
  },
  responses: { 200: jsonResponse(listOf(ChangeRequestReviewSchema, 'ChangeRequestReviews'), 'The reviews') },
}));

const SubmitBody = z.object({
  status: ReviewStatusSchema,
  comment: BodySchema.optional().openapi({ description: 'A comment posted with the review, on the change request' }),
});

const submitRoute = defineRoute('post', '/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', () => ({
  operationId: 'submitChangeRequestReview',
  tags,
  summary: 'Approve a change request or request changes, against its current revision',
  request: { params: Params, query: z.object({ format: DocumentFormatSchema.optional() }), ...jsonBody(SubmitBody) },
  responses: { 201: { ...jsonResponse(ChangeRequestReviewSchema, 'The review'), headers: { Location: { schema: { type: 'string' } } } } },
}));

const getRoute = defineRoute('get', '/spaces/{spaceId}/change-requests/{changeRequestId}/reviews/{reviewId}', () => ({
  operationId: 'getChangeRequestReviewById',
  tags,
  summary: 'A review',
  request: { params: Params.extend({ reviewId: IdSchema('reviewId') }), query: z.object({ format: DocumentFormatSchema.optional() }) },
  responses: { 200: jsonResponse(ChangeRequestReviewSchema, 'The review') },
}));

const listRequestedRoute = defineRoute('get', '/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', () => ({
  operationId: 'getRequestedReviewersByChangeRequestId',
  tags,
  summary: 'Users asked to review a change request who have not reviewed it since',
  request: { params: Params, query: ListQuerySchema },
  responses: { 200: jsonResponse(listOf(RequestedReviewerSchema, 'ChangeRequestRequestedReviewers'), 'The requested reviewers') },
}));

const RequestBody = z.object({
  users: z.array(z.string().min(1).max(128)).min(1).max(50).openapi({ description: 'Users to ask (members who can review the space)' }),
  subject: ChangeRequestSubjectSchema.optional().openapi({ description: "Also set the change request's subject" }),
  description: z.record(z.string(), z.unknown()).optional().openapi({ description: "Also set the change request's description (a rich-text document)" }),
});

const requestRoute = defineRoute('post', '/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', () => ({
  operationId: 'requestReviewersForChangeRequest',
  tags,
  summary: 'Ask users to review a change request (asking again makes their earlier review outdated)',
  request: { params: Params, ...jsonBody(RequestBody) },
  responses: { 200: jsonResponse(z.object({ users: z.array(RequestedReviewerSchema) }), 'The requests made') },
}));

const removeRequestedRoute = defineRoute('delete', '/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers/{userId}', () => ({
  operationId: 'removeRequestedReviewerFromChangeRequest',
  tags,
  summary: 'Withdraw a review request',
  request: { params: Params.extend({ userId: IdSchema('userId') }) },
  responses: { 204: noContent('Withdrawn, or was not requested') },
}));

const crIdSql = (spaceId: string, changeRequestId: string) =>
  sql`(select ${changeRequests.id} from ${changeRequests} where ${changeRequestMatch(spaceId, changeRequestId)})`;

/** The comments posted with reviews, by id, read with `commentsQuery`. */
function reviewComments(rows: unknown[] | undefined, viewer: Viewer) {
  return new Map(((rows ?? []) as CommentRow[]).map((row) => [row.id, toComment(row, viewer)]));
}

export const reviewsRouter = createRouter()
  .openapi(listRoute, async (c) => {
    const userId = requireUser(c);
    const { spaceId, changeRequestId } = c.req.valid('param');
    const q = c.req.valid('query');
    const { cursor, limit } = pageParams(q);
    const db = c.get('db');
    const filters = [sql`r.change_request_id = ${crIdSql(spaceId, changeRequestId)}`];
    if (q.outdated !== undefined) filters.push(q.outdated ? reviewOutdatedSql : sql`not ${reviewOutdatedSql}`);
    const matching = sql.join(filters, sql` and `);
    const after = cursor ? sql` and r.seq < ${Number(cursor[0])}` : sql``;
    const { space, more } = await loadChangeRequest(db, spaceId, changeRequestId, userId, RANK.read, [
      reviewsQuery(db, sql`${matching}${after}`, sql`order by r.seq desc limit ${limit + 1}`),
      db.select({ n: sql<number>`count(*)` }).from(sql`change_request_reviews r`).where(matching),
      commentsQuery(db, sql`c.id in (select r.comment_id from change_request_reviews r where ${matching}${after})`),
    ]);
    const viewer: Viewer = { userId, rank: space.rank, urls: urlContext(c.req.url, c.env.APP_URL), format: q.format ?? 'document' };
    const withComments = reviewComments(more[2], viewer);
    const rows = more[0] as ReviewRow[];
    const total = (more[1] as Array<{ n: number }>)[0].n;
    return c.json(
      toPage(rows, limit, total, (r) => [r.seq, r.id], (r) => toReview(r, viewer.urls, r.commentId ? withComments.get(r.commentId) : undefined)),
      200,
    );
  })
  .openapi(submitRoute, async (c) => {
    const userId = requireUser(c);
    const { spaceId, changeRequestId } = c.req.valid('param');
    const input = c.req.valid('json');
    const db = c.get('db');
    const { space, row: changeRequest } = await loadChangeRequest(db, spaceId, changeRequestId, userId, RANK.review);
    const cr = changeRequest.cr;
    if (cr.createdBy === userId) throw forbidden('Authors cannot review their own change request');
    if (cr.status === 'merged' || cr.status === 'archived') throw badRequest(`This change request is ${cr.status}: it cannot be reviewed`);
    const body = input.comment === undefined ? undefined : readBody(input.comment, 'comment');
    const id = newId();
    const commentId = body === undefined ? null : newId();
    const now = nowIso();
    const scope = { spaceId, changeRequest: cr.id };
    const statements: BatchItem[] = [];
    if (commentId && body) {
      statements.push(
        // A review's comment counts among the change request's comments on no page (MAX_COMMENTS_PER_PAGE).
        pageCommentGuard(db, c.env, scope, null),
        db.insert(comments).values({ id: commentId, spaceId, changeRequestId: cr.id, reviewId: id, revisionId: cr.revisionId, body, postedBy: userId, postedAt: now }),
        refreshCommentCounts(db, scope),
      );
    }
    statements.push(
      db.insert(changeRequestReviews).values({
        id,
        changeRequestId: cr.id,
        reviewerId: userId,
        requestedBy: sql`(select q.requested_by from change_request_review_requests q where q.change_request_id = ${cr.id} and q.user_id = ${userId})`,
        status: input.status,
        revisionId: cr.revisionId,
        commentId,
        createdAt: now,
        updatedAt: now,
        seq: nextSeqSql(cr.id),
      }),
      // The request is answered.
      db.delete(changeRequestReviewRequests).where(and(eq(changeRequestReviewRequests.changeRequestId, cr.id), eq(changeRequestReviewRequests.userId, userId))),
      reviewsQuery(db, sql`r.id = ${id}`),
      commentsQuery(db, sql`c.id = ${commentId ?? ''}`),
    );
    const written = await runPageCommentWrite(c.env, db, statements);
    const viewer: Viewer = { userId, rank: space.rank, urls: urlContext(c.req.url, c.env.APP_URL), format: c.req.valid('query').format ?? 'document' };
    const review = requireReview(written[written.length - 2] as ReviewRow[]);
    const comment = reviewComments(written[written.length - 1], viewer).get(commentId ?? '');
    const created = toReview(review, viewer.urls, comment);
    c.header('Location', created.urls.location);
    return c.json(created, 201);
  })
  .openapi(getRoute, async (c) => {
    const userId = requireUser(c);
    const { spaceId, changeRequestId, reviewId } = c.req.valid('param');
    const db = c.get('db');
    const ofReview = sql`r.id = ${reviewId} and r.change_request_id = ${crIdSql(spaceId, changeRequestId)}`;
    const { space, more } = await loadChangeRequest(db, spaceId, changeRequestId, userId, RANK.read, [
      reviewsQuery(db, ofReview),
      commentsQuery(db, sql`c.id in (select r.comment_id from change_request_reviews r where ${ofReview})`),
    ]);
    const review = requireReview(more[0] as ReviewRow[]);
    const viewer: Viewer = { userId, rank: space.rank, urls: urlContext(c.req.url, c.env.APP_URL), format: c.req.valid('query').format ?? 'document' };
    const comment = review.commentId ? reviewComments(more[1], viewer).get(review.commentId) : undefined;
    return c.json(toReview(review, viewer.urls, comment), 200);
  })
  .openapi(listRequestedRoute, async (c) => {
    const userId = requireUser(c);
    const { spaceId, changeRequestId } = c.req.valid('param');
    const { cursor, limit } = pageParams(c.req.valid('query'));
    const db = c.get('db');
    const matching = sql`q.change_request_id = ${crIdSql(spaceId, changeRequestId)}`;
    const after = cursor ? sql` and q.seq > ${Number(cursor[0])}` : sql``;
    const { more } = await loadChangeRequest(db, spaceId, changeRequestId, userId, RANK.read, [
      requestsQuery(db, sql`${matching}${after}`, sql`order by q.seq limit ${limit + 1}`),
      db.select({ n: sql<number>`count(*)` }).from(sql`change_request_review_requests q`).where(matching),
    ]);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    const total = (more[1] as Array<{ n: number }>)[0].n;
    return c.json(toPage(more[0] as RequestRow[], limit, total, (r) => [r.seq, r.userId], (r) => toRequestedReviewer(r, urls)), 200);
  })
  .openapi(requestRoute, async (c) => {
    const userId = requireUser(c);
    const { spaceId, changeRequestId } = c.req.valid('param');
    const input = c.req.valid('json');
    const db = c.get('db');
    const users = [...new Set(input.users)];
    const description = input.description === undefined ? undefined : readDescription(input.description);
    // Each requested user's role on the space, in the same round trip as the access check.
    const ranks = db
      .select({ id: sql<string>`j.value`, rank: spaceRoleSql(sql`j.value`) })
      .from(sql`spaces cross join json_each(${JSON.stringify(users)}) j`)
      .where(sql`"spaces"."id" = ${spaceId}`);
    const { row: changeRequest, more } = await loadChangeRequest(db, spaceId, changeRequestId, userId, RANK.edit, [ranks]);
    const cr = changeRequest.cr;
    if (cr.status === 'merged' || cr.status === 'archived') throw badRequest(`This change request is ${cr.status}: reviews cannot be requested`);
    const rankOf = new Map((more[0] as Array<{ id: string; rank: number }>).map((r) => [r.id, r.rank]));
    const cannot = users.filter((u) => (rankOf.get(u) ?? 0) < RANK.review);
    if (cannot.length) throw badRequest(`users: ${cannot.join(', ')} cannot review this space (the review role is needed)`);
    if (users.includes(cr.createdBy)) throw badRequest(`users: ${cr.createdBy} is the author of the change request and cannot review it`);
    const now = nowIso();
    const statements: BatchItem[] = users.map((user) =>
      db
        .insert(changeRequestReviewRequests)
        .values({ changeRequestId: cr.id, userId: user, requestedBy: userId, revisionId: cr.revisionId, createdAt: now, seq: nextSeqSql(cr.id) })
        .onConflictDoUpdate({
          target: [changeRequestReviewRequests.changeRequestId, changeRequestReviewRequests.userId],
          set: { requestedBy: userId, revisionId: cr.revisionId, createdAt: now, seq: nextSeqSql(cr.id) },
        }),
    );
    // Their earlier reviews no longer count, whatever becomes of this request.
    statements.push(
      db
        .update(changeRequestReviews)
        .set({ superseded: true })
        .where(and(eq(changeRequestReviews.changeRequestId, cr.id), sql`${changeRequestReviews.reviewerId} in (select value from json_each(${JSON.stringify(users)}))`)),
    );
    if (input.subject !== undefined || description !== undefined) {
      statements.push(
        db
          .update(changeRequests)
          .set({ ...(input.subject !== undefined ? { subject: input.subject } : {}), ...(description ? { description } : {}), updatedAt: now })
          .where(eq(changeRequests.id, cr.id)),
      );
    }
    statements.push(requestsQuery(db, sql`q.change_request_id = ${cr.id} and q.user_id in (select value from json_each(${JSON.stringify(users)}))`, sql`order by q.seq`));
    const written = (await runBatch(db, statements)) as unknown[][];
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json({ users: (written[written.length - 1] as RequestRow[]).map((r) => toRequestedReviewer(r, urls)) }, 200);
  })
  .openapi(removeRequestedRoute, async (c) => {
    const { spaceId, changeRequestId, userId: reviewer } = c.req.valid('param');
    const db = c.get('db');
    const { row: changeRequest } = await loadChangeRequest(db, spaceId, changeRequestId, requireUser(c), RANK.edit);
    await db
      .delete(changeRequestReviewRequests)
      .where(and(eq(changeRequestReviewRequests.changeRequestId, changeRequest.cr.id), eq(changeRequestReviewRequests.userId, reviewer)));
    return c.body(null, 204);
  });
