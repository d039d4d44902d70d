import { beforeAll, describe, expect, inject, it } from 'vitest';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { integrationName } from '../helpers/integrations';
import { publishedSite, spaceWithPages, visit } from './helpers';

/**
 * The HTML reader loads integrations' scripts (issue 28 point 6) on an organization's own host
 * (`<label>.sites.test`), with each integration's declared policy merged into the page's Content-Security-Policy;
 * never under the shared `/s/<siteId>/` origin; a page without them keeps the policy it had.
 */
const SCRIPT = inject('gitbookSiteScriptIntegration');

/** The page's policy before site scripts existed (the theme's inline stylesheet by its hash). */
const BASE_CSP = /^default-src 'none'; style-src 'self' ('sha256-[A-Za-z0-9+/=]+'); script-src 'self'; img-src 'self' https: data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; connect-src 'self'$/;

async function publishIntegration(publisher: TestOrg, prefix: string, scopes: string[], contentSecurityPolicy: Record<string, string>) {
  const name = integrationName(prefix);
  const body = {
    runtime: 'v2',
    title: `Site ${prefix}`,
    description: 'Built with @gitbook/runtime',
    scopes,
    target: 'site',
    visibility: 'public',
    organization: publisher.id,
    configurations: { site: { properties: { tracking_id: { type: 'string', title: 'Tracking ID' } } } },
    contentSecurityPolicy,
    script: SCRIPT,
  };
  expectStatus(await api('POST', `/v1/integrations/${name}`, { token: publisher.owner.token, body }), 200);
  return name;
}

async function install(name: string, org: TestOrg, siteId: string, trackingId: string): Promise<string> {
  const token = org.owner.token;
  const installation = expectStatus(await api('POST', `/v1/integrations/${name}/installations`, { token, body: { organization: org.id } }), 201).body;
  expectStatus(await api('POST', `/v1/integrations/${name}/installations/${installation.id}/sites`, { token, body: { siteId } }), 201);
  expectStatus(await api('PATCH', `/v1/integrations/${name}/installations/${installation.id}/sites/${siteId}`, { token, body: { configuration: { tracking_id: trackingId } } }), 200);
  return installation.id;
}

/** A published site, the default content of its organization's label `<hostname>.sites.test`. */
async function hostedSite(org: TestOrg, prefix: string) {
  const space = await spaceWithPages(org, 'Docs', [{ operation: 'insert_page', title: 'Home', document: { markdown: 'Hello from the host.\n' } }]);
  const site = await publishedSite(org, [space.id], 'public', 'Hosted');
  const hostname = `${prefix}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`.slice(0, 30);
  expectStatus(await api('PATCH', `/v1/orgs/${org.id}`, { token: org.owner.token, body: { hostname, defaultContent: { type: 'site', site: site.id } } }), 200);
  return { id: site.id, base: `http://${hostname}.sites.test` };
}

let org: TestOrg;
let site: { id: string; base: string };
let plain: string;
let tracker: string;

beforeAll(async () => {
  const publisher = await seedOrg();
  org = await seedOrg();
  site = await hostedSite(org, 'scripts');
  // Named so that `plain` sorts first: scripts are in integration-name order.
  const plainName = await publishIntegration(publisher, 'aplain', ['site:script:inject'], { 'script-src': 'https://plausible.io *', 'connect-src': 'https://plausible.io *' });
  const trackerName = await publishIntegration(publisher, 'btracker', ['site:script:inject', 'site:script:cookies'], {
    'script-src': "https://www.google-analytics.com\nhttps://ssl.google-analytics.com 'unsafe-eval';\n",
    'img-src': 'data:\nblob:\nwww.google-analytics.com;',
    'connect-src': 'www.google-analytics.com;',
    'frame-ancestors': '*',
  });
  plain = await install(plainName, org, site.id, 'P-PLAIN');
  tracker = await install(trackerName, org, site.id, 'G-TRACKER');
});

describe('a page on the organization’s own host', () => {
  it('loads the scripts without cookies at once and those with cookies behind the cookie banner', async () => {
    const page = await visit('/', {}, site.base);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Hello from the host.');
    expect(page.text).toMatch(new RegExp(`<script async src="/_site/integrations/${plain}/${site.id}/script\\.js\\?v=1-[0-9a-z]+"></script>`));
    expect(page.text).not.toContain(`<script async src="/_site/integrations/${tracker}/`);
    expect(page.text).toMatch(new RegExp(`<div id="cookie-consent"[^>]* hidden data-scripts="/_site/integrations/${tracker}/${site.id}/script\\.js\\?v=1-[0-9a-z]+">`));
  });

  it('merges each integration’s declared fetch directives into the policy, and nothing else', async () => {
    const page = await visit('/', {}, site.base);
    const csp = page.headers.get('Content-Security-Policy')!;
    const hash = /'sha256-[A-Za-z0-9+/=]+'/.exec(csp)![0];
    expect(csp).toBe(
      `default-src 'none'; style-src 'self' ${hash}; script-src 'self' https://plausible.io * https://www.google-analytics.com https://ssl.google-analytics.com; img-src 'self' https: data: blob: www.google-analytics.com; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; connect-src 'self' https://plausible.io * www.google-analytics.com`,
    );
    expect(csp).not.toContain('unsafe-eval');
  });

  it("tells the visitor's choice to GitBook's integrations' scripts: the banner sets the cookie __gitbook_cookie_granted they read", async () => {
    const page = await visit('/', {}, site.base);
    const src = /<script src="([^"]+\.js)"/.exec(page.text)?.[1];
    expect(src).toBeTruthy();
    const js = await (await visit(src!, {}, site.base)).text;
    expect(js).toContain('document.cookie="__gitbook_cookie_granted="+a+"; path=/; max-age=31536000; SameSite=Lax"');
  });

  it('serves the script on the host itself (`self` for the page)', async () => {
    const res = await visit(`/_site/integrations/${plain}/${site.id}/script.js`, {}, site.base);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('application/javascript');
    expect(res.text).toContain('P-PLAIN');
  });

  it('drops a script as soon as its installation leaves the site: page and policy as before', async () => {
    const other = await seedOrg();
    const hosted = await hostedSite(other, 'leaves');
    const name = await publishIntegration(other, 'leaving', ['site:script:inject'], { 'connect-src': 'https://leaving.example' });
    const installationId = await install(name, other, hosted.id, 'L-1');
    expect((await visit('/', {}, hosted.base)).headers.get('Content-Security-Policy')).toContain("connect-src 'self' https://leaving.example");
    expectStatus(await api('DELETE', `/v1/integrations/${name}/installations/${installationId}/sites/${hosted.id}`, { token: other.owner.token }), 204);
    const page = await visit('/', {}, hosted.base);
    expect(page.headers.get('Content-Security-Policy')).toMatch(BASE_CSP);
    expect(page.text).not.toContain('/_site/integrations/');
  });
});

describe('pages without integrations’ scripts', () => {
  it('keep the policy they had on an organization’s host', async () => {
    const other = await seedOrg();
    const hosted = await hostedSite(other, 'plain');
    const page = await visit('/', {}, hosted.base);
    expect(page.status).toBe(200);
    expect(page.headers.get('Content-Security-Policy')).toMatch(BASE_CSP);
    // The banner asks only for the site's own tracking cookie (insights.trackingCookie): no script waits on it.
    expect(page.text).toContain('<div id="cookie-consent" class="cookie-consent" role="region" aria-label="Cookies" hidden data-scripts="">');
  });

  it('under the shared /s/<siteId>/ origin, a site with scripts loads none of them and keeps its policy', async () => {
    const page = await visit(`/s/${site.id}/`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Hello from the host.');
    expect(page.text).not.toContain('/_site/integrations/');
    expect(page.headers.get('Content-Security-Policy')).toMatch(BASE_CSP);
  });
});
