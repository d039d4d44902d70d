/**
 * History collection (services/content/history.ts, DESIGN.md "History"): revisions nobody can reach any more and
 * older than the retention window are deleted with the documents and tree nodes only they referred to; everything a
 * head, a change request, a comment... keeps stays readable, diffs and change request rebase and merge included.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { spaceWriter } from '../../src/durable-objects/space-writer';
import { collectHistory } from '../../src/jobs/cron';
import { HISTORY_RETENTION_DAYS, collectSpaceHistory, spacesToCollect, type CollectionLimits } from '../../src/services/content/history';
import { DAY_MS } from '../../src/lib/time';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown, uniqueText as unique } from '../helpers/content';
import { api, seedOrg, type TestOrg } from '../helpers/harness';

let org: TestOrg;
let token: string;

beforeAll(async () => {
  org = await seedOrg();
  token = org.owner.token;
});

/** Words no other text shares (a delta of a document by such text would not be smaller than the document). */
const unlike = () => Array.from({ length: 60 }, () => Math.random().toString(36).slice(2, 9)).join(' ');
const edit = (page: string, markdown: string) => ({ operation: 'update_page', page, document: { markdown } });
/** A moment past the retention window of everything made now. */
const later = () => Date.now() + (HISTORY_RETENTION_DAYS + 1) * DAY_MS;

async function mergeOk(spaceId: string, cr: number) {
  const res = await merge(spaceId, cr, token);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function headOf(crId: string): Promise<string> {
  return (await env.DB.prepare('select revision_id from change_requests where id = ?').bind(crId).first<string>('revision_id'))!;
}

async function revisionIds(spaceId: string): Promise<string[]> {
  const { results } = await env.DB.prepare('select id from revisions where space_id = ? order by id').bind(spaceId).all<{ id: string }>();
  return results.map((r) => r.id);
}

async function documentId(spaceId: string, pageId: string, cr?: number): Promise<string> {
  const base = cr === undefined ? `/v1/spaces/${spaceId}/content` : `/v1/spaces/${spaceId}/change-requests/${cr}/content`;
  const res = await api('GET', `${base}/page/${pageId}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.documentId as string;
}

async function stored(hash: string): Promise<boolean> {
  return (await env.DB.prepare('select count(*) as n from documents where hash = ?').bind(hash).first<number>('n')) === 1;
}

async function spaceBytes(spaceId: string): Promise<number> {
  return (await env.DB.prepare(
    `select coalesce(sum(length(d.body) + coalesce(length(d.refs), 0)), 0) as n from space_documents sd join documents d on d.hash = sd.hash where sd.space_id = ?`,
  )
    .bind(spaceId)
    .first<number>('n'))!;
}

async function collect(spaceId: string, now: number, limits?: CollectionLimits) {
  const result = await spaceWriter(env, spaceId).collectHistory(spaceId, now, limits);
  expect(result.ok, JSON.stringify(result)).toBe(true);
  return (result as { value: { revisions: number; references: number; documents: number; pending: boolean } }).value;
}

/**
 * Reads a revision the way a client does: the revision, its pages, each page as Markdown, and its changes (a 410 when
 * `changesGone`: a revision kept only as another's parent, whose own parent was collected).
 */
async function readRevision(spaceId: string, revisionId: string, pages: string[], changesGone = false) {
  const base = `/v1/spaces/${spaceId}/revisions/${revisionId}`;
  const revision = await api('GET', base, { token });
  expect(revision.status, `${revisionId}: ${JSON.stringify(revision.body)}`).toBe(200);
  expect((await api('GET', `${base}/pages`, { token })).status).toBe(200);
  const changes = await api('GET', `${base}/changes`, { token });
  expect(changes.status, JSON.stringify(changes.body)).toBe(changesGone ? 410 : 200);
  const markdown: string[] = [];
  for (const page of pages) {
    const res = await api('GET', `${base}/page/${page}?format=markdown`, { token });
    if (res.status === 404) continue; // not in this revision yet
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    markdown.push(res.body.markdown);
  }
  return markdown.join('\n');
}

interface Built {
  spaceId: string;
  pages: { guide: string; faq: string };
  /** Revisions only an autosave-like edit made: a change request's head that later batches replaced. */
  intermediate: string[];
  intermediateDocuments: string[];
  /** The batch before the change request's last: replaced too, but kept as the parent its head's changes are computed against. */
  base: { revision: string; document: string };
  texts: Record<string, string>;
  open: { id: string; number: number };
}

/**
 * A space edited the ordinary way: a change request made in three batches (the first two replaced by the third),
 * merged; another one merged; one left open.
 */
async function build(title: string): Promise<Built> {
  const space = await createSpace(org.id, token, title);
  const texts = { draft1: unique('Guide draft 1'), draft2: unique('Guide draft 2'), guide: unique('Guide v1'), faq: unique('FAQ v1'), guide2: unique('Guide v2'), faq2: unique('FAQ v2') };
  const first = await openChangeRequest(space.id, token, 'Pages');
  const inserted = await applyChanges(space.id, first.number, token, [
    { operation: 'insert_page', title: 'Guide', document: { markdown: `${texts.draft1}\n` } },
    { operation: 'insert_page', title: 'FAQ', document: { markdown: `${texts.faq}\n` } },
  ]);
  const pages = { guide: inserted.changes[0].page.id as string, faq: inserted.changes[1].page.id as string };
  const intermediate = [await headOf(first.id)];
  const intermediateDocuments = [await documentId(space.id, pages.guide, first.number)];
  // A second draft unlike the first, so that it is stored whole (not as a delta of the first: document-deltas), and the
  // first is a document only the first revision refers to.
  await applyChanges(space.id, first.number, token, [edit(pages.guide, `${texts.draft2} ${unlike()}\n`)]);
  const base = { revision: await headOf(first.id), document: await documentId(space.id, pages.guide, first.number) };
  await applyChanges(space.id, first.number, token, [edit(pages.guide, `${texts.guide}\n`)]);
  await mergeOk(space.id, first.number);
  const second = await openChangeRequest(space.id, token, 'Guide again');
  await applyChanges(space.id, second.number, token, [edit(pages.guide, `${texts.guide2}\n`)]);
  await mergeOk(space.id, second.number);
  const open = await openChangeRequest(space.id, token, 'Still open');
  await applyChanges(space.id, open.number, token, [edit(pages.faq, `${texts.faq2}\n`)]);
  return { spaceId: space.id, pages, intermediate, intermediateDocuments, base, texts, open: { id: open.id, number: open.number } };
}

describe('history collection', () => {
  it('keeps everything made within the retention window', async () => {
    const built = await build('Recent');
    const before = await revisionIds(built.spaceId);
    const result = await collect(built.spaceId, Date.now());
    expect(result).toMatchObject({ revisions: 0, documents: 0, pending: false });
    expect(await revisionIds(built.spaceId)).toEqual(before);
    for (const hash of built.intermediateDocuments) expect(await stored(hash)).toBe(true);
  });

  it('collects revisions nobody reaches past the window, and the documents only they referred to', async () => {
    const built = await build('Collected');
    const all = await revisionIds(built.spaceId);
    const kept = all.filter((id) => !built.intermediate.includes(id));
    for (const id of built.intermediate) expect((await api('GET', `/v1/spaces/${built.spaceId}/revisions/${id}`, { token })).status).toBe(200);
    const bytesBefore = await spaceBytes(built.spaceId);

    const result = await collect(built.spaceId, later());
    expect(result.revisions).toBe(built.intermediate.length);
    expect(result.documents).toBeGreaterThanOrEqual(built.intermediateDocuments.length);
    expect(result.pending).toBe(false);
    expect(await revisionIds(built.spaceId)).toEqual(kept);
    for (const id of built.intermediate) expect((await api('GET', `/v1/spaces/${built.spaceId}/revisions/${id}`, { token })).status).toBe(404);
    for (const hash of built.intermediateDocuments) expect(await stored(hash)).toBe(false);
    expect(await stored(built.base.document)).toBe(true);
    expect(await spaceBytes(built.spaceId)).toBeLessThan(bytesBefore);

    // Every kept revision reads whole: its pages, each page's Markdown, its changes (the base's are gone with its parent).
    const pages = [built.pages.guide, built.pages.faq];
    const texts = (await Promise.all(kept.map((id) => readRevision(built.spaceId, id, pages, id === built.base.revision)))).join('\n');
    for (const text of [built.texts.guide, built.texts.guide2, built.texts.faq, built.texts.faq2, built.texts.draft2]) expect(texts).toContain(text);
    expect(texts).not.toContain(built.texts.draft1);

    // A second collection finds nothing more.
    expect(await collect(built.spaceId, later())).toMatchObject({ revisions: 0, references: 0, documents: 0 });
  });

  it('leaves a change request that can still be rebased and merged, and main readable', async () => {
    const built = await build('Rebased');
    await collect(built.spaceId, later());
    // Main moves under the open change request, which is then updated (a three-way rebase) and merged.
    const other = await openChangeRequest(built.spaceId, token, 'Guide three');
    const guide3 = unique('Guide v3');
    await applyChanges(built.spaceId, other.number, token, [edit(built.pages.guide, `${guide3}\n`)]);
    await mergeOk(built.spaceId, other.number);
    const updated = await api('POST', `/v1/spaces/${built.spaceId}/change-requests/${built.open.number}/update`, { token });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    const diff = await api('GET', `/v1/spaces/${built.spaceId}/change-requests/${built.open.number}/changes`, { token });
    expect(diff.status, JSON.stringify(diff.body)).toBe(200);
    await mergeOk(built.spaceId, built.open.number);
    expect(await pageMarkdown(built.spaceId, built.pages.guide, token)).toContain(guide3);
    expect(await pageMarkdown(built.spaceId, built.pages.faq, token)).toContain(built.texts.faq2);
    // Collected again after all that: main and every change request still read.
    await collect(built.spaceId, later());
    expect(await pageMarkdown(built.spaceId, built.pages.guide, token)).toContain(guide3);
    expect(await pageMarkdown(built.spaceId, built.pages.faq, token, built.open.number)).toContain(built.texts.faq2);
  });

  it('keeps a document another space refers to, and that space reads it', async () => {
    const built = await build('Shared');
    const other = await createSpace(org.id, token, 'Sharer');
    const cr = await openChangeRequest(other.id, token, 'Same text');
    const applied = await applyChanges(other.id, cr.number, token, [{ operation: 'insert_page', title: 'Copy', document: { markdown: `${built.texts.draft1}\n` } }]);
    await mergeOk(other.id, cr.number);
    const page = applied.changes[0].page.id as string;
    // Content addressing: the same Markdown is the same stored document.
    expect(await documentId(other.id, page)).toBe(built.intermediateDocuments[0]);

    expect(await collect(built.spaceId, later())).toMatchObject({ revisions: 1 });
    expect(await stored(built.intermediateDocuments[0])).toBe(true);
    expect(await pageMarkdown(other.id, page, token)).toContain(built.texts.draft1);
    // The collected space no longer refers to it.
    const references = await env.DB.prepare('select count(*) as n from space_documents where space_id = ? and hash = ?')
      .bind(built.spaceId, built.intermediateDocuments[0])
      .first<number>('n');
    expect(references).toBe(0);
  });

  it('keeps a revision that a comment names, and one that a Git Sync commit names', async () => {
    const commented = await build('Commented');
    const [revision] = commented.intermediate;
    await env.DB.prepare(
      `insert into comments (id, space_id, change_request_id, revision_id, body, posted_by, posted_at) values (?, ?, null, ?, '{}', ?, ?)`,
    )
      .bind(`c-${revision}`, commented.spaceId, revision, org.owner.id, new Date().toISOString())
      .run();
    expect(await collect(commented.spaceId, later())).toMatchObject({ revisions: 0 });
    expect(await readRevision(commented.spaceId, revision, [commented.pages.guide])).toContain(commented.texts.draft1);

    const committed = await build('Committed');
    await env.DB.prepare(`insert into revision_git (revision_id, space_id, oid, message, created_by_gitbook) values (?, ?, 'abc', 'commit', 1)`)
      .bind(committed.intermediate[0], committed.spaceId)
      .run();
    expect(await collect(committed.spaceId, later())).toMatchObject({ revisions: 0 });
    expect(await readRevision(committed.spaceId, committed.intermediate[0], [committed.pages.guide])).toContain(committed.texts.draft1);
  });

  it('never sweeps the document of a translated page waiting for its result revision', async () => {
    const built = await build('Translated');
    // The queue consumer stores a translated page's document (outside the writer) before any revision names it.
    const hash = built.intermediateDocuments[0];
    const translationId = `t-${built.spaceId}`;
    const now = new Date().toISOString();
    await env.DB.prepare(
      `insert into translations (id, org_id, source_space_id, source_language, language, result_space_id, instructions, created_by, created_at, updated_at)
       values (?, ?, ?, 'en', 'fr', ?, '{}', ?, ?, ?)`,
    )
      .bind(translationId, org.id, `src-${built.spaceId}`, built.spaceId, org.owner.id, now, now)
      .run();
    await env.DB.prepare(`insert into translation_pages (translation_id, page_id, document_hash) values (?, 'p1', ?)`).bind(translationId, hash).run();
    // Its revision is collected; the document stays for the translation.
    expect(await collect(built.spaceId, later())).toMatchObject({ revisions: 1 });
    expect(await stored(hash)).toBe(true);
  });

  it('works in bounded steps and ends where one unbounded collection would', async () => {
    const built = await build('Stepwise');
    const expected = (await revisionIds(built.spaceId)).filter((id) => !built.intermediate.includes(id));
    const limits = { revisions: 1, documents: 2, chunk: 1 };
    const steps: Array<{ revisions: number; documents: number; pending: boolean }> = [];
    for (let i = 0; i < 30; i++) {
      const step = await collect(built.spaceId, later(), limits);
      expect(step.revisions).toBeLessThanOrEqual(1);
      expect(step.references).toBeLessThanOrEqual(2);
      steps.push(step);
      if (!step.pending) break;
    }
    expect(steps.length).toBeGreaterThan(1);
    expect(steps.at(-1)!.pending).toBe(false);
    expect(await revisionIds(built.spaceId)).toEqual(expected);
    for (const hash of built.intermediateDocuments) expect(await stored(hash)).toBe(false);
    expect(await collect(built.spaceId, later())).toMatchObject({ revisions: 0, references: 0, documents: 0 });
  });

  it('the cron picks spaces with history past the window, collects them in their writers, and looks again a day later', async () => {
    const built = await build('By the cron');
    const deleted = await build('Deleted');
    await env.DB.prepare('update spaces set deleted_at = ? where id = ?').bind(new Date().toISOString(), deleted.spaceId).run();
    const db = createDb(env.DB);
    const at = later();
    expect(await spacesToCollect(db, Date.now(), 1000)).not.toContain(built.spaceId);
    const due = await spacesToCollect(db, at, 100_000);
    expect(due).toContain(built.spaceId);
    expect(due).not.toContain(deleted.spaceId);

    // Collect every due space as runs of the cron would (20 a run), then this one is done.
    for (let run = 0; run < 100 && (await spacesToCollect(db, at, 100_000)).includes(built.spaceId); run++) await collectHistory(env, db, at);
    expect(await revisionIds(built.spaceId)).not.toContain(built.intermediate[0]);
    expect(await spacesToCollect(db, at + DAY_MS / 2, 100_000)).not.toContain(built.spaceId);
    expect(await spacesToCollect(db, at + 2 * DAY_MS, 100_000)).toContain(built.spaceId);
    // The deleted space is the purge's: nothing of it was collected.
    expect(await revisionIds(deleted.spaceId)).toContain(deleted.intermediate[0]);
  });

  it('collectSpaceHistory outside a writer reads the same policy (the writer only serializes it)', async () => {
    const built = await build('Direct');
    const result = await collectSpaceHistory(createDb(env.DB), built.spaceId, later());
    expect(result.revisions).toBe(built.intermediate.length);
  });
});
