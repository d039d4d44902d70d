import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rawAll } from '../../db/client';
import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { RANK } from '../../lib/roles';
import { urlContext } from '../../schemas/common';
import type { RevisionSemanticChange } from '../../schemas/semantic-changes';
import { changeRequests } from '../../db/schema/index';
import { changeRequestMatch, changeRequestQuery, requireChangeRequest } from './change-requests';
import { parseMeta, type RevisionMeta } from './convert';
import { createSigner, downloadUrl } from './files';
import { ROOT, type PageRecord, type TreeRecord } from './pages';
import { toChangeRequest } from './presenter';
import type { FileEntry, ReusableContentEntry, VariableValue } from './revisions';
import { d1NodeStore, diffTries, TrieView, type Change } from './tree';
import { checkSpace, selectSpaceWithRank, type SpaceWithRank } from '../spaces/spaces';

/**
 * GitBook's RevisionSemanticChanges: what changed between two revisions of a space, as pages, files,
 * variables and reusable contents created, edited, moved or deleted. A revision is compared with its
 * first parent (getRevisionSemanticChanges), a change request's head with its merge base
 * (getChangeRequestChanges). The page and file maps are compared by diffTries, which skips the
 * subtrees both share: the cost is that of the changes, not of the space.
 */


interface RevisionRoots {
  id: string;
  parents: string;
  pages_root: string | null;
  files_root: string | null;
  meta: string | null;
  merged_from: string | null;
}

type Changed = RevisionSemanticChange;

interface ChangesRequest {
  db: Db;
  env: Env;
  url: string;
  userId: string;
  spaceId: string;
  limit: number;
}

const revisionRootsSql = (db: Db, spaceId: string, revision: ReturnType<typeof sql>) =>
  rawAll<RevisionRoots>(db, sql`select id, parents, pages_root, files_root, meta, merged_from from revisions where space_id = ${spaceId} and id = ${revision}`);

/** A revision of the space compared with its first parent (none for the first revision: all it has is new). */
export async function revisionChanges(r: ChangesRequest & { revisionId: string }) {
  const parentOf = sql`(select json_extract(parents, '$[0]') from revisions where id = ${r.revisionId} and space_id = ${r.spaceId})`;
  const [spaceRows, revisionRows, parentRows, mergedRows] = await r.db.batch([
    selectSpaceWithRank(r.db, r.spaceId, r.userId),
    revisionRootsSql(r.db, r.spaceId, sql`${r.revisionId}`),
    revisionRootsSql(r.db, r.spaceId, parentOf),
    changeRequestQuery(r.db, sql`${changeRequests.id} = (select merged_from from revisions where id = ${r.revisionId} and space_id = ${r.spaceId})`),
  ] as const);
  checkSpace(spaceRows as SpaceWithRank[], RANK.read, true);
  const after = (revisionRows as RevisionRoots[])[0];
  if (!after) throw new ApiError(404, 'Revision not found');
  const parent = (parentRows as RevisionRoots[])[0];
  // History collection keeps the parent of every revision something names; one kept only as such a parent may have lost
  // its own: its changes are not known any more (comparing it with nothing would call every page created).
  if (!parent && (JSON.parse(after.parents) as string[]).length > 0) {
    throw new ApiError(410, 'The revision this one was made on is no longer kept (history collection): its changes cannot be computed');
  }
  const result = await compareRevisions(r, parent, after);
  const merged = mergedRows[0];
  return merged ? { mergedFrom: toChangeRequest(merged, urlContext(r.url, r.env.APP_URL)), ...result } : result;
}

/** A change request's head compared with the revision of main it was last based on (GitBook's getChangeRequestChanges). */
export async function changeRequestChanges(r: ChangesRequest & { changeRequest: string }) {
  const match = changeRequestMatch(r.spaceId, r.changeRequest);
  const [spaceRows, crRows, headRows, baseRows] = await r.db.batch([
    selectSpaceWithRank(r.db, r.spaceId, r.userId),
    changeRequestQuery(r.db, match),
    revisionRootsSql(r.db, r.spaceId, sql`(select revision_id from change_requests where ${match})`),
    // The merge base (change-requests `mergeBase`): the main revision the change request was last updated from.
    revisionRootsSql(r.db, r.spaceId, sql`(select coalesce(revision_merged_ancestor, revision_initial) from change_requests where ${match})`),
  ] as const);
  checkSpace(spaceRows as SpaceWithRank[], RANK.read, true);
  requireChangeRequest(crRows[0]);
  const head = (headRows as RevisionRoots[])[0];
  if (!head) throw new ApiError(404, 'Change request not found');
  return compareRevisions(r, (baseRows as RevisionRoots[])[0], head);
}

async function compareRevisions(r: ChangesRequest, before: RevisionRoots | undefined, after: RevisionRoots) {
  const store = d1NodeStore(r.db);
  const [pageDiff, fileDiff] = await Promise.all([
    diffTries<TreeRecord>(store, before?.pages_root ?? null, after.pages_root),
    diffTries<FileEntry>(store, before?.files_root ?? null, after.files_root),
  ]);
  const pageChanges = await pagesChanged(store, before?.pages_root ?? null, after.pages_root, pageDiff);
  const fileChanges = await filesChanged(r, fileDiff);
  const metaBefore = before ? parseMeta(before.meta) : undefined;
  const metaAfter = parseMeta(after.meta);
  const all = [...pageChanges, ...fileChanges, ...variablesChanged(metaBefore, metaAfter), ...reusableChanged(metaBefore, metaAfter)];
  const changes = all.slice(0, r.limit);
  return { changes, ...(all.length > changes.length ? { more: all.length - changes.length } : {}) };
}

const changedPage = (page: PageRecord) => ({ id: page.id, type: page.type ?? 'document', title: page.title });

const PAGE_ATTRIBUTES = ['title', 'description', 'slug', 'document', 'emoji'] as const;

function attributesOf(before: PageRecord, after: PageRecord) {
  const attributes: Record<string, { before?: string; after?: string }> = {};
  for (const key of PAGE_ATTRIBUTES) {
    if ((before[key] ?? '') === (after[key] ?? '')) continue;
    attributes[key] = { ...(before[key] !== undefined && { before: String(before[key]) }), ...(after[key] !== undefined && { after: String(after[key]) }) };
  }
  return attributes;
}

/**
 * The pages created, deleted, moved (another parent) and edited (title, description, slug, document or
 * emoji). A parent's new or lost child changes the parent's record only through its child list, which is
 * no semantic change of its own. The parents of moved pages are read in one more query.
 */
async function pagesChanged(store: ReturnType<typeof d1NodeStore>, beforeRoot: string | null, afterRoot: string | null, diff: Map<string, Change<TreeRecord>>) {
  const out: Changed[] = [];
  const moved: Array<{ page: PageRecord; from: string | null; to: string | null }> = [];
  for (const [key, change] of diff) {
    if (key === ROOT) continue;
    const before = change.before as PageRecord | undefined;
    const after = change.after as PageRecord | undefined;
    if (!before && after) out.push({ type: 'page_created', page: changedPage(after) });
    else if (before && !after) out.push({ type: 'page_deleted', page: changedPage(before) });
    else if (before && after) {
      if ((before.parent ?? ROOT) !== (after.parent ?? ROOT)) moved.push({ page: after, from: before.parent, to: after.parent });
      const attributes = attributesOf(before, after);
      if (Object.keys(attributes).length > 0) out.push({ type: 'page_edited', page: changedPage(after), attributes });
    }
  }
  if (moved.length === 0) return out;
  const parentIds = (side: 'from' | 'to') => moved.map((m) => m[side]).filter((id): id is string => !!id && id !== ROOT);
  const [parentsBefore, parentsAfter] = await Promise.all([
    new TrieView<TreeRecord>(store, beforeRoot).getMany(parentIds('from')),
    new TrieView<TreeRecord>(store, afterRoot).getMany(parentIds('to')),
  ]);
  const parentOf = (records: Map<string, TreeRecord>, id: string | null) => {
    const record = id ? records.get(id) : undefined;
    return record && record.id !== ROOT ? changedPage(record as PageRecord) : undefined;
  };
  for (const { page, from, to } of moved) {
    const before = parentOf(parentsBefore, from);
    const after = parentOf(parentsAfter, to);
    out.push({ type: 'page_moved', page: changedPage(page), parent: { ...(before && { before }), ...(after && { after }) } });
  }
  return out;
}

async function filesChanged(r: ChangesRequest, diff: Map<string, Change<FileEntry>>) {
  const sign = createSigner(r.env);
  const origin = new URL(r.url).origin;
  const now = Date.now();
  const changedFile = async (file: FileEntry) => ({ id: file.id, name: file.name, contentType: file.contentType, downloadURL: await downloadUrl(r.env, origin, file, now, sign) });
  const out: Changed[] = [];
  for (const { before, after } of diff.values()) {
    if (!before && after) out.push({ type: 'file_created', file: await changedFile(after) });
    else if (before && !after) out.push({ type: 'file_deleted', file: await changedFile(before) });
    else if (before && after) {
      const attributes: Record<string, { before?: unknown; after?: unknown }> = {};
      if (before.name !== after.name) attributes.name = { before: before.name, after: after.name };
      if (before.contentType !== after.contentType) attributes.contentType = { before: before.contentType, after: after.contentType };
      if (before.size !== after.size) attributes.size = { before: before.size, after: after.size };
      if (before.hash !== after.hash && !attributes.size) attributes.downloadURL = { before: before.hash, after: after.hash };
      if (Object.keys(attributes).length > 0) out.push({ type: 'file_edited', file: await changedFile(after), attributes });
    }
  }
  return out;
}

function variablesChanged(before: RevisionMeta | undefined, after: RevisionMeta): Changed[] {
  const a: Record<string, VariableValue> = before?.variables ?? {};
  const b: Record<string, VariableValue> = after.variables ?? {};
  const variables: Record<string, { before?: VariableValue; after?: VariableValue }> = {};
  for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (a[name] === b[name]) continue;
    variables[name] = { ...(name in a && { before: a[name] }), ...(name in b && { after: b[name] }) };
  }
  return Object.keys(variables).length > 0 ? [{ type: 'variables_edited', variables }] : [];
}

function reusableChanged(before: RevisionMeta | undefined, after: RevisionMeta): Changed[] {
  const a = new Map((before?.reusableContents ?? []).map((rc) => [rc.id, rc]));
  const b = new Map((after.reusableContents ?? []).map((rc) => [rc.id, rc]));
  const changed = (rc: ReusableContentEntry) => ({ id: rc.id, title: rc.title, ...(rc.document && { document: rc.document }) });
  const out: Changed[] = [];
  for (const [id, rc] of b) {
    const old = a.get(id);
    if (!old) out.push({ type: 'reusable_content_created', reusableContent: changed(rc) });
    else if (old.title !== rc.title || old.document !== rc.document) {
      const attributes: Record<string, { before?: string; after?: string }> = {};
      if (old.title !== rc.title) attributes.title = { before: old.title, after: rc.title };
      if (old.document !== rc.document) attributes.document = { ...(old.document && { before: old.document }), ...(rc.document && { after: rc.document }) };
      out.push({ type: 'reusable_content_edited', reusableContent: changed(rc), attributes });
    }
  }
  for (const [id, rc] of a) if (!b.has(id)) out.push({ type: 'reusable_content_deleted', reusableContent: changed(rc) });
  return out;
}
