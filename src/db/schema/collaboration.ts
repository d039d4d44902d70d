import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { users } from './identity';
import { changeRequests, spaces } from './content';

/**
 * Comments on a space (`changeRequestId` null) or on a change request. `pageId`/`nodeKey` name the
 * target as posted; whether it still exists is computed when read, never by rewriting comments.
 * `revisionId` is the revision the target was found in when the comment was posted.
 */
export const comments = sqliteTable(
  'comments',
  {
    id: text('id').primaryKey(),
    spaceId: text('space_id')
      .notNull()
      .references(() => spaces.id, { onDelete: 'cascade' }),
    changeRequestId: text('change_request_id').references(() => changeRequests.id, { onDelete: 'cascade' }),
    /** The review this comment was posted with, if any. */
    reviewId: text('review_id'),
    pageId: text('page_id'),
    nodeKey: text('node_key'),
    tableCell: text('table_cell', { mode: 'json' }).$type<{ record: string; definition: string }>(),
    revisionId: text('revision_id').notNull(),
    /** The body as a rich-text document (canonical JSON). */
    body: text('body').notNull(),
    postedBy: text('posted_by')
      .notNull()
      .references(() => users.id),
    postedAt: text('posted_at').notNull(),
    editedAt: text('edited_at'),
    status: text('status').notNull().default('open'),
    resolvedAt: text('resolved_at'),
    resolvedBy: text('resolved_by'),
  },
  (t) => [
    index('comments_space').on(t.spaceId, t.changeRequestId, t.postedAt, t.id),
    index('comments_change_request').on(t.changeRequestId, t.postedAt, t.id),
    index('comments_author').on(t.postedBy),
  ],
);

export const commentReplies = sqliteTable(
  'comment_replies',
  {
    id: text('id').primaryKey(),
    commentId: text('comment_id')
      .notNull()
      .references(() => comments.id, { onDelete: 'cascade' }),
    body: text('body').notNull(),
    postedBy: text('posted_by')
      .notNull()
      .references(() => users.id),
    postedAt: text('posted_at').notNull(),
    editedAt: text('edited_at'),
  },
  (t) => [index('comment_replies_comment').on(t.commentId, t.postedAt, t.id)],
);

/**
 * One reaction per user per emoji, on a comment or a reply (`targetId` is either's id). The comment (and
 * reply) columns make reactions go with what they react to, through the cascade from spaces down.
 */
export const commentReactions = sqliteTable(
  'comment_reactions',
  {
    targetId: text('target_id').notNull(),
    commentId: text('comment_id')
      .notNull()
      .references(() => comments.id, { onDelete: 'cascade' }),
    replyId: text('reply_id').references(() => commentReplies.id, { onDelete: 'cascade' }),
    emoji: text('emoji').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    reactedAt: text('reacted_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.targetId, t.emoji, t.userId] }), index('comment_reactions_comment').on(t.commentId), index('comment_reactions_reply').on(t.replyId)],
);

/**
 * A review of a change request against the revision it was made on. Whether it is outdated (the
 * change request's content moved on, or the reviewer reviewed again or was asked again) is computed when read.
 */
export const changeRequestReviews = sqliteTable(
  'change_request_reviews',
  {
    id: text('id').primaryKey(),
    changeRequestId: text('change_request_id')
      .notNull()
      .references(() => changeRequests.id, { onDelete: 'cascade' }),
    reviewerId: text('reviewer_id')
      .notNull()
      .references(() => users.id),
    requestedBy: text('requested_by'),
    status: text('status').notNull(),
    revisionId: text('revision_id').notNull(),
    commentId: text('comment_id'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    /** Insertion order: reviews of one instant still have a newest one. */
    seq: integer('seq').notNull(),
    /** The reviewer was asked again after this review: it stays outdated, even if that request is withdrawn. */
    superseded: integer('superseded', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [index('change_request_reviews_cr').on(t.changeRequestId, t.seq), index('change_request_reviews_reviewer').on(t.changeRequestId, t.reviewerId, t.seq)],
);

/** A pending request for a user's review; answered (deleted) when that user submits a review. */
export const changeRequestReviewRequests = sqliteTable(
  'change_request_review_requests',
  {
    changeRequestId: text('change_request_id')
      .notNull()
      .references(() => changeRequests.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    requestedBy: text('requested_by').notNull(),
    revisionId: text('revision_id').notNull(),
    createdAt: text('created_at').notNull(),
    seq: integer('seq').notNull(),
  },
  (t) => [primaryKey({ columns: [t.changeRequestId, t.userId] }), index('change_request_review_requests_user').on(t.userId)],
);

/**
 * How many comments and replies each page of a space holds, for the comments-per-page cap: `pageId` is the
 * page's id, `change-request:<id>` for a change request's comments on no page (its reviews' too), '' for the
 * space's own comments on no page. Kept by triggers of migration 0011 with every insert and delete of a comment or reply.
 */
export const pageCommentCounts = sqliteTable(
  'page_comment_counts',
  {
    spaceId: text('space_id')
      .notNull()
      .references(() => spaces.id, { onDelete: 'cascade' }),
    pageId: text('page_id').notNull(),
    count: integer('count').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.spaceId, t.pageId] })],
);
