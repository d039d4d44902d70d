import { sql } from 'drizzle-orm';
import { rawAll, type Db } from '../../db/client';
import { RANK } from '../../lib/roles';
import { toUser } from '../../schemas/user';
import type { UrlContext } from '../../schemas/common';
import { changeRequestMatch, changeRequestQuery, requireChangeRequest } from './change-requests';
import { checkSpace, selectSpaceWithRank, type SpaceWithRank } from '../spaces/spaces';

/**
 * GitBook's getContributorsByChangeRequestId: who edited a change request's content (`edit`: how many
 * content batches, and when they last edited, migration 0100) and who only commented on it (`comment`:
 * how many comments and replies, and when they last posted), most active first. One round trip with
 * the access check.
 */

interface ContributorRow {
  id: string;
  displayName: string;
  email: string;
  photoURL: string | null;
  actionType: 'edit' | 'comment';
  count: number;
  updatedAt: string;
}

function contributorsSql(db: Db, spaceId: string, changeRequest: string) {
  const cr = sql`(select id from change_requests where ${changeRequestMatch(spaceId, changeRequest)})`;
  return rawAll<ContributorRow>(db, sql`
    with editors(user_id, n, at) as (
      select c.user_id, c.edits, coalesce(c.updated_at, (select updated_at from change_requests where id = ${cr}))
      from change_request_contributors c where c.change_request_id = ${cr}),
    posts(user_id, at) as (
      select posted_by, posted_at from comments where change_request_id = ${cr}
      union all
      select rp.posted_by, rp.posted_at from comment_replies rp join comments c on c.id = rp.comment_id where c.change_request_id = ${cr}),
    commenters(user_id, n, at) as (
      select user_id, count(*), max(at) from posts where user_id not in (select user_id from editors) group by user_id),
    everyone(user_id, action, n, at) as (
      select user_id, 'edit', n, at from editors union all select user_id, 'comment', n, at from commenters)
    select u.id as id, u.display_name as displayName, u.email as email, u.photo_url as photoURL, e.action as actionType, e.n as count, e.at as updatedAt
    from everyone e join users u on u.id = e.user_id
    order by e.n desc, u.id`);
}

export async function changeRequestContributors(db: Db, urls: UrlContext, spaceId: string, changeRequest: string, userId: string) {
  const [spaceRows, crRows, rows] = await db.batch([
    selectSpaceWithRank(db, spaceId, userId),
    changeRequestQuery(db, changeRequestMatch(spaceId, changeRequest)),
    contributorsSql(db, spaceId, changeRequest),
  ] as const);
  checkSpace(spaceRows as SpaceWithRank[], RANK.read, true);
  requireChangeRequest(crRows[0]);
  const items = (rows as ContributorRow[]).map((row) => ({
    user: toUser(row, urls),
    count: Number(row.count),
    updatedAt: row.updatedAt,
    actionType: row.actionType,
  }));
  return { items, count: items.length };
}
