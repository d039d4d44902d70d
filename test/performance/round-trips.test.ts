import { describe, expect, it } from 'vitest';
import { api, seedOrg } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';
import { PNG_1x1, applyChanges, merge, openChangeRequest } from '../helpers/content';

/**
 * DESIGN.md's budget: the number of D1 round trips is the cost that matters. An authenticated read
 * answers in at most 2, a list page in at most 2 whatever its length, a write in at most 3.
 * Counted, not timed, so a slow machine cannot make these fail.
 */
describe('D1 round trips per request', () => {
  async function fixture() {
    const org = await seedOrg();
    const token = org.owner.token;
    const coll = await api('POST', `/v1/orgs/${org.id}/collections`, { token, body: { title: 'C' } });
    const spaceIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const s = await api('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: `S${i}`, parent: coll.body.id } });
      spaceIds.push(s.body.id);
    }
    await api('POST', `/v1/spaces/${spaceIds[0]}/permissions`, { token, body: { role: 'edit', users: [org.members.read.id] } });
    // Warm the token's last-used stamp so the hourly write does not land in a measurement.
    await api('GET', '/v1/user', { token });
    await api('GET', '/v1/user', { token: org.members.read.token });
    return { org, token, collectionId: coll.body.id, spaceIds };
  }

  it('reads answer in at most 2', async () => {
    const { org, token, collectionId, spaceIds } = await fixture();
    const reads = [
      `/v1/user`,
      `/v1/orgs/${org.id}`,
      `/v1/spaces/${spaceIds[0]}`,
      `/v1/collections/${collectionId}`,
      `/v1/orgs/${org.id}/members/${org.members.read.id}`,
    ];
    for (const path of reads) {
      const r = await measureRoundTrips('GET', path, token);
      expect(r.status, path).toBe(200);
      expect(r.roundTrips, path).toBeLessThanOrEqual(2);
    }
  });

  it('list pages answer in at most 2, whatever their length', async () => {
    const { org, token, collectionId, spaceIds } = await fixture();
    const lists = [
      `/v1/orgs`,
      `/v1/orgs/${org.id}/spaces`,
      `/v1/orgs/${org.id}/collections`,
      `/v1/orgs/${org.id}/members`,
      `/v1/orgs/${org.id}/teams`,
      `/v1/collections/${collectionId}/spaces`,
      `/v1/spaces/${spaceIds[0]}/permissions/users`,
      `/v1/spaces/${spaceIds[0]}/permissions/aggregate`,
    ];
    for (const path of lists) {
      const r = await measureRoundTrips('GET', path, token);
      expect(r.status, path).toBe(200);
      expect(r.roundTrips, path).toBeLessThanOrEqual(2);
    }
  });

  it('writes answer in at most 3', async () => {
    const { org, token, spaceIds, collectionId } = await fixture();
    const target = await api('POST', '/v1/orgs', { token, body: { title: 'Target' } });
    const writes: Array<[string, string, unknown]> = [
      ['POST', `/v1/orgs/${org.id}/spaces`, { title: 'New' }],
      ['PATCH', `/v1/spaces/${spaceIds[1]}`, { title: 'Renamed' }],
      ['PATCH', `/v1/orgs/${org.id}`, { title: 'Renamed org' }],
      ['POST', `/v1/orgs/${org.id}/collections`, { title: 'New C' }],
      ['POST', `/v1/spaces/${spaceIds[2]}/permissions`, { role: 'read', users: [org.members.comment.id] }],
      ['DELETE', `/v1/spaces/${spaceIds[3]}`, undefined],
      ['POST', `/v1/spaces/${spaceIds[3]}/restore`, undefined],
      ['POST', `/v1/spaces/${spaceIds[1]}/move`, { parent: null }],
      ['POST', `/v1/spaces/${spaceIds[1]}/move`, { parent: collectionId }],
      ['POST', `/v1/spaces/${spaceIds[4]}/transfer`, { organization: target.body.id }],
    ];
    for (const [method, path, body] of writes) {
      const r = await measureRoundTrips(method, path, token, body);
      expect(r.status, `${method} ${path}`).toBeLessThan(300);
      expect(r.roundTrips, `${method} ${path}`).toBeLessThanOrEqual(3);
    }
  });

  it('content and change request reads answer in at most 2, writes in at most 3', async () => {
    const { org, token, spaceIds } = await fixture();
    const spaceId = spaceIds[0];
    const cr = await openChangeRequest(spaceId, token);
    const batch = await applyChanges(spaceId, cr.id, token, [
      { operation: 'insert_files', files: [{ ref: 'a.png', name: 'a.png', contentType: 'image/png', base64: PNG_1x1 }] },
      { operation: 'insert_page', title: 'One', document: { markdown: 'Hello ![a](./a.png)' } },
      { operation: 'insert_page', title: 'Two', document: { markdown: 'World' } },
    ]);
    const pageId = batch.changes[0].page.id;
    const fileId = batch.insertedFiles[0].id;
    const crBase = `/v1/spaces/${spaceId}/change-requests/${cr.number}`;
    const reads = [
      `${crBase}`,
      `${crBase}/content`,
      `${crBase}/content/pages`,
      `${crBase}/content/files`,
      `${crBase}/content/files/${fileId}`,
      `${crBase}/content/page/${pageId}?format=markdown`,
      `/v1/spaces/${spaceId}/change-requests?status=open`,
      `/v1/orgs/${org.id}/change-requests`,
      `/v1/spaces/${spaceId}/content`,
      `/v1/spaces/${spaceId}/content/pages`,
    ];
    for (const path of reads) {
      const r = await measureRoundTrips('GET', path, token);
      expect(r.status, path).toBe(200);
      expect(r.roundTrips, path).toBeLessThanOrEqual(2);
    }
    const create = await measureRoundTrips('POST', `/v1/spaces/${spaceId}/change-requests`, token, { subject: 'x' });
    expect(create.status).toBe(201);
    expect(create.roundTrips).toBeLessThanOrEqual(3);
    const patch = await measureRoundTrips('PATCH', `${crBase}`, token, { subject: 'y' });
    expect(patch.status).toBe(200);
    expect(patch.roundTrips).toBeLessThanOrEqual(3);
  });
});

describe('D1 round trips of comments and reviews', () => {
  it('a comment list page (reactions, replies, repliers) answers in at most 2 whatever its length; posts and updates in at most 3', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await api('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'Talk' } });
    const spaceId = space.body.id;
    const first = await openChangeRequest(spaceId, org.members.edit.token);
    const batch = await applyChanges(spaceId, first.id, org.members.edit.token, [{ operation: 'insert_page', title: 'One', document: { markdown: 'Hello' } }]);
    const pageId = batch.changes[0].page.id;
    await merge(spaceId, first.id, token);
    const cr = await openChangeRequest(spaceId, org.members.edit.token);
    await api('GET', '/v1/user', { token });
    for (const base of [`/v1/spaces/${spaceId}`, `/v1/spaces/${spaceId}/change-requests/${cr.number}`]) {
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) {
        const c = await api('POST', `${base}/comments`, { token, body: { page: pageId, body: { markdown: `c${i}` } } });
        ids.push(c.body.id);
        await api('POST', `${base}/comments/${c.body.id}/replies`, { token: org.members.comment.token, body: { body: { markdown: 'r' } } });
        await api('PUT', `${base}/comments/${c.body.id}`, { token: org.members.comment.token, body: { addedReactions: ['👍', '🎉'] } });
      }
      await api('GET', '/v1/user', { token: org.members.comment.token });
      for (const path of [`${base}/comments`, `${base}/comments?limit=3&status=open&format=markdown`, `${base}/comments/${ids[0]}`, `${base}/comments/${ids[0]}/replies`, `${base}/commenters`]) {
        const r = await measureRoundTrips('GET', path, token);
        expect(r.status, path).toBe(200);
        expect(r.roundTrips, path).toBeLessThanOrEqual(2);
      }
      const writes: Array<[string, string, unknown]> = [
        ['POST', `${base}/comments`, { page: pageId, node: 'k1', body: { markdown: 'on a block' } }],
        ['PUT', `${base}/comments/${ids[1]}`, { resolved: true, addedReactions: ['✅'], removedReactions: ['👍'], body: { markdown: 'edited' } }],
        ['POST', `${base}/comments/${ids[1]}/replies`, { body: { markdown: 'reply' } }],
        ['DELETE', `${base}/comments/${ids[2]}`, undefined],
      ];
      for (const [method, path, body] of writes) {
        const r = await measureRoundTrips(method, path, token, body);
        expect(r.status, `${method} ${path}`).toBeLessThan(300);
        expect(r.roundTrips, `${method} ${path}`).toBeLessThanOrEqual(3);
      }
    }
    const crBase = `/v1/spaces/${spaceId}/change-requests/${cr.number}`;
    const review = await measureRoundTrips('POST', `${crBase}/reviews`, token, { status: 'approved', comment: { markdown: 'ok' } });
    expect(review.status).toBe(201);
    expect(review.roundTrips).toBeLessThanOrEqual(3);
    const ask = await measureRoundTrips('POST', `${crBase}/requested-reviewers`, org.members.edit.token, { users: [org.members.review.id, org.members.create.id] });
    expect(ask.status).toBe(200);
    expect(ask.roundTrips).toBeLessThanOrEqual(3);
    for (const path of [`${crBase}/reviews`, `${crBase}/reviews/${(review.body as { id: string }).id}`, `${crBase}/requested-reviewers`]) {
      const r = await measureRoundTrips('GET', path, token);
      expect(r.status, path).toBe(200);
      expect(r.roundTrips, path).toBeLessThanOrEqual(2);
    }
  });
});

describe('D1 round trips of search and links', () => {
  it('a search of a space or an organization, and a page of links with its stats, answer in at most 3', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const spaceId = (await api('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'Indexed' } })).body.id;
    const cr = await openChangeRequest(spaceId, token);
    const changes = Array.from({ length: 30 }, (_, i) => ({
      operation: 'insert_page',
      title: `Topic ${i}`,
      document: { markdown: `Shared words about topic ${i}.\n\n## Details\n\nSee [a site](https://example.com/${i}) and [the first topic](/pages/topic-0).\n` },
    }));
    const batch = await applyChanges(spaceId, cr.id, token, changes);
    await merge(spaceId, cr.id, token);
    const pageId = batch.changes[3].page.id;
    await api('GET', '/v1/user', { token });
    const reads = [
      `/v1/spaces/${spaceId}/search?query=shared%20words`,
      `/v1/orgs/${org.id}/search?query=topic`,
      `/v1/spaces/${spaceId}/links`,
      `/v1/spaces/${spaceId}/links?status=ok&limit=5`,
      `/v1/spaces/${spaceId}/content/page/${pageId}/links`,
      `/v1/spaces/${spaceId}/content/page/${batch.changes[0].page.id}/backlinks`,
    ];
    for (const path of reads) {
      const r = await measureRoundTrips('GET', path, token);
      expect(r.status, path).toBe(200);
      expect(r.roundTrips, path).toBeLessThanOrEqual(3);
    }
  });
});

describe('D1 round trips of docs sites', () => {
  it('a site of 20 sections and 100 site spaces: its published view in at most 3 for a visitor, member reads in at most 2, changes in at most 3', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const spaceIds: string[] = [];
    for (let i = 0; i < 5; i++) spaceIds.push((await api('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: `Space ${i}` } })).body.id);
    const base = `/v1/orgs/${org.id}/sites`;
    const site = (await api('POST', base, { token, body: { title: 'Big site' } })).body;
    const sitePath = `${base}/${site.id}`;
    const sections: string[] = [];
    for (let i = 0; i < 20; i++) {
      const section = await api('POST', `${sitePath}/sections`, { token, body: { spaceId: spaceIds[i % 5], title: `Section ${i}` } });
      expect(section.status, JSON.stringify(section.body)).toBe(201);
      sections.push(section.body.id);
      for (let j = 1; j < 5; j++) {
        const added = await api('POST', `${sitePath}/site-spaces`, { token, body: { spaceId: spaceIds[j], sectionId: section.body.id } });
        expect(added.status, JSON.stringify(added.body)).toBe(201);
      }
    }
    await api('POST', `${sitePath}/section-groups`, { token, body: { title: 'Group', sections: sections.slice(0, 5) } });
    await api('PATCH', `${sitePath}/sections/${sections[3]}`, { token, body: { condition: 'visitor.claims.beta == true' } });
    expect((await api('POST', `${sitePath}/publish`, { token })).status).toBe(200);
    await api('GET', '/v1/user', { token });

    const visitorView = await measureRoundTrips('GET', `${sitePath}/published`, null);
    expect(visitorView.status).toBe(200);
    expect((visitorView.body as any).structure.structure).toHaveLength(16);
    expect(visitorView.roundTrips).toBeLessThanOrEqual(3);
    for (const path of [`${sitePath}/published`, sitePath, `${sitePath}/structure`, `${sitePath}/sections`, `${sitePath}/site-spaces`, `${sitePath}/section-groups`, `${sitePath}/customization`, base]) {
      const r = await measureRoundTrips('GET', path, token);
      expect(r.status, path).toBe(200);
      expect(r.roundTrips, path).toBeLessThanOrEqual(2);
    }
    expect(((await measureRoundTrips("GET", `${sitePath}/site-spaces`, token)).body as any).count).toBe(100);
    const writes: Array<[string, string, unknown]> = [
      ['PATCH', sitePath, { title: 'Bigger site' }],
      ['POST', `${sitePath}/sections`, { spaceId: spaceIds[0], title: 'One more' }],
      ['POST', `${sitePath}/sections/${sections[7]}/move`, { position: { before: { type: 'site-section', siteSection: sections[6] } } }],
      ['PUT', `${sitePath}/customization`, { header: { links: [{ title: 'Home', to: { kind: 'space', space: spaceIds[0] } }] } }],
      ['DELETE', `${sitePath}/sections/${sections[19]}`, undefined],
    ];
    for (const [method, path, body] of writes) {
      const r = await measureRoundTrips(method, path, token, body);
      expect(r.status, `${method} ${path} ${JSON.stringify(r.body)}`).toBeLessThan(300);
      expect(r.roundTrips, `${method} ${path}`).toBeLessThanOrEqual(3);
    }
  });
});
