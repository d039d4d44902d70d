import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createDb, runBatch, type BatchItem } from '../../src/db/client';
import { newSpaceStatements } from '../../src/services/spaces/spaces';
import { createSpace } from '../helpers/content';
import { shareKeyOf } from '../site/helpers';
import { api, expectError, expectStatus, seedOrg } from '../helpers/harness';

/**
 * `count` spaces of `orgId`, written as the create-space route writes them (services/spaces `newSpaceStatements`:
 * the space, its empty revision, its access cap and index state) in one batch: the test below is about sites, and
 * creating its 150 spaces through the route, one request each, was most of its time.
 */
async function seedSpaces(orgId: string, count: number): Promise<string[]> {
  const db = createDb(env.DB);
  const created = Array.from({ length: count }, (_, i) => newSpaceStatements(db, { orgId, parentId: null, title: `Space ${i}`, position: i }));
  await runBatch(db, created.flatMap((space) => space.statements as BatchItem[]));
  return created.map((space) => space.id);
}

/** Spaces seen from sites: deleting or moving a space out of the organization, and reading it through a site. */
describe('spaces in sites', () => {
  async function siteWith(title: string, visibility = 'public') {
    const org = await seedOrg();
    const token = org.owner.token;
    const a = await createSpace(org.id, token, 'Alpha');
    const b = await createSpace(org.id, token, 'Beta');
    const base = `/v1/orgs/${org.id}/sites`;
    const site = expectStatus(await api('POST', base, { token, body: { title, visibility, spaces: [a.id, b.id] } }), 201).body;
    return { org, token, a, b, path: `${base}/${site.id}` };
  }

  it('deleting a space removes its site spaces, a new default takes over, and restoring it does not bring them back', async () => {
    const { token, a, b, path } = await siteWith('Deletions');
    const before = expectStatus(await api('GET', `${path}/site-spaces`, { token }), 200).body.items;
    expect(before.map((s: any) => [s.space.id, s.default])).toEqual([
      [a.id, true],
      [b.id, false],
    ]);
    expectStatus(await api('DELETE', `/v1/spaces/${a.id}`, { token }), 204);
    const after = expectStatus(await api('GET', `${path}/site-spaces`, { token }), 200).body;
    expect(after.items.map((s: any) => [s.space.id, s.default])).toEqual([[b.id, true]]);
    expect(expectStatus(await api('GET', path, { token }), 200).body.siteSpaces).toBe(1);
    expectStatus(await api('POST', `/v1/spaces/${a.id}/restore`, { token }), 200);
    expect(expectStatus(await api('GET', `${path}/site-spaces`, { token }), 200).body.count).toBe(1);
  });

  it('trashing a collection takes its spaces out of sites; a site only takes live spaces of its organization', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const collection = expectStatus(await api('POST', `/v1/orgs/${org.id}/collections`, { token, body: { title: 'Box' } }), 201).body;
    const inside = expectStatus(await api('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'Inside', parent: collection.id } }), 201).body;
    const outside = await createSpace(org.id, token, 'Outside');
    const base = `/v1/orgs/${org.id}/sites`;
    const site = expectStatus(await api('POST', base, { token, body: { title: 'Boxes', spaces: [inside.id, outside.id] } }), 201).body;
    expectStatus(await api('DELETE', `/v1/collections/${collection.id}`, { token }), 204);
    const items = expectStatus(await api('GET', `${base}/${site.id}/site-spaces`, { token }), 200).body.items;
    expect(items.map((s: any) => [s.space.id, s.default])).toEqual([[outside.id, true]]);
    expectError(await api('POST', `${base}/${site.id}/site-spaces`, { token, body: { spaceId: inside.id } }), 400, 'spaceId');
    const foreign = await createSpace(expectStatus(await api('POST', '/v1/orgs', { token: org.outsider.token, body: { title: 'Other' } }), 201).body.id, org.outsider.token);
    expectError(await api('POST', `${base}/${site.id}/site-spaces`, { token, body: { spaceId: foreign.id } }), 400, 'spaceId');
  });

  it('transferring a space to another organization takes it out of the sites of the first', async () => {
    const { org, token, a, b, path } = await siteWith('Transfers');
    const target = expectStatus(await api('POST', '/v1/orgs', { token, body: { title: 'Target' } }), 201).body;
    expectStatus(await api('POST', `/v1/spaces/${a.id}/transfer`, { token, body: { organization: target.id } }), 200);
    const items = expectStatus(await api('GET', `${path}/site-spaces`, { token }), 200).body.items;
    expect(items.map((s: any) => s.space.id)).toEqual([b.id]);
    expect(org.id).not.toBe(target.id);
  });

  it('getSpaceById fills urls.published once a site publishes the space, and visitors read it only through a site they may open', async () => {
    const { token, a, b, path } = await siteWith('Sharing', 'share-link');
    expect(expectStatus(await api('GET', `/v1/spaces/${a.id}`, { token }), 200).body.urls.published).toBeUndefined();
    expectStatus(await api('POST', `${path}/publish`, { token }), 200);
    const link = expectStatus(await api('POST', `${path}/share-links`, { token, body: { name: 'Friends' } }), 201).body;
    const shareKey = shareKeyOf(link);

    const member = expectStatus(await api('GET', `/v1/spaces/${b.id}`, { token }), 200).body;
    expect(member.urls.published).toMatch(/\/beta$/);
    const withKey = expectStatus(await api('GET', `/v1/spaces/${a.id}?shareKey=${shareKey}`, { token }), 200).body;
    expect(withKey.urls.published).toContain(`/${shareKey}/`);

    // Visitors: no token and no key is a missing token; a wrong or revoked key reads as an unknown space.
    expectError(await api('GET', `/v1/spaces/${a.id}`), 401);
    expectError(await api('GET', `/v1/spaces/${a.id}?shareKey=wrong`), 404);
    const visitor = expectStatus(await api('GET', `/v1/spaces/${a.id}?shareKey=${shareKey}`), 200).body;
    expect(visitor.id).toBe(a.id);
    expect(Object.values(visitor.permissions).every((p) => p === false)).toBe(true);
    expectStatus(await api('PATCH', `${path}/share-links/${link.id}`, { token, body: { active: false } }), 200);
    expectError(await api('GET', `/v1/spaces/${a.id}?shareKey=${shareKey}`), 404);

    // A public site opens its spaces to anyone; unpublished, to nobody.
    expectStatus(await api('PATCH', path, { token, body: { visibility: 'public' } }), 200);
    expectStatus(await api('GET', `/v1/spaces/${a.id}`), 200);
    expectStatus(await api('POST', `${path}/unpublish`, { token }), 200);
    expectError(await api('GET', `/v1/spaces/${a.id}`), 401);
  });

  it('takes more spaces at once than D1 binds parameters: a site of 150 spaces is created, and their section deleted in one write', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const ids = await seedSpaces(org.id, 150);
    const base = `/v1/orgs/${org.id}/sites`;
    const site = expectStatus(await api('POST', base, { token, body: { title: 'Wide', spaces: ids } }), 201).body;
    expect(site.siteSpaces).toBe(150);
    const path = `${base}/${site.id}`;
    // The first section takes the 150 root site spaces with it; deleting it removes them all.
    const added = expectStatus(await api('POST', `${path}/sections`, { token, body: { spaceId: ids[0], title: 'Second' } }), 201).body;
    const [first] = expectStatus(await api('GET', `${path}/sections`, { token }), 200).body.items;
    expect(first.siteSpaces).toHaveLength(150);
    expectStatus(await api('DELETE', `${path}/sections/${first.id}`, { token }), 204);
    const after = expectStatus(await api('GET', path, { token }), 200).body;
    expect(after.siteSpaces).toBe(1);
    expect(expectStatus(await api('GET', `${path}/sections`, { token }), 200).body.items.map((s: any) => s.id)).toEqual([added.id]);
  });
});
