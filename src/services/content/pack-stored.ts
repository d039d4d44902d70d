import { sql } from 'drizzle-orm';
import { rawAll, rawRun, rowsOf, runBatch, type BatchItem, type Db } from '../../db/client';
import { documentRefs, isDocumentSql, packDocument } from './packed-documents';

/**
 * Migration 0111's job: page documents and reusable contents stored before migration 0052 are JSON text with no refs;
 * each cron run packs some (`packDocument`, with their `documentRefs`) until none is left. Compression is no SQL function,
 * so this cannot be the migration's SQL. A step reads `rows` documents past its cursor in hash order (a range of the
 * primary key: never a scan of the table), packs those that are unpacked documents (tree nodes stay JSON text), and
 * moves the cursor, in one batch; a run takes `steps` steps at most. The hash names the canonical JSON, which packing
 * keeps byte for byte, so every reference stays valid; an update applies only to a body still in text form, so a step
 * run twice changes nothing twice.
 */
export const PACK_JOB = 'pack-documents';
export const PACK_LIMITS = { rows: 200, steps: 10 };

interface Row {
  hash: string;
  /** The JSON text of an unpacked document; null for anything else (a packed body, a tree node). */
  legacy: string | null;
}

async function packStep(db: Db, job: string, cursor: string, rows: number): Promise<{ next: string | null; packed: number }> {
  const found = rowsOf<Row>(
    await rawAll(
      db,
      // A CASE nested in a CASE: json_extract raises on malformed text, and SQLite does not promise to test `and`'s
      // operands in order, so an unreadable row would stop the job for good instead of being passed over.
      sql`select hash, case when typeof(body) = 'text' and refs is null and json_valid(body)
          then case when ${isDocumentSql(sql`body`)} then body end end as legacy
        from documents where hash > ${cursor} order by hash limit ${rows}`,
    ),
  );
  const legacy = found.filter((row): row is { hash: string; legacy: string } => row.legacy !== null);
  const next = found.length < rows ? null : found[found.length - 1].hash;
  const writes: BatchItem[] = legacy.map((row) =>
    rawRun(
      db,
      sql`update documents set body = ${packDocument(row.legacy)}, refs = ${documentRefs(JSON.parse(row.legacy))}
        where hash = ${row.hash} and typeof(body) = 'text' and refs is null`,
    ),
  );
  writes.push(
    next === null
      ? rawRun(db, sql`update storage_jobs set cursor = '', done_at = ${new Date().toISOString()} where name = ${job}`)
      : rawRun(db, sql`update storage_jobs set cursor = ${next} where name = ${job}`),
  );
  await runBatch(db, writes);
  return { next, packed: legacy.length };
}

/**
 * One run of the job: up to `steps` steps from the stored cursor; answers the documents packed. Nothing once done.
 * `name` is the job's row in storage_jobs (the cron's, unless a test walks a cursor of its own beside it).
 */
export async function packStoredDocuments(db: Db, limits = PACK_LIMITS, name = PACK_JOB): Promise<number> {
  const job = rowsOf<{ cursor: string; done_at: string | null }>(
    await rawAll(db, sql`select cursor, done_at from storage_jobs where name = ${name}`),
  )[0];
  if (!job || job.done_at) return 0;
  let cursor: string | null = job.cursor;
  let packed = 0;
  for (let step = 0; step < limits.steps && cursor !== null; step++) {
    const done = await packStep(db, name, cursor, limits.rows);
    packed += done.packed;
    cursor = done.next;
  }
  return packed;
}
