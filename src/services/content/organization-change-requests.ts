import { and, count, eq, sql, type SQL } from 'drizzle-orm';
import { selectWithValues, type Db } from '../../db/client';
import { changeRequests, organizations, spaces } from '../../db/schema';
import { RANK } from '../../lib/roles';
import { orgRoleSql, spaceRoleSql } from '../access/access';

/**
 * The count of listChangeRequestsForOrganization without evaluating the caller's role on every change request of
 * the organization (issue 42, item 5). For an admin, and for a member with an organization role (read and up),
 * the change requests they see are those of the organization's index (`matching`: its status and filters)
 * less those of deleted spaces (the trash: a partial index, migration 0116) and, for a member, less those of
 * live spaces capped to guest that no grant opens to them (the partial index of migration 0115). Three counts
 * in one batch, each reading an index of what it counts. A guest or an installation's bot user (what they see
 * is what grants or an installation open) is counted row by row, as before.
 */

/** The organization with the caller's role and their membership role (null for a bot user), for the list's batch. */
export function organizationWithMemberRoleQuery(db: Db, orgId: string, userId: string) {
  return db
    .select({
      org: organizations,
      rank: orgRoleSql(organizations.id, userId),
      memberRole: sql<number | null>`(select m.role from org_members m where m.org_id = ${orgId} and m.user_id = ${userId} and m.disabled = 0)`,
    })
    .from(organizations)
    .where(eq(organizations.id, orgId))
    .limit(1);
}

/**
 * `filters` are conditions on change_requests' own columns (status, creator...), with `sql.placeholder`s whose
 * `values` are given (the list's statements are built once per isolate); `visibleToCaller` the role's.
 */
export async function countOrganizationChangeRequests(
  db: Db,
  orgId: string,
  userId: string,
  caller: { rank: number | null; memberRole: number | null },
  filters: SQL[],
  values: Record<string, unknown>,
  visibleToCaller: SQL,
): Promise<number> {
  const ofSpaces = () => db.select({ n: count() }).from(changeRequests).innerJoin(spaces, eq(spaces.id, changeRequests.spaceId));
  const bound = <B extends object>(select: B) => selectWithValues(select, values);
  const byRows = caller.rank !== RANK.admin && (caller.memberRole === null || caller.memberRole < RANK.read);
  if (byRows) {
    const [{ n }] = await bound(ofSpaces().where(and(eq(changeRequests.orgId, orgId), sql`${spaces.deletedAt} is null`, visibleToCaller, ...filters)));
    return n;
  }
  // Joined to its organization so that drizzle qualifies the columns the filters' subqueries name.
  const inIndex = bound(
    db
      .select({ n: count() })
      .from(organizations)
      .innerJoin(changeRequests, eq(changeRequests.orgId, organizations.id))
      .where(and(eq(organizations.id, orgId), ...filters)),
  );
  // `+cr.org_id`: the deleted (or capped) spaces lead, through their partial index, not the organization's requests.
  const onDeleted = bound(ofSpaces().where(and(eq(spaces.orgId, orgId), sql`${spaces.deletedAt} is not null`, sql`+${changeRequests.orgId} = ${orgId}`, ...filters)));
  const hidden = bound(
    ofSpaces().where(
      and(eq(spaces.orgId, orgId), sql`${spaces.accessCap} = 0`, sql`${spaces.deletedAt} is null`, sql`+${changeRequests.orgId} = ${orgId}`, sql`${spaceRoleSql(userId)} < ${RANK.read}`, ...filters),
    ),
  );
  if (caller.rank === RANK.admin) {
    const [[all], [deleted]] = await db.batch([inIndex, onDeleted]);
    return all.n - deleted.n;
  }
  const [[all], [deleted], [notVisible]] = await db.batch([inIndex, onDeleted, hidden]);
  return all.n - deleted.n - notVisible.n;
}
