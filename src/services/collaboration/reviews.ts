import { sql, type SQL } from 'drizzle-orm';
import { rawAll, type Db } from '../../db/client';
import { ApiError } from '../../lib/errors';
import type { RequestRow, ReviewRow } from '../../schemas/review';
import type { ChangeRequestRow } from '../content/change-requests';
import { userJson } from './user-json';

/**
 * Reviews of change requests and the requests for them. A review is current while the change request's
 * head is still the revision it was made against, its reviewer has not reviewed again (a higher `seq`),
 * and has not been asked again since: asking marks their earlier reviews superseded, for good
 * (withdrawing the request does not undo it). Merge rules count current reviews only. Nothing is
 * rewritten when a head moves: `outdated` is computed when read.
 */

/** Next position in the change request's sequence of reviews and review requests (their order in lists). */
export const nextSeqSql = (changeRequestId: string) => sql`(1 + max(
  coalesce((select max(r.seq) from change_request_reviews r where r.change_request_id = ${changeRequestId}), 0),
  coalesce((select max(q.seq) from change_request_review_requests q where q.change_request_id = ${changeRequestId}), 0)))`;

/** Whether the review `r` is outdated (see above). */
export const reviewOutdatedSql = sql`(r.revision_id <> (select cr.revision_id from change_requests cr where cr.id = r.change_request_id)
  or exists (select 1 from change_request_reviews r2 where r2.change_request_id = r.change_request_id and r2.reviewer_id = r.reviewer_id and r2.seq > r.seq)
  or r.superseded = 1)`;

/** Reviews (alias `r`) with their reviewer, requester and whether they are outdated. */
export function reviewsQuery(db: Db, where: SQL, tail: SQL = sql``) {
  return rawAll<ReviewRow>(
    db,
    sql`select r.id, r.change_request_id as changeRequestId, (select cr.space_id from change_requests cr where cr.id = r.change_request_id) as spaceId,
      r.status, r.revision_id as revisionId, r.comment_id as commentId, r.created_at as createdAt, r.updated_at as updatedAt, r.seq,
      ${reviewOutdatedSql} as outdated, ${userJson('u')} as reviewer, case when ru.id is null then null else ${userJson('ru')} end as requester
    from change_request_reviews r join users u on u.id = r.reviewer_id left join users ru on ru.id = r.requested_by
    where ${where} ${tail}`,
  );
}

/** Pending review requests (alias `q`) with the requested user and who asked. */
export function requestsQuery(db: Db, where: SQL, tail: SQL = sql``) {
  return rawAll<RequestRow>(
    db,
    sql`select q.user_id as userId, q.revision_id as revisionId, q.created_at as createdAt, q.seq, ${userJson('u')} as user, ${userJson('ru')} as requester
    from change_request_review_requests q join users u on u.id = q.user_id join users ru on ru.id = q.requested_by
    where ${where} ${tail}`,
  );
}

export function requireReview(rows: ReviewRow[]): ReviewRow {
  if (!rows[0]) throw new ApiError(404, 'Review not found');
  return rows[0];
}

/** What merge rules read: each reviewer's current review and who is still asked to review. */
export interface ReviewState {
  current: Array<{ reviewerId: string; status: string }>;
  pending: string[];
}

export function reviewStateQuery(db: Db, changeRequestId: string) {
  return rawAll<{ kind: 'review' | 'request'; userId: string; status: string | null }>(
    db,
    sql`select 'review' as kind, r.reviewer_id as userId, r.status from change_request_reviews r
      where r.change_request_id = ${changeRequestId} and not ${reviewOutdatedSql}
    union all
    select 'request', q.user_id, null from change_request_review_requests q where q.change_request_id = ${changeRequestId}`,
  );
}

export function toReviewState(rows: Array<{ kind: 'review' | 'request'; userId: string; status: string | null }>): ReviewState {
  return {
    current: rows.filter((r) => r.kind === 'review').map((r) => ({ reviewerId: r.userId, status: r.status! })),
    pending: rows.filter((r) => r.kind === 'request').map((r) => r.userId),
  };
}

type MergeRule = { rule: string; users?: string[] };

/** Why `rule` is not met by the change request and its reviews, or null when it is. */
export function unmetReason(rule: MergeRule, cr: ChangeRequestRow, outdated: boolean, mergerId: string, reviews: ReviewState): string | null {
  const approvedBy = new Set(reviews.current.filter((r) => r.status === 'approved').map((r) => r.reviewerId));
  switch (rule.rule) {
    case 'require_change_request_subject':
      return cr.subject.trim() === '' ? 'the change request has no subject' : null;
    case 'require_change_request_description':
      return hasText(cr.description) ? null : 'the change request has no description';
    case 'require_up_to_date_change_request':
      return outdated ? 'the change request is behind main: update it first' : null;
    case 'require_author_to_merge':
      return mergerId === cr.createdBy ? null : 'only the author of the change request can merge it';
    case 'require_at_least_one_review':
      return reviews.current.length > 0 ? null : 'no current review';
    case 'require_at_least_one_approved_review':
      return approvedBy.size > 0 ? null : 'no current approving review';
    case 'require_all_reviews_approved': {
      if (reviews.current.length === 0) return 'no current review';
      if (reviews.current.some((r) => r.status !== 'approved')) return 'a current review requests changes';
      return reviews.pending.length > 0 ? `reviews are still requested from ${reviews.pending.join(', ')}` : null;
    }
    case 'require_specific_reviewers': {
      const missing = (rule.users ?? []).filter((u) => !approvedBy.has(u));
      return missing.length ? `no current approval from ${missing.join(', ')}` : null;
    }
    case 'require_one_of_specific_reviewers':
      return (rule.users ?? []).some((u) => approvedBy.has(u)) ? null : `no current approval from any of ${(rule.users ?? []).join(', ')}`;
    default:
      return null;
  }
}

/** Whether a rich-text document has a text leaf with something other than white space. */
function hasText(document: unknown): boolean {
  const stack: unknown[] = [document];
  while (stack.length > 0) {
    const value = stack.pop();
    if (!value || typeof value !== 'object') continue;
    const text = (value as { text?: unknown }).text;
    if (typeof text === 'string' && text.trim() !== '') return true;
    stack.push(...Object.values(value));
  }
  return false;
}
