import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { gitSyncEntries, gitSyncImportProgress, revisionGit, revisions, spaces } from '../../db/schema/index';
import { ApiError } from '../../lib/errors';
import { sha256Base64Url, sha256Hex } from '../../lib/ids';
import { contentColumns, toContent, type RevisionContent } from '../content/head-moves';
import { ContentTree, ROOT, type PageRecord, type TreeRecord } from '../content/pages';
import { frontmatterOf } from '../content/reads';
import type { FileEntry, PageEntry } from '../content/revisions';
import { d1NodeStore, entriesOf } from '../content/tree';

/**
 * What a page's file says besides its document, as a signature (`git_sync_entries.head`, 22 characters of SHA-256):
 * its title (the heading 1 and SUMMARY.md's line) and the fields its front matter holds. Recorded when the file is
 * synced, compared by the export: a page whose title or a field alone changed is written again.
 */
export async function headSignature(page: Omit<PageEntry, 'pages'>): Promise<string> {
  return (await sha256Base64Url(JSON.stringify([page.title, frontmatterOf(page)]))).slice(0, 22);
}

/** What Git Sync reads of a space: its head revision (with that revision's git metadata, if any) and what the last sync left. */
export interface SyncedSpace {
  head: RevisionContent;
  headGitOid: string | null;
  deleted: boolean;
  editMode: string;
  entries: Array<typeof gitSyncEntries.$inferSelect>;
}

const headQuery = (db: Db, spaceId: string) =>
  db
    .select({ deletedAt: spaces.deletedAt, editMode: spaces.editMode, head: contentColumns(revisions), gitOid: revisionGit.oid })
    .from(spaces)
    .innerJoin(revisions, eq(revisions.id, spaces.revisionId))
    .leftJoin(revisionGit, eq(revisionGit.revisionId, spaces.revisionId))
    .where(eq(spaces.id, spaceId));

function syncedHeadOf(rows: Awaited<ReturnType<typeof headQuery>>): Omit<SyncedSpace, 'entries'> {
  const row = rows[0];
  if (!row) throw new ApiError(404, 'Space not found');
  return { head: toContent(row.head), headGitOid: row.gitOid ?? null, deleted: row.deletedAt !== null, editMode: row.editMode };
}

export async function loadSyncedSpace(db: Db, spaceId: string): Promise<SyncedSpace> {
  const [rows, entries] = await db.batch([headQuery(db, spaceId), db.select().from(gitSyncEntries).where(eq(gitSyncEntries.spaceId, spaceId))]);
  return { ...syncedHeadOf(rows), entries };
}

/** The space as loadSyncedSpace reads it without the entries the last sync left (an import's writer call reads only the few it needs). */
export async function loadSyncedHead(db: Db, spaceId: string): Promise<Omit<SyncedSpace, 'entries'>> {
  return syncedHeadOf(await headQuery(db, spaceId));
}

/** A revision's pages in tree order (parents first, each with its index among its siblings) and files. */
export interface RevisionTree {
  pages: Map<string, PageRecord>;
  /** Page ids in depth-first order. */
  order: Array<{ id: string; parent: string | null; index: number; path: string }>;
  files: Map<string, FileEntry>;
}

export async function readRevisionTree(db: Db, content: { pages: string | null; files: string | null }): Promise<RevisionTree> {
  const store = d1NodeStore(db);
  const tree = new ContentTree(store, content);
  const records = await entriesOf<TreeRecord>(store, content.pages);
  const files = await entriesOf<FileEntry>(store, content.files);
  const pages = new Map<string, PageRecord>();
  for (const [id, record] of records) if (id !== ROOT) pages.set(id, record as PageRecord);
  const order: RevisionTree['order'] = [];
  const walk = async (parent: string, prefix: string) => {
    const children = await tree.children(parent);
    for (const [index, [id, slug]] of children.entries()) {
      const path = prefix ? `${prefix}/${slug}` : slug;
      order.push({ id, parent: parent === ROOT ? null : parent, index, path });
      await walk(id, path);
    }
  };
  await walk(ROOT, '');
  return { pages, order, files };
}

/** The git metadata of a revision (GitBook's `Revision.git`), if Git Sync made or pushed it. */
export async function revisionGitOf(db: Db, spaceId: string, revisionId: string) {
  return (await db.select().from(revisionGit).where(and(eq(revisionGit.revisionId, revisionId), eq(revisionGit.spaceId, spaceId))).get()) ?? null;
}

/** The stored progress of an import applied in slices (services/git-sync/apply GitImportProgress: only what the queue consumer reads of it), or null. */
export async function importProgressOf(db: Db, operationId: string): Promise<{ next: number; expectedHead: string; commit: string } | null> {
  const row = await db.select({ progress: gitSyncImportProgress.progress }).from(gitSyncImportProgress).where(eq(gitSyncImportProgress.operationId, operationId)).get();
  return (row?.progress as { next: number; expectedHead: string; commit: string } | undefined) ?? null;
}

/**
 * The id an import gives a new file (the blob `oid`), the same each time the operation is planned: a plan made again to
 * continue an import (its slices already named the files) gives them the ids the first one did. As newId: a letter,
 * then 19 characters.
 */
export async function importFileId(operationId: string, oid: string): Promise<string> {
  return `f${(await sha256Hex(`${operationId}:${oid}`)).slice(0, 19)}`;
}
