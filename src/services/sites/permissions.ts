import { and, asc, count, desc, eq, gt, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { orgMembers, sites, users } from '../../db/schema';
import type { Cursor } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { containsText } from '../../lib/text-filter';
import { siteRoleSql } from '../access/access';

/**
 * listPermissionsAggregateInSite: everyone who can access a site, with their effective role (siteRoleSql, the
 * function every site check uses) and where it comes from (their organization role, or the site's grant to
 * them or to one of their teams), filtered and sorted as GitBook's query says.
 */
export interface SiteAccessQuery {
  /** An effective role, or `guest`: the organization's guests who reach the site through a grant. */
  role?: keyof typeof RANK | undefined;
  search?: string;
  team?: string;
  sort: 'joinedAt' | 'lastSeenAt' | 'name';
  order: 'asc' | 'desc';
}

const MEMBER = sql.raw('"org_members"."user_id"');
const SITE_ID = sql.raw('"sites"."id"');

/** The sort value of each row, as text (so that a cursor compares the same way whatever it holds). */
function sortValue(sort: SiteAccessQuery['sort']): SQL<string> {
  if (sort === 'name') return sql<string>`${users.displayName}`;
  if (sort === 'lastSeenAt') return sql<string>`coalesce(${orgMembers.lastSeenAt}, '')`;
  return sql<string>`${orgMembers.joinedAt}`;
}

export function siteAccessPage(db: Db, orgId: string, siteId: string, query: SiteAccessQuery, cursor: Cursor | null, limit: number) {
  const rank = siteRoleSql(orgMembers.userId);
  const filters: (SQL | undefined)[] = [eq(sites.id, siteId), eq(sites.orgId, orgId), sql`${rank} >= ${RANK.read}`];
  if (query.role === 'guest') filters.push(eq(orgMembers.role, RANK.guest));
  else if (query.role) filters.push(sql`${rank} = ${RANK[query.role]}`);
  if (query.search) filters.push(or(containsText(users.displayName, query.search), containsText(users.email, query.search)));
  if (query.team) filters.push(sql`exists (select 1 from team_members tm join teams t on t.id = tm.team_id where tm.team_id = ${query.team} and t.org_id = ${orgId} and tm.user_id = ${MEMBER})`);
  const where = and(...filters);
  const sortBy = sortValue(query.sort);
  const after = cursor && (query.order === 'asc' ? gt : lt);
  const keyset = cursor && after ? or(after(sortBy, String(cursor[0])), and(eq(sortBy, String(cursor[0])), after(orgMembers.userId, cursor[1]))) : undefined;
  const direction = query.order === 'asc' ? asc : desc;
  return [
    db
      .select({
        rank: sql<number>`${rank}`.as('effective_rank'),
        sortKey: sql<string>`${sortBy}`.as('sort_key'),
        orgRole: orgMembers.role,
        disabled: orgMembers.disabled,
        lastSeenAt: orgMembers.lastSeenAt,
        userGrant: sql<number>`coalesce((select g.role from site_user_grants g where g.site_id = ${SITE_ID} and g.user_id = ${MEMBER}), 0)`.as('user_grant'),
        teamGrant: sql<string | null>`(select json_array(g.role, g.team_id) from site_team_grants g join team_members tm on tm.team_id = g.team_id
          where g.site_id = ${SITE_ID} and tm.user_id = ${MEMBER} order by g.role desc, g.team_id limit 1)`.as('team_grant'),
        user: users,
      })
      .from(orgMembers)
      .innerJoin(sites, eq(sites.orgId, orgMembers.orgId))
      .innerJoin(users, eq(users.id, orgMembers.userId))
      .where(and(where, keyset))
      .orderBy(direction(sortBy), direction(orgMembers.userId))
      .limit(limit + 1),
    db
      .select({ total: count() })
      .from(orgMembers)
      .innerJoin(sites, eq(sites.orgId, orgMembers.orgId))
      .innerJoin(users, eq(users.id, orgMembers.userId))
      .where(where),
  ] as const;
}

export type SiteAccessRow = Awaited<ReturnType<ReturnType<typeof siteAccessPage>[0]['all']>>[number];

/**
 * Where a member's effective role on a site comes from: the site's grant to them, else the best grant to one of
 * their teams, when it is what lifts them above their organization role; otherwise the organization.
 */
export function originOf(row: SiteAccessRow, orgId: string, siteId: string) {
  const orgRank = row.orgRole;
  if (row.userGrant > orgRank && row.userGrant === row.rank) return { type: 'site' as const, site: siteId, reason: 'member' as const };
  const [teamRole, teamId] = row.teamGrant ? (JSON.parse(row.teamGrant) as [number, string]) : [0, ''];
  if (teamRole > orgRank && teamRole === row.rank) return { type: 'site' as const, site: siteId, reason: 'team' as const, team: teamId };
  return { type: 'organization' as const, organization: orgId };
}
