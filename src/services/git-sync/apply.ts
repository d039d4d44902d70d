import { and, eq } from 'drizzle-orm';
import { createDb, runBatch, type BatchItem } from '../../db/client';
import { gitSyncEntries, gitSyncOperations, revisionGit, spaces } from '../../db/schema/index';
import type { Env } from '../../env';
import { ApiError, badRequest } from '../../lib/errors';
import { nowIso } from '../../lib/time';
import { applyContentBatch, type ContentChange } from '../content/batch';
import { storeFiles } from '../content/files';
import { assertContentCaps, assertMoved, newRevision } from '../content/head-moves';
import { ContentTree } from '../content/pages';
import { loadDocuments } from '../content/revisions';
import { d1NodeStore } from '../content/tree';
import { contentUpdatedEvents, enqueueEvents, eventIdsOf } from '../integrations/events';
import { capOf } from '../limits/caps';
import { loadSyncedSpace } from './content';
import type { ImportFilePlan, ImportPagePlan } from './import';

/**
 * What the space's writer (SpaceWriter) runs for Git Sync: an import's content batch as one new revision on
 * the head the plan was made on, and the revision's git metadata, in one D1 batch; the head moves only if it
 * is still where the plan read it (compare-and-set), and not at all for a standalone import. The paths the
 * sync leaves (git_sync_entries) are replaced in the same batch.
 */

export interface GitImportTarget {
  spaceId: string;
  userId: string;
  operationId: string;
  expectedHead: string;
  standalone: boolean;
  changes: ContentChange[];
  pages: ImportPagePlan[];
  files: ImportFilePlan[];
  git: { oid: string; message: string; url: string | null; ref: string; createdByGitBook: boolean };
}

export interface GitImportOutput {
  revision: string;
}

/** Rows of git_sync_entries, each statement under D1's 100 bound parameters. */
export function entryStatements(db: ReturnType<typeof createDb>, spaceId: string, rows: Array<typeof gitSyncEntries.$inferInsert>): BatchItem[] {
  const out: BatchItem[] = [db.delete(gitSyncEntries).where(eq(gitSyncEntries.spaceId, spaceId))];
  for (let i = 0; i < rows.length; i += 16) out.push(db.insert(gitSyncEntries).values(rows.slice(i, i + 16)));
  return out;
}

export async function applyGitImport(env: Env, target: GitImportTarget): Promise<GitImportOutput> {
  const db = createDb(env.DB);
  const space = await loadSyncedSpace(db, target.spaceId);
  if (space.deleted) throw badRequest('This space is deleted: restore it first');
  if (space.head.id !== target.expectedHead) throw new ApiError(409, 'the space changed while the repository was read: the import is planned again');
  const now = nowIso();
  const store = d1NodeStore(db);
  const tree = new ContentTree(store, space.head);
  const result = await applyContentBatch(tree, target.changes, {
    baseTree: () => new ContentTree(store, space.head),
    revisionTrees: new Map(),
    loadDocument: async (hash) => (await loadDocuments(db, [hash])).get(hash),
    maxFileBytes: capOf(env, 'bytesPerFile'),
    now,
    unbounded: true,
  });
  const counts = { pageCount: space.head.pageCount + result.pageDelta, fileCount: space.head.fileCount + result.fileDelta };
  assertContentCaps(env, space.head, counts);
  // Page ids of the refs, file ids in insert order; the documents' hashes, for the next export's comparison.
  const created = new Map(result.outcomes.flatMap((o) => (o.object === 'created_page' && o.ref ? [[o.ref, o.page] as const] : [])));
  const pageRows: Array<typeof gitSyncEntries.$inferInsert> = [];
  const ids = target.pages.map((p) => p.page ?? created.get(p.ref!)!);
  const records = await tree.pagesById(ids.filter(Boolean));
  target.pages.forEach((plan, i) => {
    const id = ids[i];
    if (!id) return;
    pageRows.push({ spaceId: target.spaceId, path: plan.key, kind: 'page', targetId: id, oid: plan.oid, hash: records.get(id)?.document ?? null });
  });
  const fileRows: Array<typeof gitSyncEntries.$inferInsert> = target.files.flatMap((plan) => {
    const id = plan.file ?? (plan.insertIndex !== undefined ? result.files[plan.insertIndex]?.entry.id : undefined);
    return id ? [{ spaceId: target.spaceId, path: plan.path, kind: 'file', targetId: id, oid: plan.oid, hash: null }] : [];
  });
  await storeFiles(env.FILES, result.files);
  const written = await tree.write();
  const revision = newRevision(db, target.spaceId, 'edits', [space.head.id], { ...written, meta: space.head.meta, ...counts }, [...written.nodes, ...result.documents], now);
  const statements: BatchItem[] = [
    ...revision.statements,
    db.insert(revisionGit).values({ revisionId: revision.id, spaceId: target.spaceId, ...target.git }),
    db.update(gitSyncOperations).set({ revisionId: revision.id }).where(eq(gitSyncOperations.id, target.operationId)),
  ];
  if (target.standalone) {
    await runBatch(db, statements);
    return { revision: revision.id };
  }
  const results = await runBatch(db, [
    ...statements,
    ...entryStatements(db, target.spaceId, [...pageRows, ...fileRows]),
    db
      .update(spaces)
      .set({ revisionId: revision.id, updatedAt: now })
      .where(and(eq(spaces.id, target.spaceId), eq(spaces.revisionId, space.head.id))),
    contentUpdatedEvents(db, target.spaceId, revision.id, target.userId, now),
  ]);
  assertMoved(results[results.length - 2], 'space');
  await enqueueEvents(env, eventIdsOf(results[results.length - 1]));
  return { revision: revision.id };
}

/** After an export: the revision pushed records the commit, and the paths the sync leaves are what was pushed. */
export async function recordGitExport(
  env: Env,
  target: { spaceId: string; revisionId: string; rows: Array<typeof gitSyncEntries.$inferInsert>; git: GitImportTarget['git'] },
): Promise<void> {
  const db = createDb(env.DB);
  await runBatch(db, [
    db.insert(revisionGit).values({ revisionId: target.revisionId, spaceId: target.spaceId, ...target.git }).onConflictDoUpdate({ target: revisionGit.revisionId, set: target.git }),
    ...entryStatements(db, target.spaceId, target.rows),
  ]);
}
