import { Column, eq, getTableName, is, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Db } from '../../db/client';
import { collections, spaces } from '../../db/schema/index';
import { RANK } from '../../lib/roles';
import { WORKING_STATUSES_SQL } from '../integrations/scopes';

/**
 * Correlated subqueries below name their outer columns with the table spelled out: drizzle renders
 * a column of a single-table query without its table, and an unqualified name inside a subquery
 * binds to the subquery's own tables (org_members.org_id = org_members.org_id is always true).
 */
const col = (table: string, column: string) => sql.raw(`"${table}"."${column}"`);
const SPACE = { id: col('spaces', 'id'), orgId: col('spaces', 'org_id'), cap: col('spaces', 'access_cap'), level: col('spaces', 'default_level'), parent: col('spaces', 'parent_id') };
const COLLECTION = { id: col('collections', 'id'), orgId: col('collections', 'org_id'), cap: col('collections', 'access_cap') };
const SITE = { id: col('sites', 'id'), orgId: col('sites', 'org_id') };

/**
 * Effective role rank (0..6) of a user on a space, as one SQL expression evaluated per `spaces` row.
 * `userId` is a bound value, or a qualified column when listing everyone's access to one space.
 *
 * The rule (DESIGN.md; the Handbook's access guide writes it out): the highest of
 *   - the organization role, capped by the space's resolved defaultLevel chain (org admins are never capped),
 *   - the user's teams' grants on the space,
 *   - the user's own grant on the space,
 *   - the user's and their teams' grants on the collections the space is in (its parent and every ancestor),
 *   - the user's and their teams' grants on the sites that link the space.
 * Disabled or absent members have no access.
 */
export function spaceRoleSql(user: string | SQLiteColumn | SQL): SQL<number> {
  const userId = typeof user === 'string' ? user : qualify(user);
  // One probe of the membership stands for the four the terms made (each term's own join on org_members): the grants
  // count only for an active member, and an admin's 6 is the highest rank, so the grants are not looked at for one.
  // What a statement with this expression costs D1 is mostly SQLite compiling it (each join a planning problem):
  // fewer tables, less work on every read of a space, a page or a change request.
  return sql<number>`max(
    coalesce((select case when m.role = 6 then 6 else max(min(m.role, ${SPACE.cap}),
        coalesce((select max(g.role) from space_team_grants g join team_members tm on tm.team_id = g.team_id
          where g.space_id = ${SPACE.id} and tm.user_id = ${userId}), 0),
        coalesce((select g.role from space_user_grants g where g.space_id = ${SPACE.id} and g.user_id = ${userId}), 0),
        ${grantsAboveSql(userId, SPACE.parent, SPACE.id)}) end
      from org_members m where m.org_id = ${SPACE.orgId} and m.user_id = ${userId} and m.disabled = 0), 0),
    ${installationSpaceRoleSql(userId)}
  )`;
}

/**
 * The highest grant a user holds through sharing above a space or collection: on `collectionId` and every collection it
 * is nested in (walked up through `parent_id`; `union` stops at a cycle), directly or through a team, and, for a space
 * (`spaceId`), on every site that links it; 0 without any. Whether the user is an active member of the organization
 * (a grant outlives a membership, but opens nothing without it) is the caller's condition. Grants look up by user (and
 * the user's teams) first, so a member with no grant anywhere pays a few index probes.
 */
function grantsAboveSql(userId: string | SQL, collectionId: SQL, spaceId: SQL | null): SQL<number> {
  const siteGrants = spaceId
    ? sql`select g.role from site_user_grants g join site_spaces ss on ss.site_id = g.site_id
          where g.user_id = ${userId} and ss.space_id = ${spaceId}
        union all select g.role from site_team_grants g join team_members tm on tm.team_id = g.team_id
          join site_spaces ss on ss.site_id = g.site_id where tm.user_id = ${userId} and ss.space_id = ${spaceId}`
    : undefined;
  const throughCollections = sql<number>`coalesce((with recursive chain(id) as (
        select ${collectionId}
        union select c.parent_id from collections c join chain on c.id = chain.id where c.parent_id is not null
      ) select max(x.role) from (
        select g.role from collection_user_grants g where g.user_id = ${userId} and g.collection_id in (select id from chain)
        union all select g.role from collection_team_grants g join team_members tm on tm.team_id = g.team_id
          where tm.user_id = ${userId} and g.collection_id in (select id from chain)
      ) x), 0)`;
  if (!siteGrants) return throughCollections;
  // The sites' grants written once, beside the collections' rather than also inside their union: each written
  // subquery is SQLite's to compile again on every read with a rank (local D1 prepares every statement it runs). A
  // space in no collection has no collection grant to find, so no chain is walked for it: the walk (a recursive CTE
  // materialized for the row) was the costliest term of a space's rank (test/bench/profile.ts `--isolates`).
  return sql<number>`max(coalesce((select max(x.role) from (${siteGrants}) x), 0),
    case when ${collectionId} is null then 0 else ${throughCollections} end)`;
}

/**
 * An installation's bot user (the actor of its installation tokens, one per installation) is no member:
 * its role on a space of the installation's organization is the installation's `space_role` where the
 * installation covers the space (all of the organization's, or the selected ones), 0 elsewhere. For
 * every other user the indexed probe finds nothing. A `pending` installation (waiting for consent to more
 * scopes) keeps working: its `space_role` is derived from the scopes it approved.
 */
function installationSpaceRoleSql(userId: string | SQL): SQL<number> {
  // The installation is found by its bot user (a unique index) before anything else is read: no join to plan.
  return sql<number>`coalesce((select case when ii.status in ${WORKING_STATUSES_SQL}
        and exists (select 1 from integrations i where i.id = ii.integration_id and i.deleted_at is null)
        and (ii.space_selection = 'all' or exists (select 1 from integration_space_installations si
          where si.installation_id = ii.id and si.space_id = ${SPACE.id} and si.status = 'active'))
      then ii.space_role end
    from integration_installations ii where ii.bot_user_id = ${userId} and ii.org_id = ${SPACE.orgId}), 0)`;
}

/**
 * Effective role rank of a user on a `collections` row: the highest of the organization role capped by the
 * collection chain, and the user's and their teams' grants on the collection or any collection it is nested in.
 * `user` as for spaceRoleSql.
 */
export function collectionRoleSql(user: string | SQLiteColumn | SQL): SQL<number> {
  const userId = typeof user === 'string' ? user : qualify(user);
  return sql<number>`coalesce((select case when m.role = 6 then 6 else max(min(m.role, ${COLLECTION.cap}), ${grantsAboveSql(userId, COLLECTION.id, null)}) end
      from org_members m where m.org_id = ${COLLECTION.orgId} and m.user_id = ${userId} and m.disabled = 0), 0)`;
}

/**
 * Role rank of a user on a `sites` row: the highest of their organization role (a site has no level that caps
 * it) and their own and their teams' grants on the site. Null for whoever is not a member of the site's
 * organization (an installation's bot user reads as a reader, as orgRoleSql says); a guest's rank is its grants'.
 */
export function siteRoleSql(user: string | SQLiteColumn | SQL): SQL<number | null> {
  const userId = typeof user === 'string' ? user : qualify(user);
  const orgRole = orgRoleSql(SITE.orgId, userId);
  return sql<number | null>`case when ${orgRole} is null then null else max(${orgRole}, coalesce((select max(x.role) from (
        select g.role from site_user_grants g where g.site_id = ${SITE.id} and g.user_id = ${userId}
        union all select g.role from site_team_grants g join team_members tm on tm.team_id = g.team_id
          where g.site_id = ${SITE.id} and tm.user_id = ${userId}
      ) x), 0)) end`;
}

/** A column as `"table"."column"`, safe to use inside a correlated subquery. */
export function qualify(column: SQLiteColumn | SQL): SQL {
  return is(column, Column) ? col(getTableName(column.table), column.name) : column;
}

/**
 * The caller's organization role rank, or null when not a member. An installation's bot user reads as a
 * reader of its installation's organization (which routes it may call is its scopes').
 */
export function orgRoleSql(orgIdColumn: SQLiteColumn | SQL, userId: string | SQL): SQL<number | null> {
  const orgId = qualify(orgIdColumn);
  return sql<number | null>`coalesce((select m.role from org_members m where m.org_id = ${orgId} and m.user_id = ${userId} and m.disabled = 0),
    (select ${RANK.read} from integration_installations ii join integrations i on i.id = ii.integration_id and i.deleted_at is null
      where ii.bot_user_id = ${userId} and ii.org_id = ${orgId} and ii.status in ${WORKING_STATUSES_SQL}))`;
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
        accessCap: sql`coalesce((with recursive chain(cid, cap) as (
            select c0.id, coalesce(c0.default_level, 6) from collections c0 where c0.org_id = ${orgId} and c0.parent_id is null
            union all
            select c1.id, coalesce(c1.default_level, chain.cap) from collections c1 join chain on c1.parent_id = chain.cid
          ) select chain.cap from chain where chain.cid = ${COLLECTION.id}), 0)`,
      })
      .where(eq(collections.orgId, orgId)),
    db.update(spaces).set({ accessCap: spaceCapSql }).where(eq(spaces.orgId, orgId)),
  ] as const;
}

/** A space's cap: its own level, else its parent collection's cap, else the root's (6). */
const spaceCapSql = sql`coalesce(${SPACE.level}, (select pc.access_cap from collections pc where pc.id = ${SPACE.parent}), 6)`;

/** Recomputes one space's cap from its own level and its parent collection (same batch as the write). */
export function refreshSpaceAccessCap(db: Db, spaceId: string) {
  return db.update(spaces).set({ accessCap: spaceCapSql }).where(eq(spaces.id, spaceId));
}
