import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { gitSyncEntries, revisionGit, revisions, spaces } from '../../db/schema/index';
import { ApiError } from '../../lib/errors';
import { sha256Base64Url } from '../../lib/ids';
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

export async function loadSyncedSpace(db: Db, spaceId: string): Promise<SyncedSpace> {
  const [rows, entries] = await db.batch([
    db
      .select({ deletedAt: spaces.deletedAt, editMode: spaces.editMode, head: contentColumns(revisions), gitOid: revisionGit.oid })
      .from(spaces)
      .innerJoin(revisions, eq(revisions.id, spaces.revisionId))
      .leftJoin(revisionGit, eq(revisionGit.revisionId, spaces.revisionId))
      .where(eq(spaces.id, spaceId)),
    db.select().from(gitSyncEntries).where(eq(gitSyncEntries.spaceId, spaceId)),
  ]);
  const row = rows[0];
  if (!row) throw new ApiError(404, 'Space not found');
  return { head: toContent(row.head), headGitOid: row.gitOid ?? null, deleted: row.deletedAt !== null, editMode: row.editMode, entries };
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
