/**
 * Grouped roots (issue 42, storage; services/content/tree.ts): a page or file map's root names 8 chunks instead of
 * 62 middle nodes, so that an edit rewrites a small root. Maps written before (every database made by earlier code)
 * are not converted by a migration: every reader takes both forms, and the first write to an old map regroups it.
 * The test makes a space, rewrites its maps into the old form (what earlier code wrote: the root names the middle
 * nodes by first character), and reads, searches, edits, merges, duplicates and collects it through the API.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { collectSpaceHistory, HISTORY_RETENTION_DAYS } from '../../src/services/content/history';
import { storeNode } from '../../src/services/content/tree';
import { DAY_MS } from '../../src/lib/time';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, seedOrg, type TestOrg } from '../helpers/harness';

let org: TestOrg;
let token: string;

beforeAll(async () => {
  org = await seedOrg();
  token = org.owner.token;
});

const body = async (hash: string) => JSON.parse((await env.DB.prepare('select body from documents where hash = ?').bind(hash).first<string>('body'))!) as Record<string, string>;
const isGrouped = (root: Record<string, string>) => Object.keys(root).every((k) => /^~[0-7]$/.test(k));

/** Rewrites a map's grouped root into the form earlier code wrote: one root naming every middle node. */
async function ungroup(spaceId: string, root: string): Promise<string> {
  const grouped = await body(root);
  expect(isGrouped(grouped)).toBe(true);
  const mids: Record<string, string> = {};
  for (const chunk of Object.values(grouped)) Object.assign(mids, await body(chunk));
  const node = await storeNode(mids);
  await env.DB.batch([
    env.DB.prepare('insert or ignore into documents (hash, body, created_at) values (?, ?, ?)').bind(node.hash, node.body, new Date().toISOString()),
    env.DB.prepare('insert or ignore into space_documents (space_id, hash) values (?, ?)').bind(spaceId, node.hash),
  ]);
  return node.hash;
}

/** A space of `count` pages whose current revision's page map has an old (ungrouped) root. */
async function spaceWithOldRoot(count: number) {
  const space = await createSpace(org.id, token, 'Old roots');
  const marker = `oldroot${Math.random().toString(36).slice(2, 8)}`;
  const cr = await openChangeRequest(space.id, token, 'Pages');
  const applied = await applyChanges(
    space.id,
    cr.number,
    token,
    Array.from({ length: count }, (_, i) => ({ operation: 'insert_page', title: `Page ${i}`, document: { markdown: `Body ${i} ${marker}${i}` } })),
  );
  expect((await merge(space.id, cr.number, token)).status).toBe(200);
  const ids = applied.changes.map((c: { page: { id: string } }) => c.page.id) as string[];
  const revision = (await env.DB.prepare('select revision_id from spaces where id = ?').bind(space.id).first<string>('revision_id'))!;
  const pagesRoot = (await env.DB.prepare('select pages_root from revisions where id = ?').bind(revision).first<string>('pages_root'))!;
  const oldRoot = await ungroup(space.id, pagesRoot);
  await env.DB.prepare('update revisions set pages_root = ? where id = ?').bind(oldRoot, revision).run();
  expect(Object.keys(await body(oldRoot)).every((k) => k.length === 1)).toBe(true);
  return { space, ids, marker, revision, oldRoot };
}

describe('grouped roots: maps written before them', () => {
  it('reads an old map in every form: the page list, a page by id and by path, its Markdown, search', async () => {
    const { space, ids, marker } = await spaceWithOldRoot(40);
    const list = await api('GET', `/v1/spaces/${space.id}/content/pages`, { token });
    expect(list.status).toBe(200);
    expect(list.body.pages.map((p: { id: string }) => p.id)).toEqual(ids);
    for (const i of [0, 17, 39]) {
      const page = await api('GET', `/v1/spaces/${space.id}/content/page/${ids[i]}`, { token });
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      expect(page.body.title).toBe(`Page ${i}`);
      expect(await pageMarkdown(space.id, ids[i], token)).toContain(`${marker}${i}`);
      const byPath = await api('GET', `/v1/spaces/${space.id}/content/path/${page.body.path}`, { token });
      expect(byPath.body.id).toBe(ids[i]);
    }
    const found = await api('GET', `/v1/spaces/${space.id}/search?query=${marker}17`, { token });
    expect(found.status).toBe(200);
    expect(found.body.items.map((item: { title: string }) => item.title)).toEqual(['Page 17']);
  });

  it('regroups an old map on its first write; the change request diff, the merge and the search index follow', async () => {
    const { space, ids, marker, oldRoot } = await spaceWithOldRoot(30);
    const cr = await openChangeRequest(space.id, token, 'Edit');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: ids[5], document: { markdown: `Changed ${marker}new` } }]);
    const changes = await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/changes`, { token });
    expect(changes.status, JSON.stringify(changes.body)).toBe(200);
    // The old root against the regrouped one: only the edited page differs.
    const text = JSON.stringify(changes.body);
    expect(text).toContain(ids[5]);
    expect(ids.filter((id) => id !== ids[5] && text.includes(id))).toEqual([]);
    expect((await merge(space.id, cr.number, token)).status).toBe(200);
    const revision = (await env.DB.prepare('select revision_id from spaces where id = ?').bind(space.id).first<string>('revision_id'))!;
    const root = (await env.DB.prepare('select pages_root from revisions where id = ?').bind(revision).first<string>('pages_root'))!;
    expect(root).not.toBe(oldRoot);
    expect(isGrouped(await body(root))).toBe(true);
    expect(await pageMarkdown(space.id, ids[5], token)).toContain(`${marker}new`);
    expect(await pageMarkdown(space.id, ids[6], token)).toContain(`${marker}6`);
    const found = await api('GET', `/v1/spaces/${space.id}/search?query=${marker}new`, { token });
    expect(found.body.items.map((item: { title: string }) => item.title)).toEqual(['Page 5']);
    // A second edit of the regrouped map writes one chunk and a root of at most 8 names.
    const second = await openChangeRequest(space.id, token, 'Again');
    await applyChanges(space.id, second.number, token, [{ operation: 'update_page', page: ids[7], title: 'Seven' }]);
    expect((await merge(space.id, second.number, token)).status).toBe(200);
    const list = await api('GET', `/v1/spaces/${space.id}/content/pages`, { token });
    expect(list.body.pages.map((p: { title: string }) => p.title)).toEqual(ids.map((_, i) => (i === 7 ? 'Seven' : `Page ${i}`)));
  });

  it('keeps every chunk and node of old and new maps through history collection and duplication', async () => {
    const { space, ids, marker } = await spaceWithOldRoot(20);
    for (const n of [1, 2]) {
      const cr = await openChangeRequest(space.id, token, `Edit ${n}`);
      await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: ids[n], document: { markdown: `Edit ${n} ${marker}` } }]);
      expect((await merge(space.id, cr.number, token)).status).toBe(200);
    }
    const duplicate = await api('POST', `/v1/spaces/${space.id}/duplicate`, { token });
    expect(duplicate.status, JSON.stringify(duplicate.body)).toBeLessThan(300);
    const later = Date.now() + (HISTORY_RETENTION_DAYS + 2) * DAY_MS;
    const db = createDb(env.DB);
    for (const id of [space.id, duplicate.body.id]) {
      const collected = await collectSpaceHistory(db, id, later);
      expect(collected).toBeDefined();
      const list = await api('GET', `/v1/spaces/${id}/content/pages`, { token });
      expect(list.status).toBe(200);
      expect(list.body.pages).toHaveLength(20);
      for (const i of [1, 2, 13]) {
        expect(await pageMarkdown(id, ids[i], token)).toContain(i <= 2 ? `Edit ${i} ${marker}` : `${marker}${i}`);
      }
    }
  });
});
