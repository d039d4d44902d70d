import { sql, type SQL } from 'drizzle-orm';
import { isChunkMemberSql, midsOfMemberSql } from './tree';
import { changedRows, rawAll, rawRun, rowsOf, runBatch, type Db } from '../../db/client';
import { DAY_MS } from '../../lib/time';

/**
 * History collection (issue 42, storage; the policy is DESIGN.md's "History"). A space's revisions are kept while
 * anything can still ask for them, and for 30 days after they were made or stopped being a head; the others are
 * deleted, then the tree nodes and documents that no remaining revision of the space refers to, unless another space
 * refers to them too (documents are shared by content hash). It runs in the space's writer (one space at a time,
 * between that space's head moves), called by the cron, in bounded steps: a step deletes at most `revisions`
 * revisions, then at most `documents` document references in statements of `chunk`; what is left waits for the next run.
 */

export const HISTORY_RETENTION_DAYS = 30;

export interface CollectionLimits {
  /** Revisions deleted by one collection at most. */
  revisions: number;
  /** Document references (and the documents no other space refers to) swept by one collection at most. */
  documents: number;
  /** Documents per delete statement (each its own transaction, so that none holds the database long). */
  chunk: number;
}

export const COLLECTION_LIMITS: CollectionLimits = { revisions: 500, documents: 2000, chunk: 200 };

export interface HistoryCollection {
  revisions: number;
  /** The space's references to documents dropped, and the documents deleted with them (no other space had them). */
  references: number;
  documents: number;
  /** Whether revisions or documents were left for a later run (a limit was reached). */
  pending: boolean;
}

/** Revisions made before this are collectable (unless something keeps them). */
export const retentionCutoff = (now: number) => new Date(now - HISTORY_RETENTION_DAYS * DAY_MS).toISOString();

/**
 * The ids of the revisions of space `spaceId` that something keeps, as CTEs of rows `(id)` (nulls included): its head and
 * the revision its indexes reflect; every revision a change request names (its head, its start, the main revision last
 * merged into it, the revision its merge made: open, merged or archived, a change request stays readable with its
 * diff); the parents of revisions made since `cutoff` (a head superseded within the window: whatever read it as the
 * head a moment before may still name it); what comments, reviews and review requests were made on; what Git Sync
 * (commits, operations), imports and translations (their source and result revisions) name; and the first parent of
 * each revision something names but the window (what its changes are computed against). Each source is read along an
 * index on the space.
 */
function keptRevisionsSql(spaceId: string, cutoff: string): SQL {
  // D1 allows five terms in a compound select: three lists, each read where the statement asks.
  return sql`kept_heads(id) as (select revision_id from spaces where id = ${spaceId}
      union all select revision_id from space_index_state where space_id = ${spaceId}
      union all select v.value from change_requests cr
        cross join json_each(json_array(cr.revision_id, cr.revision_initial, cr.revision_merged_ancestor, cr.revision_merged)) v
        where cr.space_id = ${spaceId}
      union all select p.value from revisions c cross join json_each(c.parents) p where c.space_id = ${spaceId} and c.created_at >= ${cutoff}
      union all select revision_id from comments where space_id = ${spaceId}),
    kept_reviews(id) as (select v.revision_id from change_request_reviews v join change_requests cr on cr.id = v.change_request_id where cr.space_id = ${spaceId}
      union all select q.revision_id from change_request_review_requests q join change_requests cr on cr.id = q.change_request_id where cr.space_id = ${spaceId}
      union all select revision_id from git_sync_operations where space_id = ${spaceId}
      union all select revision_id from import_runs where space_id = ${spaceId}
      union all select result_revision_id from translations where result_space_id = ${spaceId}),
    kept_sources(id) as (select tr.source_revision_id from translation_runs tr join translations t on t.id = tr.translation_id
        where t.source_space_id = ${spaceId}
      union all select json_extract(r.parents, '$[0]') from revisions r
        where r.space_id = ${spaceId} and (r.id in (select id from kept_heads) or r.id in (select id from kept_reviews)))`;
}

/** Up to `limit` ids of the space's revisions nobody keeps (made before `cutoff`, kept by nothing). */
function collectableRevisionsSql(spaceId: string, cutoff: string, limit: number): SQL {
  return sql`select r.id from revisions r
    where r.space_id = ${spaceId} and r.created_at < ${cutoff}
      and r.id not in (select id from kept_heads where id is not null)
      and r.id not in (select id from kept_reviews where id is not null)
      and r.id not in (select id from kept_sources where id is not null)
      and not exists (select 1 from revision_git g where g.revision_id = r.id)
    limit ${limit}`;
}

/**
 * Deletes up to `limit` collectable revisions of the space in one statement: what keeps a revision is read by the
 * statement that deletes it, so a change request opened on it a moment before keeps it.
 */
function deleteCollectableRevisions(db: Db, spaceId: string, cutoff: string, limit: number) {
  return rawRun(db, sql`with ${keptRevisionsSql(spaceId, cutoff)}
    delete from revisions where id in (${collectableRevisionsSql(spaceId, cutoff, limit)})`);
}

/**
 * Every hash the space's remaining revisions reach, as the CTEs `nodes(hash)`, `named(hash)` and `bases(hash)`: the nodes of their page and file maps (each
 * node walked once however many revisions share it), the chunks of their child lists, the documents their pages and
 * reusable contents name, and the whole documents those of them stored as deltas need (document-deltas: a base is
 * kept while a kept delta reads through it, whether or not a revision names it). Nodes are JSON text; page documents
 * (packed or not) are never given to a JSON function.
 */
function reachableSql(spaceId: string): SQL {
  const body = (hash: SQL) => sql`(select body from documents where hash = ${hash})`;
  return sql`with rv as (select pages_root, files_root, meta from revisions where space_id = ${spaceId}),
    roots(hash) as (select pages_root from rv where pages_root is not null union select files_root from rv where files_root is not null),
    chunks(hash) as (select distinct g.value from roots r cross join json_each(${body(sql`r.hash`)}) g where ${isChunkMemberSql('g')}),
    mids(hash) as (select distinct c.value from roots r cross join json_each(${body(sql`r.hash`)}) g cross join json_each(${midsOfMemberSql('g')}) c),
    leaves(hash) as (select distinct c.value from mids m cross join json_each(${body(sql`m.hash`)}) c),
    entries(value) as (select e.value from leaves l cross join json_each(${body(sql`l.hash`)}) e),
    nodes(hash) as (select hash from roots union select hash from chunks union select hash from mids union select hash from leaves),
    named(hash) as (select json_extract(k.value, '$[0]') from entries cross join json_each(entries.value, '$.chunks') k
      union select json_extract(value, '$.document') from entries
      union select json_extract(rc.value, '$.document') from rv cross join json_each(rv.meta, '$.reusableContents') rc),
    bases(hash) as (select base from (select (select d.base from documents d where d.hash = n.hash) as base from named n) where base is not null)`;
}

/** Up to `limit` hashes the space refers to (space_documents) that none of its remaining revisions reaches. */
async function unreachableHashes(db: Db, spaceId: string, limit: number): Promise<string[]> {
  const rows = rowsOf<{ hash: string }>(
    await rawAll(
      db,
      sql`${reachableSql(spaceId)}
      select sd.hash from space_documents sd
      where sd.space_id = ${spaceId} and sd.hash not in (select hash from nodes where hash is not null)
        and sd.hash not in (select hash from named where hash is not null)
        and sd.hash not in (select hash from bases)
      limit ${limit}`,
    ),
  );
  return rows.map((row) => row.hash);
}

/**
 * Drops the space's references to `hashes` and deletes those of them no space refers to any more, in one transaction.
 * A translation's page waiting for its result revision (translation_pages) keeps its document's reference: the queue
 * consumer writes those outside the writer. Another space that uses a document has its own reference (it inserted it
 * with the document, in the same batch), so a document deleted here is one nobody had; a write that stores it again
 * later stores it whole (`insertDocuments` inserts what it references).
 */
async function sweepDocuments(db: Db, spaceId: string, hashes: string[]): Promise<{ references: number; documents: number }> {
  const list = JSON.stringify(hashes);
  const results = await runBatch(db, [
    rawRun(db, sql`delete from space_documents where space_id = ${spaceId} and hash in (select value from json_each(${list}))
      and not exists (select 1 from translation_pages tp join translations t on t.id = tp.translation_id
        where t.result_space_id = ${spaceId} and tp.document_hash = space_documents.hash)`),
    rawRun(db, sql`delete from documents where hash in (select value from json_each(${list}))
      and not exists (select 1 from space_documents sd where sd.hash = documents.hash)`),
  ]);
  return { references: changedRows(results[0]), documents: changedRows(results[1]) };
}

function recordCollection(db: Db, spaceId: string, now: number, pending: boolean) {
  const at = new Date(now).toISOString();
  return rawRun(db, sql`insert into history_collections (space_id, collected_at, documents_pending) values (${spaceId}, ${at}, ${pending ? 1 : 0})
    on conflict (space_id) do update set collected_at = excluded.collected_at, documents_pending = excluded.documents_pending`);
}

/**
 * Collects the space's history as of `now` (see the top of this file). Runs in the space's writer: no head of the
 * space moves meanwhile, so the documents its remaining revisions reach are the ones it still needs.
 */
export async function collectSpaceHistory(db: Db, spaceId: string, now: number, limits: CollectionLimits = COLLECTION_LIMITS): Promise<HistoryCollection> {
  const cutoff = retentionCutoff(now);
  // Marked pending first: a collection that stops half-way (an error, an evicted writer) is taken up again.
  const [, deleted] = await runBatch(db, [recordCollection(db, spaceId, now, true), deleteCollectableRevisions(db, spaceId, cutoff, limits.revisions)]);
  const revisions = changedRows(deleted);
  const hashes = await unreachableHashes(db, spaceId, limits.documents);
  let references = 0;
  let documents = 0;
  for (let i = 0; i < hashes.length; i += limits.chunk) {
    const swept = await sweepDocuments(db, spaceId, hashes.slice(i, i + limits.chunk));
    references += swept.references;
    documents += swept.documents;
  }
  const pending = revisions >= limits.revisions || hashes.length >= limits.documents;
  await recordCollection(db, spaceId, now, pending);
  return { revisions, references, documents, pending };
}

/** A collection looks at a space at most once a day, unless it left work behind. */
const REVISIT_MS = DAY_MS;

/**
 * Up to `limit` spaces the collection should look at: those it left work in, then live spaces with a revision made
 * before the retention cutoff that is not their head, the ones it looked at least recently first (never looked at:
 * first of all), none it looked at in the last day.
 */
export async function spacesToCollect(db: Db, now: number, limit: number): Promise<string[]> {
  const cutoff = retentionCutoff(now);
  const revisit = new Date(now - REVISIT_MS).toISOString();
  const rows = await rawAll(
    db,
    sql`select s.id from spaces s left join history_collections h on h.space_id = s.id
      where s.deleted_at is null
        and (h.documents_pending = 1
          or (coalesce(h.collected_at, '') < ${revisit}
            and exists (select 1 from revisions r where r.space_id = s.id and r.created_at < ${cutoff} and r.id != s.revision_id)))
      order by coalesce(h.documents_pending, 0) desc, coalesce(h.collected_at, '')
      limit ${limit}`,
  );
  return rowsOf<{ id: string }>(rows).map((row) => row.id);
}
