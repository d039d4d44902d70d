import { and, eq, inArray, sql } from 'drizzle-orm';
import { rawRun, type BatchItem, type Db } from '../../db/client';
import { gitSyncEntries, siteRedirects, siteSections, siteSpaces } from '../../db/schema/index';
import { newId } from '../../lib/ids';
import { siteSpaceSegments, sourceOfSegments } from '../sites/site-paths';
import type { GitBookConfig } from './layout';

/**
 * `.gitbook.yaml`'s `redirects` (`old/path: new/page.md`) as redirects of the published sites that have the space
 * (GitBook's SiteRedirect): in each site space of the space, `/<section>/<site space>/old/path` leads to the page read
 * from `new/page.md` (a `site-page` destination). Written by the import that reads them, in its batch; those an
 * earlier import wrote (git_sync_entries of kind `redirect`) that the file no longer has are deleted. A redirect the
 * site's admins made for the same source is left as it is (only one into this site space is replaced or deleted).
 * Each written redirect's entry keeps its page and its source within the site space, so a site space placed later
 * (the space published after its import, a site space's or section's path changed, a site space removed) gets or
 * loses the same redirects with the site's structure change (`placementRedirectStatements`), without an import.
 */

/** Redirects of one import at most (a site holds 1000: routes/sites/redirects MAX_SITE_REDIRECTS). */
export const MAX_GIT_REDIRECTS = 500;

type Place = { path: string; isDefault: boolean };

/** A redirect leading to a page of the site space (the kind Git Sync writes). */
const intoSiteSpace = (siteSpaceId: string) =>
  sql`json_extract(${siteRedirects.destination}, '$.kind') = 'site-page' and json_extract(${siteRedirects.destination}, '$.siteSpaceId') = ${siteSpaceId}`;

/** A redirect's source path (`from` a file's path, under the site space's segments), or null when it is not a path. */
function sourceOf(segments: string[], from: string): string | null {
  const parts = [...segments, ...from.replace(/\.md$/i, '').split('/')].filter(Boolean);
  return parts.length === 0 ? null : sourceOfSegments(parts);
}

export interface PlacedSiteSpace {
  siteId: string;
  siteSpaceId: string;
  spaceId: string;
  segments: string[];
}

/** A written redirect: its `from` in `.gitbook.yaml`, the page it leads to, its source within a site space. */
export interface WrittenRedirect {
  from: string;
  pageId: string;
  source: string;
}

/** The site spaces that publish the space, with their path segments (one query). */
export async function siteSpacesOf(db: Db, spaceId: string): Promise<PlacedSiteSpace[]> {
  const rows = await db
    .select({ id: siteSpaces.id, siteId: siteSpaces.siteId, spaceId: siteSpaces.spaceId, path: siteSpaces.path, isDefault: siteSpaces.isDefault, sectionPath: siteSections.path, sectionDefault: siteSections.isDefault })
    .from(siteSpaces)
    .leftJoin(siteSections, eq(siteSections.id, siteSpaces.sectionId))
    .where(eq(siteSpaces.spaceId, spaceId));
  return rows.map((r) => ({
    siteId: r.siteId,
    siteSpaceId: r.id,
    spaceId: r.spaceId,
    segments: siteSpaceSegments(r.sectionPath === null ? null : { path: r.sectionPath, isDefault: r.sectionDefault ?? false }, r),
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
): { statements: BatchItem[]; written: WrittenRedirect[]; warnings: string[] } {
  const statements: BatchItem[] = [];
  const warnings: string[] = [];
  const entries = Object.entries(input.config.redirects);
  if (entries.length > MAX_GIT_REDIRECTS) warnings.push(`.gitbook.yaml: ${entries.length} redirects; the first ${MAX_GIT_REDIRECTS} were read`);
  const written: WrittenRedirect[] = [];
  for (const [from, to] of entries.slice(0, MAX_GIT_REDIRECTS)) {
    const pageId = input.pageIdOf.get(to);
    if (!pageId) {
      // GitBook's redirects lead to files; one to a URL is said as such (the site's own redirects may lead to URLs).
      const why = /^[a-z][a-z0-9+.-]*:|^\/\//i.test(to) ? 'a URL: only redirects to files of the repository are imported' : 'no page of the repository';
      warnings.push(`.gitbook.yaml: the redirect of "${from}" leads to "${to}", which is ${why}`);
      continue;
    }
    const within = sourceOf([], from);
    if (within) written.push({ from, pageId, source: within });
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
  const kept = new Set(written.map((w) => w.from));
  for (const from of input.previous.filter((f) => !kept.has(f))) {
    for (const place of input.places) {
      const source = sourceOf(place.segments, from);
      if (source) statements.push(db.delete(siteRedirects).where(and(eq(siteRedirects.siteId, place.siteId), eq(siteRedirects.draft, false), inArray(siteRedirects.source, [source]), intoSiteSpace(place.siteSpaceId))));
    }
  }
  return { statements, written, warnings };
}

/** A placement's sources begin with this ('' for a site space at the site's root). */
const prefixOf = (segments: string[]): string => sourceOf(segments, '') ?? '';

/** The Git Sync redirects of a synced space (entries an import wrote, with their page and source; one subquery). */
const syncedRedirects = (spaceId: string) =>
  sql`from ${gitSyncEntries} where ${gitSyncEntries.spaceId} = ${spaceId} and ${gitSyncEntries.kind} = 'redirect' and ${gitSyncEntries.text} is not null and ${gitSyncEntries.targetId} != ''`;

/** Where a site's structure places each of its site spaces (from the structure in memory: no read). */
export function placementsIn(structure: { site: { id: string }; sections: Array<{ id: string } & Place>; siteSpaces: Array<{ id: string; spaceId: string; sectionId: string | null } & Place> }): PlacedSiteSpace[] {
  const sections = new Map(structure.sections.map((s) => [s.id, s]));
  return structure.siteSpaces.map((row) => ({
    siteId: structure.site.id,
    siteSpaceId: row.id,
    spaceId: row.spaceId,
    segments: siteSpaceSegments(row.sectionId === null ? null : (sections.get(row.sectionId) ?? null), row),
  }));
}

const samePlace = (a: PlacedSiteSpace, b: PlacedSiteSpace) => a.spaceId === b.spaceId && a.segments.join('/') === b.segments.join('/');

/**
 * What a change of a site's structure does to the Git Sync redirects of its site spaces: a site space that leaves
 * its place (removed, moved to another path or section, publishing another space) loses the redirects the import
 * wrote into it, one that takes a place gets its space's. Statements only for site spaces whose place changed (none
 * for most changes), each one statement over the space's entries, so the change stays in its one batch.
 */
export function placementRedirectStatements(db: Db, before: PlacedSiteSpace[], after: PlacedSiteSpace[], now: string): BatchItem[] {
  const afterById = new Map(after.map((p) => [p.siteSpaceId, p]));
  const beforeById = new Map(before.map((p) => [p.siteSpaceId, p]));
  const left = before.filter((p) => !afterById.has(p.siteSpaceId) || !samePlace(p, afterById.get(p.siteSpaceId)!));
  const placed = after.filter((p) => !beforeById.has(p.siteSpaceId) || !samePlace(beforeById.get(p.siteSpaceId)!, p));
  return [...left.map((p) => leaveStatement(db, p)), ...placed.map((p) => placeStatement(db, p, now))];
}

function leaveStatement(db: Db, place: PlacedSiteSpace): BatchItem {
  return db
    .delete(siteRedirects)
    .where(
      and(
        eq(siteRedirects.siteId, place.siteId),
        eq(siteRedirects.draft, false),
        intoSiteSpace(place.siteSpaceId),
        sql`${siteRedirects.source} in (select ${prefixOf(place.segments)} || ${gitSyncEntries.text} ${syncedRedirects(place.spaceId)})`,
      ),
    );
}

/** As the import writes them (redirectStatements): an admin's redirect of the same source stays theirs. */
function placeStatement(db: Db, place: PlacedSiteSpace, now: string): BatchItem {
  // An id of newId's shape (a letter, then 19 characters), made per row by SQLite.
  const id = sql`char(97 + (random() & 1048575) % 26) || substr(lower(hex(randomblob(10))), 1, 19)`;
  const destination = sql`json_object('kind', 'site-page', 'siteSpaceId', ${place.siteSpaceId}, 'pageId', ${gitSyncEntries.targetId})`;
  return rawRun(
    db,
    sql`insert into ${siteRedirects} (id, site_id, source, draft, capture_wildcard, permanent, destination, created_at, sorted_at)
      select ${id}, ${place.siteId}, ${prefixOf(place.segments)} || ${gitSyncEntries.text}, 0, 0, 1, ${destination}, ${now}, ${now} ${syncedRedirects(place.spaceId)}
      on conflict (site_id, draft, source) do update set destination = excluded.destination, permanent = 1, updated_at = ${now}, sorted_at = ${now}
      where json_extract(${siteRedirects.destination}, '$.kind') = 'site-page' and json_extract(${siteRedirects.destination}, '$.siteSpaceId') = ${place.siteSpaceId}`,
  );
}
