import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitInfo, repositoryUrl, runPending } from '../helpers/git-sync';
import { publishedSite } from '../site/helpers';

/**
 * `.gitbook.yaml`'s redirects follow the site's structure, not only the import: a site that publishes the space
 * after its import, a site space added, moved to another path or removed gets or loses them with that change.
 */

const PROJECT = {
  '.gitbook.yaml': 'redirects:\n  old/setup: guide/install.md\n  "über uns": README.md\n',
  'README.md': '# Welcome\n\nHello.\n',
  'SUMMARY.md': '# Table of contents\n\n* [Welcome](README.md)\n* [Install](guide/install.md)\n',
  'guide/install.md': '# Install\n\nRun it.\n',
};

async function importRepository(spaceId: string, token: string, name: string) {
  await createRepository(name, { files: PROJECT });
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/import`, { token, body: { url: repositoryUrl(name), ref: 'refs/heads/main', force: true } }), 204);
  await runPending(spaceId);
  expect((await gitInfo(spaceId, token)).body.operation).toMatchObject({ state: 'success', direction: 'import' });
}

const lookup = async (sitePath: string, token: string, source: string) => api('GET', `${sitePath}/redirect?source=${encodeURIComponent(source)}`, { token });

describe("Git Sync redirects and the site's structure", () => {
  it('a site made after the import has them; a site space added, moved and removed gets, moves and loses them', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await importRepository(space.id, token, 'redirects-placement');
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content`, { token }), 200).body.pages;
    const install = pages.find((p: any) => p.title === 'Install');

    // Created with the space (createSite): at the site's root.
    const first = await publishedSite(org, [space.id], 'public', 'After import');
    const found = expectStatus(await lookup(first.path, token, '/old/setup'), 200).body;
    expect(found.redirect).toMatchObject({ source: '/old/setup', permanent: true, destination: { kind: 'site-page', pageId: install.id } });
    expect(found.target).toMatch(new RegExp(`/${install.path}$`));
    expect(expectStatus(await lookup(first.path, token, '/%C3%BCber%20uns'), 200).body.redirect.destination.pageId).toBe(pages[0].id);

    // Added to a site that has another space first (addSpaceToSite): under the site space's path.
    const other = await createSpace(org.id, token);
    const second = await publishedSite(org, [other.id], 'public', 'Added later');
    const admins = expectStatus(await api('POST', `${second.path}/redirects`, { token, body: { source: '/elsewhere', destination: { kind: 'external', url: 'https://example.com/' } } }), 201).body;
    expectStatus(await lookup(second.path, token, '/old/setup'), 404);
    const added = expectStatus(await api('POST', `${second.path}/site-spaces`, { token, body: { spaceId: space.id } }), 201).body;
    const under = `/${added.path}/old/setup`;
    expect(expectStatus(await lookup(second.path, token, under), 200).body.redirect.destination).toEqual({ kind: 'site-page', siteSpaceId: added.id, pageId: install.id });

    // Its path changed: the redirects move with it.
    expectStatus(await api('PATCH', `${second.path}/site-spaces/${added.id}`, { token, body: { path: 'v2' } }), 200);
    expectStatus(await lookup(second.path, token, under), 404);
    expectStatus(await lookup(second.path, token, '/v2/old/setup'), 200);

    // Removed: they go, and the admin's own redirect stays.
    expectStatus(await api('DELETE', `${second.path}/site-spaces/${added.id}`, { token }), 204);
    expectStatus(await lookup(second.path, token, '/v2/old/setup'), 404);
    const left = await env.DB.prepare('select id from site_redirects where site_id = ?').bind(second.id).all<{ id: string }>();
    expect(left.results.map((r) => r.id)).toEqual([admins.id]);
    // The first site is untouched by the second's changes.
    expectStatus(await lookup(first.path, token, '/old/setup'), 200);
  });

  it("an admin's redirect of a source the file names stays the admin's when the space is placed", async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await importRepository(space.id, token, 'redirects-placement-admin');
    const other = await createSpace(org.id, token);
    const site = await publishedSite(org, [other.id], 'public', 'Admin first');
    const added = expectStatus(await api('POST', `${site.path}/site-spaces`, { token, body: { spaceId: space.id } }), 201).body;
    expectStatus(await api('PATCH', `${site.path}/site-spaces/${added.id}`, { token, body: { path: 'later' } }), 200);
    // The admin takes the source the site space would get at path "v3", then the site space moves there.
    const admins = expectStatus(await api('POST', `${site.path}/redirects`, { token, body: { source: '/v3/old/setup', destination: { kind: 'external', url: 'https://example.com/setup' } } }), 201).body;
    expectStatus(await api('PATCH', `${site.path}/site-spaces/${added.id}`, { token, body: { path: 'v3' } }), 200);
    expect(expectStatus(await lookup(site.path, token, '/v3/old/setup'), 200).body.redirect).toMatchObject({ id: admins.id, destination: { kind: 'external', url: 'https://example.com/setup' } });
    // Moving away leaves the admin's redirect where it is.
    expectStatus(await api('PATCH', `${site.path}/site-spaces/${added.id}`, { token, body: { path: 'v4' } }), 200);
    expect(expectStatus(await lookup(site.path, token, '/v3/old/setup'), 200).body.redirect.id).toBe(admins.id);
    expectStatus(await lookup(site.path, token, '/v4/old/setup'), 200);
  });
});
