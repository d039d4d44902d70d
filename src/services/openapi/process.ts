import { and, eq, gte, sql } from 'drizzle-orm';
import { createDb, rawRun, type Db } from '../../db/client';
import { openapiSpecs, openapiSpecVersions } from '../../db/schema';
import type { Env } from '../../env';
import { newId, sha256Hex } from '../../lib/ids';
import { OutboundError } from '../../lib/outbound';
import { nowIso } from '../../lib/time';
import { buildOutline } from './outline';
import { SpecProcessingFailure, storedErrors, validateSpec, type SpecFormat } from './parse';
import { loadSpecSource, SourceTextMissing, type SpecSourceLimits, type SpecSourceRef } from './source';
import { toGitbookFilesystem } from './filesystem';
import { versionFilesystemKey, versionListKey, versionRawKey } from './storage';
import type { SpecOutline, SpecProcessingError } from './types';

/**
 * Processing a spec's source in the background (jobs/openapi-process): the state machine behind its
 * `processingState`, which tells the truth at every step.
 *
 * 1. The message works only while the spec names it as its `processing_job` (a create, an update or the
 *    cron's refresh named it): a spec gone, updated since (a newer job), or already processed by this
 *    message (a redelivery: the job was cleared) is left alone. Claiming it, moving it to `progress`,
 *    setting `queued_at` to now (the cron sends a job again only once that is 15 minutes old) and counting
 *    the claim in `processing_attempts` are one conditioned statement.
 * 2. A claim that finds MAX_PROCESSING_CLAIMS claims of the job already counted does not process: those
 *    claims never ended, their isolate killed by the Worker's CPU or memory limit (no catch block runs
 *    then), so the job is recorded as failed (PARSE_ERROR: the document could not be processed within the
 *    Worker's limits), its job cleared, its last version kept, in the same batch as the claim. A claim that
 *    ends in a failure of ours gives its count back (step 6); a new job starts at 0.
 * 3. The source is read (services/openapi/source: which also bounds the documents' depth and references),
 *    parsed and validated (services/openapi/parse) and outlined (services/openapi/outline). The version's
 *    identity (`versionHash`) is the SHA-256 of what it is made of: the bundle `{ [filename]: document }` (its
 *    JSON), the entry file's raw bytes and the source URL. The same document written differently (JSON
 *    instead of YAML, another layout) or fetched from another URL is a new version, so that the raw text
 *    and the URL readers get are the latest; the same source again (a redelivery, a refresh of an unchanged
 *    URL) hashes the same.
 * 4. Same hash as the latest version: no version is added; the spec is `complete`, errors cleared.
 *    Otherwise the bundle (filesystem JSON, and as GitBook's filesystem list: services/openapi/filesystem) and
 *    the entry's raw text go to R2 under a new version id, then
 *    one D1 batch inserts the version and updates the spec (`last_version_id`, `complete`, errors cleared),
 *    both conditioned on the spec still naming this job; when they did not apply, the objects are removed.
 *    A redelivered message finds its job cleared (step 1): a version is added once.
 * 5. A failure of the source (FETCH_TIMEOUT, FETCH_ERROR, PARSE_ERROR) is recorded: `complete`, the code,
 *    the errors (at most 20, and their count), `last_processed_at`; the last version stays the spec's. A
 *    RangeError while the source is prepared (a runtime limit: a stack or an allocation) is the document's
 *    PARSE_ERROR. A text source missing from R2 while the spec no longer names the job (an update replaced
 *    and removed it meanwhile) is `skipped`.
 * 6. A failure of ours (D1, R2, a bug) throws, so the queue retries the message with backoff. Until its last
 *    attempt the spec goes back to `pending` (it is queued again), with `queued_at` refreshed so the cron
 *    does not send the job a second time meanwhile, and its claim given back. At the last attempt
 *    (MAX_PROCESS_ATTEMPTS) it is recorded as `complete` with the code INTERNAL_ERROR and a message saying
 *    so, its job cleared (the message then goes to the dead-letter queue): a URL spec is refreshed by the
 *    cron after 24 hours, any spec by its next update. Both writes are best effort: when D1 itself is what
 *    fails, the spec keeps the state it had (its claim counted), and the cron sends its job again after 15
 *    minutes (jobs/cron: requeueSpecJobs).
 *
 * D1: one round trip to claim (with the latest version's hash), one for the final write; a missing text
 * source costs one more read.
 */

/** The queue consumer's `max_retries` (wrangler.toml) is 5: a message is delivered at most 6 times. */
export const MAX_PROCESS_ATTEMPTS = 6;

/** Stored as `last_process_error_code` when our own failures outlasted every attempt (not one of the API's codes). */
export const INTERNAL_ERROR = 'INTERNAL_ERROR';

/**
 * Claims of one job that may end without a word (their isolate killed by the CPU or memory limit) before
 * the next claim records the job as failed instead of trying again.
 */
export const MAX_PROCESSING_CLAIMS = 3;

/** The message recorded when MAX_PROCESSING_CLAIMS claims of a job were cut short. */
export const PROCESSING_LIMITS_MESSAGE = `The document could not be processed within the Worker's limits (it is too large or too complex): ${MAX_PROCESSING_CLAIMS} attempts at it were cut short. Its last version, if any, is kept; it is processed again when it is updated (and, for a URL, at its daily refresh).`;

export type ProcessOutcome =
  /** Nothing done: the spec is gone or does not name this job (superseded, or already processed). */
  | 'skipped'
  /** Processed; the content is the latest version's, so no version was added. */
  | 'unchanged'
  /** Processed into a new version. */
  | 'created'
  /** The source failed (fetch or parse); recorded on the spec. */
  | 'failed';

export interface ProcessOptions {
  /** This delivery's number (1 on the first); at MAX_PROCESS_ATTEMPTS a failure of ours is recorded. */
  attempts?: number;
  /** Limits of the source's fetches (services/openapi/source: SPEC_SOURCE_LIMITS by default). */
  limits?: SpecSourceLimits;
}

interface PreparedVersion {
  url: string | null;
  entry: string;
  format: SpecFormat;
  raw: Uint8Array;
  /** The bundle `{ [filename]: document }`, as JSON. */
  bundle: string;
  /** GitBook's filesystem list (services/openapi/filesystem), as JSON. */
  filesystem: string;
  outline: SpecOutline;
  hash: string;
}

/** The spec, while it names this job. */
const ownedBy = (specId: string, jobId: string) => and(eq(openapiSpecs.id, specId), eq(openapiSpecs.processingJob, jobId));

/** Processes spec `specId` for the message `jobId` (see the top of this file). */
export async function processSpec(env: Env, specId: string, jobId: string, options: ProcessOptions = {}): Promise<ProcessOutcome> {
  const db = createDb(env.DB);
  const now = nowIso();
  const [exhausted, claimed, latest] = await db.batch([
    // First: once it applies, the job is cleared and the claim below does not.
    db
      .update(openapiSpecs)
      .set(failed(now, 'PARSE_ERROR', { errors: [{ message: PROCESSING_LIMITS_MESSAGE, code: 'PARSE_ERROR' }], count: 1 }))
      .where(and(ownedBy(specId, jobId), gte(openapiSpecs.processingAttempts, MAX_PROCESSING_CLAIMS)))
      .returning({ id: openapiSpecs.id }),
    db
      .update(openapiSpecs)
      .set({ processingState: 'progress', queuedAt: now, processingAttempts: sql`${openapiSpecs.processingAttempts} + 1` })
      .where(ownedBy(specId, jobId))
      .returning({ sourceUrl: openapiSpecs.sourceUrl, sourceTextKey: openapiSpecs.sourceTextKey }),
    db
      .select({ hash: openapiSpecVersions.hash })
      .from(openapiSpecVersions)
      .where(eq(openapiSpecVersions.id, sql`(select s.last_version_id from openapi_specs s where s.id = ${specId})`))
      .limit(1),
  ]);
  if (exhausted.length > 0) {
    console.error(`openapi spec ${specId}: ${jobId} was cut short ${MAX_PROCESSING_CLAIMS} times (the Worker's limits); recorded as failed`);
    return 'failed';
  }
  if (claimed.length === 0) return 'skipped';
  try {
    let prepared: PreparedVersion;
    try {
      prepared = await prepareVersion(env, claimed[0], options.limits);
    } catch (error) {
      if (error instanceof SourceTextMissing && !(await namesJob(db, specId, jobId))) return 'skipped';
      const failure = asFailure(error);
      if (!failure) throw error;
      await recordFailure(db, specId, jobId, failure.code, storedErrors(failure));
      return 'failed';
    }
    if (prepared.hash === latest[0]?.hash) {
      const done = await db.update(openapiSpecs).set(completed(nowIso())).where(ownedBy(specId, jobId)).returning({ id: openapiSpecs.id });
      return done.length > 0 ? 'unchanged' : 'skipped';
    }
    return await storeVersion(env, db, specId, jobId, prepared);
  } catch (error) {
    await recordInterruption(db, specId, jobId, options.attempts ?? 1, error).catch((writeError) =>
      console.error(`openapi spec ${specId}: the state after a failed attempt of ${jobId} could not be written`, writeError),
    );
    throw error;
  }
}

/** Whether the spec still names the job (after the claim: only on the rare paths that need to know). */
async function namesJob(db: Db, specId: string, jobId: string): Promise<boolean> {
  const rows = await db.select({ id: openapiSpecs.id }).from(openapiSpecs).where(ownedBy(specId, jobId)).limit(1);
  return rows.length > 0;
}

/**
 * A version's identity: the SHA-256 of what it is made of, together: the bundle (`{ [filename]: document }`
 * as JSON, the documents in their own key order), the entry file's raw bytes, and the source URL (null for a
 * text source). What is stored is derived from these (the filesystem list, its descriptions' HTML), so how
 * it is derived can change without making every unchanged source a new version.
 */
export async function versionHash(bundle: string, raw: Uint8Array, url: string | null): Promise<string> {
  return sha256Hex(JSON.stringify([await sha256Hex(bundle), await sha256Hex(raw), url]));
}

async function prepareVersion(env: Env, spec: SpecSourceRef, limits?: SpecSourceLimits): Promise<PreparedVersion> {
  const source = await loadSpecSource(env, spec, limits);
  const validated = await validateSpec(source.files, source.entry);
  // The documents keep their own key order (what readers show).
  const bundle = JSON.stringify(source.files);
  return {
    url: source.url,
    entry: source.entry,
    format: source.format,
    raw: source.raw,
    bundle,
    filesystem: JSON.stringify(toGitbookFilesystem(source.files, source.entry)),
    outline: buildOutline(validated.resolved),
    hash: await versionHash(bundle, source.raw, source.url),
  };
}

/** A source failure as recorded, or null for a failure of ours. */
function asFailure(error: unknown): SpecProcessingFailure | null {
  if (error instanceof SpecProcessingFailure) return error;
  // The source's fetches map the guard's errors themselves; this keeps any other path honest.
  if (error instanceof OutboundError) return new SpecProcessingFailure(error.reason === 'timeout' ? 'FETCH_TIMEOUT' : 'FETCH_ERROR', [error.message]);
  // A runtime limit met by the document (the stack, an allocation): retrying would meet it again.
  if (error instanceof RangeError) {
    return new SpecProcessingFailure('PARSE_ERROR', [`The document could not be processed (too deeply nested or too large for the Worker): ${error.message}`]);
  }
  return null;
}

/** The columns of a successful processing: `complete`, errors cleared, the job done. */
const completed = (now: string) =>
  ({
    processingState: 'complete',
    processingJob: null,
    lastProcessedAt: now,
    lastProcessErrorCode: null,
    lastProcessedErrors: null,
    lastProcessedErrorCount: 0,
  }) as const;

async function storeVersion(env: Env, db: Db, specId: string, jobId: string, version: PreparedVersion): Promise<ProcessOutcome> {
  const versionId = newId();
  const now = nowIso();
  const keys = [versionFilesystemKey(specId, versionId), versionListKey(specId, versionId), versionRawKey(specId, versionId)];
  try {
    await Promise.all([
      env.FILES.put(keys[0], version.bundle, { httpMetadata: { contentType: 'application/json' } }),
      env.FILES.put(keys[1], version.filesystem, { httpMetadata: { contentType: 'application/json' } }),
      env.FILES.put(keys[2], version.raw, { httpMetadata: { contentType: version.format === 'json' ? 'application/json' : 'application/yaml' } }),
    ]);
    const [, updated] = await db.batch([
      rawRun(
        db,
        sql`insert into openapi_spec_versions (id, spec_id, hash, url, format, entry, outline, created_at)
            select ${versionId}, ${specId}, ${version.hash}, ${version.url}, ${version.format}, ${version.entry}, ${JSON.stringify(version.outline)}, ${now}
            where exists (select 1 from openapi_specs where id = ${specId} and processing_job = ${jobId})`,
      ),
      // Last: it clears the job the insert is conditioned on.
      db
        .update(openapiSpecs)
        .set({ ...completed(now), lastVersionId: versionId, updatedAt: now })
        .where(ownedBy(specId, jobId))
        .returning({ id: openapiSpecs.id }),
    ]);
    if (updated.length > 0) return 'created';
  } catch (error) {
    await discard(env, keys);
    throw error;
  }
  // The spec was deleted or given a new source meanwhile: nothing names these objects.
  await discard(env, keys);
  return 'skipped';
}

async function discard(env: Env, keys: string[]): Promise<void> {
  await env.FILES.delete(keys).catch((error) => console.error(`openapi: ${keys.join(', ')} not removed`, error));
}

/** The columns of a recorded failure: `complete`, the code and errors, the job done (the last version stays). */
const failed = (now: string, code: string, stored: { errors: SpecProcessingError[]; count: number }) =>
  ({
    processingState: 'complete',
    processingJob: null,
    lastProcessedAt: now,
    lastProcessErrorCode: code,
    lastProcessedErrors: stored.errors,
    lastProcessedErrorCount: stored.count,
  }) as const;

async function recordFailure(db: Db, specId: string, jobId: string, code: string, stored: { errors: SpecProcessingError[]; count: number }): Promise<void> {
  await db.update(openapiSpecs).set(failed(nowIso(), code, stored)).where(ownedBy(specId, jobId));
}

/** After a failure of ours: queued again (`pending`, the claim given back), or at the last attempt an honest INTERNAL_ERROR. */
async function recordInterruption(db: Db, specId: string, jobId: string, attempts: number, error: unknown): Promise<void> {
  if (attempts < MAX_PROCESS_ATTEMPTS) {
    await db
      .update(openapiSpecs)
      .set({ processingState: 'pending', queuedAt: nowIso(), processingAttempts: sql`max(${openapiSpecs.processingAttempts} - 1, 0)` })
      .where(ownedBy(specId, jobId));
    return;
  }
  console.error(`openapi spec ${specId}: ${jobId} failed at its last attempt`, error);
  const message = `The spec could not be processed because of an internal error, at each of ${MAX_PROCESS_ATTEMPTS} attempts; its last version, if any, is kept. It is processed again when it is updated (and, for a URL, at its daily refresh).`;
  await recordFailure(db, specId, jobId, INTERNAL_ERROR, { errors: [{ message, code: INTERNAL_ERROR }], count: 1 });
}
