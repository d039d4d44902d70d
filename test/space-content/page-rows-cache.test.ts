/**
 * A warm page read from the rows this isolate holds for the page's revision (services/content/page-rows-cache, issue 42
 * item 6): it sends the space's statement alone (the caller's rank and the revision's header), never the page's walk,
 * and answers what a read in full answers; after an edit, a removed member, another tenant, a deleted page or a
 * token the isolate does not know yet, each caller gets what they got before the cache, within two round trips.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { forgetToken } from '../../src/middleware/identity-cache';
import { clearHeldPageRows } from '../../src/services/content/page-rows-cache';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, createUser, addMember, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { countingD1, requestWithBindings } from '../helpers/round-trips';

/** The page statement's walk (reads.ts pageTreeWalkSql): only a read in full sends it. */
const WALK = 'tree(kind, id, rec, n)';

async function read(path: string, token: string) {
  const counter = countingD1(env.DB);
  const { status, body } = await requestWithBindings('GET', path, token, undefined, { DB: counter.db });
  return { status, body: body as any, roundTrips: counter.count, walked: counter.texts.some((text) => text.includes(WALK)) };
}

async function edit(spaceId: string, token: string, changes: unknown[]) {
  const cr = await openChangeRequest(spaceId, token);
  const applied = await applyChanges(spaceId, cr.number, token, changes);
  expectStatus(await merge(spaceId, cr.number, token), 200);
  return applied;
}

describe('warm page reads from held rows', () => {
  let org: TestOrg;
  let owner: string;
  let spaceId: string;
  let parent: string;
  let child: string;
  const pagePath = (page = parent, query = '') => `/v1/spaces/${spaceId}/content/page/${page}${query}`;

  beforeAll(async () => {
    org = await seedOrg();
    owner = org.owner.token;
    spaceId = (await createSpace(org.id, owner, 'Held')).id;
    const applied = await edit(spaceId, owner, [{ operation: 'insert_page', title: 'Parent', document: { markdown: 'Parent text' } }]);
    parent = applied.changes[0].page.id;
    const under = await edit(spaceId, owner, [{ operation: 'insert_page', into: parent, title: 'Child', document: { markdown: 'Child text' } }]);
    child = under.changes[0].page.id;
    // The tokens' identities known to the isolate before any count.
    for (const member of [org.owner, org.members.read, org.members.guest, org.outsider]) await api('GET', '/v1/user', { token: member.token });
  });

  it('sends the space statement alone once the rows are held, and answers as a read in full', async () => {
    clearHeldPageRows();
    const full = await read(pagePath(), owner);
    expect([full.status, full.roundTrips, full.walked]).toEqual([200, 1, true]);
    // A page read as Markdown reads the same rows (the subpages' Markdown comes with every page read).
    const fullMarkdown = await api('GET', pagePath(parent, '?format=markdown'), { token: owner });
    clearHeldPageRows();
    expect((await read(pagePath(), owner)).walked).toBe(true);
    for (const [query, answer] of [['', full.body], ['?format=markdown', expectStatus(fullMarkdown, 200).body]]) {
      const warm = await read(pagePath(parent, query), owner);
      expect([warm.status, warm.roundTrips, warm.walked], query).toEqual([200, 1, false]);
      expect(warm.body, query).toEqual(answer);
    }
    expect(full.body.document).toBeDefined();
    const warm = await read(pagePath(), owner);
    expect(warm.body.pages.map((p: { id: string }) => p.id)).toEqual([child]);
    expect(JSON.stringify(warm.body.document)).toContain('Parent text');
  });

  it("answers the page's new title, document and subpages after an edit (the revision moved on), in two round trips", async () => {
    clearHeldPageRows();
    expect((await read(pagePath(), owner)).walked).toBe(true);
    await edit(spaceId, owner, [
      { operation: 'update_page', page: parent, title: 'Parent renamed', document: { markdown: 'New parent text' } },
      { operation: 'insert_page', into: parent, title: 'Second child', document: {} },
    ]);
    const after = await read(pagePath(), owner);
    expect([after.status, after.roundTrips, after.walked]).toEqual([200, 2, true]);
    expect(after.body.title).toBe('Parent renamed');
    expect(JSON.stringify(after.body.document)).toContain('New parent text');
    expect(after.body.pages.map((p: { title: string }) => p.title)).toEqual(['Child', 'Second child']);
    // The new revision's rows are held now.
    const warm = await read(pagePath(), owner);
    expect([warm.roundTrips, warm.walked, warm.body]).toEqual([1, false, after.body]);
  });

  it('answers a deleted page as not found, though its rows of the revision before are held', async () => {
    clearHeldPageRows();
    expectStatus(await api('GET', pagePath(child), { token: owner }), 200);
    expect((await read(pagePath(child), owner)).walked).toBe(false);
    await edit(spaceId, owner, [{ operation: 'delete_page', page: child }]);
    const gone = await read(pagePath(child), owner);
    expect([gone.status, gone.body.error.message, gone.roundTrips]).toEqual([404, 'Page not found', 2]);
  });

  it('refuses another tenant, a guest and a removed member, whatever is held', async () => {
    const reader = org.members.read;
    expect((await read(pagePath(), reader.token)).status).toBe(200);
    const held = await read(pagePath(), reader.token);
    expect([held.status, held.walked]).toEqual([200, false]);
    for (const token of [org.outsider.token, org.members.guest.token]) {
      const refused = await read(pagePath(), token);
      expect([refused.status, refused.body.error.message, refused.walked]).toEqual([404, 'Space not found', false]);
    }
    expectStatus(await api('DELETE', `/v1/orgs/${org.id}/members/${reader.id}`, { token: owner }), 204);
    const removed = await read(pagePath(), reader.token);
    expect([removed.status, removed.body.error.message]).toEqual([404, 'Space not found']);
  });

  it('reads in full when the token cost a round trip already: two at most, even when the revision moved on', async () => {
    expect((await read(pagePath(), owner)).walked).toBe(false);
    await edit(spaceId, owner, [{ operation: 'update_page', page: parent, title: 'Parent again' }]);
    // A member whose token this isolate has not looked up (its hourly last-used stamp written, which is a round trip too).
    const newcomer = await createUser();
    await addMember(org.id, newcomer.id, 'read');
    expectStatus(await api('GET', '/v1/user', { token: newcomer.token }), 200);
    const tokenId = await env.DB.prepare('select id from api_tokens where user_id = ?').bind(newcomer.id).first<string>('id');
    forgetToken(tokenId!);
    const first = await read(pagePath(), newcomer.token);
    expect([first.status, first.body.title, first.roundTrips, first.walked]).toEqual([200, 'Parent again', 2, true]);
  });
});
