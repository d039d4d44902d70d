import { describe, expect, it } from 'vitest';
import { signVisitorToken } from '../../src/services/sites/visitor-token';
import { createSpace } from '../helpers/content';
import { shareKeyOf } from '../site/helpers';
import { api, expectError, expectStatus, seedOrg } from '../helpers/harness';

/** The "done when": a site of two sections in a group, shared by link, then behind visitor auth. */
describe('a docs site from first call to a visitor reading it', () => {
  it('is built, shared by link, and adapts to a signed visitor', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const guides = await createSpace(org.id, token, 'Guides');
    const reference = await createSpace(org.id, token, 'Reference');
    const base = `/v1/orgs/${org.id}/sites`;

    const site = expectStatus(await api('POST', base, { token, body: { title: 'Acme docs', visibility: 'share-link' } }), 201).body;
    expect(site).toMatchObject({ object: 'site', type: 'basic', visibility: 'share-link', published: false, siteSpaces: 0 });
    const sitePath = `${base}/${site.id}`;

    const first = expectStatus(await api('POST', `${sitePath}/sections`, { token, body: { spaceId: guides.id, title: 'Guides' } }), 201).body;
    const second = expectStatus(await api('POST', `${sitePath}/sections`, { token, body: { spaceId: reference.id, title: 'API reference' } }), 201).body;
    expect(first.default).toBe(true);
    expect(second.default).toBe(false);
    expect(second.siteSpaces).toHaveLength(1);
    expect(second.siteSpaces[0].default).toBe(true);

    const group = expectStatus(
      await api('POST', `${sitePath}/section-groups`, { token, body: { title: 'Developers', sections: [second.id] } }),
      201,
    ).body;
    expect(group.children.map((c: any) => c.id)).toEqual([second.id]);

    expectStatus(await api('POST', `${sitePath}/publish`, { token }), 200);
    const link = expectStatus(await api('POST', `${sitePath}/share-links`, { token, body: { name: 'Partners' } }), 201).body;
    expect(link.urls.published).toMatch(/\/[A-Za-z0-9]{16,}\/$/);
    const shareKey = shareKeyOf(link);

    await api('PUT', `${sitePath}/customization`, { token, body: { title: 'Acme', styling: { primaryColor: { light: '#112233', dark: '#445566' } } } });

    // A visitor without the key sees nothing; with it, the structure and the customization.
    expectError(await api('GET', `${sitePath}/published`), 404);
    expectError(await api('GET', `${sitePath}/published?shareKey=wrong`), 404);
    const published = expectStatus(await api('GET', `${sitePath}/published?shareKey=${shareKey}`), 200).body;
    expect(published.object).toBe('published-content-site');
    expect(published.structure.type).toBe('sections');
    expect(published.structure.structure.map((i: any) => i.object)).toEqual(['site-section', 'site-section-group']);
    expect(published.customizations.site.styling.primaryColor).toEqual({ light: '#112233', dark: '#445566' });

    // A revoked link closes the site.
    expectStatus(await api('PATCH', `${sitePath}/share-links/${link.id}`, { token, body: { active: false } }), 200);
    expectError(await api('GET', `${sitePath}/published?shareKey=${shareKey}`), 404);

    // Visitor auth: the reference section needs a claim.
    expectStatus(await api('PATCH', sitePath, { token, body: { visibility: 'visitor-auth' } }), 200);
    expectStatus(await api('PATCH', `${sitePath}/sections/${second.id}`, { token, body: { condition: 'visitor.claims.developer == true' } }), 200);
    const { privateKey } = expectStatus(await api('GET', `${sitePath}/publishing/auth`, { token }), 200).body;

    const plain = await signVisitorToken({}, privateKey, '1h');
    const developer = await signVisitorToken({ developer: true }, privateKey, '1h');
    expectError(await api('GET', `${sitePath}/published`), 404);
    const forAnyone = expectStatus(await api('GET', `${sitePath}/published`, { headers: { 'X-Visitor-Token': plain } }), 200).body;
    expect(forAnyone.structure.structure.map((i: any) => i.id)).toEqual([first.id]);
    const forDeveloper = expectStatus(await api('GET', `${sitePath}/published?jwt_token=${developer}`), 200).body;
    expect(forDeveloper.structure.structure.map((i: any) => i.id)).toEqual([first.id, group.id]);
  });
});

describe('header links in the published view', () => {
  it('shows a header link only to visitors whose claims meet its condition', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token, 'Home');
    const base = `/v1/orgs/${org.id}/sites`;
    const site = expectStatus(await api('POST', base, { token, body: { title: 'Links', spaces: [space.id] } }), 201).body;
    const path = `${base}/${site.id}`;
    expectStatus(await api('POST', `${path}/publish`, { token }), 200);
    const to = { kind: 'space', space: space.id };
    expectStatus(
      await api('PUT', `${path}/customization`, {
        token,
        body: { header: { links: [{ title: 'Everyone', to }, { title: 'Staff', to, condition: 'visitor.claims.staff == true' }] } },
      }),
      200,
    );
    expectError(await api('PUT', `${path}/customization`, { token, body: { header: { links: [{ title: 'Bad', to, condition: 'visitor.claims.(' }] } } }), 400, 'position');
    const { privateKey } = expectStatus(await api('GET', `${path}/publishing/auth`, { token }), 200).body;
    const titles = (res: any) => res.body.customizations.site.header.links.map((l: any) => l.title);
    expect(titles(expectStatus(await api('GET', `${path}/published`), 200))).toEqual(['Everyone']);
    const staff = await signVisitorToken({ staff: true }, privateKey, '1h');
    expect(titles(expectStatus(await api('GET', `${path}/published`, { headers: { 'X-Visitor-Token': staff } }), 200))).toEqual(['Everyone', 'Staff']);
    // The site's own settings keep both links.
    expect(expectStatus(await api('GET', `${path}/customization`, { token }), 200).body.header.links).toHaveLength(2);
  });
});
