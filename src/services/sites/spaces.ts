import { and, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import { rawRun, selectOfBuiltShape, type Db } from '../../db/client';
import { siteSections, sites, siteSpaces, spaces } from '../../db/schema';
import { spaceRoleSql } from '../access/access';
import { badRequest } from '../../lib/errors';
import { nowIso } from '../../lib/time';
import type { SiteModel, SpaceWithRank } from './model';
import { publishedUrlOf, siteSpaceSegments, type SiteUrls } from './present';

/**
 * Checks that a space about to join a site is a live space of the site's organization (the rows of
 * `spacesAmongQuery`) and makes it known to the model, so site spaces can show it.
 */
export function requireSpaceToAdd(model: SiteModel, found: SpaceWithRank[], spaceId: string): void {
  const row = found.find((f) => f.space.id === spaceId);
  if (!row) throw badRequest(`spaceId: "${spaceId}" is not a space of this organization`);
  model.spaces.set(spaceId, row);
}

/**
 * The statements that take spaces out of every site when they are deleted or leave the organization
 * (`spaceIds`: SQL selecting their ids). In the caller's batch: the site spaces go, every site that
 * had one gets a new structure version (an edit that read the old structure answers 409), and each
 * section (or site root) that lost its default gets its first remaining site space as the default.
 * Restoring a space does not bring its site spaces back: an admin decides where it is published again.
 */
export function removeSpacesFromSites(db: Db, orgId: string, spaceIds: SQL) {
  return [
    db
      .update(sites)
      .set({ structureVersion: sql`abs(random()) % 4503599627370496 + 1`, updatedAt: nowIso() })
      .where(and(eq(sites.orgId, orgId), sql`${sites.id} in (select site_id from site_spaces where space_id in (${spaceIds}))`)),
    db.delete(siteSpaces).where(sql`${siteSpaces.spaceId} in (${spaceIds}) and ${siteSpaces.siteId} in (select id from sites where org_id = ${orgId})`),
    rawRun(db, sql`update site_spaces set is_default = 1 where id in (
      select (select s2.id from site_spaces s2 where s2.site_id = c.site_id and s2.section_id is c.section_id order by s2.position, s2.id limit 1)
      from (select distinct site_id, section_id from site_spaces where site_id in (select id from sites where org_id = ${orgId})) c
      where not exists (select 1 from site_spaces d where d.site_id = c.site_id and d.section_id is c.section_id and d.is_default = 1))`),
  ];
}

/** Who reads a space with its placement: a member (their role is read too), a site token's site, or a visitor. */
export type PlacementReader = { userId: string } | { site: string } | { shareKey?: string };

/**
 * A space (with the caller's role rank: 0 for a site token or a visitor) and where it is published, in one statement:
 * the oldest published site that has it, with the paths of its site space and section, for `urls.published`. For a
 * visitor, only a site that visitor may open: public or unlisted, or share-link with that active key; for a site
 * token (`{ site }`), only that site, which the token opens whatever its visibility. The placement's columns are
 * null when no such site has the space (`placementOf`). One statement where the space read ran two (the space, then
 * its placement): under Miniflare each statement of a batch is a few more SQLite calls in local D1's Durable Object.
 */
export function spaceWithPlacementQuery(db: Db, spaceId: string, reader: PlacementReader) {
  // Built once per isolate for each kind of reader (db/client `selectOfBuiltShape`: its builder too): every space read has it.
  const kind = 'userId' in reader ? 'member' : 'site' in reader ? 'site' : 'visitor';
  const values = {
    spaceId,
    userId: 'userId' in reader ? reader.userId : null,
    site: 'site' in reader ? reader.site : null,
    shareKey: 'shareKey' in reader ? (reader.shareKey ?? '') : '',
  };
  return selectOfBuiltShape(db, `spaceWithPlacement:${kind}`, () => spaceWithPlacementSelect(db, kind), values);
}

function spaceWithPlacementSelect(db: Db, kind: 'member' | 'site' | 'visitor') {
  const readerCanOpen =
    kind === 'member'
      ? sql``
      : kind === 'site'
        ? sql` and ps.id = ${sql.placeholder('site')}`
        : sql` and (ps.visibility in ('public', 'unlisted') or (ps.visibility = 'share-link' and exists (
        select 1 from site_share_links l where l.site_id = ps.id and l.key = ${sql.placeholder('shareKey')} and l.active = 1)))`;
  // The oldest published site that has the space, then its site space: the order the placement has always had.
  const placed = sql`(select pss.id from site_spaces pss join sites ps on ps.id = pss.site_id
    where pss.space_id = ${spaces.id} and ps.published = 1${readerCanOpen}
    order by ps.created_at, ps.id, pss.position limit 1)`;
  // Aliased: D1 answers batch rows as objects, and the site's names would collide with the space's columns.
  const siteFields = Object.fromEntries(
    Object.entries(getTableColumns(sites)).map(([key, column]) => [key, sql`${column}`.mapWith(column).as(`placement_site_${column.name}`)]),
  ) as { [K in keyof typeof sites.$inferSelect]: SQL.Aliased<(typeof sites.$inferSelect)[K] | null> };
  return db
    .select({
      space: spaces,
      rank: kind === 'member' ? spaceRoleSql(sql.placeholder('userId') as unknown as SQL) : sql<number>`0`.as('rank'),
      site: siteFields,
      siteSpacePath: sql<string | null>`${siteSpaces.path}`.as('placement_site_space_path'),
      siteSpaceDefault: sql<number | null>`${siteSpaces.isDefault}`.as('placement_site_space_default'),
      sectionPath: sql<string | null>`${siteSections.path}`.as('placement_section_path'),
      sectionDefault: sql<number | null>`${siteSections.isDefault}`.as('placement_section_default'),
    })
    .from(spaces)
    .leftJoin(siteSpaces, eq(siteSpaces.id, placed))
    .leftJoin(sites, eq(sites.id, siteSpaces.siteId))
    .leftJoin(siteSections, eq(siteSections.id, siteSpaces.sectionId))
    .where(eq(spaces.id, sql.placeholder('spaceId')));
}

export type SpaceWithPlacement = Awaited<ReturnType<ReturnType<typeof spaceWithPlacementQuery>['all']>>[number];

/** Where a space read by `spaceWithPlacementQuery` is published, if a site the reader may open has it. */
export type Placement = { site: typeof sites.$inferSelect; siteSpacePath: string; siteSpaceDefault: number; sectionPath: string | null; sectionDefault: number | null };

export function placementOf(row: SpaceWithPlacement | undefined): Placement | undefined {
  return row?.site.id == null ? undefined : (row as unknown as Placement);
}

/** The published URL of a space from its placement. */
export function placementUrl(placement: Placement, urls: SiteUrls): string {
  const section = placement.sectionPath === null ? null : { path: placement.sectionPath, isDefault: !!placement.sectionDefault };
  const segments = siteSpaceSegments(section, { path: placement.siteSpacePath, isDefault: !!placement.siteSpaceDefault });
  return publishedUrlOf(placement.site, urls, segments);
}
