import { eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { collections, spaces } from '../db/schema';

/**
 * Effective role rank (0..6) of a user on a space, as one SQL expression evaluated per space row.
 * `userId` is a bound value, or a column when listing everyone's access to one space.
 *
 * The rule (DESIGN.md): the highest of
 *   - the organization role, capped by the space's resolved defaultLevel chain (org admins are never capped),
 *   - the user's teams' grants on the space,
 *   - the user's own grant on the space.
 * Disabled or absent members have no access.
 */
export function spaceRoleSql(userId: string | SQL): SQL<number> {
  return sql<number>`max(
    coalesce((select case when m.role = 6 then 6 else min(m.role, ${spaces.accessCap}) end
      from org_members m where m.org_id = ${spaces.orgId} and m.user_id = ${userId} and m.disabled = 0), 0),
    coalesce((select max(g.role) from space_team_grants g join team_members tm on tm.team_id = g.team_id
      where g.space_id = ${spaces.id} and tm.user_id = ${userId}), 0),
    coalesce((select g.role from space_user_grants g join org_members m2
        on m2.org_id = ${spaces.orgId} and m2.user_id = g.user_id and m2.disabled = 0
      where g.space_id = ${spaces.id} and g.user_id = ${userId}), 0)
  )`;
}

/** Effective role rank of a user on a collection: the organization role capped by the collection chain. */
export function collectionRoleSql(userId: string): SQL<number> {
  return sql<number>`coalesce((select case when m.role = 6 then 6 else min(m.role, ${collections.accessCap}) end
    from org_members m where m.org_id = ${collections.orgId} and m.user_id = ${userId} and m.disabled = 0), 0)`;
}

/** The caller's organization role rank, or null when not a member. */
export function orgRoleSql(orgIdColumn: SQL | unknown, userId: string): SQL<number | null> {
  return sql<number | null>`(select m.role from org_members m where m.org_id = ${orgIdColumn} and m.user_id = ${userId} and m.disabled = 0)`;
}

/**
 * Statements that recompute every resolved access cap of an organization after its collection tree or
 * levels changed: collections top-down through the tree, then every space from its parent.
 * They belong in the same batch (transaction) as the change itself.
 */
export function refreshOrgAccessCaps(db: Db, orgId: string) {
  return [
    db
      .update(collections)
      .set({
        accessCap: sql`coalesce((with recursive chain(id, cap) as (
            select id, coalesce(default_level, 6) from collections where org_id = ${orgId} and parent_id is null
            union all
            select c.id, coalesce(c.default_level, chain.cap) from collections c join chain on c.parent_id = chain.id
          ) select cap from chain where chain.id = ${collections.id}), 0)`,
      })
      .where(eq(collections.orgId, orgId)),
    db.update(spaces).set({ accessCap: spaceCapSql }).where(eq(spaces.orgId, orgId)),
  ] as const;
}

/** A space's cap: its own level, else its parent collection's cap, else the root's (6). */
const spaceCapSql = sql`coalesce(${spaces.defaultLevel}, (select c.access_cap from collections c where c.id = ${spaces.parentId}), 6)`;

/** Recomputes one space's cap from its own level and its parent collection (same batch as the write). */
export function refreshSpaceAccessCap(db: Db, spaceId: string) {
  return db.update(spaces).set({ accessCap: spaceCapSql }).where(eq(spaces.id, spaceId));
}
