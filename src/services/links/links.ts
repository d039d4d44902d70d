import { sql, type SQL } from 'drizzle-orm';
import { rawAll, type Db } from '../../db/client';
import { toOrganization } from '../../schemas/organization';
import type { OrganizationRow } from '../organizations/organizations';
import type { UrlContext } from '../../schemas/common';
import { spaceAppUrl, toSpace } from '../../schemas/space';
import { toRevisionFile, toRevisionPage } from '../content/presenter';
import type { Env } from '../../env';
import { locatePages, type LocatedPage, type PathRow } from '../content/page-paths';
import type { LinkTarget } from '../indexing/extract';
import { createSigner, downloadUrl } from '../content/files';
import type { FileEntry } from '../content/revisions';
import type { SpaceRow } from '../spaces/spaces';
import { lookupSql, SAFE_KEY } from '../content/tree';

/**
 * Links of a space's main content, read from the `space_links` index (services/indexing), and the
 * GitBook objects that describe them: a ContentReferenceUsage per target, ContentLocations for the
 * pages holding links and for targets in this space.
 */

export type LinkStatus = 'ok' | 'broken' | 'in-app';

/** Location pages listed per target at most (a URL linked from thousands of pages lists the first ones). */
export const MAX_LOCATIONS_PER_TARGET = 50;

/**
 * The status of a link row `l` as the caller sees it: a URL into this deployment's own app or API is
 * `in-app` (it should be a content reference); the rest is as indexed.
 */
export function statusSql(urls: UrlContext): SQL {
  const url = sql`(l.target ->> '$.url')`;
  return sql`(case when l.target_key like 'url:%' and (instr(${url}, ${`${urls.app}/`}) = 1 or instr(${url}, ${`${urls.api}/`}) = 1) then 'in-app' else l.status end)`;
}

export interface TargetRow {
  targetKey: string;
  target: string;
  targetId: string | null;
  status: LinkStatus;
  /** JSON array of the ids of the pages holding the link. */
  pages: string;
}

/**
 * One keyset page of a space's link targets (by target key), optionally of one page's links and of one
 * status, with the pages holding each (at most MAX_LOCATIONS_PER_TARGET).
 */
export function targetsQuery(db: Db, spaceId: string, urls: UrlContext, filter: { pageId?: string; status?: LinkStatus; after?: string; limit: number }) {
  return rawAll<TargetRow>(
    db,
    sql`with l as (
      select l.page_id, l.target_key, l.target, l.target_id, ${statusSql(urls)} as status,
        row_number() over (partition by l.target_key order by l.page_id) as n
      from space_links l where l.space_id = ${spaceId} ${filter.pageId ? sql`and l.page_id = ${filter.pageId}` : sql``}
    )
    select target_key as targetKey, min(target) as target, min(target_id) as targetId, min(status) as status,
      json_group_array(page_id) filter (where n <= ${MAX_LOCATIONS_PER_TARGET}) as pages
    from l where true ${filter.status ? sql`and status = ${filter.status}` : sql``} ${filter.after !== undefined ? sql`and target_key > ${filter.after}` : sql``}
    group by target_key order by target_key limit ${filter.limit + 1}`,
  );
}

/** The number of targets the filter matches, and the space's (or page's) links and broken links. */
export function linkStatsQuery(db: Db, spaceId: string, urls: UrlContext, filter: { pageId?: string; status?: LinkStatus }) {
  return rawAll<{ targets: number; total: number; broken: number }>(
    db,
    sql`with l as (
      select l.target_key, ${statusSql(urls)} as status from space_links l
      where l.space_id = ${spaceId} ${filter.pageId ? sql`and l.page_id = ${filter.pageId}` : sql``}
    )
    select (select count(distinct target_key) from l where true ${filter.status ? sql`and status = ${filter.status}` : sql``}) as targets,
      (select count(*) from l) as total, (select count(*) from l where status = 'broken') as broken`,
  );
}

/** The pages of main content that link to a page or file of the space (keyset by page id). */
export function backlinksQuery(db: Db, spaceId: string, targetId: string, kind: 'page' | 'file', after: string | undefined, limit: number) {
  const kindSql = kind === 'file' ? sql`l.target_key like 'file:%'` : sql`l.target_key like 'page:%'`;
  return rawAll<{ pageId: string; total: number }>(
    db,
    sql`select distinct l.page_id as pageId,
      (select count(distinct l2.page_id) from space_links l2 where l2.space_id = ${spaceId} and l2.target_id = ${targetId}
        and ${sql.raw(kind === 'file' ? "l2.target_key like 'file:%'" : "l2.target_key like 'page:%'")}) as total
    from space_links l where l.space_id = ${spaceId} and l.target_id = ${targetId} and ${kindSql}
      ${after !== undefined ? sql`and l.page_id > ${after}` : sql``}
    order by l.page_id limit ${limit + 1}`,
  );
}

/** The root of a map of a revision of the space (`revision`, an id or SQL), or of its main content. */
function rootOf(column: 'pages_root' | 'files_root', spaceId: string, revision?: string | SQL): SQL {
  const main = sql`(select r.${sql.raw(column)} from spaces s join revisions r on r.id = s.revision_id where s.id = ${spaceId})`;
  if (revision === undefined) return main;
  return sql`(select r.${sql.raw(column)} from revisions r where r.id = ${revision} and r.space_id = ${spaceId})`;
}

/** Files by id in the space's main content, or in a revision of the space: one statement. */
export function filesQuery(db: Db, spaceId: string, ids: string[], revision?: string | SQL) {
  const root = rootOf('files_root', spaceId, revision);
  return rawAll<{ id: string; entry: string | null }>(
    db,
    sql`select value as id, ${lookupSql(root, sql`value`)} as entry from json_each(${JSON.stringify(ids.filter((id) => SAFE_KEY.test(id)))})`,
  );
}

/** Which of `ids` are pages in the space's main content, or in a revision of the space: one statement. */
export function pagesPresentQuery(db: Db, spaceId: string, ids: string[], revision?: string | SQL) {
  const root = rootOf('pages_root', spaceId, revision);
  return rawAll<{ id: string }>(
    db,
    sql`select value as id from json_each(${JSON.stringify(ids.filter((id) => SAFE_KEY.test(id) && id !== '~'))})
      where ${lookupSql(root, sql`value`)} is not null`,
  );
}

// ---------------------------------------------------------------------------------------------
// GitBook's objects

/** What every ContentLocation of the space repeats: the organization and the space as the caller sees them. */
export interface LocationContext {
  env: Env;
  origin: string;
  urls: UrlContext;
  org: OrganizationRow;
  orgRank: number | null;
  space: SpaceRow;
  spaceRank: number;
  pages: Map<string, LocatedPage>;
  files: Map<string, FileEntry>;
}

export function locationContext(base: Omit<LocationContext, 'pages' | 'files'>, paths: PathRow[], files: Array<{ id: string; entry: string | null }>): LocationContext {
  const pages = new Map([...locatePages(paths)].map(([key, page]) => [key.slice(key.indexOf('/') + 1), page]));
  const fileMap = new Map(files.filter((f) => f.entry).map((f) => [f.id, JSON.parse(f.entry!) as FileEntry]));
  return { ...base, pages, files: fileMap };
}

function frame(ctx: LocationContext) {
  return { organization: toOrganization(ctx.org, ctx.orgRank, ctx.urls), space: toSpace(ctx.space, ctx.spaceRank, ctx.urls) };
}

/** A page of the space as a ContentLocation, or undefined when it is not in main content. */
export function pageLocation(ctx: LocationContext, pageId: string, anchor?: string) {
  const page = ctx.pages.get(pageId);
  if (!page) return undefined;
  const contentUrls = { app: spaceAppUrl(ctx.urls, ctx.space.orgId, ctx.space.id) };
  return {
    kind: 'page' as const,
    ...frame(ctx),
    page: toRevisionPage({ ...page.record, pages: [] }, contentUrls, page.parentPath),
    ...(anchor ? { internalLocation: { type: 'anchor' as const, anchor } } : {}),
  };
}

export async function fileLocation(ctx: LocationContext, fileId: string, sign = createSigner(ctx.env)) {
  const file = ctx.files.get(fileId);
  if (!file) return undefined;
  return { kind: 'file' as const, ...frame(ctx), file: toRevisionFile(file, await downloadUrl(ctx.env, ctx.origin, file, Date.now(), sign)) };
}

/** The location of a link's target: a URL, or a page or file of this space that exists; nothing else is shown. */
export async function targetLocation(ctx: LocationContext, target: LinkTarget, sign: (message: string) => Promise<string>) {
  switch (target.kind) {
    case 'url':
      return { kind: 'url' as const, url: target.url };
    case 'page':
      return target.space ? undefined : pageLocation(ctx, target.page);
    case 'anchor':
      return target.space || !target.page ? undefined : pageLocation(ctx, target.page, target.anchor);
    case 'file':
      return fileLocation(ctx, target.file, sign);
    default:
      return undefined;
  }
}

/** A ContentReferenceUsage for a target row. */
export async function toUsage(ctx: LocationContext, row: TargetRow, sign: (message: string) => Promise<string>) {
  const target = JSON.parse(row.target) as LinkTarget;
  const targetReference = await targetLocation(ctx, target, sign);
  const pageIds = JSON.parse(row.pages) as string[];
  return {
    status: row.status,
    relation: 'reference' as const,
    ...(targetReference ? { targetReference } : {}),
    locationReferences: pageIds.map((id) => pageLocation(ctx, id)).filter((l) => l !== undefined),
  };
}

/** The pages and files a page of target rows needs located. */
export function neededBy(rows: TargetRow[]): { pages: string[]; files: string[] } {
  const pages = new Set<string>();
  const files = new Set<string>();
  for (const row of rows) {
    for (const id of JSON.parse(row.pages) as string[]) pages.add(id);
    const target = JSON.parse(row.target) as LinkTarget;
    if ((target.kind === 'page' || target.kind === 'anchor') && !target.space && row.targetId) pages.add(row.targetId);
    if (target.kind === 'file') files.add(target.file);
  }
  return { pages: [...pages], files: [...files] };
}
