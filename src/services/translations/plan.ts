import { and, eq, sql, type SQL } from 'drizzle-orm';
import { rawRun, runBatch, type BatchItem, type Db } from '../../db/client';
import { translationPages, translationRuns, translations } from '../../db/schema/translations';
import { sha256Hex } from '../../lib/ids';
import { nowIso } from '../../lib/time';
import type { PageRecord, TreeRecord } from '../content/pages';
import { d1NodeStore, entriesOf } from '../content/tree';
import { isPage, type RunState } from './state';

/** Step 1 of a translation run (services/translations/run.ts): the plan. */

/** What decides whether a page is translated again: its document, title and description. */
export async function sourceKeyOf(record: PageRecord): Promise<string> {
  return sha256Hex(JSON.stringify([record.document ?? '', record.title ?? '', record.description ?? '']));
}


/**
 * Pages a planning statement binds (one JSON string each): D1 bounds a string or statement to about 1 MB,
 * and a page's [id, key] is about 90 bytes, so a slice stays near 180 KB whatever the space's size.
 */
export const PLAN_SLICE = 2_000;

/** The statements marking `changed` pages ([page id, source key]) pending for the run: one per PLAN_SLICE pages. */
export function pendingPageInserts(db: Db, translationId: string, runId: string, changed: ReadonlyArray<readonly [string, string]>, when: SQL) {
  const statements: BatchItem[] = [];
  for (let i = 0; i < changed.length; i += PLAN_SLICE) {
    statements.push(
      rawRun(
        db,
        sql`insert into translation_pages (translation_id, page_id, pending_run, pending_key)
          select ${translationId}, json_extract(value, '$[0]'), ${runId}, json_extract(value, '$[1]') from json_each(${JSON.stringify(changed.slice(i, i + PLAN_SLICE))}) where ${when}
          on conflict (translation_id, page_id) do update set pending_run = excluded.pending_run, pending_key = excluded.pending_key, claimed_at = null`,
      ),
    );
  }
  return statements;
}

/** Marks the pages of the source's head whose key changed as pending for this run, and starts it (see the top). */
export async function plan(db: Db, state: RunState): Promise<void> {
  const { translation, run } = state;
  const head = state.sourceHead;
  if (!head) throw new Error(`translation ${translation.id}: the source space has no head revision`);
  const records = await entriesOf<TreeRecord>(d1NodeStore(db), head.pagesRoot);
  const pages = [...records.values()].filter(isPage);
  const [keys, known] = await Promise.all([
    Promise.all(pages.map(async (page) => [page.id, await sourceKeyOf(page)] as const)),
    db.select({ pageId: translationPages.pageId, sourceKey: translationPages.sourceKey }).from(translationPages).where(eq(translationPages.translationId, translation.id)),
  ]);
  const last = new Map(known.map((row) => [row.pageId, row.sourceKey]));
  const changed = keys.filter(([id, key]) => last.get(id) !== key);
  const now = nowIso();
  const stillPending = sql`exists (select 1 from translation_runs r where r.id = ${run.id} and r.status = 'pending')`;
  await runBatch(db, [
    // Pages a failed or abandoned run left pending are planned afresh.
    db
      .update(translationPages)
      .set({ pendingRun: null, pendingKey: null, claimedAt: null })
      .where(and(eq(translationPages.translationId, translation.id), sql`${translationPages.pendingRun} is not null`, stillPending)),
    ...pendingPageInserts(db, translation.id, run.id, changed, stillPending),
    db
      .update(translationRuns)
      .set({ status: 'running', sourceRevisionId: head.id, pagesTotal: changed.length, startedAt: now, touchedAt: now })
      .where(and(eq(translationRuns.id, run.id), eq(translationRuns.status, 'pending'))),
    db
      .update(translations)
      .set({ status: 'running', updatedAt: now })
      .where(and(eq(translations.id, translation.id), eq(translations.runId, run.id), eq(translations.status, 'pending'))),
  ]);
}
