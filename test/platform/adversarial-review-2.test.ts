/**
 * The second adversarial review (issue 38): two organizations, plain HTTP requests against the Worker, each
 * reproduction as the reviewer made it. Acme is the victim, with its site on its own host; Mallory publishes
 * integrations and claims hostnames. Every case here failed on the code before the fix.
 *
 * 1. Another organization's script served on an organization's own host (same-origin with its pages, so it passed
 *    their `script-src 'self'`): on an organization's host only its own sites' scripts and files are served.
 * 2. A pending custom-hostname claim that locked the name out of its real owner: names are unique among verified
 *    claims only, the first to prove a name takes it, pending claims expire, and no answer tells of another
 *    tenant's pending claim.
 * 3. A republish that widened an installed integration's Content-Security-Policy on the organization's pages at
 *    once: the pages keep what the organization approved, and the installation waits (`pending`), as for scopes.
 */
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { runScheduled } from '../../src/jobs/cron';
import { downloadUrl } from '../../src/services/content/files';
import { CUSTOM_HOSTNAME_PENDING_DAYS, setTxtResolver } from '../../src/services/organizations/hostnames';
import { PNG_1x1 } from '../helpers/content';
import { api, BASE, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { integrationName } from '../helpers/integrations';
import { uniq } from '../organizations/support';
import { fetchWorker } from '../helpers/worker';
import { publishedSite, spaceWithPages } from '../site/helpers';

declare module 'vitest' {
  interface ProvidedContext {
    gitbookSiteScriptIntegration: string;
  }
}

const SCRIPT = inject('gitbookSiteScriptIntegration');

/** TXT records the injected resolver answers, by name. */
const records = new Map<string, string[]>();
setTxtResolver({ resolveTxt: async (name) => records.get(name) ?? [] });
afterEach(() => records.clear());

const label = (prefix: string) => `${prefix}-${uniq()}`.slice(0, 32);
const patchOrg = (org: TestOrg, body: unknown) => api('PATCH', `/v1/orgs/${org.id}`, { token: org.owner.token, body });

/** A request as a browser sends it, to any host, without an API token. */
async function hostRequest(url: string) {
  const res = await fetchWorker(new Request(url, { redirect: 'manual' }));
  // Downloads are bytes: only a text answer is read as text.
  const textual = /^(text\/|application\/(json|javascript))/.test(res.headers.get('Content-Type') ?? '');
  return { status: res.status, headers: res.headers, text: textual ? await res.text() : (await res.arrayBuffer(), '') };
}

/** An organization whose default content is a published public site, served at `<label>.sites.test`. */
async function orgOnHost(name: string) {
  const org = await seedOrg();
  const space = await spaceWithPages(org, 'Docs', [
    { operation: 'insert_files', files: [{ ref: 'logo.png', name: 'logo.png', contentType: 'image/png', base64: PNG_1x1 }] },
    { operation: 'insert_page', title: 'Home', document: { markdown: `${name} docs.\n\n![Logo](./logo.png)\n` } },
  ]);
  const site = await publishedSite(org, [space.id], 'public', `${name} docs`);
  const hostname = label(name.toLowerCase());
  expectStatus(await patchOrg(org, { hostname, defaultContent: { type: 'site', site: site.id } }), 200);
  return { org, site, space, host: `${hostname}.sites.test` };
}

/** Publishes a site integration (GitBook's runtime, a `fetch_published_script` handler) under `org`. */
async function publishTracker(org: TestOrg, name: string, contentSecurityPolicy: Record<string, string>, scopes = ['site:script:inject']) {
  const configurations = { site: { properties: { tracking_id: { type: 'string', title: 'Tracking ID' } } } };
  const body = { runtime: 'v2', title: 'Tracker', description: 'A site script', scopes, target: 'site', visibility: 'public', organization: org.id, configurations, contentSecurityPolicy, script: SCRIPT };
  expectStatus(await api('POST', `/v1/integrations/${name}`, { token: org.owner.token, body }), 200);
}

/** Installs `name` on `org` and on its site, configured: the installation's id. */
async function installOnSite(name: string, org: TestOrg, siteId: string): Promise<string> {
  const token = org.owner.token;
  const installation = expectStatus(await api('POST', `/v1/integrations/${name}/installations`, { token, body: { organization: org.id } }), 201).body;
  expectStatus(await api('POST', `/v1/integrations/${name}/installations/${installation.id}/sites`, { token, body: { siteId } }), 201);
  expectStatus(await api('PATCH', `/v1/integrations/${name}/installations/${installation.id}/sites/${siteId}`, { token, body: { configuration: { tracking_id: 'G-1' } } }), 200);
  return installation.id;
}

const scriptPath = (installationId: string, siteId: string) => `/_site/integrations/${installationId}/${siteId}/script.js`;

describe('1. on an organization’s host, only its own sites’ scripts and files', () => {
  let acme: Awaited<ReturnType<typeof orgOnHost>>;
  let mallory: Awaited<ReturnType<typeof orgOnHost>>;
  let malloryScript: string;
  let acmeScript: string;

  beforeAll(async () => {
    acme = await orgOnHost('Acme');
    mallory = await orgOnHost('Mallory');
    const name = integrationName('mallory-tracker');
    await publishTracker(mallory.org, name, { 'script-src': 'https://cdn.mallory.example' });
    malloryScript = scriptPath(await installOnSite(name, mallory.org, mallory.site.id), mallory.site.id);
    // Acme installs the same public integration on its own site: its script is Acme's to serve.
    acmeScript = scriptPath(await installOnSite(name, acme.org, acme.site.id), acme.site.id);
  });

  it('Mallory’s script is 404 on Acme’s host, whatever the path; it is served on hers and on the API’s', async () => {
    for (const path of [malloryScript, `${malloryScript}?v=1`, malloryScript.replace('/script.js', '/./script.js'), `/_site/x/..${malloryScript.slice(6)}`]) {
      const res = await hostRequest(`http://${acme.host}${path}`);
      expect(res.status, path).toBe(404);
      expect(res.text, path).not.toContain('__siteTracker');
    }
    const own = await hostRequest(`http://${mallory.host}${malloryScript}`);
    expect(own.status).toBe(200);
    expect(own.text).toContain('__siteTracker');
    // The API's origin serves no site page that loads scripts: GitBook's renderer loads them from there.
    expect((await hostRequest(`${BASE}${malloryScript}`)).status).toBe(200);
  });

  it('Acme’s own installation’s script is served on Acme’s host, and 404 on Mallory’s', async () => {
    expect((await hostRequest(`http://${acme.host}${acmeScript}`)).status).toBe(200);
    expect((await hostRequest(`http://${mallory.host}${acmeScript}`)).status).toBe(404);
  });

  it('a file link made for another host is 404 on an organization’s host; one made for it is served there only', async () => {
    const [file] = expectStatus(await api('GET', `/v1/spaces/${mallory.space.id}/content/files`, { token: mallory.org.owner.token }), 200).body.items;
    const apiLink = new URL(file.downloadURL);
    expect((await hostRequest(apiLink.href)).status).toBe(200);
    for (const host of [acme.host, mallory.host]) {
      const res = await hostRequest(`http://${host}${apiLink.pathname}${apiLink.search}`);
      expect(res.status, host).toBe(404);
    }
    // The link Mallory's own page carries is served on her host, not on Acme's.
    const page = await hostRequest(`http://${mallory.host}/`);
    const onPage = /(?:src|href)="(?:http:\/\/[^/"]+)?(\/files\/[^"]+)"/.exec(page.text)?.[1]?.replace(/&(amp|#x26);/g, '&');
    expect(onPage).toBeDefined();
    expect((await hostRequest(`http://${mallory.host}${onPage}`)).status).toBe(200);
    expect((await hostRequest(`http://${acme.host}${onPage}`)).status).toBe(404);
    // Signing for Acme's host makes a link of Acme's host only (the same file bytes anywhere else are not served).
    const forAcme = new URL(await downloadUrl(env, `http://${acme.host}`, { id: file.id, hash: new URL(file.downloadURL).pathname.split('/')[2], name: file.name, contentType: file.contentType, size: file.size } as never));
    expect((await hostRequest(forAcme.href)).status).toBe(200);
    expect((await hostRequest(`http://${mallory.host}${forAcme.pathname}${forAcme.search}`)).status).toBe(404);
  });
});

describe('2. custom hostnames: unique among verified claims; pending claims lock nothing and expire', () => {
  const prove = async (org: TestOrg, host: string) => {
    const claim = expectStatus(await api('GET', `/v1/custom-hostnames/${host}`, { token: org.owner.token }), 200).body;
    records.set(claim.verification.record.name, [claim.verification.record.value]);
    return api('PATCH', `/v1/custom-hostnames/${host}`, { token: org.owner.token });
  };
  const customHostnameOf = async (org: TestOrg) => expectStatus(await api('GET', `/v1/orgs/${org.id}`, { token: org.owner.token }), 200).body.customHostname;

  it('a pending claim by Mallory does not lock Acme out; the first to prove the name takes it', async () => {
    const acme = await seedOrg();
    const mallory = await seedOrg();
    const host = `docs.${label('acme')}.example`;
    expectStatus(await patchOrg(mallory, { customHostname: host }), 200);
    // Acme's claim is taken (it was a 409 naming "another organization"), and says nothing of Mallory's.
    const claimed = expectStatus(await patchOrg(acme, { customHostname: host }), 200).body;
    expect(claimed.customHostname).toBe(host);
    expect(JSON.stringify(claimed)).not.toContain(mallory.id);
    // Each reads its own pending claim, with its own challenge.
    const acmeClaim = expectStatus(await api('GET', `/v1/custom-hostnames/${host}`, { token: acme.owner.token }), 200).body;
    const malloryClaim = expectStatus(await api('GET', `/v1/custom-hostnames/${host}`, { token: mallory.owner.token }), 200).body;
    expect(acmeClaim.target.organization).toBe(acme.id);
    expect(malloryClaim.target.organization).toBe(mallory.id);
    expect(acmeClaim.verification.record.value).not.toBe(malloryClaim.verification.record.value);
    // Mallory cannot answer Acme's DNS challenge: her record is not there. Acme proves it.
    expectError(await api('PATCH', `/v1/custom-hostnames/${host}`, { token: mallory.owner.token }), 409, 'pending');
    expectStatus(await prove(acme, host), 204);
    expect(await customHostnameOf(acme)).toBe(host);
    // Mallory's pending claim is gone; claiming the verified name again is refused.
    expect(await customHostnameOf(mallory)).toBeUndefined();
    expectError(await api('GET', `/v1/custom-hostnames/${host}`, { token: mallory.owner.token }), 404);
    expectError(await patchOrg(mallory, { customHostname: host }), 409, host);
  });

  it('Mallory proving a name after Acme did is refused (409), and Acme keeps it', async () => {
    const acme = await seedOrg();
    const mallory = await seedOrg();
    const host = `docs.${label('race')}.example`;
    expectStatus(await patchOrg(acme, { customHostname: host }), 200);
    expectStatus(await patchOrg(mallory, { customHostname: host }), 200);
    const malloryClaim = expectStatus(await api('GET', `/v1/custom-hostnames/${host}`, { token: mallory.owner.token }), 200).body;
    expectStatus(await prove(acme, host), 204);
    // Even with her record in place, the name is Acme's (her claim was cleared when Acme proved it).
    records.set(malloryClaim.verification.record.name, [malloryClaim.verification.record.value]);
    expectError(await api('PATCH', `/v1/custom-hostnames/${host}`, { token: mallory.owner.token }), 404);
    expect(await customHostnameOf(acme)).toBe(host);
  });

  it(`a pending claim expires after ${CUSTOM_HOSTNAME_PENDING_DAYS} days: gone from every read, cleared by the cron, claimable anew`, async () => {
    const org = await seedOrg();
    const host = `docs.${label('stale')}.example`;
    expectStatus(await patchOrg(org, { customHostname: host }), 200);
    const first = expectStatus(await api('GET', `/v1/custom-hostnames/${host}`, { token: org.owner.token }), 200).body;
    const past = new Date(Date.now() - (CUSTOM_HOSTNAME_PENDING_DAYS * 24 + 1) * 3600_000).toISOString();
    await env.DB.prepare('update organizations set custom_hostname_claimed_at = ? where id = ?').bind(past, org.id).run();
    expect(await customHostnameOf(org)).toBeUndefined();
    expectError(await api('GET', `/v1/custom-hostnames/${host}`, { token: org.owner.token }), 404);
    records.set(first.verification.record.name, [first.verification.record.value]);
    expectError(await api('PATCH', `/v1/custom-hostnames/${host}`, { token: org.owner.token }), 404);
    await runScheduled(env, Date.now());
    const row = await env.DB.prepare('select custom_hostname as host, custom_hostname_challenge as challenge from organizations where id = ?').bind(org.id).first();
    expect(row).toEqual({ host: null, challenge: null });
    // Claimed again: pending anew, with a new challenge.
    expectStatus(await patchOrg(org, { customHostname: host }), 200);
    const again = expectStatus(await api('GET', `/v1/custom-hostnames/${host}`, { token: org.owner.token }), 200).body;
    expect(again.verification.record.value).not.toBe(first.verification.record.value);
  });

  it('a verified claim does not expire', async () => {
    const org = await seedOrg();
    const host = `docs.${label('kept')}.example`;
    expectStatus(await patchOrg(org, { customHostname: host }), 200);
    expectStatus(await prove(org, host), 204);
    await env.DB.prepare("update organizations set custom_hostname_claimed_at = '2000-01-01T00:00:00.000Z' where id = ?").bind(org.id).run();
    await runScheduled(env, Date.now());
    expect(await customHostnameOf(org)).toBe(host);
    expect(expectStatus(await api('GET', `/v1/custom-hostnames/${host}`, { token: org.owner.token }), 200).body.isActive).toBe(true);
  });
});

describe('3. a republish that widens an installed integration’s Content-Security-Policy', () => {
  const V1 = { 'script-src': 'https://cdn.good.example' };
  const V2 = { 'script-src': '* https:', 'connect-src': '*', 'frame-src': 'https:' };

  it('leaves the installation pending on the approved policy until an admin approves the new one', async () => {
    const acme = await orgOnHost('Acme');
    const publisher = await seedOrg();
    const name = integrationName('widening');
    await publishTracker(publisher, name, V1);
    const installationId = await installOnSite(name, acme.org, acme.site.id);
    const scripts = async () => expectStatus(await api('GET', `/v1/orgs/${acme.org.id}/sites/${acme.site.id}/integration-scripts`, { token: acme.org.owner.token }), 200).body;
    const pageCsp = async () => (await hostRequest(`http://${acme.host}/`)).headers.get('Content-Security-Policy') ?? '';
    const status = async () => expectStatus(await api('GET', `/v1/integrations/${name}/installations/${installationId}`, { token: acme.org.owner.token }), 200).body.status;
    expect((await scripts())[0].contentSecurityPolicy).toBe('script-src https://cdn.good.example');
    expect(await pageCsp()).toContain('https://cdn.good.example');

    // v2: the same scopes, a wider policy.
    await publishTracker(publisher, name, V2);
    expect(await status()).toBe('pending');
    const [script] = await scripts();
    expect(script.contentSecurityPolicy).toBe('script-src https://cdn.good.example');
    const published = expectStatus(await api('GET', `/v1/orgs/${acme.org.id}/sites/${acme.site.id}/published`), 200).body;
    expect(published.scripts[0].contentSecurityPolicy).toBe('script-src https://cdn.good.example');
    const csp = await pageCsp();
    expect(csp).toContain('https://cdn.good.example');
    expect(csp).not.toMatch(/connect-src[^;]*\*/);
    expect(csp).not.toMatch(/script-src[^;]*(\*|https:(?!\/\/))/);
    expect(csp).not.toContain('frame-src');
    // The script still runs (pending keeps what was approved).
    expect((await hostRequest(`http://${acme.host}${scriptPath(installationId, acme.site.id)}`)).status).toBe(200);

    // An admin of Acme approves by installing again: the new policy applies.
    expectStatus(await api('POST', `/v1/integrations/${name}/installations`, { token: acme.org.owner.token, body: { organization: acme.org.id } }), 201);
    expect(await status()).toBe('active');
    expect((await scripts())[0].contentSecurityPolicy).toBe('connect-src *; frame-src https:; script-src * https:');
    expect(await pageCsp()).toMatch(/connect-src[^;]*\*/);
  });

  it('a republish that narrows the policy applies at once, and widening back needs consent again', async () => {
    const acme = await orgOnHost('Acme');
    const publisher = await seedOrg();
    const name = integrationName('narrowing');
    await publishTracker(publisher, name, { 'script-src': 'https://a.example https://b.example' });
    const installationId = await installOnSite(name, acme.org, acme.site.id);
    const policy = async () => (expectStatus(await api('GET', `/v1/orgs/${acme.org.id}/sites/${acme.site.id}/integration-scripts`, { token: acme.org.owner.token }), 200).body[0]).contentSecurityPolicy;
    const status = async () => (await env.DB.prepare('select status from integration_installations where id = ?').bind(installationId).first<string>('status'))!;
    await publishTracker(publisher, name, { 'script-src': 'https://a.example' });
    expect(await status()).toBe('active');
    expect(await policy()).toBe('script-src https://a.example');
    await publishTracker(publisher, name, { 'script-src': 'https://a.example https://b.example' });
    expect(await status()).toBe('pending');
    expect(await policy()).toBe('script-src https://a.example');
  });

  it('an installation made before policies were approved keeps the policy it ran with when a wider one is published', async () => {
    const acme = await orgOnHost('Acme');
    const publisher = await seedOrg();
    const name = integrationName('legacy');
    await publishTracker(publisher, name, V1);
    const installationId = await installOnSite(name, acme.org, acme.site.id);
    // As migration 0023 leaves installations made before it.
    await env.DB.prepare('update integration_installations set approved_csp = null where id = ?').bind(installationId).run();
    await publishTracker(publisher, name, V2);
    const row = await env.DB.prepare('select status, approved_csp as csp from integration_installations where id = ?').bind(installationId).first<{ status: string; csp: string }>();
    expect(row!.status).toBe('pending');
    expect(JSON.parse(row!.csp)).toEqual(['script-src https://cdn.good.example']);
  });
});
