import { and, count, eq, notInArray, sql, type SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import { changedRows, rowWhere, runBatch, type BatchItem, type Db } from '../../db/client';
import { organizations, spaces } from '../../db/schema';
import { translationPages, translationRuns, translations, type TranslationRow } from '../../db/schema/translations';
import type { AppBindings, Env } from '../../env';
import { ApiError, badRequest } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { afterCursor, keysetOrder, type Cursor } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { nowIso } from '../../lib/time';
import { requireUser } from '../../middleware/auth';
import type { TranslationAccess, TranslationLanguage } from '../../schemas/translation';
import { readRichText } from '../collaboration/bodies';
import { MAX_DOCUMENT_BYTES, MAX_PAGE_MARKDOWN_CHARS } from '../content/batch';
import { assertWithinCap } from '../limits/caps';
import { orgRoleSql, spaceRoleSql } from '../access/access';
import { isUniqueViolation, orgRankQuery } from '../organizations/organizations';
import { authorizeOrg } from '../access/permissions';
import { appendPositionSql } from '../content/positions';
import { newSpaceStatements, selectSpaceWithRank } from '../spaces/spaces';
import { requireCreateIn } from '../collections/collections';
import { copyGrantStatements, syncResultAccess } from './access';
import { enqueueTranslationRun } from './jobs';

/**
 * The records of translations: who sees and changes them, and their create, update, delete and run.
 *
 * Access follows the source space, whose content the result space receives: a member sees a translation when
 * they may read its source (their effective role on it, with the space's default levels and grants; org
 * admins read every space), and changes, runs or deletes it when they also hold the organization's create role
 * (admins included). A translation the caller cannot see, or another organization's, is a 404; one they see but
 * may not change is a 403. Guests are members: they see the translations of sources they were given. A
 * translation whose source is gone (purged, or moved to another organization) is seen by the org's admins only.
 * The result space takes the source's access (access.ts).
 */

export const translationNotFound = () => new ApiError(404, 'No matching translation in this organization');
const editForbidden = () => new ApiError(403, 'You do not have permission to change translations (it takes the admin or create role in the organization)');

/** The organization rank that edits translations. */
export const EDIT_RANK = RANK.create;

/** `sourceRank`: the caller's role on the source, null when the source is no longer a space of the organization. */
export function translationAccess(orgRank: number, sourceRank: number | null): TranslationAccess {
  const view = sourceRank === null ? orgRank >= RANK.admin : sourceRank >= RANK.read;
  return { view, edit: view && orgRank >= EDIT_RANK };
}

/** The joined source, when it is still a space of the translation's organization (raw names: spaceRoleSql's subqueries are correlated). */
const SOURCE_HERE = sql`"spaces"."org_id" = "translations"."org_id"`;

/** SQL: the caller's role on the joined source space, null when it is gone (see translationAccess). */
function sourceRankSql(userId: string): SQL<number | null> {
  return sql<number | null>`case when ${SOURCE_HERE} then ${spaceRoleSql(userId)} else null end`;
}

/** SQL: translationAccess's `view`, for the list's filter and count. */
function visibleSql(orgId: string, userId: string): SQL {
  return sql`(case when ${SOURCE_HERE} then ${spaceRoleSql(userId)} >= ${RANK.read}
    else coalesce(${orgRoleSql(sql`${orgId}`, userId)}, -1) >= ${RANK.admin} end)`;
}

export interface TranslationWithRank {
  translation: TranslationRow;
  sourceRank: number | null;
}

/** A translation of the organization with the caller's role on its source (null when the source is gone). */
export function translationQuery(db: Db, orgId: string, translationId: string, userId: string) {
  return db
    .select({ translation: translations, sourceRank: sourceRankSql(userId).as('source_rank') })
    .from(translations)
    .leftJoin(spaces, eq(spaces.id, translations.sourceSpaceId))
    .where(and(eq(translations.id, translationId), eq(translations.orgId, orgId)))
    .limit(1);
}

export interface LoadedTranslation {
  orgRank: number;
  /** The translation, when it exists and the caller may see it. */
  found: (TranslationWithRank & { access: TranslationAccess }) | undefined;
  extra: unknown[];
}

/** The caller's organization rank and the translation (when visible), with `extra` statements: one round trip. Non-members: 404. */
export async function loadTranslation(c: Context<AppBindings>, orgId: string, translationId: string, extra: BatchItem[] = []): Promise<LoadedTranslation> {
  const userId = requireUser(c);
  const db = c.get('db');
  const [rankRows, rows, ...rest] = (await runBatch(db, [orgRankQuery(db, orgId, userId), translationQuery(db, orgId, translationId, userId), ...extra])) as [
    { rank: number | null }[],
    TranslationWithRank[],
    ...unknown[],
  ];
  const orgRank = rankRows[0]?.rank;
  authorizeOrg(orgRank, RANK.guest);
  const row = rows[0];
  const access = row && translationAccess(orgRank!, row.sourceRank);
  return { orgRank: orgRank!, found: row && access.view ? { ...row, access } : undefined, extra: rest };
}

/** A visible translation the caller may edit: 404 when it is not visible, 403 when it is but they may not edit. */
export function requireEditable(loaded: LoadedTranslation): TranslationWithRank & { access: TranslationAccess } {
  if (!loaded.found) throw translationNotFound();
  if (!loaded.found.access.edit) throw editForbidden();
  return loaded.found;
}

/** A page of the organization's translations the caller may see, oldest first, with their count and the caller's rank. */
export async function listTranslations(db: Db, orgId: string, userId: string, cursor: Cursor | null, limit: number) {
  const where = and(eq(translations.orgId, orgId), visibleSql(orgId, userId));
  const [rankRows, rows, [{ total }]] = await db.batch([
    orgRankQuery(db, orgId, userId),
    db
      .select({ translation: translations, sourceRank: sourceRankSql(userId).as('source_rank') })
      .from(translations)
      .leftJoin(spaces, eq(spaces.id, translations.sourceSpaceId))
      .where(and(where, afterCursor(cursor, translations.createdAt, translations.id)))
      .orderBy(...keysetOrder(translations.createdAt, translations.id))
      .limit(limit + 1),
    db.select({ total: count() }).from(translations).leftJoin(spaces, eq(spaces.id, translations.sourceSpaceId)).where(where),
  ]);
  const orgRank = rankRows[0]?.rank;
  authorizeOrg(orgRank, RANK.guest);
  return { orgRank: orgRank!, rows: rows as TranslationWithRank[], total };
}

// ---------------------------------------------------------------------------------------------
// Instructions

const EMPTY_INSTRUCTIONS = { object: 'document', data: {}, nodes: [] };

/** Posted instructions: a rich-text document validated and bounded as a page's (400s name `instructions`); may be empty. */
export function readInstructions(input: Record<string, unknown> | undefined): Record<string, unknown> {
  if (input === undefined) return { ...EMPTY_INSTRUCTIONS };
  const body = readRichText({ document: input }, 'instructions', { markdownChars: MAX_PAGE_MARKDOWN_CHARS, documentBytes: MAX_DOCUMENT_BYTES, allowEmpty: true });
  return JSON.parse(body) as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Writes

export interface CreateInput {
  orgId: string;
  userId: string;
  language: TranslationLanguage;
  source: { space: string; language: TranslationLanguage };
  /** As posted: validated once the caller is known to be allowed to create (readInstructions). */
  instructions: Record<string, unknown> | undefined;
}

const duplicate = (id: string) => badRequest(`source: this space already has a translation into this language (translation "${id}")`);

/** Result spaces are named after their source: its title with the language, within a space title's 50 characters. */
export function resultTitle(sourceTitle: string, language: string): string {
  const suffix = ` (${language})`;
  return `${sourceTitle.slice(0, 50 - suffix.length).trimEnd()}${suffix}`.trim();
}

/**
 * The statements of a new run of a translation, only while no other is pending or running (a compare-and-set
 * on the translation): it becomes `pending` and names the run. The run's source revision is read when it
 * starts (services/translations/run.ts: plan); until then it is the source's head at this moment.
 */
function newRunStatements(db: Db, translationId: string, runId: string, now: string): BatchItem[] {
  return [
    db
      .update(translations)
      .set({ status: 'pending', runId, failure: null, updatedAt: now })
      .where(and(eq(translations.id, translationId), notInArray(translations.status, ['pending', 'running']))),
    db.insert(translationRuns).select(
      rowWhere(
        translationRuns,
        {
          id: runId,
          translationId,
          sourceRevisionId: sql`coalesce((select s.revision_id from spaces s join translations t on t.source_space_id = s.id where t.id = ${translationId}), '')` as unknown as string,
          status: 'pending',
          createdAt: now,
          touchedAt: now,
        },
        sql`exists (select 1 from translations t where t.id = ${translationId} and t.run_id = ${runId})`,
      ),
    ),
  ];
}

/**
 * Creates a translation: its result space (in the source's collection, titled after it, `language` set, empty
 * until the first run completes) and its first run, enqueued after the write. The source must be a space of
 * the organization the caller may read (400 naming `source.space` otherwise) and not in the trash; a second
 * translation of one source into one language is a 400 naming the first; the caller must be allowed to create
 * in the source's collection (403). Two round trips (three for a source in a collection).
 */
export async function createTranslation(c: Context<AppBindings>, input: CreateInput): Promise<{ row: TranslationRow; orgRank: number; sourceRank: number }> {
  const db = c.get('db');
  if (input.language === input.source.language) throw badRequest(`language: the source is in "${input.language}" already; translate it into another language`);
  const [rankRows, sourceRows, existing] = await db.batch([
    orgRankQuery(db, input.orgId, input.userId, { spaceCount: organizations.spaceCount }),
    selectSpaceWithRank(db, input.source.space, input.userId),
    db
      .select({ id: translations.id })
      .from(translations)
      .where(and(eq(translations.sourceSpaceId, input.source.space), eq(translations.language, input.language)))
      .limit(1),
  ]);
  const orgRank = rankRows[0]?.rank;
  authorizeOrg(orgRank, EDIT_RANK);
  const source = sourceRows[0];
  if (!source || source.space.orgId !== input.orgId || source.rank < RANK.read) {
    throw badRequest(`source.space: no space "${input.source.space}" in this organization`);
  }
  if (source.space.deletedAt) throw badRequest('source.space: this space is deleted: restore it first');
  if (existing[0]) throw duplicate(existing[0].id);
  // The result space goes into the source's collection: the caller must be allowed to create there.
  if (source.space.parentId) {
    try {
      await requireCreateIn(db, input.orgId, source.space.parentId, input.userId);
    } catch (error) {
      if (error instanceof ApiError) throw new ApiError(403, "You cannot create content in the source space's collection, where the result space goes");
      throw error;
    }
  }
  const instructions = readInstructions(input.instructions);
  assertWithinCap(c.env, 'spacesPerOrganization', rankRows[0].spaceCount);

  const now = nowIso();
  const result = newSpaceStatements(db, {
    orgId: input.orgId,
    parentId: source.space.parentId,
    title: resultTitle(source.space.title, input.language),
    emoji: source.space.emoji,
    editMode: 'live',
    language: input.language,
    // The source's access (access.ts): the same collection, so its own level, "inherit" included, resolves alike.
    defaultLevel: source.space.defaultLevel,
    position: appendPositionSql(input.orgId, source.space.parentId),
  });
  const row: TranslationRow = {
    id: newId(),
    orgId: input.orgId,
    sourceSpaceId: input.source.space,
    sourceLanguage: input.source.language,
    language: input.language,
    resultSpaceId: result.id,
    instructions,
    status: 'pending',
    failure: null,
    runId: null,
    resultRevisionId: null,
    createdBy: input.userId,
    createdAt: now,
    updatedAt: now,
    runs: 0,
    totalWords: 0,
    totalPages: 0,
    totalDurationMs: 0,
    latestRunDurationMs: 0,
    latestPages: 0,
    latestWords: 0,
  };
  const runId = newId();
  row.runId = runId;
  const run = { id: runId, translationId: row.id, sourceRevisionId: source.space.revisionId, status: 'pending', createdAt: now, touchedAt: now };
  try {
    await runBatch(db, [
      ...result.statements,
      ...copyGrantStatements(db, input.source.space, result.id, now),
      db.insert(translations).values(row),
      db.insert(translationRuns).values(run),
    ]);
  } catch (error) {
    if (!isUniqueViolation(error, 'translations.source_space_id')) throw error;
    const [winner] = await db
      .select({ id: translations.id })
      .from(translations)
      .where(and(eq(translations.sourceSpaceId, input.source.space), eq(translations.language, input.language)));
    throw duplicate(winner?.id ?? 'unknown');
  }
  await enqueueTranslationRun(c.env, row.id, runId);
  return { row, orgRank: orgRank!, sourceRank: source.rank };
}

/** Replaces a translation's instructions (later runs are given them; pages already translated are not translated again). */
export async function updateInstructions(db: Db, translationId: string, instructions: Record<string, unknown>): Promise<TranslationRow | undefined> {
  const [row] = await db.update(translations).set({ instructions, updatedAt: nowIso() }).where(eq(translations.id, translationId)).returning();
  return row;
}

/** Deletes a translation with its runs and pages; its result space stays, a normal space. One round trip. */
export async function deleteTranslation(db: Db, translationId: string): Promise<void> {
  await db.batch([
    db.delete(translationPages).where(eq(translationPages.translationId, translationId)),
    db.delete(translationRuns).where(eq(translationRuns.translationId, translationId)),
    db.delete(translations).where(eq(translations.id, translationId)),
  ]);
}

/**
 * Starts a run unless one is pending or running (then the run in progress simply continues: nothing is
 * queued, and the caller may run again once it is done). A run that starts re-syncs the result space's access
 * from the source's (access.ts) at once; its assembly does again. Whether a run was started. One round trip.
 */
export async function startRun(env: Env, db: Db, translation: TranslationRow): Promise<boolean> {
  const runId = newId();
  const now = nowIso();
  const started = sql`exists (select 1 from translations t where t.id = ${translation.id} and t.run_id = ${runId})`;
  const results = await runBatch(db, [
    ...newRunStatements(db, translation.id, runId, now),
    ...syncResultAccess(db, translation.sourceSpaceId, translation.resultSpaceId, now, started),
  ]);
  const changes = changedRows(results[0]);
  if (changes !== 1) return false;
  await enqueueTranslationRun(env, translation.id, runId);
  return true;
}
