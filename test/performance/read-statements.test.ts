import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { countingD1, requestWithBindings } from '../helpers/round-trips';
import { openChangeRequest } from '../helpers/content';
import { publishedSite, spaceWithPages } from '../site/helpers';

/**
 * Issue 42's warm single-object reads, counted in D1 statements (each is a few SQLite calls of local D1's Durable
 * Object under Miniflare, and work for D1 on Cloudflare): with the caller's token known to the isolate, each runs in
 * one round trip, and the space and change request reads in one statement where they ran two (the space with the
 * caller's role, then its placement on a site or the change request). Counted, not timed.
 */
async function countStatements(path: string, token: string) {
  const counter = countingD1(env.DB);
  const { status, body } = await requestWithBindings('GET', path, token, undefined, { DB: counter.db });
  return { status, body: body as any, roundTrips: counter.count, statements: counter.statements };
}

describe('D1 statements of warm single-object reads', () => {
  async function fixture() {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await spaceWithPages(org, 'Read', [{ operation: 'insert_page', title: 'Leaf', document: { markdown: 'Hello' } }]);
    const site = await publishedSite(org, [space.id]);
    const cr = await openChangeRequest(space.id, token, 'Open');
    // The tokens' identities known to the isolate, and their hourly last-used stamps written, before any count.
    for (const t of [token, org.members.read.token, org.members.guest.token, org.outsider.token]) await api('GET', '/v1/user', { token: t });
    return { org, token, space, site, cr };
  }

  it('the user, a space with its published URL and a change request each run one statement', async () => {
    const { token, space, cr } = await fixture();
    const user = await countStatements('/v1/user', token);
    expect([user.status, user.roundTrips, user.statements]).toEqual([200, 1, 1]);

    const read = await countStatements(`/v1/spaces/${space.id}`, token);
    expect([read.status, read.roundTrips, read.statements]).toEqual([200, 1, 1]);
    expect(read.body.id).toBe(space.id);
    expect(read.body.urls.published).toMatch(/^https?:\/\//);

    for (const id of [String(cr.number), cr.id]) {
      const got = await countStatements(`/v1/spaces/${space.id}/change-requests/${id}`, token);
      expect([got.status, got.roundTrips, got.statements], id).toEqual([200, 1, 1]);
      expect(got.body).toMatchObject({ id: cr.id, number: cr.number, subject: 'Open', createdBy: { id: expect.any(String) } });
    }
  });

  it('page reads (as a document and as Markdown) each run one statement, the change request list one round trip', async () => {
    const { token, space, cr } = await fixture();
    const page = space.pages.Leaf;
    const document = await countStatements(`/v1/spaces/${space.id}/content/page/${page}`, token);
    expect([document.status, document.roundTrips, document.statements]).toEqual([200, 1, 1]);
    expect(document.body).toMatchObject({ id: page, title: 'Leaf', document: { object: 'document' } });
    const markdown = await countStatements(`/v1/spaces/${space.id}/content/page/${page}?format=markdown`, token);
    expect([markdown.status, markdown.roundTrips, markdown.statements]).toEqual([200, 1, 1]);
    expect(markdown.body).toMatchObject({ id: page, markdown: expect.stringContaining('Hello') });
    const list = await countStatements(`/v1/spaces/${space.id}/change-requests`, token);
    // Two statements (the space with the caller's rank, the list): one statement measured slower (Handbook, Benchmark).
    expect([list.status, list.roundTrips, list.statements]).toEqual([200, 1, 2]);
    expect(list.body.items.map((item: { id: string }) => item.id)).toEqual([cr.id]);
  });

  it('a space without change requests lists none, and a page of another space is not found in one statement', async () => {
    const { org, token, space } = await fixture();
    const empty = expectStatus(await api('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'Empty' } }), 201).body;
    const list = await countStatements(`/v1/spaces/${empty.id}/change-requests`, token);
    expect([list.status, list.roundTrips, list.body.items, list.body.count]).toEqual([200, 1, [], 0]);
    const page = await countStatements(`/v1/spaces/${empty.id}/content/page/${space.pages.Leaf}`, token);
    expect([page.status, page.statements, page.body.error.message]).toEqual([404, 1, 'Page not found']);
  });

  it('answers others as before: another tenant and a guest get the space 404 before the change request 404, a reader the change request 404', async () => {
    const { org, space, cr } = await fixture();
    const other = await seedOrg();
    const otherSpace = expectStatus(await api('POST', `/v1/orgs/${other.id}/spaces`, { token: other.owner.token, body: { title: 'Theirs' } }), 201).body;
    const cases: Array<[string, string, number, string]> = [
      // Another organization's admin: the space does not exist for them, whether the change request does or not.
      [other.owner.token, `/v1/spaces/${space.id}`, 404, 'Space not found'],
      [other.owner.token, `/v1/spaces/${space.id}/change-requests/${cr.number}`, 404, 'Space not found'],
      [other.owner.token, `/v1/spaces/${space.id}/change-requests/999`, 404, 'Space not found'],
      [org.outsider.token, `/v1/spaces/${space.id}/change-requests/${cr.id}`, 404, 'Space not found'],
      // A guest of the organization, without a grant on the space, sees neither.
      [org.members.guest.token, `/v1/spaces/${space.id}`, 404, 'Space not found'],
      [org.members.guest.token, `/v1/spaces/${space.id}/change-requests/999`, 404, 'Space not found'],
      // Our admin on the other organization's space.
      [org.owner.token, `/v1/spaces/${otherSpace.id}`, 404, 'Space not found'],
      [org.owner.token, `/v1/spaces/${otherSpace.id}/change-requests/1`, 404, 'Space not found'],
      // A reader sees the space: an unknown change request of it is the change request's 404.
      [org.members.read.token, `/v1/spaces/${space.id}/change-requests/999`, 404, 'Change request not found'],
      [org.members.read.token, `/v1/spaces/${space.id}/change-requests/${'x'.repeat(20)}`, 404, 'Change request not found'],
      // Another space's change request, by number and by id, is not this space's.
      [org.owner.token, `/v1/spaces/${otherSpace.id}/change-requests/${cr.id}`, 404, 'Space not found'],
      // Page reads and the change request list: the space's 404 before the page's, for whoever cannot read the space.
      [other.owner.token, `/v1/spaces/${space.id}/content/page/${space.pages.Leaf}`, 404, 'Space not found'],
      [other.owner.token, `/v1/spaces/${space.id}/content/page/${space.pages.Leaf}?format=markdown`, 404, 'Space not found'],
      [other.owner.token, `/v1/spaces/${space.id}/content/page/unknown`, 404, 'Space not found'],
      [org.members.guest.token, `/v1/spaces/${space.id}/content/page/${space.pages.Leaf}`, 404, 'Space not found'],
      [org.outsider.token, `/v1/spaces/${space.id}/content/page/${space.pages.Leaf}?format=markdown`, 404, 'Space not found'],
      [other.owner.token, `/v1/spaces/${space.id}/change-requests`, 404, 'Space not found'],
      [org.members.guest.token, `/v1/spaces/${space.id}/change-requests`, 404, 'Space not found'],
      [org.owner.token, `/v1/spaces/${'x'.repeat(20)}/content/page/${space.pages.Leaf}`, 404, 'Space not found'],
      [org.owner.token, `/v1/spaces/${'x'.repeat(20)}/change-requests`, 404, 'Space not found'],
      // A reader sees the space: an unknown page of it is the page's 404.
      [org.members.read.token, `/v1/spaces/${space.id}/content/page/unknown`, 404, 'Page not found'],
      [org.members.read.token, `/v1/spaces/${space.id}/content/page/unknown?format=markdown`, 404, 'Page not found'],
    ];
    for (const [token, path, status, message] of cases) {
      const got = await countStatements(path, token);
      expect([got.status, got.body?.error?.message], path).toEqual([status, message]);
    }
    const reader = await countStatements(`/v1/spaces/${space.id}/change-requests/${cr.number}`, org.members.read.token);
    expect([reader.status, reader.body.id]).toEqual([200, cr.id]);
    const readerPage = await countStatements(`/v1/spaces/${space.id}/content/page/${space.pages.Leaf}`, org.members.read.token);
    expect([readerPage.status, readerPage.body.id]).toEqual([200, space.pages.Leaf]);
    const readerList = await countStatements(`/v1/spaces/${space.id}/change-requests`, org.members.read.token);
    expect([readerList.status, readerList.body.items.length]).toEqual([200, 1]);
  });

  it("a change request read by id finds only this space's change request", async () => {
    const { org, token, space, cr } = await fixture();
    const second = expectStatus(await api('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'Second' } }), 201).body;
    const got = await countStatements(`/v1/spaces/${second.id}/change-requests/${cr.id}`, token);
    expect([got.status, got.body?.error?.message]).toEqual([404, 'Change request not found']);
    expect((await countStatements(`/v1/spaces/${space.id}/change-requests/${cr.id}`, token)).status).toBe(200);
  });
});
