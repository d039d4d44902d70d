/**
 * Issue 30, point 5: with no APP_URL (as in these tests), objects' `urls.app` are on the API's own origin
 * (`/o/...`, `/integrations/<name>`). Each must answer: a redirect to the API address of the same object,
 * which the caller's token then opens. A pure rewrite: no token needed to be redirected, nothing told about
 * whether an id exists.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { seedCluster } from '../helpers/conversations';
import { seedInstallation, seedIntegration } from '../helpers/integrations';
import { seedSpec } from '../helpers/openapi';
import { api, BASE, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';

let org: TestOrg;
const apps: Record<string, string> = {};

/** The object's app URL, followed: a redirect to `/v1/...`, which the owner's token opens (200) and no token does not (401). */
async function expectAppUrlLeadsToApi(name: string, app: string, located?: (body: any) => void) {
  expect(app.startsWith(`${BASE}/`), `${name}: ${app}`).toBe(true);
  const path = app.slice(BASE.length);
  const hop = await api('GET', path);
  expect(hop.status, `${name}: GET ${path} -> ${JSON.stringify(hop.body)}`).toBe(302);
  const location = hop.headers.get('Location')!;
  expect(location.startsWith('/v1/'), `${name}: ${location}`).toBe(true);
  const opened = await api('GET', location, { token: org.owner.token });
  expect(opened.status, `${name}: GET ${location} -> ${JSON.stringify(opened.body)}`).toBe(200);
  located?.(opened.body);
  expect((await api('GET', location)).status, `${name} without a token`).toBe(401);
}

beforeAll(async () => {
  org = await seedOrg();
  const token = org.owner.token;
  apps.organization = expectStatus(await api('GET', `/v1/orgs/${org.id}`, { token }), 200).body.urls.app;
  apps.collection = expectStatus(await api('POST', `/v1/orgs/${org.id}/collections`, { token, body: { title: 'Handbooks' } }), 201).body.urls.app;
  const space = await createSpace(org.id, token, 'Guide');
  apps.space = space.urls.app;
  const cr = await openChangeRequest(space.id, token, 'Pages');
  await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', title: 'Intro', document: { markdown: 'Hello.\n' } }]);
  apps.changeRequest = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.id}`, { token }), 200).body.urls.app;
  apps.changeRequestPage = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.id}/content`, { token }), 200).body.pages[0].urls.app;
  expectStatus(await merge(space.id, cr.number, token), 200);
  apps.page = expectStatus(await api('GET', `/v1/spaces/${space.id}/content`, { token }), 200).body.pages[0].urls.app;
  apps.site = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token, body: { title: 'Docs', spaces: [space.id] } }), 201).body.urls.app;
  const spec = await seedSpec(org.id);
  apps.openapiSpec = expectStatus(await api('GET', `/v1/orgs/${org.id}/openapi/${spec.slug}`, { token }), 200).body.urls.app;
  const integration = await seedIntegration(org.id);
  const installation = await seedInstallation(integration, org.id);
  apps.integration = expectStatus(await api('GET', `/v1/integrations/${integration.name}`, { token }), 200).body.urls.app;
  apps.installation = expectStatus(await api('GET', `/v1/integrations/${integration.name}/installations/${installation.id}`, { token }), 200).body.urls.app;
  const cluster = await seedCluster(org.id);
  apps.cluster = expectStatus(await api('GET', `/v1/orgs/${org.id}/conversations-clusters/${cluster}`, { token }), 200).body.urls.app;
});

describe('urls.app without APP_URL', () => {
  it('every kind of object has one on this origin, and each leads to the object in the API', async () => {
    expect(Object.keys(apps).length).toBe(11);
    for (const [name, app] of Object.entries(apps)) await expectAppUrlLeadsToApi(name, app);
  });

  it('leads to the same object: the organization, the space, the change request, the site', async () => {
    await expectAppUrlLeadsToApi('organization', apps.organization, (body) => expect(body).toMatchObject({ object: 'organization', id: org.id }));
    await expectAppUrlLeadsToApi('space', apps.space, (body) => expect(body).toMatchObject({ object: 'space', title: 'Guide' }));
    await expectAppUrlLeadsToApi('change request', apps.changeRequest, (body) => expect(body).toMatchObject({ object: 'change-request', subject: 'Pages' }));
    await expectAppUrlLeadsToApi('site', apps.site, (body) => expect(body).toMatchObject({ object: 'site', title: 'Docs' }));
    await expectAppUrlLeadsToApi('page', apps.page, (body) => expect(body.pages.map((p: { title: string }) => p.title)).toContain('Intro'));
  });

  it('another organization reaches nothing through them: the API answers 404 to its token', async () => {
    const other = await seedOrg();
    for (const name of ['organization', 'space', 'site', 'collection'] as const) {
      const location = (await api('GET', apps[name].slice(BASE.length))).headers.get('Location')!;
      expect((await api('GET', location, { token: other.owner.token })).status, name).toBe(404);
    }
  });

  it('anything else under /o/ is still no route (404), and hostile ids are refused', async () => {
    for (const path of [`/o/${org.id}/nothing/here`, '/o/%00', `/o/${org.id}/s/%2e%2e`, `/o/${org.id}/sites/${'x'.repeat(200)}`]) {
      expect((await api('GET', path)).status, path).toBe(404);
    }
  });
});
