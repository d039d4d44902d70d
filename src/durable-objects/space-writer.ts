import { DurableObject } from 'cloudflare:workers';
import { bookmarkOf, createDb, laterBookmark, openSession } from '../db/client';
import type { Env } from '../env';
import { ApiError } from '../lib/errors';
import type { ContentChange } from '../services/content/batch';
import type { CatchUpResult } from '../services/indexing/catch-up';
import type { ChangeRequestTarget, ContentBatchOutput, HeadMoveOutput, MergeOutput } from '../services/content/head-moves';
import type { MainEditOutput, MainTarget } from '../services/content/main-edits';
import type { ChangeRequestWithContext } from '../services/content/change-requests';
import type { AssembleOutput, TranslationTarget } from '../services/translations/run';
import type { GitImportOutput, GitImportTarget } from '../services/git-sync/apply';
import type { CollectionLimits, HistoryCollection } from '../services/content/history';
import type { gitSyncEntries } from '../db/schema/index';
import { recordingClient, type AuditEventDraft } from '../services/audit/recorder';

const work = () => import('./space-writer-work');

/**
 * What crosses the RPC boundary: a value, or the API error to answer with (classes do not survive RPC), with the
 * bookmark of the D1 state the writer left (null where the runtime has no sessions): the request that called it
 * answers it, so its client reads what was written (middleware/context).
 */
export type WriterResult<T> = ({ ok: true; value: T } | { ok: false; status: number; message: string }) & { bookmark?: string | null };

/**
 * One instance per space (idFromName(spaceId)). Everything that moves a space's or change request's
 * head goes through it. D1 calls are not Durable Object storage, so the input gate does not hold
 * other requests while they wait: an explicit queue runs one head move at a time, each reading the
 * heads it builds on. Every write is also a compare-and-set on D1, which no other writer can slip past.
 */
export class SpaceWriter extends DurableObject<Env> {
  private tail: Promise<unknown> = Promise.resolve();

  /**
   * Runs `work` after every head move queued before it, on a D1 session of its own that starts on the primary (a
   * head move reads the heads it builds on, which a replica may not have yet). With `audit`, the request's audit event
   * is recorded in the first batch of the work that changes a row (services/audit/recorder), as the request would have.
   */
  private serialize<T>(work: (env: Env) => Promise<T>, audit?: AuditEventDraft): Promise<WriterResult<T>> {
    const run = this.tail.then(async (): Promise<WriterResult<T>> => {
      const session = openSession(this.env.DB, { write: true });
      const client = audit ? recordingClient(session, { draft: audit, inFlight: false }) : session;
      const env: Env = { ...this.env, DB: client as D1Database };
      try {
        return { ok: true, value: await work(env), bookmark: bookmarkOf(session) };
      } catch (error) {
        if (error instanceof ApiError) return { ok: false, status: error.status, message: error.message, bookmark: bookmarkOf(session) };
        throw error;
      }
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  applyContent(target: ChangeRequestTarget, changes: ContentChange[], audit?: AuditEventDraft): Promise<WriterResult<ContentBatchOutput>> {
    return this.serialize(async (env) => (await work()).applyChangeRequestContent(env, target, changes), audit);
  }

  /** A merge moves the indexes in its own batch; one that changed too many pages for that catches them up after. */
  merge(target: ChangeRequestTarget, audit?: AuditEventDraft): Promise<WriterResult<MergeOutput>> {
    return this.serialize(async (env) => {
      const merged = await (await work()).mergeChangeRequest(env, target);
      if (!merged.indexed) await this.catchUpIndexes(env, target.spaceId);
      return merged;
    }, audit);
  }

  /** Brings the space's search and link indexes up to its main content (a duplicate, the cron's safety net). */
  reindex(spaceId: string): Promise<WriterResult<CatchUpResult | null>> {
    return this.serialize(async (env) => (await work()).catchUpIndexes(createDb(env.DB), spaceId));
  }

  /**
   * After main moved: the move itself has succeeded, so a failure here is logged, not answered; the
   * indexes stay at their last revision until the next move or the hourly cron catches them up.
   */
  private async catchUpIndexes(env: Env, spaceId: string): Promise<void> {
    try {
      await (await work()).catchUpIndexes(createDb(env.DB), spaceId);
    } catch (error) {
      console.error(`space ${spaceId}: indexes not caught up`, error);
    }
  }

  update(target: ChangeRequestTarget, audit?: AuditEventDraft): Promise<WriterResult<HeadMoveOutput>> {
    return this.serialize(async (env) => (await work()).updateChangeRequest(env, target), audit);
  }

  /** A content batch on the space's main content (a template applied without a change request): main moves. */
  applyToMain(target: MainTarget, changes: ContentChange[], audit?: AuditEventDraft): Promise<WriterResult<MainEditOutput>> {
    return this.serialize(async (env) => {
      const applied = await (await work()).applyMainContent(env, target, changes);
      await this.catchUpIndexes(env, target.spaceId);
      return applied;
    }, audit);
  }

  /** Writes a translation run's result revision onto this (its result) space's main content, and completes the run (services/translations/run). */
  applyTranslation(target: TranslationTarget): Promise<WriterResult<AssembleOutput>> {
    return this.serialize(async (env) => {
      const assembled = await (await work()).assembleTranslation(env, target);
      if (assembled.revision) await this.catchUpIndexes(env, target.resultSpaceId);
      return assembled;
    });
  }

  /**
   * Git Sync's import (services/git-sync/apply): one revision made from a repository; main moves unless it is standalone.
   * Its slices before the last (a large import: continueGitImport) come first, each a call of its own; the indexes are
   * caught up by the caller's `reindex`, a call of its own too: each call's CPU is bounded (a Durable Object's request has
   * 30 s of CPU by default).
   */
  applyGitImport(target: GitImportTarget): Promise<WriterResult<GitImportOutput>> {
    return this.serialize(async (env) => (await work()).applyGitImport(env, target));
  }

  /** A slice of a large Git Sync import, before its last (services/git-sync/apply GitImportProgress): nothing moves. */
  continueGitImport(target: GitImportTarget): Promise<WriterResult<{ next: number }>> {
    return this.serialize(async (env) => (await work()).continueGitImport(env, target));
  }

  /** Git Sync's export, once pushed: the revision's commit and the paths the sync leaves, in turn with the space's other writes. */
  recordGitExport(target: {
    spaceId: string;
    revisionId: string;
    rows?: Array<typeof gitSyncEntries.$inferInsert>;
    pathPrefix?: string;
    git: GitImportTarget['git'];
  }): Promise<WriterResult<{ revision: string | null }>> {
    return this.serialize(async (env) => {
      const recorded = await (await work()).recordGitExport(env, target);
      if (recorded.revision) await this.catchUpIndexes(env, target.spaceId);
      return recorded;
    });
  }

  /**
   * Collects the space's history as of `now` (services/content/history), between its head moves: no write of the
   * space is in flight while it decides which documents its revisions still reach.
   */
  collectHistory(spaceId: string, now: number, limits?: CollectionLimits): Promise<WriterResult<HistoryCollection>> {
    return this.serialize(async (env) => {
      const db = createDb(env.DB);
      // A Git Sync import applied in several calls has stored documents and nodes no revision names yet: left to a later run.
      if (await (await work()).importInProgress(db, spaceId)) return { revisions: 0, references: 0, documents: 0, pending: true };
      return (await work()).collectSpaceHistory(db, spaceId, now, limits);
    });
  }

  /** Opens a change request with a content batch already applied on main's head (createChangeRequest with a template). */
  createChangeRequest(
    target: MainTarget & { subject: string },
    changes: ContentChange[],
    audit?: AuditEventDraft,
  ): Promise<WriterResult<ChangeRequestWithContext>> {
    return this.serialize(async (env) => (await work()).createChangeRequestOnMain(env, target, changes), audit);
  }
}

/** Durable Objects' location hints (Cloudflare's list). */
const LOCATION_HINTS = new Set(['wnam', 'enam', 'sam', 'weur', 'eeur', 'apac', 'oc', 'afr', 'me']);

/**
 * Where a space's writer is created: the configured hint (SPACE_WRITER_LOCATION_HINT, near the D1 primary: every
 * head move is a few round trips from the writer to D1), or none. A value that is no hint is left out, not sent:
 * the runtime would refuse every write over a typo in the configuration.
 */
export function writerLocationHint(env: Pick<Env, 'SPACE_WRITER_LOCATION_HINT'>): DurableObjectLocationHint | undefined {
  const hint = env.SPACE_WRITER_LOCATION_HINT?.trim().toLowerCase();
  return hint && LOCATION_HINTS.has(hint) ? (hint as DurableObjectLocationHint) : undefined;
}

export function spaceWriter(env: Env, spaceId: string) {
  const locationHint = writerLocationHint(env);
  return env.SPACE_WRITER.get(env.SPACE_WRITER.idFromName(spaceId), locationHint ? { locationHint } : undefined);
}

/** Where a request keeps the writer's bookmark for its answer (a Hono context: middleware/context sends it). */
interface BookmarkSink {
  get(key: 'writerBookmark'): string | undefined;
  set(key: 'writerBookmark', value: string): void;
}

/**
 * Runs a head move in the space's writer and turns a refusal back into the API error. With `request`, the request
 * answers the writer's bookmark (the newest it was given), so its client reads what the writer wrote.
 */
export async function throughWriter<T>(call: Promise<WriterResult<T>>, request?: BookmarkSink): Promise<T> {
  const result = await call;
  const newest = request && laterBookmark(request.get('writerBookmark'), result.bookmark);
  if (newest) request.set('writerBookmark', newest);
  if (!result.ok) throw new ApiError(result.status as ApiError['status'], result.message);
  return result.value;
}

/**
 * Catches a space's indexes up after the response (a duplicated space is indexed whole, which may take
 * a while); what fails here is caught up by the hourly cron.
 */
export function reindexInBackground(env: Env, ctx: { waitUntil(promise: Promise<unknown>): void }, spaceId: string): void {
  const work = spaceWriter(env, spaceId)
    .reindex(spaceId)
    .catch((error: unknown) => console.error(`space ${spaceId}: indexes not caught up`, error));
  ctx.waitUntil(work);
}
