import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import worker from '../../src/index';
import { MAX_DELIVERY_ATTEMPTS } from '../../src/services/integrations/delivery';
import { SITE_VIEW_EVENTS_PER_MINUTE } from '../../src/services/integrations/site-views';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { gitbookErrors, gitbookValidator, GITBOOK_0202 } from '../helpers/gitbook-schema';
import { BASE, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { deliverPendingEvents, seedInstallation, seedIntegration, type SeededInstallation, type SeededIntegration } from '../helpers/integrations';
import { publishedSite, publishPages } from '../site/helpers';

declare module 'vitest' {
  interface ProvidedContext {
    /** test/fixtures/integrations/gitbook-runtime-surfaces.js, bundled as `gitbook publish` bundles it. */
    gitbookSurfacesScript: string;
  }
}

/**
 * GitBook's runtime surfaces besides event handlers, run with an integration written with @gitbook/runtime
 * (test/fixtures/integrations/gitbook-runtime-surfaces.js): `context.waitUntil`, `fetch` at the integration's,
 * installation's, space installation's and site installation's public endpoints with the environment each gets
 * (checked against GitBook's IntegrationEnvironment, 0.202), and `site_view` events of the published site.
 */
const SCRIPT = inject('gitbookSurfacesScript');
const PLAIN_SCRIPT = inject('gitbookIntegrationScript');
const SECRETS = { API_KEY: 'surfaces-secret' };
const SCOPES = ['space:metadata:read', 'space:content:read', 'site:metadata:read', 'site:views:read'];

interface Fixture {
  publisher: TestOrg;
  customer: TestOrg;
  integration: SeededIntegration;
  installation: SeededInstallation;
  spaceId: string;
  otherSpaceId: string;
  siteId: string;
  pageId: string;
}

let f: Fixture;

beforeAll(async () => {
  const publisher = await seedOrg();
  const customer = await seedOrg();
  const token = customer.owner.token;
  const space = await createSpace(customer.id, token, 'Surfaces');
  const other = await createSpace(customer.id, token, 'Not installed');
  const pages = await publishPages(space.id, token, [{ operation: 'insert_page', title: 'Welcome', document: { markdown: 'Hello.\n' } }]);
  const site = await publishedSite(customer, [space.id]);
  const integration = await seedIntegration(publisher.id, { script: SCRIPT, scopes: SCOPES, secrets: SECRETS });
  const installation = await seedInstallation(integration, customer.id, { spaces: [space.id], sites: [site.id] });
  f = { publisher, customer, integration, installation, spaceId: space.id, otherSpaceId: other.id, siteId: site.id, pageId: pages.Welcome };
});

/** Through the Worker's fetch with an execution context; `waited` once what it does after answering is done too. */
async function call(path: string, init: RequestInit = {}) {
  const ctx = createExecutionContext();
  const started = Date.now();
  const res = await worker.fetch(new Request(`${BASE}${path}`, { redirect: 'manual', ...init }), env as never, ctx);
  const text = await res.text();
  const answeredIn = Date.now() - started;
  await waitOnExecutionContext(ctx);
  return { status: res.status, headers: res.headers, text, answeredIn };
}

interface StoredEvent {
  id: string;
  type: string;
  status: string;
  payload: any;
  logs: { level: string; message: string }[];
}

/** The installation's events of one type, oldest first, with their traces (read from D1). */
async function eventsOf(installationId: string, type: string): Promise<StoredEvent[]> {
  const rows = await env.DB.prepare('select id, type, status, payload from integration_events where installation_id = ? and type = ? order by created_at, rowid')
    .bind(installationId, type)
    .all<{ id: string; type: string; status: string; payload: string }>();
  return Promise.all(
    rows.results.map(async (row) => {
      const logs = await env.DB.prepare('select level, message from integration_event_logs where event_id = ? order by id').bind(row.id).all<{ level: string; message: string }>();
      return { ...row, payload: JSON.parse(row.payload), logs: logs.results };
    }),
  );
}

/** The JSON the fixture logged after `label: `. */
function logged(event: StoredEvent, label: string): any {
  const line = event.logs.find((l) => l.message.startsWith(`${label}: `));
  expect(line, `a "${label}" line in ${JSON.stringify(event.logs)}`).toBeDefined();
  return JSON.parse(line!.message.slice(label.length + 2));
}

const environmentErrors = (environment: unknown) => gitbookErrors(gitbookValidator('IntegrationEnvironment', GITBOOK_0202.components), environment);
const publicBase = () => `/integrations/${f.integration.name}`;

describe('context.waitUntil in an event handler', () => {
  let event: StoredEvent;

  beforeAll(async () => {
    const token = f.customer.owner.token;
    const cr = await openChangeRequest(f.spaceId, token);
    await applyChanges(f.spaceId, cr.number, token, [{ operation: 'insert_page', title: 'More', document: { markdown: 'More.\n' } }]);
    expectStatus(await merge(f.spaceId, cr.number, token), 200);
    await deliverPendingEvents(f.installation.id);
    [event] = await eventsOf(f.installation.id, 'space_content_updated');
  });

  it('runs the work after the answer to its end, its lines in the trace before the outcome; a failure there is an error line, not a failed event', () => {
    expect(event.status).toBe('success');
    const messages = event.logs.map((l) => l.message);
    const answered = messages.indexOf('handler answered');
    const late = messages.indexOf(`waitUntil read with context.api: space ${f.spaceId}`);
    expect(answered).toBeGreaterThanOrEqual(0);
    expect(late).toBeGreaterThan(answered);
    expect(event.logs).toContainEqual({ level: 'error', message: expect.stringContaining('work passed to waitUntil failed: Error: work after the answer failed') });
    expect(event.logs.at(-1)).toEqual({ level: 'info', message: `Attempt 1 of ${MAX_DELIVERY_ATTEMPTS}: the script answered 200` });
  });

  it("hands the script an environment that GitBook's IntegrationEnvironment (0.202) accepts", () => {
    const environment = { ...logged(event, 'environment'), integration: { ...logged(event, 'integration'), owner: logged(event, 'owner') } };
    expect(environmentErrors(environment)).toBe('valid');
    expect(environment.integration).toMatchObject({ name: f.integration.name, owner: { id: f.publisher.id } });
    expect(environment.installation.id).toBe(f.installation.id);
    expect(environment.spaceInstallation).toMatchObject({ space: f.spaceId, installation: f.installation.id, status: 'active' });
    expect(environment.spaceInstallation.urls.publicEndpoint).toBe(`https://api.invalid${publicBase()}/installations/${f.installation.id}/spaces/${f.spaceId}/public`);
    expect(environment.secrets).toEqual(SECRETS);
  });
});

describe('fetch at the public endpoints, with the environment of each', () => {
  const fetchAt = async (endpoint: string) => {
    const res = await call(`${endpoint}/hello`);
    expect(res.status, res.text).toBe(200);
    return JSON.parse(res.text) as { route: string; environment: any };
  };

  it("the integration's: no installation", async () => {
    const { route, environment } = await fetchAt(`${publicBase()}/public`);
    expect(route).toBe('/hello');
    expect(environmentErrors(environment)).toBe('valid');
    expect(environment.installation).toBeUndefined();
    expect(environment.apiTokens.installation).toBeUndefined();
  });

  it("the installation's: the installation, no space or site installation", async () => {
    const { route, environment } = await fetchAt(`${publicBase()}/installations/${f.installation.id}/public`);
    expect(route).toBe('/hello');
    expect(environmentErrors(environment)).toBe('valid');
    expect(environment.installation.id).toBe(f.installation.id);
    expect(environment.spaceInstallation).toBeUndefined();
    expect(environment.siteInstallation).toBeUndefined();
  });

  it("the space installation's (its urls.publicEndpoint): the space installation, which the script routes on", async () => {
    const { route, environment } = await fetchAt(`${publicBase()}/installations/${f.installation.id}/spaces/${f.spaceId}/public`);
    expect(route).toBe('/hello');
    expect(environmentErrors(environment)).toBe('valid');
    expect(environment.installation.id).toBe(f.installation.id);
    expect(environment.spaceInstallation).toMatchObject({ space: f.spaceId, status: 'active', configuration: {} });
    expect(environment.siteInstallation).toBeUndefined();
  });

  it("the site installation's (its urls.publicEndpoint): the site installation", async () => {
    const { route, environment } = await fetchAt(`${publicBase()}/installations/${f.installation.id}/sites/${f.siteId}/public`);
    expect(route).toBe('/hello');
    expect(environmentErrors(environment)).toBe('valid');
    expect(environment.siteInstallation).toMatchObject({ site: f.siteId, installation: f.installation.id, status: 'active' });
    expect(environment.siteInstallation.urls.publicEndpoint).toBe(`https://api.invalid${publicBase()}/installations/${f.installation.id}/sites/${f.siteId}/public`);
  });

  it('is a 404 for a space or site the installation does not cover, and for another organization\'s', async () => {
    const stranger = await seedOrg();
    const theirs = await createSpace(stranger.id, stranger.owner.token, 'Theirs');
    for (const path of [
      `/installations/${f.installation.id}/spaces/${f.otherSpaceId}/public`,
      `/installations/${f.installation.id}/spaces/${theirs.id}/public/x`,
      `/installations/${f.installation.id}/sites/nosuchsite000000000/public`,
    ]) {
      const res = await call(`${publicBase()}${path}`);
      expect(res.status, path).toBe(404);
    }
  });

  it('answers before the work passed to waitUntil, whose lines reach the fetch event after it', async () => {
    const res = await call(`${publicBase()}/installations/${f.installation.id}/public/later?space=${f.spaceId}`);
    expect(res.status).toBe(202);
    expect(res.text).toBe('accepted');
    // The work sleeps 1.5 s before reading the API: the answer does not wait for it.
    expect(res.answeredIn).toBeLessThan(1500);
    const events = await eventsOf(f.installation.id, 'fetch');
    const later = events.find((e) => e.payload.request.url.includes('/public/later'))!;
    expect(later.status).toBe('success');
    const messages = later.logs.map((l) => l.message);
    const answered = messages.findIndex((m) => m.endsWith('the script answered 202'));
    expect(messages.indexOf('answering before the work')).toBeLessThan(answered);
    expect(messages.indexOf(`after the answer, read with context.api: space ${f.spaceId}`)).toBeGreaterThan(answered);
  });
});

describe('site_view events of the published site', () => {
  const viewHeaders = {
    'user-agent': 'Mozilla/5.0 (test)',
    'cf-connecting-ip': '198.51.100.7',
    'accept-language': 'fr-FR,fr;q=0.9',
    referer: 'https://search.example/?q=docs',
    cookie: '_ga=GA1.2.3; site_share_x=secret-share; site_token_y=secret-jwt',
  };

  it('are delivered to the site installation after the answer, as GitBook\'s SiteViewEvent, without the site\'s own cookies; a cached view counts too', async () => {
    const first = await call(`/s/${f.siteId}/`, { headers: viewHeaders });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-site-viewed-page')).toBeNull();
    const second = await call(`/s/${f.siteId}/`, { headers: viewHeaders });
    expect(second.status).toBe(200);
    expect(second.headers.get('x-site-viewed-page')).toBeNull();
    await deliverPendingEvents(f.installation.id);
    const views = await eventsOf(f.installation.id, 'site_view');
    expect(views).toHaveLength(2);
    for (const view of views) {
      expect(view.status).toBe('success');
      const event = logged(view, 'site_view');
      expect(gitbookErrors(gitbookValidator('SiteViewEvent', GITBOOK_0202.components), event)).toBe('valid');
      expect(event).toMatchObject({
        type: 'site_view',
        installationId: f.installation.id,
        siteId: f.siteId,
        spaceId: f.spaceId,
        pageId: f.pageId,
        url: `${BASE}/s/${f.siteId}/`,
        referrer: 'https://search.example/?q=docs',
        visitor: { cookies: { _ga: 'GA1.2.3' }, userAgent: 'Mozilla/5.0 (test)', ip: '198.51.100.7', language: 'fr-FR' },
      });
      expect(event.siteSpaceId).toMatch(/^\w+$/);
      expect(event.visitor.anonymousId).toMatch(/^[0-9a-f]{32}$/);
      expect(logged(view, 'siteInstallation')).toMatchObject({ site: f.siteId, installation: f.installation.id });
      // A site's event is the site installation's: an integration reading `spaceInstallation || siteInstallation`
      // (GitBook's webhook integration) finds the site's configuration, not the space's.
      expect(view.logs.some((entry) => entry.message.startsWith('spaceInstallation:'))).toBe(false);
    }
  });

  it("go only where the integration asks for site:views:read and the organization approved it: a visitor's address and cookies go nowhere else", async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token, 'Private views');
    await publishPages(space.id, token, [{ operation: 'insert_page', title: 'Intro', document: { markdown: 'Hi.\n' } }]);
    const site = await publishedSite(org, [space.id]);
    const publisher = await seedOrg();
    const withoutScope = await seedInstallation(await seedIntegration(publisher.id, { script: SCRIPT, scopes: ['site:script:inject'] }), org.id, { sites: 'all' });
    const notApproved = await seedInstallation(await seedIntegration(publisher.id, { script: SCRIPT, scopes: ['site:views:read'] }), org.id, {
      sites: 'all',
      status: 'pending',
      approvedScopes: [],
    });
    const approved = await seedInstallation(await seedIntegration(publisher.id, { script: SCRIPT, scopes: ['site:views:read'] }), org.id, { sites: 'all' });
    expect((await call(`/s/${site.id}/`)).status).toBe(200);
    expect(await eventsOf(withoutScope.id, 'site_view')).toHaveLength(0);
    expect(await eventsOf(notApproved.id, 'site_view')).toHaveLength(0);
    expect(await eventsOf(approved.id, 'site_view')).toHaveLength(1);
  });

  it('are not recorded beyond the cap per installation and minute', async () => {
    const before = (await eventsOf(f.installation.id, 'site_view')).length;
    const now = new Date().toISOString();
    const fill = Array.from({ length: SITE_VIEW_EVENTS_PER_MINUTE }, (_, i) =>
      env.DB.prepare(
        `insert into integration_events (id, integration_id, installation_id, org_id, type, payload, status, attempts, created_at, updated_at)
         values (?, ?, ?, ?, 'site_view', '{"type":"site_view"}', 'success', 1, ?, ?)`,
      ).bind(`capfill${i}${Date.now()}`, f.integration.id, f.installation.id, f.customer.id, now, now),
    );
    await env.DB.batch(fill);
    expect((await call(`/s/${f.siteId}/`, { headers: viewHeaders })).status).toBe(200);
    expect((await eventsOf(f.installation.id, 'site_view')).length).toBe(before + SITE_VIEW_EVENTS_PER_MINUTE);
  });

  it('stop for an integration version that does not handle them (406), and go to no installation that does not cover the site', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token, 'Plain');
    await publishPages(space.id, token, [{ operation: 'insert_page', title: 'Intro', document: { markdown: 'Hi.\n' } }]);
    const site = await publishedSite(org, [space.id]);
    const publisher = await seedOrg();
    const plain = await seedIntegration(publisher.id, { script: PLAIN_SCRIPT, scopes: SCOPES });
    const installation = await seedInstallation(plain, org.id, { sites: 'all' });
    // Another organization's installation on all of its own sites.
    const elsewhere = await seedInstallation(await seedIntegration(publisher.id, { script: SCRIPT, scopes: SCOPES }), (await seedOrg()).id, { sites: 'all' });

    expect((await call(`/s/${site.id}/`)).status).toBe(200);
    await deliverPendingEvents(installation.id);
    const [first] = await eventsOf(installation.id, 'site_view');
    expect(first.status).toBe('success');
    expect(first.logs.at(-1)!.message).toContain('answered 406: the integration does not handle "site_view" events');

    expect((await call(`/s/${site.id}/`)).status).toBe(200);
    expect(await eventsOf(installation.id, 'site_view')).toHaveLength(1);
    expect(await eventsOf(elsewhere.id, 'site_view')).toHaveLength(0);

    // A new version is asked again.
    await env.DB.prepare('update integrations set version = version + 1 where id = ?').bind(plain.id).run();
    expect((await call(`/s/${site.id}/`)).status).toBe(200);
    expect(await eventsOf(installation.id, 'site_view')).toHaveLength(2);
  });
});
