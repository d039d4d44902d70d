import { z } from '@hono/zod-openapi';
import { CommentSchema, type Comment } from './comment';
import { TimestampSchema, type UrlContext } from './common';
import { toUser, UserSchema, type UserRow } from './user';

export const ReviewStatusSchema = z.enum(['approved', 'changes-requested']).openapi('ChangeRequestReviewStatus');

export const ChangeRequestReviewSchema = z
  .object({
    object: z.literal('change-request-review'),
    id: z.string(),
    revision: z.string().openapi({ description: 'The revision of the change request this review was made against' }),
    reviewer: UserSchema,
    requestedBy: UserSchema.optional().openapi({ description: 'Who asked for this review; absent when nobody did' }),
    status: ReviewStatusSchema,
    outdated: z.boolean().openapi({ description: 'The change request moved on since, or the reviewer reviewed again or was asked again' }),
    comment: CommentSchema.optional(),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
    urls: z.object({ location: z.string() }),
  })
  .openapi('ChangeRequestReview');

export const RequestedReviewerSchema = z
  .object({
    object: z.literal('change-request-requested-reviewer'),
    kind: z.literal('user'),
    user: UserSchema,
    revision: z.string().openapi({ description: 'The revision of the change request when the review was requested' }),
    requestedBy: UserSchema,
    createdAt: TimestampSchema,
  })
  .openapi('ChangeRequestRequestedReviewer');

export interface ReviewRow {
  id: string;
  changeRequestId: string;
  spaceId: string;
  status: 'approved' | 'changes-requested';
  revisionId: string;
  commentId: string | null;
  createdAt: string;
  updatedAt: string;
  seq: number;
  outdated: number;
  reviewer: string;
  requester: string | null;
}

export function toReview(row: ReviewRow, urls: UrlContext, comment?: Comment): z.infer<typeof ChangeRequestReviewSchema> {
  return {
    object: 'change-request-review',
    id: row.id,
    revision: row.revisionId,
    reviewer: toUser(JSON.parse(row.reviewer) as UserRow, urls),
    ...(row.requester ? { requestedBy: toUser(JSON.parse(row.requester) as UserRow, urls) } : {}),
    status: row.status,
    outdated: Boolean(row.outdated),
    ...(comment ? { comment } : {}),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    urls: { location: `${urls.api}/spaces/${row.spaceId}/change-requests/${row.changeRequestId}/reviews/${row.id}` },
  };
}

export interface RequestRow {
  userId: string;
  revisionId: string;
  createdAt: string;
  seq: number;
  user: string;
  requester: string;
}

export function toRequestedReviewer(row: RequestRow, urls: UrlContext): z.infer<typeof RequestedReviewerSchema> {
  return {
    object: 'change-request-requested-reviewer',
    kind: 'user',
    user: toUser(JSON.parse(row.user) as UserRow, urls),
    revision: row.revisionId,
    requestedBy: toUser(JSON.parse(row.requester) as UserRow, urls),
    createdAt: row.createdAt,
  };
}
