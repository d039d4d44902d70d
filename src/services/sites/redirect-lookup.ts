import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { siteRedirects } from '../../db/schema';
import { locatePages, pagePathsQuery } from '../content/page-paths';
import type { SiteModel } from './model';
import { publishedUrlOf, type SiteUrls } from './present';
import { siteSpaceSegments } from './site-paths';

/**
 * Finding a site's live redirect of a path and where it leads: what getSiteRedirectBySource answers, and what the
 * site's own reader follows on a path it has no page for.
 */

export type RedirectRow = typeof siteRedirects.$inferSelect;

/** A stored destination (routes/sites/redirects DestinationSchema). */
export type StoredDestination =
  | { kind: 'external'; url: string }
  | { kind: 'site-section'; siteSectionId: string }
  | { kind: 'site-space'; siteSpaceId: string }
  | { kind: 'site-page'; siteSpaceId: string; pageId: string };

/**
 * The live redirect of `path`: its exact source, else the longest prefix source (`/a/*` or `/a*`) it starts
 * with. Sources are compared as they are stored (percent-encoded as in URLs).
 */
export function redirectForPathQuery(db: Db, siteId: string, path: string) {
  const prefix = sql`substr(${siteRedirects.source}, 1, length(${siteRedirects.source}) - 1)`;
  return db
    .select()
    .from(siteRedirects)
    .where(
      and(
        eq(siteRedirects.siteId, siteId),
        eq(siteRedirects.draft, false),
        sql`(${siteRedirects.source} = ${path} or (substr(${siteRedirects.source}, -1) = '*' and substr(${path}, 1, length(${siteRedirects.source}) - 1) = ${prefix}))`,
      ),
    )
    .orderBy(desc(sql`${siteRedirects.source} = ${path}`), desc(sql`length(${siteRedirects.source})`))
    .limit(1);
}

/** Where a destination leads in the site (its path segments), or its URL; null when the site no longer has it. */
export async function destinationOf(db: Db, model: SiteModel, destination: StoredDestination): Promise<{ url: string } | { segments: string[] } | null> {
  if (destination.kind === 'external') return { url: destination.url };
  if (destination.kind === 'site-section') {
    const section = model.sections.find((s) => s.id === destination.siteSectionId);
    return section ? { segments: section.isDefault ? [] : [section.path] } : null;
  }
  const siteSpace = model.siteSpaces.find((s) => s.id === destination.siteSpaceId);
  if (!siteSpace) return null;
  const section = siteSpace.sectionId === null ? null : (model.sections.find((s) => s.id === siteSpace.sectionId) ?? null);
  const segments = siteSpaceSegments(section, siteSpace);
  if (destination.kind === 'site-space') return { segments };
  const located = locatePages(await pagePathsQuery(db, [[siteSpace.spaceId, destination.pageId]])).get(`${siteSpace.spaceId}/${destination.pageId}`);
  return located ? { segments: [...segments, ...located.path.split('/')] } : null;
}

/** The published URL of a destination; null when the site no longer has its section, site space or page. */
export async function targetOf(db: Db, model: SiteModel, urls: SiteUrls, destination: StoredDestination): Promise<string | null> {
  const found = await destinationOf(db, model, destination);
  if (!found) return null;
  return 'url' in found ? found.url : publishedUrlOf(model.site, urls, found.segments);
}

/** The target with what a prefix source matched appended (captureWildcard), before any query string. */
export function withCapture(target: string, row: RedirectRow, path: string): string {
  if (!row.captureWildcard || !row.source.endsWith('*')) return target;
  const rest = path.slice(row.source.length - 1);
  if (!rest) return target;
  const url = new URL(target);
  url.pathname = `${url.pathname.replace(/\/$/, '')}${rest.startsWith('/') ? '' : '/'}${rest}`;
  return url.toString();
}
