import { constantSelect, tableRows } from '../../db/constant-select';
import type { BatchItem, Db } from '../../db/client';
import { siteSectionGroups, siteSections, sites, siteSpaces, spaces } from '../../db/schema';
import type { OrgHost } from '../organizations/hostnames';
import type { SiteTarget } from '../../site/load';

/**
 * The first batch of a published site's request, as constant SQL (db/constant-select): the statements of
 * `siteModelQueries` for a visitor (rank 0), the share link's and the host's, each the text drizzle builds for them
 * (test/platform/constant-select.test.ts compares both, and the rows they answer), so that a cold isolate's first
 * page does not pay for building them. A target's site and organization are SQL expressions (a value, or a subquery
 * by basename or host) written into every statement, each with its own values.
 */

/** An SQL expression with `?` where its values go, and those values in order. */
interface Expression {
  text: string;
  params: unknown[];
}

const value = (v: unknown): Expression => ({ text: '?', params: [v] });

/** Which organization a host names (services/organizations/hostnames `orgHostCondition`). */
function hostCondition(host: OrgHost): Expression {
  if ('hostname' in host) return { text: '"organizations"."hostname" = ?', params: [host.hostname] };
  return { text: '"organizations"."custom_hostname" = ? and "organizations"."custom_hostname_verified_at" is not null', params: [host.customHostname] };
}

/**
 * The site a target names and its organization, each an SQL expression with its values: the one form every statement
 * of a site's first batch takes (test/platform/constant-select holds it to the drizzle SQL it replaced).
 */
export function targetExpressions(target: SiteTarget): { site: Expression; org: Expression } {
  if ('siteId' in target) {
    return { site: value(target.siteId), org: { text: '(select "sites"."org_id" from "sites" where "sites"."id" = ?)', params: [target.siteId] } };
  }
  if ('basename' in target) {
    return {
      site: { text: '(select "sites"."id" from "sites" where "sites"."org_id" = ? and "sites"."basename" = ?)', params: [target.orgId, target.basename] },
      org: value(target.orgId),
    };
  }
  const where = hostCondition(target);
  return {
    site: {
      text: `(select json_extract("organizations"."default_content", '$.site') from "organizations" where ${where.text} and json_extract("organizations"."default_content", '$.type') = 'site')`,
      params: where.params,
    },
    org: { text: `(select "organizations"."id" from "organizations" where ${where.text})`, params: where.params },
  };
}

// Read from the schema on the first site request, not when the module is evaluated (an edge-cache answer needs none).
let tables: ReturnType<typeof readTables> | undefined;
function readTables() {
  return { sites: tableRows(sites), groups: tableRows(siteSectionGroups), sections: tableRows(siteSections), siteSpaces: tableRows(siteSpaces), spaces: tableRows(spaces) };
}

/**
 * services/sites/model `siteModelQueries(db, org, site, null)`'s five statements, their rows as its own: the site (only
 * in its organization), its groups, sections and site spaces in order, and the spaces they point to with rank 0 and
 * their head revision's page count.
 */
export function visitorModelStatements(db: Db, site: Expression, org: Expression) {
  const t = (tables ??= readTables());
  const ordered = (table: string) => `order by "${table}"."position" asc, "${table}"."id" asc`;
  const ofSite = (table: string) => `"${table}"."site_id" = ${site.text}`;
  return [
    constantSelect(db, `select ${t.sites.columns} from "sites" where ("sites"."id" = ${site.text} and "sites"."org_id" = ${org.text})`, [...site.params, ...org.params], t.sites.row),
    constantSelect(db, `select ${t.groups.columns} from "site_section_groups" where ${ofSite('site_section_groups')} ${ordered('site_section_groups')}`, site.params, t.groups.row),
    constantSelect(db, `select ${t.sections.columns} from "site_sections" where ${ofSite('site_sections')} ${ordered('site_sections')}`, site.params, t.sections.row),
    constantSelect(db, `select ${t.siteSpaces.columns} from "site_spaces" where ${ofSite('site_spaces')} ${ordered('site_spaces')}`, site.params, t.siteSpaces.row),
    constantSelect(
      db,
      `select ${t.spaces.columns}, 0 as "rank", (select r.page_count from revisions r where r.id = "revision_id") as "pages" from "spaces" where "spaces"."id" in (select "space_id" from "site_spaces" where ${ofSite('site_spaces')})`,
      site.params,
      (raw) => ({ space: t.spaces.row(raw), rank: raw.rank as number, pages: raw.pages as number }),
    ),
  ] as const satisfies readonly BatchItem[];
}

/** services/sites/access `shareLinkQuery`: the site's active share link of this key (none without a key). */
export function shareLinkStatement(db: Db, site: Expression, key: string | undefined) {
  return constantSelect(
    db,
    `select "id" from "site_share_links" where ("site_share_links"."site_id" = ${site.text} and "site_share_links"."key" = ? and "site_share_links"."active" = ?) limit ?`,
    [...site.params, key ?? '', 1, 1],
    (raw) => ({ id: raw.id as string }),
  );
}

/** Whether an organization has this host (site/load `orgHostActive`'s select). */
export function orgOfHostStatement(db: Db, host: OrgHost) {
  const where = hostCondition(host);
  return constantSelect(db, `select "id" from "organizations" where ${where.text}`, where.params, (raw) => ({ id: raw.id as string }));
}
