import { and, count, eq, isNull, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import type { Db } from '../../db/client';
import { revisions, spaces } from '../../db/schema';
import { translationPages, translationRuns, translations, type TranslationRow, type TranslationRunRow } from '../../db/schema/translations';
import { nowIso } from '../../lib/time';
import { ROOT, type PageRecord, type TreeRecord } from '../content/pages';
import { contentColumns } from '../content/head-moves';
import type { Translator } from './translator';

// What the steps of a translation run share (run.ts describes the run; plan.ts, chunks.ts, assemble.ts are its steps).

/**
 * Pages a message claims. Each message must stay far inside one invocation's limits: 30 s of CPU by default,
 * and 1,000 subrequests on the paid plan (50 on the free one); every segment is one Workers AI call, and a
 * message makes about 6 D1 round trips besides. A 1,000-page space is therefore many messages.
 */
export const MAX_PAGES_PER_CHUNK = 20;
/** Texts a message sends to the translator at most: a page with more is translated over several messages. */
export const MAX_SEGMENTS_PER_CHUNK = 40;
/** How long a claim holds a page against other deliveries (a chunk takes seconds; the queue's retries space out past it). */
export const CLAIM_LEASE_MS = 3 * 60_000;
/**
 * The JOBS queue consumer's `max_retries` in wrangler.toml ([[queues.consumers]] max_retries = 5): it MUST
 * match it. A message is delivered at most max_retries + 1 times; at the last delivery a run that keeps
 * failing ends `failed` (jobs/translation-run.ts) instead of going to the dead-letter queue unfinished.
 */
export const QUEUE_MAX_RETRIES = 5;
export const MAX_RUN_DELIVERIES = QUEUE_MAX_RETRIES + 1;

export type RunOutcome = 'skipped' | 'failed' | 'translated' | 'completed';

export interface RunOptions {
  attempts: number;
  /** Defaults to the deployment's (translatorFor: Workers AI when bound, else none). */
  translator?: Translator | null;
  /** The next message of the run; defaults to the JOBS queue. */
  enqueue?: () => Promise<void>;
  /** Assembles the result (step 3) through the result space's SpaceWriter (jobs/translation-run.ts), which runs `assembleTranslation`. */
  assemble: (target: TranslationTarget) => Promise<void>;
}

/** A message's delivery found pages only other deliveries hold: it is delivered again later. */
export class PagesClaimedElsewhere extends Error {}

export interface Roots {
  id: string;
  pagesRoot: string | null;
  filesRoot: string | null;
  meta: string | null;
  pageCount: number;
  fileCount: number;
}

export interface RunState {
  translation: TranslationRow;
  run: TranslationRunRow;
  source: { id: string | null; deletedAt: string | null; orgId: string | null };
  result: { id: string | null; deletedAt: string | null; orgId: string | null; editMode: string | null };
  sourceHead: Roots | null;
  runRevision: Roots | null;
  resultHead: Roots | null;
}

const present = (roots: Partial<Roots> | null | undefined): Roots | null => (roots && roots.id ? (roots as Roots) : null);

/** The translation, the run it names, and the spaces and revisions the run reads, in one query. */
export async function loadRunState(db: Db, translationId: string, runId: string): Promise<RunState | undefined> {
  const source = alias(spaces, 'source');
  const result = alias(spaces, 'result');
  const sourceHead = alias(revisions, 'source_head');
  const runRevision = alias(revisions, 'run_revision');
  const resultHead = alias(revisions, 'result_head');
  const row = await db
    .select({
      translation: translations,
      run: translationRuns,
      sourceId: source.id,
      sourceDeleted: source.deletedAt,
      sourceOrg: source.orgId,
      resultId: result.id,
      resultDeleted: result.deletedAt,
      resultOrg: result.orgId,
      resultEditMode: result.editMode,
      sourceHead: contentColumns(sourceHead),
      runRevision: contentColumns(runRevision),
      resultHead: contentColumns(resultHead),
    })
    .from(translations)
    .innerJoin(translationRuns, and(eq(translationRuns.id, runId), eq(translationRuns.translationId, translations.id)))
    .leftJoin(source, eq(source.id, translations.sourceSpaceId))
    .leftJoin(result, eq(result.id, translations.resultSpaceId))
    .leftJoin(sourceHead, eq(sourceHead.id, source.revisionId))
    .leftJoin(runRevision, eq(runRevision.id, translationRuns.sourceRevisionId))
    .leftJoin(resultHead, eq(resultHead.id, result.revisionId))
    .where(eq(translations.id, translationId))
    .get();
  if (!row) return undefined;
  return {
    translation: row.translation,
    run: row.run,
    source: { id: row.sourceId, deletedAt: row.sourceDeleted, orgId: row.sourceOrg },
    result: { id: row.resultId, deletedAt: row.resultDeleted, orgId: row.resultOrg, editMode: row.resultEditMode },
    sourceHead: present(row.sourceHead),
    runRevision: present(row.runRevision),
    resultHead: present(row.resultHead),
  };
}

/** Why the run cannot go on, if a space it reads or writes is gone, in the trash or in another organization. */
export function spaceProblem(state: RunState): string | null {
  const { translation } = state;
  if (!state.source.id) return `The source space ${translation.sourceSpaceId} was deleted: the translation cannot run`;
  if (state.source.deletedAt) return `The source space ${translation.sourceSpaceId} is deleted (in the trash): restore it to run the translation`;
  if (!state.result.id) return `The result space ${translation.resultSpaceId} was deleted: the translation cannot run`;
  if (state.result.deletedAt) return `The result space ${translation.resultSpaceId} is deleted (in the trash): restore it to run the translation`;
  // A space (or its collection) transferred to another organization takes its content there: the translation stays behind.
  if (state.source.orgId !== translation.orgId) return `The source space ${translation.sourceSpaceId} now belongs to another organization: the translation cannot run`;
  if (state.result.orgId !== translation.orgId) return `The result space ${translation.resultSpaceId} now belongs to another organization: the translation cannot run`;
  // As head moves refuse to write into a locked space (head-moves.ts assertWritable), so does a run.
  if (state.result.editMode === 'locked') return `The result space ${translation.resultSpaceId} is locked: unlock it to run the translation`;
  return null;
}

/** Ends the run `failed` with `message` (once), gives its pages back, and says so on the translation. One round trip. */
export async function failRun(db: Db, translationId: string, runId: string, message: string): Promise<void> {
  const now = nowIso();
  await db.batch([
    db
      .update(translationRuns)
      .set({ status: 'failed', failure: message, finishedAt: now, touchedAt: now })
      .where(and(eq(translationRuns.id, runId), isNull(translationRuns.finishedAt))),
    db
      .update(translationPages)
      .set({ pendingRun: null, pendingKey: null, claimedAt: null })
      .where(and(eq(translationPages.translationId, translationId), eq(translationPages.pendingRun, runId))),
    db
      .update(translations)
      // The words sent before the failure were paid for: they count (allWordsSql sums every run's segments).
      .set({ status: 'failed', failure: message, updatedAt: now, totalWords: allWordsSql(translationId) })
      .where(
        and(
          eq(translations.id, translationId),
          eq(translations.runId, runId),
          sql`exists (select 1 from translation_runs r where r.id = ${runId} and r.status = 'failed')`,
        ),
      ),
  ]);
}
export const isPage = (record: TreeRecord): record is PageRecord => record.id !== ROOT;

/** Counts of the run read from its page rows and its segments (a statement's subqueries: true whatever was redelivered). */
export const runPagesSql = (translationId: string, runId: string) =>
  sql<number>`(select count(*) from translation_pages p where p.translation_id = ${translationId} and p.translated_run = ${runId})`;
/** Words the run sent: each text once, whichever message sent it, whether or not its page was written yet. */
export const runWordsSql = (translationId: string, runId: string) =>
  sql<number>`(select coalesce(sum(s.words), 0) from translation_segments s where s.translation_id = ${translationId} and s.run_id = ${runId})`;
/** Words every run of the translation sent, finished, failed or in progress. */
export const allWordsSql = (translationId: string) => sql<number>`(select coalesce(sum(s.words), 0) from translation_segments s where s.translation_id = ${translationId})`;

/** Pages of the run still to write. */
export async function pendingCount(db: Db, translationId: string, runId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(translationPages)
    .where(and(eq(translationPages.translationId, translationId), eq(translationPages.pendingRun, runId)));
  return row?.n ?? 0;
}

export interface TranslationTarget {
  translationId: string;
  runId: string;
  /** The space whose SpaceWriter assembles: the translation's result space. */
  resultSpaceId: string;
}
