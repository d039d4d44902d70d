import { and, eq, inArray, sql } from 'drizzle-orm';
import type { BatchItem, Db } from '../../db/client';
import { siteRedirects, siteSections, siteSpaces } from '../../db/schema/index';
import { newId } from '../../lib/ids';
import type { GitBookConfig } from './layout';

/**
 * `.gitbook.yaml`'s `redirects` (`old/path: new/page.md`) as redirects of the published sites that have the space
 * (GitBook's SiteRedirect): in each site space of the space, `/<section>/<site space>/old/path` leads to the page read
 * from `new/page.md` (a `site-page` destination). Written by the import that reads them, in its batch; those an
 * earlier import wrote (git_sync_entries of kind `redirect`) that the file no longer has are deleted. A redirect the
 * site's admins made for the same source is left as it is (only one into this site space is replaced or deleted).
 */

/** Redirects of one import at most (a site holds 1000: routes/sites/redirects MAX_SITE_REDIRECTS). */
export const MAX_GIT_REDIRECTS = 500;

type Place = { path: string; isDefault: boolean };

/** A redirect leading to a page of the site space (the kind Git Sync writes). */
const intoSiteSpace = (siteSpaceId: string) =>
  sql`json_extract(${siteRedirects.destination}, '$.kind') = 'site-page' and json_extract(${siteRedirects.destination}, '$.siteSpaceId') = ${siteSpaceId}`;

/** The path segments of a site space in its site (services/sites/present siteSpaceSegments, without its imports). */
function segmentsOf(section: Place | null, siteSpace: Place): string[] {
  return [...(section && !section.isDefault ? [section.path] : []), ...(siteSpace.isDefault ? [] : [siteSpace.path])];
}

/** A redirect's source path: each segment percent-encoded as the sources' pattern wants, or null when it is not a path. */
function sourceOf(segments: string[], from: string): string | null {
  const parts = [...segments, ...from.replace(/\.md$/i, '').split('/')].filter(Boolean);
  if (parts.length === 0) return null;
  const encoded = parts.map((p) => encodeURIComponent(p).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`));
  return `/${encoded.join('/')}`;
}

export interface PlacedSiteSpace {
  siteId: string;
  siteSpaceId: string;
  segments: string[];
}

/** The site spaces that publish the space, with their path segments (one query). */
export async function siteSpacesOf(db: Db, spaceId: string): Promise<PlacedSiteSpace[]> {
  const rows = await db
    .select({ id: siteSpaces.id, siteId: siteSpaces.siteId, path: siteSpaces.path, isDefault: siteSpaces.isDefault, sectionPath: siteSections.path, sectionDefault: siteSections.isDefault })
    .from(siteSpaces)
    .leftJoin(siteSections, eq(siteSections.id, siteSpaces.sectionId))
    .where(eq(siteSpaces.spaceId, spaceId));
  return rows.map((r) => ({
    siteId: r.siteId,
    siteSpaceId: r.id,
    segments: segmentsOf(r.sectionPath === null ? null : { path: r.sectionPath, isDefault: r.sectionDefault ?? false }, r),
  }));
}

/**
 * The statements that make the sites' redirects what the configuration says: `pageIdOf` gives the page read from a
 * file (from the content root); `previous` the sources an earlier import wrote. Returns the redirects written
 * (`from` of the configuration), for the next import's `previous`.
 */
export function redirectStatements(
  db: Db,
  input: { config: GitBookConfig; pageIdOf: Map<string, string>; places: PlacedSiteSpace[]; previous: string[]; now: string },
): { statements: BatchItem[]; written: string[]; warnings: string[] } {
  const statements: BatchItem[] = [];
  const warnings: string[] = [];
  const entries = Object.entries(input.config.redirects);
  if (entries.length > MAX_GIT_REDIRECTS) warnings.push(`.gitbook.yaml: ${entries.length} redirects; the first ${MAX_GIT_REDIRECTS} were read`);
  const written: string[] = [];
  for (const [from, to] of entries.slice(0, MAX_GIT_REDIRECTS)) {
    const pageId = input.pageIdOf.get(to);
    if (!pageId) {
      // GitBook's redirects lead to files; one to a URL is said as such (the site's own redirects may lead to URLs).
      const why = /^[a-z][a-z0-9+.-]*:|^\/\//i.test(to) ? 'a URL: only redirects to files of the repository are imported' : 'no page of the repository';
      warnings.push(`.gitbook.yaml: the redirect of "${from}" leads to "${to}", which is ${why}`);
      continue;
    }
    written.push(from);
    for (const place of input.places) {
      const source = sourceOf(place.segments, from);
      if (!source) continue;
      const destination = { kind: 'site-page', siteSpaceId: place.siteSpaceId, pageId };
      // A redirect of the same source that the site's admins made stays theirs: only one leading into this site
      // space (one Git Sync wrote) is updated. Whoever may import into the space cannot take over the site's others.
      statements.push(
        db
          .insert(siteRedirects)
          .values({ id: newId(), siteId: place.siteId, source, draft: false, captureWildcard: false, permanent: true, destination, createdAt: input.now, sortedAt: input.now })
          .onConflictDoUpdate({
            target: [siteRedirects.siteId, siteRedirects.draft, siteRedirects.source],
            set: { destination, permanent: true, updatedAt: input.now, sortedAt: input.now },
            setWhere: intoSiteSpace(place.siteSpaceId),
          }),
      );
    }
  }
  const kept = new Set(written);
  for (const from of input.previous.filter((f) => !kept.has(f))) {
    for (const place of input.places) {
      const source = sourceOf(place.segments, from);
      if (source) statements.push(db.delete(siteRedirects).where(and(eq(siteRedirects.siteId, place.siteId), eq(siteRedirects.draft, false), inArray(siteRedirects.source, [source]), intoSiteSpace(place.siteSpaceId))));
    }
  }
  return { statements, written, warnings };
}
