import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import { rawRun, selectOfBuiltShape, type Db } from '../../db/client';
import { siteSections, sites, siteSpaces } from '../../db/schema';
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

/**
 * Where a space is published: the oldest published site that has it, with the paths of its site
 * space and section, for `urls.published`. With `visitor` (a visitor's read), only a site that visitor
 * may open: public or unlisted, or share-link with that active key; with `{ site }` (a site token's
 * read), only that site, which the token opens whatever its visibility.
 */
export function publishedPlacementQuery(db: Db, spaceId: string, visitor: { shareKey?: string } | { site: string } | null) {
  // Built once per isolate for each kind of visitor (db/client `selectOfBuiltShape`: its builder too): a space read has it.
  const kind = !visitor ? 'member' : 'site' in visitor ? 'site' : 'visitor';
  const visitorCanOpen = () =>
    kind === 'member'
      ? sql`1`
      : kind === 'site'
        ? sql`${sites.id} = ${sql.placeholder('site')}`
        : sql`(${sites.visibility} in ('public', 'unlisted') or (${sites.visibility} = 'share-link' and exists (
        select 1 from site_share_links l where l.site_id = ${sites.id} and l.key = ${sql.placeholder('shareKey')} and l.active = 1)))`;
  const values = { spaceId, site: visitor && 'site' in visitor ? visitor.site : null, shareKey: visitor && 'shareKey' in visitor ? (visitor.shareKey ?? '') : '' };
  return selectOfBuiltShape(db, `publishedPlacementQuery:${kind}`, () => placementSelect(db, visitorCanOpen()), values);
}

function placementSelect(db: Db, visitorCanOpen: SQL) {
  // Aliased: D1 answers batch rows as objects, and these names would collide with the site's columns.
  return db
    .select({
      site: sites,
      siteSpacePath: sql<string>`${siteSpaces.path}`.as('placement_site_space_path'),
      siteSpaceDefault: sql<number>`${siteSpaces.isDefault}`.as('placement_site_space_default'),
      sectionPath: sql<string | null>`${siteSections.path}`.as('placement_section_path'),
      sectionDefault: sql<number | null>`${siteSections.isDefault}`.as('placement_section_default'),
    })
    .from(siteSpaces)
    .innerJoin(sites, eq(sites.id, siteSpaces.siteId))
    .leftJoin(siteSections, eq(siteSections.id, siteSpaces.sectionId))
    .where(and(eq(siteSpaces.spaceId, sql.placeholder('spaceId')), eq(sites.published, true), visitorCanOpen))
    .orderBy(asc(sites.createdAt), asc(sites.id), asc(siteSpaces.position))
    .limit(1);
}

export type Placement = Awaited<ReturnType<ReturnType<typeof publishedPlacementQuery>['all']>>[number];

/** The published URL of a space from its placement. */
export function placementUrl(placement: Placement, urls: SiteUrls): string {
  const section = placement.sectionPath === null ? null : { path: placement.sectionPath, isDefault: !!placement.sectionDefault };
  const segments = siteSpaceSegments(section, { path: placement.siteSpacePath, isDefault: !!placement.siteSpaceDefault });
  return publishedUrlOf(placement.site, urls, segments);
}
