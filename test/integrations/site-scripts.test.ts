import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { mergePageCsp, sanitizeIntegrationCsp, serializeCsp } from '../../src/services/integrations/site-scripts';
import { gitbookErrors, gitbookValidator, GITBOOK_0202 } from '../helpers/gitbook-schema';
import { api, BASE, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { integrationName, seedInstallation, type SeededIntegration } from '../helpers/integrations';
import { publishedSite, spaceWithPages, visit } from '../site/helpers';

declare module 'vitest' {
  interface ProvidedContext {
    /** test/fixtures/integrations/gitbook-site-script-integration.js, bundled as `gitbook publish` bundles it. */
    gitbookSiteScriptIntegration: string;
  }
}

/**
 * Issue 28 point 6: site integrations' scripts reach published pages. An integration written with GitBook's runtime
 * (a `fetch_published_script` handler reading the site installation's configuration, as GitBook's analytics
 * integrations do), published with a manifest in the shape of GitBook's Google Analytics one (multi-line CSP values
 * ending in `;`), installed by another organization on its site through the API.
 */
const SCRIPT = inject('gitbookSiteScriptIntegration');
const scriptValidator = gitbookValidator('SiteIntegrationScript', GITBOOK_0202.components);

const CSP = {
  'script-src': "https://www.google-analytics.com\nhttps://ssl.google-analytics.com 'unsafe-eval' data:;\n",
  'img-src': 'data:\nblob:\nwww.google-analytics.com;',
  'connect-src': 'www.google-analytics.com\nabout:;',
  'default-src': '*',
  'frame-ancestors': '*',
};
/** What of CSP may widen a page: keywords, `data:` for scripts, `default-src` and `frame-ancestors` left out. */
const SANITIZED = 'connect-src www.google-analytics.com about:; img-src data: blob: www.google-analytics.com; script-src https://www.google-analytics.com https://ssl.google-analytics.com';

function publishBody(organization: string, scopes: string[]) {
  return {
    runtime: 'v2',
    title: 'Site tracker',
    description: 'Built with @gitbook/runtime',
    scopes,
    target: 'site',
    visibility: 'public',
    organization,
    configurations: { site: { properties: { tracking_id: { type: 'string', title: 'Tracking ID' } }, required: ['tracking_id'] } },
    contentSecurityPolicy: CSP,
    script: SCRIPT,
  };
}

interface World {
  publisher: TestOrg;
  customer: TestOrg;
  name: string;
  integration: SeededIntegration;
  installationId: string;
  site: { id: string };
}

let world: World;

async function integrationRow(name: string): Promise<SeededIntegration> {
  const row = await env.DB.prepare('select id, bot_user_id, scopes from integrations where name = ?').bind(name).first<{ id: string; bot_user_id: string; scopes: string }>();
  return { id: row!.id, name, botUserId: row!.bot_user_id, scopes: JSON.parse(row!.scopes) };
}

/** Installs the installation on the site and sets its tracking id, through the API (as the customer's admin). */
async function installOnSite(name: string, installationId: string, org: TestOrg, siteId: string, trackingId: string) {
  const token = org.owner.token;
  expectStatus(await api('POST', `/v1/integrations/${name}/installations/${installationId}/sites`, { token, body: { siteId } }), 201);
  expectStatus(await api('PATCH', `/v1/integrations/${name}/installations/${installationId}/sites/${siteId}`, { token, body: { configuration: { tracking_id: trackingId } } }), 200);
}

async function newSite(org: TestOrg, title: string, publish = true): Promise<{ id: string }> {
  const space = await spaceWithPages(org, title, [{ operation: 'insert_page', title: 'Home', document: { markdown: 'Welcome.\n' } }]);
  if (publish) return publishedSite(org, [space.id], 'public', title);
  return expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token: org.owner.token, body: { title, visibility: 'public', spaces: [space.id] } }), 201).body;
}

const listScripts = (org: TestOrg, siteId: string, token = org.owner.token) => api('GET', `/v1/orgs/${org.id}/sites/${siteId}/integration-scripts`, { token });
const scriptPath = (installationId: string, siteId: string) => `/_site/integrations/${installationId}/${siteId}/script.js`;

beforeAll(async () => {
  const publisher = await seedOrg();
  const customer = await seedOrg();
  const name = integrationName('tracker');
  expectStatus(await api('POST', `/v1/integrations/${name}`, { token: publisher.owner.token, body: publishBody(publisher.id, ['site:script:inject', 'site:script:cookies']) }), 200);
  const installation = expectStatus(await api('POST', `/v1/integrations/${name}/installations`, { token: customer.owner.token, body: { organization: customer.id } }), 201).body;
  const site = await newSite(customer, 'Tracked docs');
  await installOnSite(name, installation.id, customer, site.id, 'G-TRACKED');
  world = { publisher, customer, name, integration: await integrationRow(name), installationId: installation.id, site };
});

describe('publishing a manifest of GitBook’s shape', () => {
  it('stores its multi-line directive values, ending in ";", on one line each (directives in their schema order)', async () => {
    const row = await env.DB.prepare('select content_security_policy as csp from integrations where name = ?').bind(world.name).first<{ csp: string }>();
    expect(row!.csp).toBe(
      "connect-src www.google-analytics.com about:; default-src *; frame-ancestors *; img-src data: blob: www.google-analytics.com; script-src https://www.google-analytics.com https://ssl.google-analytics.com 'unsafe-eval' data:",
    );
  });

  it('still refuses a ";" inside a directive value, which would start another directive', async () => {
    const body = { ...publishBody(world.publisher.id, ['site:script:inject']), contentSecurityPolicy: { 'script-src': "https://a.example; script-src 'unsafe-eval'" } };
    const res = await api('POST', `/v1/integrations/${integrationName('semi')}`, { token: world.publisher.owner.token, body });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('contentSecurityPolicy');
  });
});

describe('listSiteIntegrationScripts and the published view', () => {
  it('lists the installation’s script with its sanitized policy and cookies, as GitBook’s SiteIntegrationScript', async () => {
    const { customer, site, installationId } = world;
    const scripts = expectStatus(await listScripts(customer, site.id), 200).body;
    expect(scripts).toHaveLength(1);
    expect(gitbookErrors(scriptValidator, scripts[0])).toBe('valid');
    expect(scripts[0].script).toMatch(new RegExp(`^${BASE}${scriptPath(installationId, site.id)}\\?v=1-[0-9a-z]+$`));
    expect(scripts[0].cookies).toBe(true);
    expect(scripts[0].contentSecurityPolicy).toBe(SANITIZED);
    // A reader of the organization lists them too.
    expect(expectStatus(await listScripts(customer, site.id, customer.members.read.token), 200).body).toEqual(scripts);
  });

  it('answers the same scripts in the published view, to a visitor without a token', async () => {
    const { customer, site } = world;
    const listed = expectStatus(await listScripts(customer, site.id), 200).body;
    const published = expectStatus(await api('GET', `/v1/orgs/${customer.id}/sites/${site.id}/published`), 200).body;
    expect(published.scripts).toEqual(listed);
  });

  it('is 404 for another organization’s members, guests and the integration’s publisher', async () => {
    const { customer, publisher, site } = world;
    expectStatus(await listScripts(customer, site.id, customer.outsider.token), 404);
    expectStatus(await listScripts(customer, site.id, customer.members.guest.token), 404);
    expectStatus(await listScripts(customer, site.id, publisher.owner.token), 404);
    // The publisher's organization in the path, the customer's site: not found either.
    expectStatus(await listScripts(publisher, site.id), 404);
  });
});

describe('the script URL', () => {
  it('runs the fetch_published_script handler with the site installation’s configuration, and records the event', async () => {
    const { installationId, site } = world;
    const res = await visit(scriptPath(installationId, site.id));
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('application/javascript');
    expect(res.headers.get('Cache-Control')).toBe('max-age=604800');
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(res.headers.get('Content-Security-Policy')).toContain('sandbox');
    expect(res.text).toBe(`window.__siteTracker = ${JSON.stringify({ trackingId: 'G-TRACKED', site: site.id })};`);
    await expect
      .poll(async () =>
        env.DB.prepare(
          `select e.status, (select group_concat(message, '\n') from integration_event_logs l where l.event_id = e.id) as trace
           from integration_events e where e.installation_id = ? and e.type = 'fetch_published_script'`,
        )
          .bind(installationId)
          .first<{ status: string; trace: string }>(),
      )
      .toMatchObject({ status: 'success', trace: expect.stringContaining(`fetch_published_script for site ${site.id} of installation ${installationId}`) });
  });

  it('is kept in the Cache API as the handler’s Cache-Control allows: the next visitor runs no isolate', async () => {
    const { installationId, site } = world;
    await visit(scriptPath(installationId, site.id));
    const again = await visit(scriptPath(installationId, site.id));
    expect(again.status).toBe(200);
    expect(again.headers.get('X-Site-Script-Cache')).toBe('hit');
    expect(again.headers.get('Cache-Control')).toBe('max-age=604800');
    expect(again.text).toContain('G-TRACKED');
  });

  it('answers a clear 502, never a 500, when the handler throws or answers something that is not JavaScript', async () => {
    const { name, installationId, customer } = world;
    for (const [trackingId, message] of [
      // GitBook's runtime answers what a handler throws as a 500 of its own.
      ['throw', 'answered 500'],
      ['html', 'not JavaScript'],
    ]) {
      const site = await newSite(customer, `Broken ${trackingId}`);
      await installOnSite(name, installationId, customer, site.id, trackingId);
      const res = await visit(scriptPath(installationId, site.id));
      expect(res.status).toBe(502);
      expect(JSON.parse(res.text).error.message).toContain(message);
      expect(res.text).not.toContain('the tracker is broken');
    }
  });
});

describe('who gets a script: only approved site installations on published sites', () => {
  const expectNone = async (org: TestOrg, installationId: string, siteId: string) => {
    expect(expectStatus(await listScripts(org, siteId), 200).body).toEqual([]);
    expect((await visit(scriptPath(installationId, siteId))).status).toBe(404);
  };

  it('none for an installation whose organization has not approved site:script:inject (pending)', async () => {
    const org = await seedOrg();
    const site = await newSite(org, 'Pending');
    const installation = await seedInstallation(world.integration, org.id, { sites: [site.id], status: 'pending', approvedScopes: [] });
    await expectNone(org, installation.id, site.id);
    expect((await api('GET', `/v1/orgs/${org.id}/sites/${site.id}/published`)).body.scripts).toEqual([]);
  });

  it('cookies false when only site:script:inject is approved', async () => {
    const org = await seedOrg();
    const site = await newSite(org, 'No cookies');
    await seedInstallation(world.integration, org.id, { sites: [site.id], approvedScopes: ['site:script:inject'] });
    const [script] = expectStatus(await listScripts(org, site.id), 200).body;
    expect(script.cookies).toBe(false);
  });

  it('none for an integration that does not ask for site:script:inject, even with the scope approved', async () => {
    const org = await seedOrg();
    const name = integrationName('noscope');
    expectStatus(await api('POST', `/v1/integrations/${name}`, { token: world.publisher.owner.token, body: publishBody(world.publisher.id, ['site:metadata:read']) }), 200);
    const site = await newSite(org, 'No scope');
    const installation = await seedInstallation(await integrationRow(name), org.id, { sites: [site.id], approvedScopes: ['site:metadata:read', 'site:script:inject'] });
    await expectNone(org, installation.id, site.id);
  });

  it('none on an unpublished site, and none once a site is unpublished', async () => {
    const { customer, name, installationId } = world;
    const draft = await newSite(customer, 'Draft', false);
    await installOnSite(name, installationId, customer, draft.id, 'G-DRAFT');
    await expectNone(customer, installationId, draft.id);
    const site = await newSite(customer, 'Soon unpublished');
    await installOnSite(name, installationId, customer, site.id, 'G-GONE');
    expect(expectStatus(await listScripts(customer, site.id), 200).body).toHaveLength(1);
    expectStatus(await api('POST', `/v1/orgs/${customer.id}/sites/${site.id}/unpublish`, { token: customer.owner.token }), 200);
    await expectNone(customer, installationId, site.id);
  });

  it('none for a site of another organization, nor for a site the installation does not cover', async () => {
    const { publisher, customer, installationId } = world;
    const theirs = await newSite(publisher, 'Publisher docs');
    expect((await visit(scriptPath(installationId, theirs.id))).status).toBe(404);
    const uncovered = await newSite(customer, 'Not installed');
    await expectNone(customer, installationId, uncovered.id);
  });

  it('none for a paused installation', async () => {
    const org = await seedOrg();
    const site = await newSite(org, 'Paused');
    const paused = await seedInstallation(world.integration, org.id, { sites: [site.id], status: 'paused' });
    await expectNone(org, paused.id, site.id);
  });

  it('404 for ids that are not ids', async () => {
    expect((await visit(`/_site/integrations/${'x'.repeat(300)}/${world.site.id}/script.js`)).status).toBe(404);
    expect((await visit(`/_site/integrations/${world.installationId}/..%2f/script.js`)).status).toBe(404);
  });
});

describe('the Content-Security-Policy of integrations', () => {
  it('keeps only fetch directives with host and scheme sources: no keyword, no data: script, nothing that ends the directive', () => {
    const policy = "script-src https://a.example 'unsafe-eval' 'unsafe-inline' 'nonce-x' data: https: *; default-src *; object-src *; frame-ancestors *; connect-src wss://b.example https://c.example/path, img-src 'self'";
    expect(serializeCsp(sanitizeIntegrationCsp(policy))).toBe('script-src https://a.example https: *; connect-src wss://b.example https://c.example/path');
  });

  it('merges declared directives into the page’s, and leaves the page’s policy as it was without scripts', () => {
    const page = new Map([
      ['default-src', ["'none'"]],
      ['script-src', ["'self'"]],
      ['img-src', ["'self'", 'https:', 'data:']],
    ]);
    expect(serializeCsp(mergePageCsp(page, []))).toBe("default-src 'none'; script-src 'self'; img-src 'self' https: data:");
    const merged = mergePageCsp(page, [{ contentSecurityPolicy: SANITIZED }, { contentSecurityPolicy: 'script-src-elem https://d.example' }]);
    expect(serializeCsp(merged)).toBe(
      "default-src 'none'; script-src 'self' https://www.google-analytics.com https://ssl.google-analytics.com https://d.example; img-src 'self' https: data: blob: www.google-analytics.com; connect-src www.google-analytics.com about:",
    );
  });
});
