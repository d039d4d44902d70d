import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { rawRun, runBatch, type Db } from '../../db/client';
import { translationPages, translationRuns, translationSegments } from '../../db/schema/translations';
import type { Env } from '../../env';
import { randomBase62, sha256Hex } from '../../lib/ids';
import { nowIso } from '../../lib/time';
import type { JSONDocument } from '../markdown';
import { ContentTree } from '../content/pages';
import { d1NodeStore } from '../content/tree';
import { asDelta, insertDocuments, loadDeltaBases, loadDocuments, toStoredDocument, type StoredDocument } from '../content/revisions';
import { countWords, rewriteSpaceRefs, segmentDocument, segmentFields, type Segmented } from './segments';
import { translationRunMessage } from './jobs';
import type { Translator } from './translator';
import {
  CLAIM_LEASE_MS,
  failRun,
  MAX_PAGES_PER_CHUNK,
  MAX_RUN_DELIVERIES,
  MAX_SEGMENTS_PER_CHUNK,
  PagesClaimedElsewhere,
  pendingCount,
  runPagesSql,
  runWordsSql,
  type RunOptions,
  type RunOutcome,
  type RunState,
} from './state';

/** Step 2 of a translation run (services/translations/run.ts): the chunks. */

interface ClaimedPage {
  pageId: string;
  pendingKey: string | null;
  /** The document its last translation stored (its new one is stored as a delta of it where smaller). */
  documentHash: string | null;
}

/** Claims up to MAX_PAGES_PER_CHUNK pending pages of the run not held by a live claim. */
async function claimPages(db: Db, translationId: string, runId: string, stamp: string, cutoff: string): Promise<ClaimedPage[]> {
  const claimable = and(
    eq(translationPages.translationId, translationId),
    eq(translationPages.pendingRun, runId),
    or(isNull(translationPages.claimedAt), lt(translationPages.claimedAt, cutoff)),
  );
  const ids = db.select({ id: translationPages.pageId }).from(translationPages).where(claimable).orderBy(translationPages.pageId).limit(MAX_PAGES_PER_CHUNK);
  return db
    .update(translationPages)
    .set({ claimedAt: stamp })
    .where(and(claimable, inArray(translationPages.pageId, ids)))
    .returning({ pageId: translationPages.pageId, pendingKey: translationPages.pendingKey, documentHash: translationPages.documentHash });
}

/** A page ready to translate: the segments of its fields and document, written into copies. */
interface PageWork {
  pageId: string;
  pendingKey: string | null;
  previousDocument: string | null;
  fields: { title: string; description?: string };
  fieldSegments: Segmented;
  document?: { copy: JSONDocument; segments: Segmented };
}

async function pageWork(db: Db, state: RunState, claimed: ClaimedPage[]): Promise<PageWork[]> {
  const revision = state.runRevision;
  if (!revision) throw new Error(`translation run ${state.run.id}: its source revision is missing`);
  const tree = new ContentTree(d1NodeStore(db), { pages: revision.pagesRoot, files: revision.filesRoot });
  const records = await tree.pagesById(claimed.map((c) => c.pageId));
  const hashes = [...records.values()].map((r) => r.document).filter((h): h is string => !!h);
  const documents = await loadDocuments(db, hashes);
  return claimed.map(({ pageId, pendingKey, documentHash }) => {
    const record = records.get(pageId);
    const fields = { title: record?.title ?? '', ...(record?.description !== undefined ? { description: record.description } : {}) };
    const document = record?.document ? documents.get(record.document) : undefined;
    return { pageId, pendingKey, previousDocument: documentHash, fields, fieldSegments: segmentFields(fields), ...(document ? { document: segmentDocument(document) } : {}) };
  });
}

/** Where the unique texts of a page stand: translated already (the cache), or still to send. */
interface PageTexts {
  work: PageWork;
  /** The page's texts, in segment order (fields, then document). */
  texts: string[];
  /** The hash of each unique text. */
  hashes: Map<string, string>;
}

function textsOf(work: PageWork): string[] {
  return [...work.fieldSegments.texts, ...(work.document?.segments.texts ?? [])];
}

/** A cached translation: the translated text, and the run that sent its source. */
interface Cached {
  translated: string;
  runId: string;
}

/** The cached translations of `hashes` (json_each: one bound string whatever their number). */
async function cachedSegments(db: Db, translationId: string, hashes: string[]): Promise<Map<string, Cached>> {
  if (hashes.length === 0) return new Map();
  const rows = await db
    .select({ hash: translationSegments.hash, translated: translationSegments.translated, runId: translationSegments.runId })
    .from(translationSegments)
    .where(and(eq(translationSegments.translationId, translationId), sql`${translationSegments.hash} in (select value from json_each(${JSON.stringify(hashes)}))`));
  return new Map(rows.map((r) => [r.hash, { translated: r.translated, runId: r.runId }]));
}

/**
 * What this message sends: in claim order, the pages' texts not cached yet, at most MAX_SEGMENTS_PER_CHUNK
 * (a text appearing twice is sent once). A page whose texts are all cached or sent is `complete`; the page
 * that runs out of budget sends what fits (`partial`: it stays pending, its translated texts cached for the
 * next message); the pages after it are not worked on (their claims are given back).
 */
export function planSends(pages: Array<{ texts: string[]; hashes: Map<string, string> }>, cached: ReadonlySet<string>, budget = MAX_SEGMENTS_PER_CHUNK) {
  const send: string[] = [];
  const sending = new Set<string>();
  let complete = 0;
  for (const page of pages) {
    let fits = true;
    for (const text of page.texts) {
      const hash = page.hashes.get(text) as string;
      if (cached.has(hash) || sending.has(hash)) continue;
      if (send.length >= budget) {
        fits = false;
        break;
      }
      sending.add(hash);
      send.push(text);
    }
    if (!fits) break;
    complete++;
  }
  return { send, complete };
}

/** The instructions as plain text (for translators that take them). */
function instructionsText(instructions: Record<string, unknown>): string | undefined {
  try {
    const text = segmentDocument(instructions as unknown as JSONDocument).segments.texts.join('\n');
    return text || undefined;
  } catch {
    return undefined;
  }
}

/** Gives back this message's claims on pages it did not write. */
function releaseClaims(db: Db, translationId: string, stamp: string) {
  return db
    .update(translationPages)
    .set({ claimedAt: null })
    .where(and(eq(translationPages.translationId, translationId), eq(translationPages.claimedAt, stamp)));
}

/** A page this message completes: its translated copies filled in, and the words its run sent for it. */
interface PageResult {
  work: PageWork;
  words: number;
}

/**
 * Stores the segments this message translated, writes the pages it completed (guarded on this message's
 * claim), gives back the other claims (a partial page stays pending), and refreshes the run's progress. One batch.
 */
async function writeChunk(db: Db, state: RunState, segments: Array<{ hash: string; translated: string; words: number }>, pages: PageResult[], stamp: string): Promise<void> {
  const { translation, run } = state;
  const sourceId = translation.sourceSpaceId;
  const resultId = translation.resultSpaceId;
  const now = nowIso();
  const stored = await asDeltasOfPrevious(
    db,
    await Promise.all(
      pages.map(async ({ work }) => {
        if (!work.document) return null;
        rewriteSpaceRefs(work.document.copy.nodes, sourceId, resultId);
        return toStoredDocument(work.document.copy);
      }),
    ),
    pages.map(({ work }) => work.previousDocument),
  );
  const pageWrites = pages.map(({ work, words }, i) =>
    db
      .update(translationPages)
      .set({
        sourceKey: work.pendingKey,
        title: work.fields.title,
        description: work.fields.description ?? null,
        documentHash: stored[i]?.hash ?? null,
        words,
        translatedRun: run.id,
        translatedAt: now,
        pendingRun: null,
        pendingKey: null,
        claimedAt: null,
      })
      .where(
        and(
          eq(translationPages.translationId, translation.id),
          eq(translationPages.pageId, work.pageId),
          eq(translationPages.pendingRun, run.id),
          eq(translationPages.claimedAt, stamp),
        ),
      ),
  );
  const segmentRows = segments.map((s) => [s.hash, s.translated, s.words]);
  await runBatch(db, [
    ...(segmentRows.length
      ? [
          rawRun(
            db,
            sql`insert into translation_segments (translation_id, hash, translated, words, run_id, created_at)
              select ${translation.id}, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), ${run.id}, ${now}
              from json_each(${JSON.stringify(segmentRows)}) where exists (select 1 from translation_pages p where p.translation_id = ${translation.id} and p.claimed_at = ${stamp})
              on conflict (translation_id, hash) do nothing`,
          ),
        ]
      : []),
    ...insertDocuments(db, resultId, stored.filter((d): d is StoredDocument => d !== null), now),
    ...pageWrites,
    releaseClaims(db, translation.id, stamp),
    db
      .update(translationRuns)
      .set({ pagesDone: runPagesSql(translation.id, run.id), words: runWordsSql(translation.id, run.id), touchedAt: now })
      .where(eq(translationRuns.id, run.id)),
  ]);
}

/**
 * A re-translated page's document as a delta of the document its last translation stored, as a content edit stores an
 * edited page's (content/document-deltas; the bases read in one statement): re-translating a page whose source changed
 * a little stores about what changed, not the whole page. insertDocuments keeps the tenancy rule (a delta only onto a
 * base still stored whole; a document another space stored as a delta of a base this space does not refer to is made whole).
 */
async function asDeltasOfPrevious(db: Db, stored: Array<StoredDocument | null>, previous: Array<string | null>): Promise<Array<StoredDocument | null>> {
  const wanted = [...new Set(previous.filter((hash, i): hash is string => !!hash && !!stored[i] && stored[i]!.hash !== hash))];
  if (wanted.length === 0) return stored;
  const bases = await loadDeltaBases(db, wanted);
  return stored.map((document, i) => (document && previous[i] ? asDelta(document, bases.get(previous[i]!)) : document));
}

/** One chunk (step 2): 'translated' when pages were written (the next message is enqueued), 'completed' when none were left. */
export async function translateChunk(env: Env, db: Db, state: RunState, translator: Translator, options: RunOptions): Promise<RunOutcome> {
  const { translation, run } = state;
  const now = Date.now();
  const stamp = `${new Date(now).toISOString()}#${randomBase62(8)}`;
  const claimed = await claimPages(db, translation.id, run.id, stamp, new Date(now - CLAIM_LEASE_MS).toISOString());
  if (claimed.length === 0) {
    if ((await pendingCount(db, translation.id, run.id)) > 0) {
      throw new PagesClaimedElsewhere(`translation run ${run.id}: its remaining pages are claimed by another delivery`);
    }
    await options.assemble({ translationId: translation.id, runId: run.id, resultSpaceId: translation.resultSpaceId });
    return 'completed';
  }
  let step = 'reading the source pages';
  let segments: Array<{ hash: string; translated: string; words: number }>;
  let results: PageResult[];
  try {
    const works = await pageWork(db, state, claimed);
    const pages: PageTexts[] = await Promise.all(
      works.map(async (work) => {
        const texts = textsOf(work);
        const unique = [...new Set(texts)];
        const hashes = new Map(await Promise.all(unique.map(async (t) => [t, await sha256Hex(t)] as const)));
        return { work, texts, hashes };
      }),
    );
    const cache = await cachedSegments(db, translation.id, [...new Set(pages.flatMap((p) => [...p.hashes.values()]))]);
    const { send, complete } = planSends(pages, new Set(cache.keys()));
    step = 'the translator';
    const translated = send.length
      ? await translator.translate(send, { source: translation.sourceLanguage, target: translation.language, instructions: instructionsText(translation.instructions) })
      : [];
    if (translated.length !== send.length) throw new Error(`the translator answered ${translated.length} texts for ${send.length}`);
    step = 'reading the source pages';
    const hashOf = new Map(pages.flatMap((p) => [...p.hashes]));
    segments = send.map((text, i) => ({ hash: hashOf.get(text) as string, translated: translated[i], words: countWords([text]) }));
    const known: Map<string, Cached> = new Map(cache);
    for (const s of segments) known.set(s.hash, { translated: s.translated, runId: run.id });
    results = pages.slice(0, complete).map(({ work, hashes }) => {
      const lookup = (text: string) => (known.get(hashes.get(text) as string) as Cached).translated;
      work.fieldSegments.apply(work.fieldSegments.texts.map(lookup));
      if (work.document) work.document.segments.apply(work.document.segments.texts.map(lookup));
      // The words this run sent for the page (each of its texts once), whichever message sent them.
      const words = countWords([...hashes].filter(([, hash]) => known.get(hash)?.runId === run.id).map(([text]) => text));
      return { work, words };
    });
  } catch (error) {
    await releaseClaims(db, translation.id, stamp).catch((e: unknown) => console.error(`translation run ${run.id}: claims not given back (they expire)`, e));
    // Until the message's last delivery the queue retries it; then the run ends, saying what failed.
    if (options.attempts < MAX_RUN_DELIVERIES) throw error;
    const message = error instanceof Error ? error.message : String(error);
    await failRun(db, translation.id, run.id, `The run failed in ${step}: ${message.slice(0, 500)}`);
    return 'failed';
  }
  try {
    await writeChunk(db, state, segments, results, stamp);
  } catch (error) {
    // Nothing was written (a batch is one transaction): the pages go back to the pool for the retry.
    await releaseClaims(db, translation.id, stamp).catch(() => undefined);
    throw error;
  }
  await (options.enqueue ?? (() => env.JOBS.send(translationRunMessage(translation.id, run.id))))();
  return 'translated';
}
