import { and, count, desc, eq, exists, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import { createDb, runBatch, type Db } from '../../db/client';
import { changeRequests, importRuns, siteSpaces, sites, spaces, type ImportRunPage } from '../../db/schema';
import { spaceWriter, throughWriter } from '../../durable-objects/space-writer';
import type { Env } from '../../env';
import { ApiError, badRequest } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { checkOutboundUrl } from '../../lib/outbound';
import { beforeCursor, textCursor, type Cursor } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { nowIso } from '../../lib/time';
import { IMPORT_RUN_STALE_MS, LIVE_IMPORT_RUN_STATUSES, STALE_REASON, effectiveStatus, type ImportRunStatus } from '../../schemas/import-run';
import { spaceRoleSql } from '../access/access';
import { authorize, authorizeOrg } from '../access/permissions';
import type { ContentChange } from '../content/batch';
import { capOf } from '../limits/caps';
import { orgRankQuery } from '../organizations/organizations';
import { checkSpace, selectSpaceWithRank, type SpaceWithRank } from '../spaces/spaces';
import { ImportStopped, importWebsite } from './website';

/**
 * Import runs (GitBook's startImportRun, getImportRun, listImportRuns, cancelImportRun): a website imported into a
 * space in the background, by the queue consumer (jobs/import-run.ts), with the same crawler and converter as
 * importContentInChangeRequest (./website.ts).
 *
 * - Start (edit role on the target space, a space of the organization of the path): the source URL is checked by
 *   the outbound guard at once (a refused URL is a 400 and no run), the run is stored `pending` and one queue
 *   message is sent. The target is the space's main content, or an open change request of it (`changeRequest`);
 *   `page` puts the imported pages under that page.
 * - The consumer claims the run (`in-progress`, step `crawling`), checks that whoever started it may still edit the
 *   space, crawls (asking between rounds whether the run was cancelled), then claims the right to write (step
 *   `writing`, a compare-and-set against a cancel) and writes the pages and images as ONE content batch through the
 *   space's SpaceWriter: a new revision on main, or on the change request. The run is then `completed` with the
 *   pages it created; an error of the import (unreachable or refused site, nothing to import, a locked or deleted
 *   space, a change request merged meanwhile, an unknown target page) ends it `failed` with that message as
 *   `reason`. Any other error is retried by the queue (with backoff) and fails the run at its last delivery.
 * - Cancel (edit role): a pending run, or one still crawling, becomes `cancelled` and nothing is written. Once the
 *   run writes, cancel is a 400: the batch is one transaction, written whole or not at all.
 * - A live run not heard of for an hour reads as failed (schemas/import-run `effectiveStatus`), and the consumer
 *   no longer takes it up; a delivery finding a run interrupted while writing ends it failed, saying so.
 *
 * Who sees a run: the members who may read its target space (in the organization of the path); another
 * organization's run, or one of a space the caller cannot see, is a 404. Round trips: a read 1 after the token, a
 * list 1 (organization role, page and count in one batch), a start 2, a cancel 2.
 */

export const IMPORT_RUN_JOB = 'import-run';
/** The queue consumer's `max_retries` (wrangler.toml) is 5: a message is delivered at most 6 times. */
export const MAX_IMPORT_RUN_DELIVERIES = 6;

export type ImportRunRow = typeof importRuns.$inferSelect;

export interface StartInput {
  orgId: string;
  userId: string;
  source: { type: 'website'; url: string } | { type: 'file'; files: string[] };
  target: { space: string; changeRequest?: string; page?: string };
  site?: string;
  enhance?: boolean;
}

const notFound = () => new ApiError(404, 'Import run not found');

/** ISO time before which a live run is stale. */
const staleBefore = (now: number) => new Date(now - IMPORT_RUN_STALE_MS).toISOString();

/** The status the API shows, as SQL (a live run not heard of since `before` is failed). */
function effectiveStatusSql(before: string): SQL<string> {
  return sql<string>`(case when ${importRuns.status} in ('pending', 'in-progress') and ${importRuns.updatedAt} < ${before} then 'failed' else ${importRuns.status} end)`;
}

// ---------------------------------------------------------------------------------------------
// Start

export async function startImportRun(env: Env, db: Db, input: StartInput): Promise<ImportRunRow> {
  if (input.source.type !== 'website') {
    throw badRequest('source.type: "file" imports are not supported by this deployment (it has no upload of import files); import a website: {"type": "website", "url": ...}');
  }
  if (input.enhance === true) throw badRequest('enhance: this deployment does not enhance imported content with AI; send false or leave it out');
  const url = checkOutboundUrl(env, input.source.url, 'source.url').href;
  const { space: spaceId, changeRequest, page } = input.target;

  const [spaceRows, crRows, siteRows] = (await runBatch(db, [
    selectSpaceWithRank(db, spaceId, input.userId),
    changeRequest === undefined
      ? db.select({ id: changeRequests.id }).from(changeRequests).where(sql`0`)
      : db
          .select({ id: changeRequests.id, number: changeRequests.number, status: changeRequests.status })
          .from(changeRequests)
          .where(and(eq(changeRequests.spaceId, spaceId), /^[1-9][0-9]{0,8}$/.test(changeRequest) ? eq(changeRequests.number, Number(changeRequest)) : eq(changeRequests.id, changeRequest)))
          .limit(1),
    // The site named, or the sites (at most two: one is enough to tell) the space is published in.
    input.site !== undefined
      ? db.select({ id: sites.id }).from(sites).where(and(eq(sites.id, input.site), eq(sites.orgId, input.orgId))).limit(1)
      : db.selectDistinct({ id: siteSpaces.siteId }).from(siteSpaces).where(eq(siteSpaces.spaceId, spaceId)).limit(2),
  ])) as [SpaceWithRank[], Array<{ id: string; number: number; status: string }>, Array<{ id: string }>];

  // A space of another organization is not found, whoever may see it elsewhere.
  if (spaceRows[0] && spaceRows[0].space.orgId !== input.orgId) throw new ApiError(404, 'Space not found');
  checkSpace(spaceRows, RANK.edit);
  let changeRequestId: string | null = null;
  if (changeRequest !== undefined) {
    const cr = crRows[0];
    if (!cr) throw new ApiError(404, 'Change request not found');
    if (cr.status === 'merged' || cr.status === 'archived') {
      throw badRequest(`target.changeRequest: change request #${cr.number} is ${cr.status}: import into an open change request, or into the space`);
    }
    changeRequestId = cr.id;
  }
  if (input.site !== undefined && siteRows.length === 0) throw badRequest('site: not a site of this organization');
  const siteId = input.site ?? (siteRows.length === 1 ? siteRows[0].id : null);

  const now = nowIso();
  const row: ImportRunRow = {
    id: newId(),
    orgId: input.orgId,
    spaceId,
    changeRequestId,
    pageId: page ?? null,
    siteId,
    sourceType: 'website',
    sourceUrl: url,
    status: 'pending',
    step: null,
    reason: null,
    pages: null,
    revisionId: null,
    createdBy: input.userId,
    createdAt: now,
    updatedAt: now,
    startedAt: null,
    completedAt: null,
  };
  await db.insert(importRuns).values(row);
  try {
    await env.JOBS.send({ id: `${IMPORT_RUN_JOB}:${row.id}`, type: IMPORT_RUN_JOB, payload: { runId: row.id } });
  } catch (error) {
    // Nothing will take the run up: it says so at once rather than waiting to go stale.
    console.error(`import run ${row.id}: not queued`, error);
    const reason = 'The import could not be queued: start it again';
    await db.update(importRuns).set({ status: 'failed', reason, updatedAt: nowIso() }).where(eq(importRuns.id, row.id));
    return { ...row, status: 'failed', reason };
  }
  return row;
}

// ---------------------------------------------------------------------------------------------
// Reads

/** The run of the organization with the caller's role on its target space, in one query. */
function runWithRankQuery(db: Db, orgId: string, runId: string, userId: string) {
  return db
    .select({ run: importRuns, rank: spaceRoleSql(userId) })
    .from(importRuns)
    .innerJoin(spaces, and(eq(spaces.id, importRuns.spaceId), eq(spaces.orgId, orgId)))
    .where(and(eq(importRuns.id, runId), eq(importRuns.orgId, orgId)))
    .limit(1);
}

/** A run the caller may see (read role on its target space), or a 404. */
export async function getImportRun(db: Db, orgId: string, runId: string, userId: string): Promise<ImportRunRow> {
  const found = await runWithRankQuery(db, orgId, runId, userId).get();
  if (!found || found.rank < RANK.read) throw notFound();
  return found.run;
}

export interface ListFilters {
  space?: string;
  changeRequest?: string;
  site?: string;
  status?: ImportRunStatus | 'active';
}

/** A page of the runs the caller may see, most recent first, with the total matching the filters. */
export async function listImportRuns(db: Db, orgId: string, userId: string, filters: ListFilters, cursor: Cursor | null, limit: number) {
  const before = staleBefore(Date.now());
  const status = effectiveStatusSql(before);
  const where = and(
    eq(importRuns.orgId, orgId),
    sql`${spaceRoleSql(userId)} >= ${RANK.read}`,
    filters.space !== undefined ? eq(importRuns.spaceId, filters.space) : undefined,
    filters.changeRequest !== undefined ? eq(importRuns.changeRequestId, filters.changeRequest) : undefined,
    filters.site !== undefined
      ? or(
          eq(importRuns.siteId, filters.site),
          exists(db.select({ one: sql`1` }).from(siteSpaces).where(and(eq(siteSpaces.siteId, filters.site), eq(siteSpaces.spaceId, importRuns.spaceId)))),
        )
      : undefined,
    filters.status === 'active' ? inArray(status, [...LIVE_IMPORT_RUN_STATUSES]) : filters.status !== undefined ? eq(status, filters.status) : undefined,
  );
  const joined = and(eq(spaces.id, importRuns.spaceId), eq(spaces.orgId, orgId));
  const [rankRows, rows, [{ total }]] = await db.batch([
    orgRankQuery(db, orgId, userId),
    db
      .select({ run: importRuns })
      .from(importRuns)
      .innerJoin(spaces, joined)
      .where(and(where, beforeCursor(textCursor(cursor), importRuns.createdAt, importRuns.id)))
      .orderBy(desc(importRuns.createdAt), desc(importRuns.id))
      .limit(limit + 1),
    db.select({ total: count() }).from(importRuns).innerJoin(spaces, joined).where(where),
  ]);
  authorizeOrg(rankRows[0]?.rank, RANK.guest);
  return { rows: rows.map((r) => r.run), total };
}

// ---------------------------------------------------------------------------------------------
// Cancel

export async function cancelImportRun(db: Db, orgId: string, runId: string, userId: string): Promise<ImportRunRow> {
  const found = await runWithRankQuery(db, orgId, runId, userId).get();
  if (!found || found.rank < RANK.read) throw notFound();
  authorize(found.rank, RANK.edit, 'Space');
  const { status } = effectiveStatus(found.run, Date.now());
  if (status !== 'pending' && status !== 'in-progress') throw badRequest(`Import run is ${status}: only a pending or in-progress run can be cancelled`);
  if (found.run.step === 'writing') throw badRequest('Import run is writing its content into the space: it can no longer be cancelled');
  const cancelled = await db
    .update(importRuns)
    .set({ status: 'cancelled', step: null, updatedAt: nowIso() })
    .where(and(eq(importRuns.id, runId), inArray(importRuns.status, [...LIVE_IMPORT_RUN_STATUSES]), or(isNull(importRuns.step), eq(importRuns.step, 'crawling'))))
    .returning()
    .get();
  if (!cancelled) throw badRequest('Import run moved on while it was being cancelled (it is writing or finished): read it again');
  return cancelled;
}

// ---------------------------------------------------------------------------------------------
// The consumer's part

export type ImportRunOutcome = 'skipped' | 'completed' | 'failed' | 'cancelled';

async function finish(db: Db, runId: string, fields: Partial<ImportRunRow>, from: SQL): Promise<void> {
  await db
    .update(importRuns)
    .set({ step: null, updatedAt: nowIso(), ...fields })
    .where(and(eq(importRuns.id, runId), from));
}

const fail = (db: Db, runId: string, reason: string) => finish(db, runId, { status: 'failed', reason }, inArray(importRuns.status, [...LIVE_IMPORT_RUN_STATUSES]));

/**
 * Handles one delivery of a run's message (see the top of this file). Answers what became of the run; throws
 * (for the queue to retry) only on an error that is not the import's own, before the last delivery.
 */
export async function processImportRun(env: Env, runId: string, options: { attempts: number }): Promise<ImportRunOutcome> {
  const db = createDb(env.DB);
  const now = nowIso();
  const claimed = await db
    .update(importRuns)
    .set({ status: 'in-progress', step: 'crawling', startedAt: sql`coalesce(${importRuns.startedAt}, ${now})`, updatedAt: now })
    .where(
      and(
        eq(importRuns.id, runId),
        inArray(importRuns.status, [...LIVE_IMPORT_RUN_STATUSES]),
        or(isNull(importRuns.step), eq(importRuns.step, 'crawling')),
        sql`${importRuns.updatedAt} >= ${staleBefore(Date.now())}`,
      ),
    )
    .returning()
    .get();
  if (!claimed) return settleUnclaimed(db, runId);

  try {
    const creator = await db
      .select({ rank: spaceRoleSql(claimed.createdBy), deletedAt: spaces.deletedAt })
      .from(spaces)
      .where(eq(spaces.id, claimed.spaceId))
      .get();
    if (!creator || creator.rank < RANK.edit) {
      await fail(db, runId, 'The user who started the import can no longer edit the space');
      return 'failed';
    }
    const imported = await importWebsite(env, claimed.sourceUrl, {
      limits: { maxImageBytes: capOf(env, 'bytesPerFile') },
      stillWanted: async () => (await db.select({ status: importRuns.status }).from(importRuns).where(eq(importRuns.id, runId)).get())?.status === 'in-progress',
    });
    const changes: ContentChange[] = claimed.pageId
      ? imported.changes.map((change) => (change.operation === 'insert_page' && change.into === undefined ? { ...change, into: claimed.pageId! } : change))
      : imported.changes;

    // The right to write: a compare-and-set against a cancel that came during the crawl.
    const writing = await db
      .update(importRuns)
      .set({ step: 'writing', updatedAt: nowIso() })
      .where(and(eq(importRuns.id, runId), eq(importRuns.status, 'in-progress'), eq(importRuns.step, 'crawling')))
      .returning({ id: importRuns.id })
      .get();
    if (!writing) return 'cancelled';

    const writer = spaceWriter(env, claimed.spaceId);
    const userId = claimed.createdBy;
    const written = claimed.changeRequestId
      ? await throughWriter(writer.applyContent({ spaceId: claimed.spaceId, changeRequestId: claimed.changeRequestId, userId }, changes))
      : await throughWriter(writer.applyToMain({ spaceId: claimed.spaceId, userId }, changes));
    const revision = 'revision' in written ? (written.revision as string) : null;
    await finish(
      db,
      runId,
      { status: 'completed', completedAt: nowIso(), pages: createdPages(changes, imported.pages, written.outcomes), revisionId: revision },
      eq(importRuns.status, 'in-progress'),
    );
    return 'completed';
  } catch (error) {
    if (error instanceof ImportStopped) return 'cancelled';
    if (error instanceof ApiError) {
      // The import's own refusal (the site, the content, the target): final, and said as the run's reason.
      await fail(db, runId, error.message);
      return 'failed';
    }
    if (options.attempts >= MAX_IMPORT_RUN_DELIVERIES) {
      await fail(db, runId, `The import failed (${options.attempts} attempts): ${error instanceof Error ? error.message : String(error)}`);
      return 'failed';
    }
    throw error;
  }
}

/** A delivery that could not claim the run: finished (nothing to do), interrupted while writing, or stale. */
async function settleUnclaimed(db: Db, runId: string): Promise<ImportRunOutcome> {
  const run = await db.select().from(importRuns).where(eq(importRuns.id, runId)).get();
  if (!run || !(LIVE_IMPORT_RUN_STATUSES as readonly string[]).includes(run.status)) return 'skipped';
  const live = inArray(importRuns.status, [...LIVE_IMPORT_RUN_STATUSES]);
  if (effectiveStatus(run, Date.now()).stale) {
    await finish(db, runId, { status: 'failed', reason: STALE_REASON }, live);
    return 'failed';
  }
  // step `writing`: an earlier delivery stopped between claiming the write and recording its end.
  await finish(
    db,
    runId,
    { status: 'failed', reason: "The import was interrupted while writing its content: the space's history tells whether its pages were added" },
    and(live, eq(importRuns.step, 'writing'))!,
  );
  return 'failed';
}

/** The pages a batch created, each with the URL it came from (the batch's page refs are in the crawl's order). */
function createdPages(changes: ContentChange[], urls: string[], outcomes: Array<{ object: string; ref?: string; page: string }>): ImportRunPage[] {
  const urlOfRef = new Map<string, string>();
  changes
    .filter((change) => change.operation === 'insert_page')
    .forEach((change, index) => {
      if (change.operation === 'insert_page' && change.ref && urls[index]) urlOfRef.set(change.ref, urls[index]);
    });
  return outcomes.flatMap((outcome) => (outcome.object === 'created_page' && outcome.ref && urlOfRef.has(outcome.ref) ? [{ id: outcome.page, sourceURL: urlOfRef.get(outcome.ref)! }] : []));
}
