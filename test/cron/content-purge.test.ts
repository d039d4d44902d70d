/**
 * The cron purge of deleted spaces and their content: revisions, change requests (and their
 * contributors) and the documents no other space refers to. Documents are content-addressed and
 * shared with duplicates, so only the unreferenced ones may go.
 */
import { env } from 'cloudflare:workers';
import { beforeEach, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { purgeDeletedSpaces } from '../../src/jobs/cron';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown, uniqueText as unique } from '../helpers/content';
import { api, seedOrg, type TestOrg } from '../helpers/harness';
import { setDeletedAt } from '../spaces/support';

const edit = (page: string, markdown: string) => ({ operation: 'update_page', page, document: { markdown } });

async function mergeOk(spaceId: string, cr: string | number, token: string) {
  const res = await merge(spaceId, cr, token);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.revision as string;
}

async function deleteSpace(spaceId: string, token: string) {
  const res = await api('DELETE', `/v1/spaces/${spaceId}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(204);
}

async function count(sql: string, ...binds: unknown[]): Promise<number> {
  return (await env.DB.prepare(sql).bind(...binds).first<number>('n'))!;
}

/** Hashes of the documents that the pages of the space's revisions name (through their page maps: root, chunks, middle nodes, leaves). */
async function documentsOf(spaceId: string): Promise<string[]> {
  const { results } = await env.DB.prepare(
    `select distinct json_extract(e.value, '$.document') as hash
     from revisions rv, documents r, json_each(r.body) g,
       json_each(case when g.key glob '~[0-7]' then (select body from documents where hash = g.value) else json_object(g.key, g.value) end) c1,
       documents m, json_each(m.body) c2, documents l, json_each(l.body) e
     where rv.space_id = ? and r.hash = rv.pages_root and m.hash = c1.value and l.hash = c2.value
       and json_extract(e.value, '$.document') is not null order by 1`,
  )
    .bind(spaceId)
    .all<{ hash: string }>();
  return results.map((r) => r.hash);
}

async function storedDocuments(hashes: string[]): Promise<string[]> {
  if (hashes.length === 0) return [];
  const { results } = await env.DB.prepare('select hash from documents where hash in (select value from json_each(?)) order by 1')
    .bind(JSON.stringify(hashes))
    .all<{ hash: string }>();
  return results.map((r) => r.hash);
}

/** The bases of those of `hashes` stored as deltas. */
async function basesOf(hashes: string[]): Promise<string[]> {
  const { results } = await env.DB.prepare('select base from documents where hash in (select value from json_each(?)) and base is not null')
    .bind(JSON.stringify(hashes))
    .all<{ base: string }>();
  return results.map((r) => r.base);
}

async function rowsOf(spaceId: string) {
  return {
    spaces: await count('select count(*) as n from spaces where id = ?', spaceId),
    revisions: await count('select count(*) as n from revisions where space_id = ?', spaceId),
    changeRequests: await count('select count(*) as n from change_requests where space_id = ?', spaceId),
    contributors: await count(
      'select count(*) as n from change_request_contributors where change_request_id in (select id from change_requests where space_id = ?)',
      spaceId,
    ),
  };
}

/** Also catches rows left without their change request (foreign keys not enforced). */
async function orphanContributors(): Promise<number> {
  return count('select count(*) as n from change_request_contributors where change_request_id not in (select id from change_requests)');
}

async function snapshot() {
  const out: Record<string, unknown[]> = {};
  for (const t of ['spaces', 'revisions', 'change_requests', 'change_request_contributors', 'documents']) {
    out[t] = (await env.DB.prepare(`select * from ${t} order by 1, 2`).all()).results;
  }
  return out;
}

/** The documentId of a page as the API reads it (from the space or a change request). */
async function documentIdOf(spaceId: string, pageId: string, token: string, cr?: number) {
  const base = cr === undefined ? `/v1/spaces/${spaceId}/content` : `/v1/spaces/${spaceId}/change-requests/${cr}/content`;
  const res = await api('GET', `${base}/page/${pageId}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.documentId as string;
}

interface Built {
  space: any;
  pages: { guide: string; faq: string };
  texts: Record<string, string>;
  /** The open (unmerged) change request. */
  open: number;
}

/**
 * A space with two merged change requests and one open one, edited by two users:
 * Guide and FAQ pages, Guide edited again, and FAQ edited in the open change request.
 */
async function buildSpace(org: TestOrg, beforeSecondEdit?: (space: any) => Promise<void>): Promise<Built> {
  const token = org.owner.token;
  const space = await createSpace(org.id, token, 'Doomed');
  const texts = { guide1: unique('Guide v1'), faq1: unique('FAQ v1'), guide2: unique('Guide v2'), faq2: unique('FAQ v2') };
  const first = await openChangeRequest(space.id, token, 'Pages');
  const inserted = await applyChanges(space.id, first.number, token, [
    { operation: 'insert_page', title: 'Guide', document: { markdown: `${texts.guide1}\n` } },
    { operation: 'insert_page', title: 'FAQ', document: { markdown: `${texts.faq1}\n` } },
  ]);
  const pages = { guide: inserted.changes[0].page.id as string, faq: inserted.changes[1].page.id as string };
  await mergeOk(space.id, first.number, token);
  if (beforeSecondEdit) await beforeSecondEdit(space);
  const second = await openChangeRequest(space.id, org.members.edit.token, 'Guide again');
  await applyChanges(space.id, second.number, org.members.edit.token, [edit(pages.guide, `${texts.guide2}\n`)]);
  await mergeOk(space.id, second.number, token);
  const open = await openChangeRequest(space.id, org.members.edit.token, 'Still open');
  await applyChanges(space.id, open.number, token, [edit(pages.faq, `${texts.faq2}\n`)]);
  return { space, pages, texts, open: open.number };
}

describe('cron purge of a deleted space\'s content', () => {
  // The purge takes every organization's expired spaces, and test files share the database (isolate: false): what
  // other files deleted is purged first, so that the counts below are this test's own.
  beforeEach(async () => {
    await purgeDeletedSpaces(createDb(env.DB), Date.now() + 365 * 24 * 60 * 60 * 1000);
  });

  it('removes its revisions, change requests, contributors and documents, keeps those a live duplicate shares, and is idempotent', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const now = Date.now();
    let duplicate: any;
    const built = await buildSpace(org, async (space) => {
      // Duplicated after the first merge: the copy shares Guide v1 and FAQ v1.
      const res = await api('POST', `/v1/spaces/${space.id}/duplicate`, { token });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      duplicate = res.body;
    });
    const { space, pages, texts } = built;
    const shared = [await documentIdOf(space.id, pages.faq, token), await documentIdOf(duplicate.id, pages.guide, token)];
    const ownOnly = [await documentIdOf(space.id, pages.guide, token), await documentIdOf(space.id, pages.faq, token, built.open)];
    expect(await documentIdOf(duplicate.id, pages.faq, token)).toBe(shared[0]);
    const all = await documentsOf(space.id);
    expect(all.sort()).toEqual([...shared, ...ownOnly].sort());
    expect(await storedDocuments(all)).toEqual([...all].sort());

    const before = await rowsOf(space.id);
    expect(before.spaces).toBe(1);
    expect(before.revisions).toBeGreaterThanOrEqual(4); // initial, 2 merged edits, the open one's edits
    expect(before.changeRequests).toBe(3);
    expect(before.contributors).toBeGreaterThanOrEqual(4); // owner on all three, the editor on two
    const duplicateRows = await rowsOf(duplicate.id);
    const totalDocuments = await count('select count(*) as n from documents');

    await deleteSpace(space.id, token);
    await setDeletedAt(space.id, 8, now);
    expect(await purgeDeletedSpaces(createDb(env.DB), now)).toBe(1);

    expect(await rowsOf(space.id)).toEqual({ spaces: 0, revisions: 0, changeRequests: 0, contributors: 0 });
    expect(await orphanContributors()).toBe(0);
    expect(await storedDocuments(ownOnly)).toEqual([]);
    expect(await storedDocuments(shared)).toEqual([...shared].sort());
    // The page and file map nodes only the purged space had go too; everything the duplicate names stays.
    expect(await count('select count(*) as n from documents')).toBeLessThan(totalDocuments - ownOnly.length);
    expect(
      await count('select count(*) as n from space_documents sd where sd.space_id = ? and not exists (select 1 from documents d where d.hash = sd.hash)', duplicate.id),
    ).toBe(0);
    // The duplicate is whole and readable.
    expect(await rowsOf(duplicate.id)).toEqual(duplicateRows);
    expect(await pageMarkdown(duplicate.id, pages.guide, token)).toContain(texts.guide1);
    expect(await pageMarkdown(duplicate.id, pages.faq, token)).toContain(texts.faq1);

    // A second run changes nothing more.
    const afterFirst = await snapshot();
    expect(await purgeDeletedSpaces(createDb(env.DB), now)).toBe(0);
    expect(await snapshot()).toEqual(afterFirst);
  });

  it('keeps everything of a space deleted 6 days ago', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const now = Date.now();
    const { space, pages, texts, open } = await buildSpace(org);
    const documents = await documentsOf(space.id);
    expect(documents).toHaveLength(4);
    await deleteSpace(space.id, token);
    await setDeletedAt(space.id, 6, now);
    const before = await rowsOf(space.id);
    const snap = await snapshot();

    expect(await purgeDeletedSpaces(createDb(env.DB), now)).toBe(0);

    expect(await rowsOf(space.id)).toEqual(before);
    expect(await storedDocuments(documents)).toEqual([...documents].sort());
    expect(await snapshot()).toEqual(snap);
    // Restored, its content and change requests are all there.
    const restored = await api('POST', `/v1/spaces/${space.id}/restore`, { token });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(await pageMarkdown(space.id, pages.guide, token)).toContain(texts.guide2);
    expect(await pageMarkdown(space.id, pages.faq, token, open)).toContain(texts.faq2);
  });

  it('removes documents shared only between spaces purged together; keeps those a space deleted recently still names', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const now = Date.now();
    const { space, pages, texts } = await buildSpace(org);
    const copies: any[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await api('POST', `/v1/spaces/${space.id}/duplicate`, { token });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      copies.push(res.body);
    }
    const headDocuments = [await documentIdOf(space.id, pages.guide, token), await documentIdOf(space.id, pages.faq, token)];
    const all = await documentsOf(space.id);
    const notInHead = all.filter((h) => !headDocuments.includes(h));
    expect(notInHead).toHaveLength(2);
    // The original and one copy expire together; the other copy was deleted recently.
    await deleteSpace(space.id, token);
    await setDeletedAt(space.id, 10, now);
    await deleteSpace(copies[0].id, token);
    await setDeletedAt(copies[0].id, 9, now);
    await deleteSpace(copies[1].id, token);
    await setDeletedAt(copies[1].id, 2, now);

    expect(await purgeDeletedSpaces(createDb(env.DB), now)).toBe(2);
    expect(await rowsOf(copies[0].id)).toEqual({ spaces: 0, revisions: 0, changeRequests: 0, contributors: 0 });
    // What the copy's head reads through stays: a head document stored as a delta keeps its base (document-deltas).
    const bases = await basesOf(headDocuments);
    expect(await storedDocuments(notInHead)).toEqual(notInHead.filter((h) => bases.includes(h)).sort());
    expect(await storedDocuments(headDocuments)).toEqual([...headDocuments].sort());
    expect(await pageMarkdown(copies[1].id, pages.guide, token)).toContain(texts.guide2);

    // Once that copy expires too, its documents go.
    // (Spaces of the other tests in this file may expire by then too.)
    expect(await purgeDeletedSpaces(createDb(env.DB), now + 6 * 24 * 60 * 60 * 1000)).toBeGreaterThanOrEqual(1);
    expect(await rowsOf(copies[1].id)).toEqual({ spaces: 0, revisions: 0, changeRequests: 0, contributors: 0 });
    expect(await storedDocuments([...headDocuments, ...bases])).toEqual([]);
    expect(await orphanContributors()).toBe(0);
  });
});
