import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { runBatch, type BatchItem, type Db } from '../../db/client';
import { siteSectionGroups, siteSections, sites, siteSpaces, siteStructureGuard, spaces } from '../../db/schema';
import { ApiError } from '../../lib/errors';
import { valuesOf } from '../../lib/sql-lists';
import { nowIso } from '../../lib/time';
import { spaceRoleSql } from '../access/access';
import { placementRedirectStatements, placementsIn } from '../git-sync/redirects';
import { isUniqueViolation } from '../organizations/organizations';
import type { SpaceRow } from '../spaces/spaces';

export type SiteRow = typeof sites.$inferSelect;
export type GroupRow = typeof siteSectionGroups.$inferSelect;
export type SectionRow = typeof siteSections.$inferSelect;
export type SiteSpaceRow = typeof siteSpaces.$inferSelect;

/**
 * A space as a site space shows it, with the caller's role on it (0 for visitors) and, when the site's
 * model read it, the number of pages of its head revision (the reader leaves empty site spaces out of
 * its navigation: their links would lead nowhere).
 */
export type SpaceWithRank = { space: SpaceRow; rank: number; pages?: number };

/**
 * A whole site: its row and its structure. Structures are small (see the limits), so every
 * operation reads the whole structure in the batch that authorizes it, changes it in memory,
 * keeps the invariants with `normalizeDefaults`, and writes back only the rows that changed.
 */
export interface SiteModel {
  site: SiteRow;
  groups: GroupRow[];
  sections: SectionRow[];
  siteSpaces: SiteSpaceRow[];
  /** The spaces the site spaces point to (and any other space the operation loaded), by id. */
  spaces: Map<string, SpaceWithRank>;
}

export const basenameTaken = (basename: string) => new ApiError(409, `basename: "${basename}" is already used by another site of this organization`);

export const SITE_LIMITS = { siteSpaces: 200, sections: 100, groups: 50, groupDepth: 5 } as const;

/**
 * The statements that read a site's model, for a caller's batch: the site (only in `orgId`), its
 * groups, sections and site spaces with their spaces. `userId` gives the caller's role on each
 * space; visitors pass null.
 */
export function siteModelQueries(db: Db, orgId: string, siteId: string, userId: string | null) {
  // Named: D1 answers batch rows as objects, and a column named "0" would be ordered first.
  const rank = userId ? spaceRoleSql(userId) : sql<number>`0`.as('rank');
  return [
    db.select().from(sites).where(and(eq(sites.id, siteId), eq(sites.orgId, orgId))),
    db.select().from(siteSectionGroups).where(eq(siteSectionGroups.siteId, siteId)).orderBy(asc(siteSectionGroups.position), asc(siteSectionGroups.id)),
    db.select().from(siteSections).where(eq(siteSections.siteId, siteId)).orderBy(asc(siteSections.position), asc(siteSections.id)),
    db.select().from(siteSpaces).where(eq(siteSpaces.siteId, siteId)).orderBy(asc(siteSpaces.position), asc(siteSpaces.id)),
    // Not a join: D1 batches answer rows as objects, where the two tables' same-named columns collide.
    db
      .select({ space: spaces, rank, pages: sql<number>`(select r.page_count from revisions r where r.id = ${spaces.revisionId})`.as('pages') })
      .from(spaces)
      .where(inArray(spaces.id, db.select({ id: siteSpaces.spaceId }).from(siteSpaces).where(eq(siteSpaces.siteId, siteId)))),
  ] as const;
}

/** The query of extra spaces an operation is about to add (live spaces of the organization only). */
export function spacesAmongQuery(db: Db, orgId: string, spaceIds: string[], userId: string | null) {
  // Named: D1 answers batch rows as objects, and a column named "0" would be ordered first.
  const rank = userId ? spaceRoleSql(userId) : sql<number>`0`.as('rank');
  return db
    .select({ space: spaces, rank })
    .from(spaces)
    .where(and(eq(spaces.orgId, orgId), isNull(spaces.deletedAt), sql`${spaces.id} in ${valuesOf(spaceIds)}`));
}

type ModelResults = [SiteRow[], GroupRow[], SectionRow[], SiteSpaceRow[], SpaceWithRank[]];

/** How many statements `siteModelQueries` puts in a batch. */
export const MODEL_QUERY_COUNT = 5;

/** Builds the model from the results of `siteModelQueries`; null when the site is not in the organization. */
export function modelFrom(results: ModelResults): SiteModel | null {
  const [[site], groups, sections, siteSpaceRows, spaceRows] = results;
  if (!site) return null;
  return { site, groups, sections, siteSpaces: siteSpaceRows, spaces: new Map(spaceRows.map((row) => [row.space.id, row])) };
}

export function cloneModel(model: SiteModel): SiteModel {
  return {
    site: { ...model.site },
    groups: model.groups.map((g) => ({ ...g })),
    sections: model.sections.map((s) => ({ ...s })),
    siteSpaces: model.siteSpaces.map((s) => ({ ...s })),
    spaces: new Map(model.spaces),
  };
}

/** Children of a group (null: the root) in order: sections and groups share one ordering. */
export function childrenOf(model: SiteModel, groupId: string | null) {
  const items = [
    ...model.sections.filter((s) => s.groupId === groupId).map((row) => ({ kind: 'section' as const, row })),
    ...model.groups.filter((g) => g.parentId === groupId).map((row) => ({ kind: 'group' as const, row })),
  ];
  return items.sort((a, b) => a.row.position - b.row.position || a.row.id.localeCompare(b.row.id));
}

/** Site spaces of a section (null: the site's root) in order. */
export function siteSpacesIn(model: SiteModel, sectionId: string | null) {
  return model.siteSpaces
    .filter((s) => s.sectionId === sectionId)
    .sort((a, b) => a.position - b.position || a.id.localeCompare(b.id));
}

/** Every section in the order a reader meets them (depth first through groups). */
export function sectionsInOrder(model: SiteModel): SectionRow[] {
  const out: SectionRow[] = [];
  const walk = (groupId: string | null) => {
    for (const child of childrenOf(model, groupId)) {
      if (child.kind === 'section') out.push(child.row);
      else walk(child.row.id);
    }
  };
  walk(null);
  return out;
}

/**
 * Keeps "exactly one default" true: one default section when the site has sections, and one
 * default site space in every section (or at the root) that has site spaces. A default that is
 * gone is replaced by the first in order; extra defaults are cleared.
 */
export function normalizeDefaults(model: SiteModel): void {
  keepOneDefault(sectionsInOrder(model));
  const containers = new Set(model.siteSpaces.map((s) => s.sectionId));
  for (const sectionId of containers) keepOneDefault(siteSpacesIn(model, sectionId));
}

function keepOneDefault(rows: { isDefault: boolean }[]) {
  const chosen = rows.find((r) => r.isDefault) ?? rows[0];
  for (const row of rows) row.isDefault = row === chosen;
}

/** Gives siblings consecutive positions in the given order (rows whose position is unchanged are not rewritten). */
export function renumber(rows: { position: number }[]): void {
  rows.forEach((row, i) => (row.position = i + 1));
}

/** A slug for a default path: lowercase words joined by "-", unique among `taken`. */
export function uniquePath(title: string, taken: Iterable<string>, fallback: string): string {
  const base =
    title
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 90) || fallback;
  const used = new Set([...taken].map((p) => p.toLowerCase()));
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
}

/** Refuses a path already used by a sibling (compared without case: URLs are matched that way). */
export function assertPathFree(path: string, siblings: { id: string; path: string }[], selfId: string | null, what: string) {
  const clash = siblings.find((s) => s.id !== selfId && s.path.toLowerCase() === path.toLowerCase());
  if (clash) throw new ApiError(400, `path: "${path}" is already used by another ${what} at this level`);
}

/** Checks the per-site limits after a change in memory, before anything is written. */
export function assertWithinLimits(model: SiteModel): void {
  if (model.siteSpaces.length > SITE_LIMITS.siteSpaces) throw new ApiError(400, `A site can have at most ${SITE_LIMITS.siteSpaces} site spaces`);
  if (model.sections.length > SITE_LIMITS.sections) throw new ApiError(400, `A site can have at most ${SITE_LIMITS.sections} sections`);
  if (model.groups.length > SITE_LIMITS.groups) throw new ApiError(400, `A site can have at most ${SITE_LIMITS.groups} section groups`);
}

/** Depth of a group (1 at the root). */
export function groupDepth(model: SiteModel, groupId: string | null): number {
  let depth = 0;
  for (let id = groupId; id !== null; id = model.groups.find((g) => g.id === id)?.parentId ?? null) depth++;
  return depth;
}

function changedFields<T extends Record<string, unknown>>(before: T, after: T): Partial<T> | null {
  const changes: Partial<T> = {};
  let any = false;
  for (const key of Object.keys(after) as (keyof T)[]) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) {
      changes[key] = after[key];
      any = true;
    }
  }
  return any ? changes : null;
}

type Table = typeof siteSectionGroups | typeof siteSections | typeof siteSpaces;

function diffRows<R extends { id: string }>(db: Db, table: Table, before: R[], after: R[]): BatchItem[] {
  const statements: BatchItem[] = [];
  const old = new Map(before.map((r) => [r.id, r]));
  const kept = new Set(after.map((r) => r.id));
  const removed = before.filter((r) => !kept.has(r.id)).map((r) => r.id);
  if (removed.length) statements.push(db.delete(table).where(sql`${table.id} in ${valuesOf(removed)}`));
  for (const row of after) {
    const previous = old.get(row.id);
    if (!previous) {
      statements.push(db.insert(table).values(row as never));
      continue;
    }
    const changes = changedFields(previous as Record<string, unknown>, row as Record<string, unknown>);
    if (changes) statements.push(db.update(table).set(changes as never).where(eq(table.id, row.id)));
  }
  return statements;
}

/**
 * Writes what changed between two models in one batch (one round trip, one transaction), with
 * `leading` statements before and `extra` statements appended (their results answered). The batch starts by moving the site's structure version from the one
 * read to a new random one; the guard insert fails (and the whole batch rolls back) unless that
 * move applied, so a concurrent change to the same site answers 409 instead of breaking invariants.
 */
export async function saveModel(db: Db, before: SiteModel, after: SiteModel, extra: BatchItem[] = [], leading: BatchItem[] = []): Promise<unknown[]> {
  const version = Math.floor(Math.random() * 2 ** 52) + 1;
  after.site.structureVersion = version;
  const siteChanges = changedFields(before.site as Record<string, unknown>, after.site as Record<string, unknown>) ?? {};
  const statements: BatchItem[] = [
    // Rows the new structure refers to (a space it publishes) come first: site spaces reference them.
    ...leading,
    db
      .update(sites)
      .set(siteChanges)
      .where(and(eq(sites.id, before.site.id), eq(sites.structureVersion, before.site.structureVersion))),
    db.insert(siteStructureGuard).select(
      db
        .select({ ok: sql<number>`count(*)`.as('ok') })
        .from(sites)
        .where(and(eq(sites.id, before.site.id), eq(sites.structureVersion, version))),
    ),
    db.delete(siteStructureGuard),
    ...diffRows(db, siteSectionGroups, before.groups, after.groups),
    ...diffRows(db, siteSections, before.sections, after.sections),
    ...diffRows(db, siteSpaces, before.siteSpaces, after.siteSpaces),
    // A site space placed, moved or removed gets or loses its synced space's `.gitbook.yaml` redirects.
    ...placementRedirectStatements(db, placementsIn(before), placementsIn(after), nowIso()),
    ...extra,
  ];
  try {
    const results = (await runBatch(db, statements)) as unknown[];
    return results.slice(statements.length - extra.length);
  } catch (error) {
    if (String((error as Error)?.message ?? error).includes('CHECK constraint failed')) {
      throw new ApiError(409, 'The site changed while this request was being applied; read it again and retry');
    }
    if (isUniqueViolation(error, 'basename')) throw basenameTaken(after.site.basename);
    throw error;
  }
}
