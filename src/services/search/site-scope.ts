import { sql, type SQL } from 'drizzle-orm';
import { RANK } from '../../lib/roles';
import { spaceRoleSql } from '../access/access';

/** Which site spaces of a site a search reads (GitBook's SiteSearchScope, its deprecated forms included). */
export type SiteSearchScope =
  | { kind: 'all' }
  | { kind: 'specific'; ids: string[] }
  /**
   * The default site space of each section (and of the site's root), plus `current`; `restrictTo`
   * narrows it to `current` alone or to the defaults other than `current`.
   */
  | { kind: 'default'; current?: string; restrictTo?: 'currentSiteSpace' | 'otherSiteSpaces' };

/**
 * The ids of the spaces a site search reads, as a subquery for services/search `searchQuery`: the
 * spaces of the site's site spaces that the scope selects, only for a site of `orgId`, only live spaces
 * of that organization, and only those the reader can read: a member (`userId`) by the rule of every
 * read; a site token's visitor (`{ spaces }`, its token's) only those spaces, of a published site.
 */
export function siteScopeSql(orgId: string, siteId: string, reader: string | { spaces: string[] }, scope: SiteSearchScope): SQL {
  const current = scope.kind === 'default' ? (scope.current ?? '') : '';
  const selected =
    scope.kind === 'all'
      ? sql`1`
      : scope.kind === 'specific'
        ? sql`ss.id in (select value from json_each(${JSON.stringify(scope.ids)}))`
        : scope.restrictTo === 'currentSiteSpace'
          ? sql`ss.id = ${current}`
          : scope.restrictTo === 'otherSiteSpaces'
            ? sql`ss.is_default = 1 and ss.id <> ${current}`
            : sql`(ss.is_default = 1 or ss.id = ${current})`;
  const readable =
    typeof reader === 'string'
      ? sql`${spaceRoleSql(reader)} >= ${RANK.read}`
      : sql`spaces.id in (select value from json_each(${JSON.stringify(reader.spaces)})) and st.published = 1`;
  return sql`(select spaces.id from site_spaces ss join spaces on spaces.id = ss.space_id join sites st on st.id = ss.site_id
    where ss.site_id = ${siteId} and st.org_id = ${orgId}
      and spaces.org_id = ${orgId} and spaces.deleted_at is null and ${selected} and ${readable})`;
}
