import { eq, sql, type SQL } from 'drizzle-orm';
import { newId } from '../../lib/ids';
import { nowIso } from '../../lib/time';
import { selectOfBuiltShape, type Db } from '../../db/client';
import { revisions, spaceIndexState, spaces } from '../../db/schema/index';
import { ApiError } from '../../lib/errors';
import { refreshSpaceAccessCap, spaceRoleSql } from '../access/access';
import { EMPTY_META } from '../content/convert';
import { copyDocumentReferences } from '../content/document-references';
import { authorize } from '../access/permissions';

export type SpaceRow = typeof spaces.$inferSelect;

/** The query of a space with the caller's effective role rank on it (also usable as the last statement of a batch). */
export function selectSpaceWithRank(db: Db, spaceId: string, userId: string) {
  // Built once per isolate, builder included (db/client `selectOfBuiltShape`): every space read, page read and change
  // request read has it.
  const build = () =>
    db
      .select({ space: spaces, rank: spaceRoleSql(sql.placeholder('userId') as unknown as SQL) })
      .from(spaces)
      .where(eq(spaces.id, sql.placeholder('spaceId')));
  return selectOfBuiltShape(db, 'selectSpaceWithRank', build, { spaceId, userId });
}

export type SpaceWithRank = { space: SpaceRow; rank: number };

/** A space with the caller's effective role rank on it, in one query. */
export async function loadSpace(db: Db, spaceId: string, userId: string): Promise<SpaceWithRank | null> {
  return (await selectSpaceWithRank(db, spaceId, userId).get()) ?? null;
}

/**
 * Checks the first row of `selectSpaceWithRank` (run inside a caller's batch) for the role `needed`.
 * Unless `allowDeleted`, a space in the trash only answers to reads and restore.
 */
export function checkSpace(rows: SpaceWithRank[], needed: number, allowDeleted = false): SpaceWithRank {
  const row = rows[0];
  authorize(row?.rank, needed, 'Space');
  if (!allowDeleted && row.space.deletedAt) throw new ApiError(400, 'This space is deleted: restore it first');
  return row;
}

/** Loads a space the caller can see and checks the role `needed` (see checkSpace). */
export async function requireSpace(db: Db, spaceId: string, userId: string, needed: number, allowDeleted = false) {
  return checkSpace(await selectSpaceWithRank(db, spaceId, userId).all(), needed, allowDeleted);
}

type NewSpace = Omit<typeof spaces.$inferInsert, 'id' | 'revisionId' | 'createdAt' | 'updatedAt' | 'position'> & { position: number | SQL };

/**
 * The statements that create a private copy of `space` at `position`, in the same place, with its settings and its
 * current content (duplicateSpace, duplicateSiteSpace).
 */
export function spaceCopyStatements(db: Db, space: typeof spaces.$inferSelect, position: number | SQL) {
  const { orgId, parentId, title, emoji, editMode, mergeRules, language, defaultLevel } = space;
  const fields = { orgId, parentId, title, emoji, visibility: 'private' as const, editMode, mergeRules, language, defaultLevel, position };
  return newSpaceStatements(db, fields, space.revisionId);
}

/**
 * The statements that create a space with its own initial revision and resolved access cap. The
 * revision is empty, or a copy of revision `copyOf`'s roots (its nodes, documents and file bytes are shared, not copied).
 */
export function newSpaceStatements(db: Db, fields: NewSpace, copyOf?: string) {
  const now = nowIso();
  const id = newId();
  const revisionId = newId();
  return {
    id,
    statements: [
      db.insert(spaces).values({ ...fields, id, revisionId, createdAt: now, updatedAt: now }),
      db.insert(revisions).values({
        id: revisionId,
        spaceId: id,
        parents: [],
        type: 'edits',
        manifest: '',
        meta: copyOf ? sql`(select r.meta from revisions r where r.id = ${copyOf})` : JSON.stringify(EMPTY_META),
        ...(copyOf
          ? {
              pagesRoot: sql`(select r.pages_root from revisions r where r.id = ${copyOf})`,
              filesRoot: sql`(select r.files_root from revisions r where r.id = ${copyOf})`,
              pageCount: sql`(select r.page_count from revisions r where r.id = ${copyOf})`,
              fileCount: sql`(select r.file_count from revisions r where r.id = ${copyOf})`,
            }
          : {}),
        createdAt: now,
      }),
      refreshSpaceAccessCap(db, id),
      // An empty space's indexes are up to date; a copy's are built after the response (reindexInBackground).
      ...(copyOf ? [copyDocumentReferences(db, id, copyOf)] : [db.insert(spaceIndexState).values({ spaceId: id, revisionId, updatedAt: now })]),
    ],
  };
}
