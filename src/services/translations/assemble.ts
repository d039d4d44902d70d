import { and, eq, isNull, sql } from 'drizzle-orm';
import { changedRows, createDb, rowWhere, runBatch, type BatchItem, type Db } from '../../db/client';
import { revisions, spaces } from '../../db/schema';
import { translationPages, translationRuns, translations, type TranslationPageRow } from '../../db/schema/translations';
import type { Env } from '../../env';
import { newId } from '../../lib/ids';
import { nowIso } from '../../lib/time';
import type { PageRecord, TreeRecord } from '../content/pages';
import { d1NodeStore, entriesOf, TrieView, type StoredNode } from '../content/tree';
import { canonicalJson, copyDocumentReferences, insertDocuments } from '../content/revisions';
import { syncResultAccess } from './access';
import { allWordsSql, failRun, isPage, loadRunState, pendingCount, runPagesSql, runWordsSql, spaceProblem, type Roots, type TranslationTarget } from './state';

/** Step 3 of a translation run (services/translations/run.ts): the assembly, inside the result space's SpaceWriter. */

/** Statements per D1 batch when the result's tree nodes are stored ahead of the head move. */
const NODE_BATCH = 90;

export interface AssembleOutput {
  /** The result revision, or null when the run was finished already or failed here. */
  revision: string | null;
}

/** A source page record with its translation: the same ids, slug, tree and everything else. */
function translatedRecord(record: PageRecord, row: TranslationPageRow | undefined): PageRecord {
  if (!row || row.translatedRun === null) return record;
  // A translator answering an empty title leaves the source's: a page needs one.
  const next: PageRecord = { ...record, title: row.title?.trim() ? row.title : record.title };
  if (row.description !== null) next.description = row.description;
  else delete next.description;
  if (row.documentHash) next.document = row.documentHash;
  else delete next.document;
  return next;
}

/** Stores tree nodes ahead of the head move, in batches (content-addressed: harmless if the move never happens). */
async function storeNodes(db: Db, spaceId: string, nodes: StoredNode[], now: string): Promise<void> {
  for (let i = 0; i < nodes.length; i += NODE_BATCH) {
    await runBatch(db, insertDocuments(db, spaceId, nodes.slice(i, i + NODE_BATCH), now));
  }
}

/** The result's page map: the result head's, changed where the translated source records differ. */
async function resultPages(db: Db, runRevision: Roots, resultHead: Roots | null, rows: TranslationPageRow[]) {
  const store = d1NodeStore(db);
  const [sourceRecords, resultRecords] = await Promise.all([entriesOf<TreeRecord>(store, runRevision.pagesRoot), entriesOf<TreeRecord>(store, resultHead?.pagesRoot ?? null)]);
  const byPage = new Map(rows.map((row) => [row.pageId, row]));
  const view = new TrieView<TreeRecord>(store, resultHead?.pagesRoot ?? null);
  for (const [id, record] of sourceRecords) {
    const desired = isPage(record) ? translatedRecord(record, byPage.get(id)) : record;
    const current = resultRecords.get(id);
    if (!current || canonicalJson(current) !== canonicalJson(desired)) view.set(id, desired);
  }
  for (const id of resultRecords.keys()) if (!sourceRecords.has(id)) view.delete(id);
  return view.write();
}

/**
 * Writes the run's result revision and completes the run (step 3 at the top). Runs in the result space's
 * SpaceWriter, so it reads the result head no other head move changes meanwhile; the head move is still a
 * compare-and-set on it. The result space's content becomes the translation of the source: pages added
 * to the result space by hand are not kept (its history keeps them).
 */
export async function assembleTranslation(env: Env, target: TranslationTarget): Promise<AssembleOutput> {
  const db = createDb(env.DB);
  const state = await loadRunState(db, target.translationId, target.runId);
  if (!state || state.translation.runId !== target.runId || state.run.finishedAt || state.run.status !== 'running') return { revision: null };
  // Only the result space's own writer may move its head.
  if (state.translation.resultSpaceId !== target.resultSpaceId) throw new Error(`translation ${target.translationId} writes into another space`);
  const { translation, run } = state;
  const problem = spaceProblem(state);
  if (problem) {
    await failRun(db, translation.id, run.id, problem);
    return { revision: null };
  }
  if ((await pendingCount(db, translation.id, run.id)) > 0) throw new Error(`translation run ${run.id}: pages are still pending`);
  const source = state.runRevision;
  if (!source) throw new Error(`translation run ${run.id}: its source revision is missing`);
  const head = state.resultHead;
  const rows = await db.select().from(translationPages).where(eq(translationPages.translationId, translation.id));
  const pages = await resultPages(db, source, head, rows);
  const now = nowIso();
  const unchanged = head && pages.root === head.pagesRoot && source.filesRoot === head.filesRoot && source.meta === head.meta;
  const revisionId = unchanged ? head.id : newId();
  const writes: BatchItem[] = [];
  const live = sql`exists (select 1 from translation_runs r join translations t on t.run_id = r.id where r.id = ${run.id} and t.id = ${translation.id} and r.finished_at is null)`;
  if (!unchanged) {
    await storeNodes(db, translation.resultSpaceId, pages.nodes, now);
    writes.push(
      // The revision and the head move happen only while the run is live (not failed or superseded meanwhile).
      db.insert(revisions).select(
        rowWhere(
          revisions,
          {
            id: revisionId,
            spaceId: translation.resultSpaceId,
            type: 'merge',
            parents: head ? [head.id] : [],
            manifest: '',
            pagesRoot: pages.root,
            filesRoot: source.filesRoot,
            meta: source.meta,
            pageCount: source.pageCount,
            fileCount: source.fileCount,
            createdAt: now,
          },
          live,
        ),
      ),
      copyDocumentReferences(db, translation.resultSpaceId, source.id),
      db
        .update(spaces)
        .set({ revisionId, updatedAt: now })
        .where(
          and(
            eq(spaces.id, translation.resultSpaceId),
            head ? eq(spaces.revisionId, head.id) : sql`1`,
            isNull(spaces.deletedAt),
            sql`${spaces.editMode} <> 'locked'`,
            live,
          ),
        ),
    );
  }
  const moved = sql`exists (select 1 from spaces s where s.id = ${translation.resultSpaceId} and s.revision_id = ${revisionId})`;
  const durationMs = Math.max(0, Date.now() - Date.parse(run.startedAt ?? run.createdAt));
  const pagesSql = runPagesSql(translation.id, run.id);
  const wordsSql = runWordsSql(translation.id, run.id);
  const results = await runBatch(db, [
    ...writes,
    // The result holds the source's content as of this run: it takes the source's access as of now (access.ts).
    ...syncResultAccess(db, translation.sourceSpaceId, translation.resultSpaceId, now, live),
    db
      .update(translations)
      .set({
        status: 'completed',
        failure: null,
        resultRevisionId: revisionId,
        updatedAt: now,
        runs: sql`${translations.runs} + 1`,
        totalWords: allWordsSql(translation.id),
        totalPages: sql`(select count(*) from translation_pages p where p.translation_id = ${translation.id} and p.translated_run is not null)`,
        totalDurationMs: sql`${translations.totalDurationMs} + ${durationMs}`,
        latestRunDurationMs: durationMs,
        latestPages: pagesSql,
        latestWords: wordsSql,
      })
      .where(
        and(
          eq(translations.id, translation.id),
          eq(translations.runId, run.id),
          moved,
          sql`exists (select 1 from translation_runs r where r.id = ${run.id} and r.finished_at is null)`,
        ),
      ),
    db
      .update(translationRuns)
      .set({ status: 'completed', finishedAt: now, touchedAt: now, pagesDone: pagesSql, words: wordsSql })
      .where(and(eq(translationRuns.id, run.id), isNull(translationRuns.finishedAt), moved)),
  ]);
  const changes = changedRows(results[results.length - 1]);
  if (changes !== 1) {
    // A run failed or superseded meanwhile wrote nothing (every write is guarded on it being live).
    const [after] = await db.select({ finishedAt: translationRuns.finishedAt }).from(translationRuns).where(eq(translationRuns.id, run.id));
    if (!after || after.finishedAt) return { revision: null };
    throw new Error(`translation run ${run.id}: the result space's head moved while the result was written`);
  }
  return { revision: revisionId };
}
