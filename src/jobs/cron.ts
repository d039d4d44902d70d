import { and, eq, inArray, isNotNull, isNull, lt, ne, or, sql } from 'drizzle-orm';
import { createDb, type Db } from '../db/client';
import { conversations, documents, integrationEvents, integrations, openapiSpecs, revisions, spaceIndexState, spaces } from '../db/schema';
import { spaceWriter } from '../durable-objects/space-writer';
import type { Env } from '../env';
import { DAY_MS } from '../lib/time';
import { qualify } from '../services/access/access';
import { ANALYSIS_LEASE_MS, CONVERSATION_ANALYZE_JOB, type ConversationAnalyzePayload } from '../services/conversations/types';
import { enqueueEvents } from '../services/integrations/events';
import { OPENAPI_PROCESS_JOB, type OpenAPIProcessPayload } from '../services/openapi/jobs';
import { purgeExpiredIntegrationTokens } from '../services/integrations/tokens';
import { purgeExpiredSamlRequests } from '../services/sso/login';
import { clearExpiredClaims } from '../services/organizations/hostnames';
import { requeueTranslationRuns } from '../services/translations/requeue';
import { sendJobs } from './messages';

import { SPACE_RETENTION_DAYS } from './retention';

export { SPACE_RETENTION_DAYS };
const PURGE_CHUNK = 90; // under D1's 100 bound parameters per statement

/**
 * Permanently removes spaces deleted more than 7 days before `now`, with everything that belongs to
 * them (grants and change requests cascade through foreign keys; revisions and the documents no other
 * revision refers to are removed explicitly). File bytes in R2 are kept: they are shared by content hash. The trees Git
 * Sync kept for the space (`bucket`, git-sync/tree-cache.ts) go with it. Idempotent.
 */
export async function purgeDeletedSpaces(db: Db, now: number, bucket?: Pick<R2Bucket, 'delete'>): Promise<number> {
  const cutoff = new Date(now - SPACE_RETENTION_DAYS * DAY_MS).toISOString();
  const expired = await db
    .select({ id: spaces.id })
    .from(spaces)
    .where(and(isNotNull(spaces.deletedAt), lt(spaces.deletedAt, cutoff)))
    .all();
  for (let i = 0; i < expired.length; i += PURGE_CHUNK) {
    const ids = expired.slice(i, i + PURGE_CHUNK).map((s) => s.id);
    const purged = JSON.stringify(ids);
    await db.batch([
      // Documents are shared between spaces (duplicates): only those no other space refers to go.
      db.delete(documents).where(sql`${documents.hash} in (
          select sd.hash from space_documents sd where sd.space_id in (select value from json_each(${purged})))
        and not exists (
          select 1 from space_documents other
          where other.hash = ${qualify(documents.hash)} and other.space_id not in (select value from json_each(${purged})))`),
      db.delete(revisions).where(inArray(revisions.spaceId, ids)),
      // Change requests, grants and document references go with the space (foreign keys cascade).
      db.delete(spaces).where(inArray(spaces.id, ids)),
    ]);
    if (bucket) {
      // Loaded here only: tree-cache.ts brings node:zlib, which the Worker's startup does not load.
      const { treeCacheKey } = await import('../services/git-sync/tree-cache');
      await bucket.delete(ids.map(treeCacheKey));
    }
  }
  return expired.length;
}

/** Spaces whose history a cron run collects at most (the rest wait for the next run). */
const HISTORY_SPACES_PER_RUN = 20;

/**
 * History collection (services/content/history): the spaces with revisions past the retention window, each collected
 * in its writer, between its head moves. Answers the revisions and documents deleted.
 */
export async function collectHistory(env: Env, db: Db, now: number): Promise<number> {
  const { spacesToCollect } = await import('../services/content/history');
  let collected = 0;
  for (const id of await spacesToCollect(db, now, HISTORY_SPACES_PER_RUN)) {
    try {
      const result = await spaceWriter(env, id).collectHistory(id, now);
      if (result.ok) collected += result.value.revisions + result.value.documents;
      else console.error(`cron: space ${id}: history not collected: ${result.message}`);
    } catch (error) {
      console.error(`cron: space ${id}: history not collected`, error);
    }
  }
  return collected;
}

/** Spaces whose indexes a cron run catches up at most (the rest wait for the next run). */
const INDEX_CATCH_UP_PER_RUN = 50;

/**
 * The safety net of the derived indexes: spaces never indexed (created before them, duplicated while a
 * background catch-up failed) or left behind their main content are caught up, each in its writer.
 */
export async function catchUpStaleIndexes(env: Env, db: Db): Promise<number> {
  const stale = await db
    .select({ id: spaces.id })
    .from(spaces)
    .leftJoin(spaceIndexState, eq(spaceIndexState.spaceId, spaces.id))
    .where(and(isNull(spaces.deletedAt), or(isNull(spaceIndexState.revisionId), ne(spaceIndexState.revisionId, spaces.revisionId))))
    // In random order: spaces whose catch-up keeps failing cannot keep the others waiting run after run.
    .orderBy(sql`random()`)
    .limit(INDEX_CATCH_UP_PER_RUN)
    .all();
  let caughtUp = 0;
  for (const { id } of stale) {
    try {
      const result = await spaceWriter(env, id).reindex(id);
      if (result.ok) caughtUp++;
      else console.error(`cron: space ${id}: indexes not caught up: ${result.message}`);
    } catch (error) {
      console.error(`cron: space ${id}: indexes not caught up`, error);
    }
  }
  return caughtUp;
}

/** A pending event untouched this long (and not leased) has lost its queue message: it is sent again. */
export const STALE_EVENT_MS = 15 * 60 * 1000;
const REQUEUE_PER_RUN = 500;

/**
 * The safety net of integration events: an event is recorded as pending before its queue message is sent,
 * and the send may fail (services/integrations/events: enqueueEvents), or its message may end in the
 * dead-letter queue while another consumer held the event. Pending events last changed more than 15 minutes
 * before `now` whose lease (if any) expired are sent again (a consumer retrying an event changes it at every
 * attempt, and its backoff stays well under that). Their `updated_at` is set to `now` by the same statement,
 * so a second run sends nothing twice; a delivery sent twice anyway is delivered once (the consumer claims the event).
 */
export async function requeueStaleEvents(env: Env, db: Db, now: number): Promise<number> {
  const at = new Date(now).toISOString();
  const cutoff = new Date(now - STALE_EVENT_MS).toISOString();
  const stale = db
    .select({ id: integrationEvents.id })
    .from(integrationEvents)
    .where(
      and(
        eq(integrationEvents.status, 'pending'),
        lt(integrationEvents.updatedAt, cutoff),
        or(isNull(integrationEvents.leaseUntil), lt(integrationEvents.leaseUntil, at)),
      ),
    )
    .orderBy(integrationEvents.updatedAt)
    .limit(REQUEUE_PER_RUN);
  const rows = await db
    .update(integrationEvents)
    .set({ updatedAt: at })
    .where(inArray(integrationEvents.id, stale))
    .returning({ id: integrationEvents.id });
  await enqueueEvents(env, rows.map((row) => row.id));
  return rows.length;
}

export const INTEGRATION_RETENTION_DAYS = 7;
const INTEGRATION_PURGE_PER_RUN = 50;

/**
 * Permanently removes integrations unpublished more than 7 days before `now` (their installations, tokens,
 * events and traces cascade) with their R2 objects (`integrations/<id>/`: icon, preview images, scripts of
 * every version). The objects go first: an integration whose objects could not all be removed keeps its row
 * and is tried again at the next run. Its bot user stays, as the author of what it wrote. Idempotent.
 */
export async function purgeDeletedIntegrations(env: Env, db: Db, now: number): Promise<number> {
  const cutoff = new Date(now - INTEGRATION_RETENTION_DAYS * DAY_MS).toISOString();
  const expired = await db
    .select({ id: integrations.id })
    .from(integrations)
    .where(and(isNotNull(integrations.deletedAt), lt(integrations.deletedAt, cutoff)))
    .limit(INTEGRATION_PURGE_PER_RUN)
    .all();
  const cleared: string[] = [];
  for (const { id } of expired) {
    try {
      let cursor: string | undefined;
      do {
        const listed = await env.FILES.list({ prefix: `integrations/${id}/`, cursor });
        if (listed.objects.length > 0) await env.FILES.delete(listed.objects.map((object) => object.key));
        cursor = listed.truncated ? listed.cursor : undefined;
      } while (cursor);
      cleared.push(id);
    } catch (error) {
      console.error(`cron: integration ${id}: its files could not be removed (tried again next run)`, error);
    }
  }
  if (cleared.length > 0) await db.delete(integrations).where(inArray(integrations.id, cleared)).run();
  return cleared.length;
}

/**
 * A spec's processing job not picked up this long after it was sent or last claimed (lost, or its consumer
 * killed: a claim counts in `processing_attempts`, which bounds how often that is tried) is sent again.
 */
export const STALE_SPEC_JOB_MS = 15 * 60 * 1000;
/** A spec fetched from a URL is processed again once its last processing is this old. */
export const SPEC_REFRESH_MS = DAY_MS;
/** Specs sent again, and specs refreshed, at most per run each (the rest wait for the next run). */
export const SPEC_REQUEUE_PER_RUN = 100;

/**
 * The safety net and the refresh of OpenAPI specs (services/openapi/process), two set-based statements in one
 * batch, then the messages:
 * (a) a spec naming a processing job whose message was sent, or claimed by a consumer, more than 15 minutes
 *     before `now` (`queued_at`: the consumer sets it when it claims the job, and again while it retries) is
 *     sent the same job again, `pending` again (its count of claims kept);
 * (b) a spec with a source URL, no job outstanding, and processed more than 24 hours before `now` (or never)
 *     gets a new job (`processing_job`, `pending`, `queued_at`, no claim counted), then its message.
 * Both set `queued_at` to `now`: a second run sends nothing twice, and a send that fails is (a) at a later run.
 * A job sent twice is processed once (the consumer works only for the job the spec names, and clears it).
 */
export async function requeueSpecJobs(env: Env, db: Db, now: number): Promise<number> {
  const at = new Date(now).toISOString();
  const staleCutoff = new Date(now - STALE_SPEC_JOB_MS).toISOString();
  const refreshCutoff = new Date(now - SPEC_REFRESH_MS).toISOString();
  const stale = db
    .select({ id: openapiSpecs.id })
    .from(openapiSpecs)
    .where(and(isNotNull(openapiSpecs.processingJob), or(isNull(openapiSpecs.queuedAt), lt(openapiSpecs.queuedAt, staleCutoff))))
    .orderBy(openapiSpecs.queuedAt)
    .limit(SPEC_REQUEUE_PER_RUN);
  const due = db
    .select({ id: openapiSpecs.id })
    .from(openapiSpecs)
    .where(
      and(
        isNotNull(openapiSpecs.sourceUrl),
        isNull(openapiSpecs.processingJob),
        or(isNull(openapiSpecs.lastProcessedAt), lt(openapiSpecs.lastProcessedAt, refreshCutoff)),
      ),
    )
    .orderBy(openapiSpecs.lastProcessedAt)
    .limit(SPEC_REQUEUE_PER_RUN);
  const [resent, refreshed] = await db.batch([
    db
      .update(openapiSpecs)
      .set({ processingState: 'pending', queuedAt: at })
      .where(inArray(openapiSpecs.id, stale))
      .returning({ specId: openapiSpecs.id, jobId: openapiSpecs.processingJob }),
    db
      .update(openapiSpecs)
      // A new job id per row (80 random bits, in hex), drawn by SQLite.
      .set({ processingJob: sql`lower(hex(randomblob(10)))`, processingState: 'pending', queuedAt: at, processingAttempts: 0 })
      .where(inArray(openapiSpecs.id, due))
      .returning({ specId: openapiSpecs.id, jobId: openapiSpecs.processingJob }),
  ]);
  const jobs = [...resent, ...refreshed].map(({ specId, jobId }) => {
    const payload: OpenAPIProcessPayload = { specId };
    return { id: jobId!, type: OPENAPI_PROCESS_JOB, payload };
  });
  // The specs name their jobs: what is not sent is sent again at a run 15 minutes from now.
  await sendJobs(env, jobs, 'cron: openapi processing');
  return jobs.length;
}

/** A conversation's analysis job not picked up this long after it was sent or last claimed is sent again. */
export const STALE_CONVERSATION_JOB_MS = ANALYSIS_LEASE_MS;
/** Conversations whose job a run sends again at most (the rest wait for the next run). */
export const CONVERSATION_REQUEUE_PER_RUN = 500;

/**
 * The safety net of conversation analysis (services/conversations/analysis): a conversation `pending` or
 * `analysing` whose job was sent, claimed, or given back after a failure more than 15 minutes before `now`
 * (`queued_at`; the queue's own retries refresh it at each failed attempt, so a message the queue still holds is
 * left to it) lost its message, its consumer was killed, or its message went to the dead-letter queue: its job
 * is sent again, the conversation `pending` again (its count of claims kept: that bounds how often a job that
 * never ends is tried). One statement picks and stamps them (`queued_at` = now), so a second run sends nothing
 * twice, and a send that fails is retried at a run 15 minutes later. A job sent twice is analysed once (the
 * consumer works only for the job the conversation names, and clears it).
 */
export async function requeueConversationJobs(env: Env, db: Db, now: number): Promise<number> {
  const at = new Date(now).toISOString();
  const cutoff = new Date(now - STALE_CONVERSATION_JOB_MS).toISOString();
  const stale = db
    .select({ id: conversations.id })
    .from(conversations)
    .where(
      and(
        inArray(conversations.analysisState, ['pending', 'analysing']),
        isNotNull(conversations.analysisJob),
        or(isNull(conversations.queuedAt), lt(conversations.queuedAt, cutoff)),
      ),
    )
    .orderBy(conversations.queuedAt)
    .limit(CONVERSATION_REQUEUE_PER_RUN);
  const rows = await db
    .update(conversations)
    .set({ analysisState: 'pending', queuedAt: at })
    .where(inArray(conversations.id, stale))
    .returning({ conversationId: conversations.id, jobId: conversations.analysisJob });
  const jobs = rows.map(({ conversationId, jobId }) => {
    const payload: ConversationAnalyzePayload = { conversationId };
    return { id: jobId!, type: CONVERSATION_ANALYZE_JOB, payload };
  });
  // The conversations name their jobs: what is not sent is sent again at a run 15 minutes from now.
  await sendJobs(env, jobs, 'cron: conversation analysis');
  return jobs.length;
}

/** Runs one step of the cron; a step that fails is logged and does not keep the others from running. */
async function step(name: string, run: () => Promise<number>, done: (count: number) => string): Promise<void> {
  try {
    const count = await run();
    if (count > 0) console.log(`cron: ${done(count)}`);
  } catch (error) {
    console.error(`cron: ${name} failed`, error);
  }
}

export async function runScheduled(env: Env, scheduledTime: number): Promise<void> {
  const db = createDb(env.DB);
  const purged = await purgeDeletedSpaces(db, scheduledTime, env.FILES);
  if (purged > 0) console.log(`cron: purged ${purged} deleted space(s)`);
  const indexed = await catchUpStaleIndexes(env, db);
  if (indexed > 0) console.log(`cron: caught up the indexes of ${indexed} space(s)`);
  await step('re-sending stale integration events', () => requeueStaleEvents(env, db, scheduledTime), (n) => `sent ${n} stale integration event(s) again`);
  await step(
    'purging expired integration tokens',
    async () => (await purgeExpiredIntegrationTokens(db, new Date(scheduledTime).toISOString()).run()).meta.changes ?? 0,
    (n) => `removed ${n} expired integration token(s)`,
  );
  await step('purging unpublished integrations', () => purgeDeletedIntegrations(env, db, scheduledTime), (n) => `purged ${n} unpublished integration(s)`);
  await step('sending openapi spec processing', () => requeueSpecJobs(env, db, scheduledTime), (n) => `sent ${n} openapi spec processing job(s) (lost or refreshed)`);
  await step('re-sending conversation analysis', () => requeueConversationJobs(env, db, scheduledTime), (n) => `sent ${n} stale conversation analysis job(s) again`);
  await step('re-sending translation runs', () => requeueTranslationRuns(env, db, scheduledTime), (n) => `sent ${n} stale translation run(s) again`);
  await step('purging expired SAML login requests', () => purgeExpiredSamlRequests(db, new Date(scheduledTime)), (n) => `removed ${n} expired SAML login request(s)`);
  await step(
    'ending Git Sync operations whose messages are gone',
    async () => (await import('../services/git-sync/cleanup')).sweepGitOperations(env, scheduledTime),
    (n) => `ended ${n} Git Sync operation(s) and deleted their credentials`,
  );
  await step('deleting Git Sync staged files left by stopped Workers', async () => (await import('../services/git-sync/cleanup')).sweepGitStaging(env, scheduledTime), (n) => `deleted ${n} staged file(s)`);
  await step(
    'deleting files of Git Sync imports stopped mid-way',
    async () => (await (await import('../services/git-sync/cleanup')).sweepGitOrphanFiles(env, scheduledTime)).deleted,
    (n) => `deleted ${n} orphan file(s)`,
  );
  await step('pruning ended Git Sync operations', async () => (await import('../services/git-sync/cleanup')).pruneGitOperations(env, scheduledTime), (n) => `removed ${n} ended Git Sync operation(s) past their retention`);
  await step('clearing expired custom hostname claims', () => clearExpiredClaims(db, scheduledTime), (n) => `cleared ${n} pending custom hostname claim(s) past their period`);
  await step('purging audit events past their retention', async () => (await import('../services/audit/retention')).purgeOldAuditEvents(db, scheduledTime), (n) => `removed ${n} audit event(s) past their retention`);
  await step('collecting history', () => collectHistory(env, db, scheduledTime), (n) => `collected ${n} revision(s) and document(s) no longer kept`);
  await step('packing documents stored before 0052', async () => (await import('../services/content/pack-stored')).packStoredDocuments(db), (n) => `packed ${n} document(s) stored as JSON text`);
  await step('purging old site insights events', async () => (await import('../services/insights/store')).purgeOldEvents(db, scheduledTime), (n) => `removed ${n} site insights event(s) past their retention`);
}
