/**
 * Organizations' hostnames (issue 27, findings 3 and 4): a label serves the site at `<label>.<SITES_DOMAIN>`
 * (SITES_DOMAIN is `sites.test` in test/vitest.config.ts), never a reserved label nor the deployment's own
 * host; a custom hostname serves nothing until its DNS TXT challenge is answered (a resolver injected here);
 * an organization's host serves its site and nothing of the API, the integrations' endpoints or other sites.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { setOutboundFetch } from '../../src/lib/outbound';
import { CustomHostnameSchema, OrganizationSchema } from '../../src/schemas/organization';
import { dohResolver, setTxtResolver } from '../../src/services/organizations/hostnames';
import { api, expectError, expectSchema, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { seedIntegration } from '../helpers/integrations';
import { publishedSite, spaceWithPages } from '../site/helpers';
import { uniq } from './support';
import { fetchWorker } from '../helpers/worker';

/** TXT records the injected resolver answers, by name. */
const records = new Map<string, string[]>();
const lookups: string[] = [];
setTxtResolver({
  async resolveTxt(name) {
    lookups.push(name);
    return records.get(name) ?? [];
  },
});
afterEach(() => records.clear());

const label = (prefix: string) => `${prefix}-${uniq()}`.slice(0, 32);
const patchOrg = (org: TestOrg, body: unknown, token = org.owner.token) => api('PATCH', `/v1/orgs/${org.id}`, { token, body });

/** A GET (or another method) to `url` as a browser sends it: any host, no API token unless given. */
async function hostRequest(url: string, init: { method?: string; headers?: Record<string, string> } = {}) {
  const res = await fetchWorker(new Request(url, { method: init.method ?? 'GET', headers: init.headers, redirect: 'manual' }));
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/**
 * The deployment's own answer at a host that is no organization's: its index (`GET /`, JSON leading to the
 * reference and the API), never a site.
 */
function expectDeploymentIndex(res: { status: number; text: string }, what = '') {
  expect(res.status, what).toBe(200);
  expect(JSON.parse(res.text).links, what).toMatchObject({ reference: expect.stringMatching(/\/docs$/), api: expect.stringMatching(/\/v1\/$/) });
}

/** A request through the app with other variables (the deployment's configured URLs). */
async function withEnv(vars: Record<string, string>, url: string, method: string, token: string, body: unknown) {
  const ctx = createExecutionContext();
  const res = await createApp().request(
    url,
    { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) },
    { ...env, ...vars },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

/** An organization whose default content is a public site with one page saying `text`. */
async function orgWithSite(text: string) {
  const org = await seedOrg();
  const space = await spaceWithPages(org, 'Docs', [{ operation: 'insert_page', title: 'Home', document: { markdown: `${text}\n` } }]);
  const site = await publishedSite(org, [space.id], 'public', 'Hosted');
  expectStatus(await patchOrg(org, { defaultContent: { type: 'site', site: site.id } }), 200);
  return { org, site };
}

describe('hostname: a label under SITES_DOMAIN', () => {
  it('finding 4: an organization cannot claim localhost, and the deployment root never serves its site', async () => {
    const { org } = await orgWithSite('Attacker content.');
    expectError(await patchOrg(org, { hostname: 'localhost' }), 400, 'hostname');
    expectError(await api('POST', '/v1/orgs', { token: org.owner.token, body: { title: 'Attacker', hostname: 'localhost' } }), 400, 'hostname');
    const root = await hostRequest('http://localhost/');
    expect(root.text).not.toContain('Attacker content.');
    expectDeploymentIndex(root);
  });

  it('refuses reserved labels (400 naming hostname)', async () => {
    const org = await seedOrg();
    for (const reserved of ['www', 'api', 'app', 'admin', 'docs', 'status', 'mail', 'cdn', 'static', 'assets']) {
      expectError(await patchOrg(org, { hostname: reserved }), 400, 'hostname');
    }
    expect(expectStatus(await api('GET', `/v1/orgs/${org.id}`, { token: org.owner.token }), 200).body.hostname).toBeUndefined();
  });

  it("refuses a label whose host is the deployment's own (API_URL, APP_URL, SITES_URL)", async () => {
    const org = await seedOrg();
    for (const [name, url] of [['API_URL', 'https://portal.sites.test'], ['APP_URL', 'https://portal.sites.test/app'], ['SITES_URL', 'https://portal.sites.test/docs']]) {
      const res = await withEnv({ [name]: url }, `http://api.test/v1/orgs/${org.id}`, 'PATCH', org.owner.token, { hostname: 'portal' });
      expectError(res, 400, 'hostname');
    }
  });

  it('serves the organization’s site at <label>.<SITES_DOMAIN>, and nowhere else', async () => {
    const { org } = await orgWithSite('Served by label.');
    const host = label('acme');
    const updated = expectStatus(await patchOrg(org, { hostname: host }), 200).body;
    expect(expectSchema(OrganizationSchema, updated).hostname).toBe(host);
    const page = await hostRequest(`http://${host}.sites.test/`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Served by label.');
    // The bare label, or the label under another domain, is not the organization's host.
    for (const other of [`http://${host}/`, `http://${host}.elsewhere.test/`]) {
      const res = await hostRequest(other);
      expect(res.text, other).not.toContain('Served by label.');
      expectDeploymentIndex(res, other);
    }
    // A label no organization has is a 404 of the site, never the API.
    const unknown = await hostRequest(`http://${label('nobody')}.sites.test/v1/orgs`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('Content-Type')).toContain('text/html');
  });

  it('a second organization claiming a taken label is refused (409)', async () => {
    const first = await seedOrg();
    const second = await seedOrg();
    const host = label('taken');
    expectStatus(await patchOrg(first, { hostname: host }), 200);
    expectError(await patchOrg(second, { hostname: host }), 409, host);
  });
});

describe('customHostname: a domain proved by a DNS TXT challenge', () => {
  it('refuses localhost, IP addresses and the deployment’s own hosts (400 naming customHostname)', async () => {
    const org = await seedOrg();
    for (const bad of ['localhost', '127.0.0.1', '10.0.0.1', '203.0.113.9', '[::1]', 'fe80::1', 'example', 'acme.sites.test', 'sites.test', 'a.b.localhost']) {
      expectError(await patchOrg(org, { customHostname: bad }), 400, 'customHostname');
    }
    // The request's own host and the configured ones, and anything under them.
    const own = await withEnv({}, `http://api.docs.example/v1/orgs/${org.id}`, 'PATCH', org.owner.token, { customHostname: 'api.docs.example' });
    expectError(own, 400, 'customHostname');
    expectError(await withEnv({}, `http://api.docs.example/v1/orgs/${org.id}`, 'PATCH', org.owner.token, { customHostname: 'x.api.docs.example' }), 400, 'customHostname');
    for (const name of ['API_URL', 'APP_URL', 'SITES_URL']) {
      const vars = { [name]: 'https://platform.example.com' };
      for (const host of ['platform.example.com', 'docs.platform.example.com']) {
        expectError(await withEnv(vars, `http://api.test/v1/orgs/${org.id}`, 'PATCH', org.owner.token, { customHostname: host }), 400, 'customHostname');
      }
    }
    expect(expectStatus(await api('GET', `/v1/orgs/${org.id}`, { token: org.owner.token }), 200).body.customHostname).toBeUndefined();
  });

  it('is pending (serves nothing) until the TXT record holds the challenge, then serves the site', async () => {
    const { org } = await orgWithSite('Served on a custom domain.');
    const host = `docs.${label('acme')}.example`;
    const updated = expectStatus(await patchOrg(org, { customHostname: host.toUpperCase() }), 200).body;
    expect(expectSchema(OrganizationSchema, updated).customHostname).toBe(host);

    const pending = expectSchema(CustomHostnameSchema, expectStatus(await api('GET', `/v1/custom-hostnames/${host}`, { token: org.owner.token }), 200).body);
    expect(pending).toMatchObject({ object: 'custom-hostname', hostname: host, target: { type: 'organization', organization: org.id }, isActive: false });
    expect(pending.status).toBeUndefined();
    expect(pending.verification.status).toBe('pending');
    expect(pending.verification.record).toEqual({ type: 'TXT', name: `_docs-platform-challenge.${host}`, value: expect.stringMatching(/^docs-platform-verification=[A-Za-z0-9]{32}$/) });

    // Pending: the host is none of the site's business.
    const before = await hostRequest(`http://${host}/`);
    expectDeploymentIndex(before);
    expect(before.text).not.toContain('Served on a custom domain.');

    // No record, then a wrong one: 409, still pending.
    expectError(await api('PATCH', `/v1/custom-hostnames/${host}`, { token: org.owner.token }), 409, `_docs-platform-challenge.${host}`);
    records.set(`_docs-platform-challenge.${host}`, ['docs-platform-verification=wrong']);
    expectError(await api('PATCH', `/v1/custom-hostnames/${host}`, { token: org.owner.token }), 409, 'pending');
    expectDeploymentIndex(await hostRequest(`http://${host}/`));

    records.set(`_docs-platform-challenge.${host}`, ['v=spf1 -all', pending.verification.record.value]);
    expectStatus(await api('PATCH', `/v1/custom-hostnames/${host}`, { token: org.owner.token }), 204);
    expect(lookups).toContain(`_docs-platform-challenge.${host}`);
    const active = expectStatus(await api('GET', `/v1/custom-hostnames/${host}`, { token: org.owner.token }), 200).body;
    expect(active).toMatchObject({ isActive: true, status: 'dns_passed', verification: { status: 'verified', verifiedAt: expect.any(String) } });

    const page = await hostRequest(`http://${host}/`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Served on a custom domain.');

    // Another domain replaces it: pending again, with a new challenge; the old one serves nothing anymore.
    const next = `help.${label('acme')}.example`;
    expectStatus(await patchOrg(org, { customHostname: next }), 200);
    const again = expectStatus(await api('GET', `/v1/custom-hostnames/${next}`, { token: org.owner.token }), 200).body;
    expect(again.isActive).toBe(false);
    expect(again.verification.record.value).not.toBe(pending.verification.record.value);
    expectDeploymentIndex(await hostRequest(`http://${host}/`));
    expectDeploymentIndex(await hostRequest(`http://${next}/`));
    expectError(await api('GET', `/v1/custom-hostnames/${host}`, { token: org.owner.token }), 404);
  });

  it('setting the same custom hostname again, or clearing none, changes nothing (200)', async () => {
    const org = await seedOrg();
    expect(expectStatus(await patchOrg(org, { customHostname: null }), 200).body.customHostname).toBeUndefined();
    const host = `docs.${label('same')}.example`;
    expectStatus(await patchOrg(org, { customHostname: host }), 200);
    const before = expectStatus(await api('GET', `/v1/custom-hostnames/${host}`, { token: org.owner.token }), 200).body;
    expect(expectStatus(await patchOrg(org, { customHostname: host }), 200).body.customHostname).toBe(host);
    const after = expectStatus(await api('GET', `/v1/custom-hostnames/${host}`, { token: org.owner.token }), 200).body;
    expect(after.verification.record.value).toBe(before.verification.record.value);
  });

  it('a second organization may claim a name another holds pending (200); a verified name is refused (409)', async () => {
    const first = await seedOrg();
    const second = await seedOrg();
    const host = `docs.${label('taken')}.example`;
    expectStatus(await patchOrg(first, { customHostname: host }), 200);
    expectStatus(await patchOrg(second, { customHostname: host }), 200);
    const claim = expectStatus(await api('GET', `/v1/custom-hostnames/${host}`, { token: first.owner.token }), 200).body.verification.record;
    records.set(claim.name, [claim.value]);
    expectStatus(await api('PATCH', `/v1/custom-hostnames/${host}`, { token: first.owner.token }), 204);
    const third = await seedOrg();
    expectError(await patchOrg(third, { customHostname: host }), 409, host);
    // The second organization's pending claim went when the first proved the name (test/platform/adversarial-review-2).
    expect(expectStatus(await api('GET', `/v1/orgs/${second.id}`, { token: second.owner.token }), 200).body.customHostname).toBeUndefined();
  });

  it('members read it, admins check and remove it; other organizations see nothing', async () => {
    const org = await seedOrg();
    const host = `docs.${label('perm')}.example`;
    expectStatus(await patchOrg(org, { customHostname: host }), 200);
    expectStatus(await api('GET', `/v1/custom-hostnames/${host}`, { token: org.members.read.token }), 200);
    expectError(await api('PATCH', `/v1/custom-hostnames/${host}`, { token: org.members.edit.token }), 403);
    expectError(await api('GET', `/v1/custom-hostnames/${host}`, { token: org.outsider.token }), 404);
    expectError(await api('PATCH', `/v1/custom-hostnames/${host}`, { token: org.outsider.token }), 404);
    expectError(await api('GET', `/v1/custom-hostnames/${host}`), 401);
    // Removing another organization's hostname reads as removing one that does not exist.
    expectStatus(await api('DELETE', `/v1/custom-hostnames/${host}`, { token: org.outsider.token }), 204);
    expectError(await api('DELETE', `/v1/custom-hostnames/${host}`, { token: org.members.edit.token }), 403);
    expect(expectStatus(await api('GET', `/v1/orgs/${org.id}`, { token: org.owner.token }), 200).body.customHostname).toBe(host);
    expectStatus(await api('DELETE', `/v1/custom-hostnames/${host}`, { token: org.owner.token }), 205);
    expect(expectStatus(await api('GET', `/v1/orgs/${org.id}`, { token: org.owner.token }), 200).body.customHostname).toBeUndefined();
    expectStatus(await api('DELETE', `/v1/custom-hostnames/${host}`, { token: org.owner.token }), 204);
  });
});

describe('an organization’s host serves its site and nothing else', () => {
  let hosts: string[];
  let integrationPath: string;
  let otherSite: string;

  /** The script answers 201 with the cookies it was given: a request reaching it is visible. */
  const SCRIPT = `export default { async fetch(request) { return new Response('script ran', { status: 201 }); } };`;

  beforeAll(async () => {
    const { org } = await orgWithSite('Victim docs.');
    const custom = `docs.${label('victim')}.example`;
    const hostname = label('victim');
    expectStatus(await patchOrg(org, { hostname, customHostname: custom }), 200);
    const challenge = expectStatus(await api('GET', `/v1/custom-hostnames/${custom}`, { token: org.owner.token }), 200).body.verification.record;
    records.set(challenge.name, [challenge.value]);
    expectStatus(await api('PATCH', `/v1/custom-hostnames/${custom}`, { token: org.owner.token }), 204);
    hosts = [`${hostname}.sites.test`, custom];

    const attacker = await seedOrg();
    const integration = await seedIntegration(attacker.id, { script: SCRIPT });
    const advertised = expectStatus(await api('GET', `/v1/integrations/${integration.name}`, { token: attacker.owner.token }), 200).body;
    integrationPath = new URL(advertised.urls.publicEndpoint).pathname;
    otherSite = (await orgWithSite('Other organization.')).site.id;
  });

  it('finding 3: an integration’s public endpoint is not reached through an organization’s host (404), with or without its cookies', async () => {
    // On the API's host the script runs: the request below would reach it.
    expect((await hostRequest(`http://api.test${integrationPath}/anything`)).status).toBe(201);
    for (const host of hosts) {
      for (const method of ['GET', 'POST']) {
        const res = await hostRequest(`http://${host}${integrationPath}/anything`, { method, headers: { Cookie: 'site_share=secret; site_token=jwt' } });
        expect(res.status, `${method} ${host}`).toBe(404);
        expect(res.text, `${method} ${host}`).not.toContain('script ran');
      }
    }
  });

  it('answers 404 for the API, its document, the SSO and integration paths and other sites', async () => {
    const { owner } = await seedOrg();
    for (const host of hosts) {
      const home = await hostRequest(`http://${host}/`);
      expect(home.status, host).toBe(200);
      expect(home.text).toContain('Victim docs.');
      for (const path of ['/v1/orgs', '/v1/user', '/openapi.json', '/docs', '/sso/saml/x/metadata', '/integrations/x/public', '/integration-assets/x', `/s/${otherSite}/`, '/sites/x/y']) {
        for (const method of ['GET', 'POST', 'DELETE']) {
          const res = await hostRequest(`http://${host}${path}`, { method, headers: { Authorization: `Bearer ${owner.token}` } });
          expect(res.status, `${method} ${host}${path}`).toBe(404);
          expect(res.text, `${method} ${host}${path}`).not.toContain('Other organization.');
          expect(res.headers.get('Content-Type'), `${method} ${host}${path}`).toContain('text/html');
        }
      }
      // The site's own assets are served there.
      const css = /<link rel="stylesheet" href="([^"]+)"/.exec(home.text)![1];
      expect((await hostRequest(`http://${host}${css}`)).status).toBe(200);
    }
  });
});

describe('dohResolver: DNS over HTTPS JSON through the outbound guard', () => {
  afterEach(() => setOutboundFetch());

  it('asks TXT records of the name with accept: application/dns-json and joins each record’s strings', async () => {
    const seen: Request[] = [];
    setOutboundFetch(async (request) => {
      seen.push(request);
      return Response.json({ Status: 0, Answer: [{ name: 'x', type: 16, data: '"docs-platform-" "verification=abc"' }, { type: 5, data: 'cname.example.' }, { type: 16, data: '"v=spf1 \\"q\\""' }] });
    });
    const txt = await dohResolver({}).resolveTxt('_docs-platform-challenge.docs.acme.example');
    expect(txt).toEqual(['docs-platform-verification=abc', 'v=spf1 "q"']);
    const url = new URL(seen[0].url);
    expect(url.origin + url.pathname).toBe('https://cloudflare-dns.com/dns-query');
    expect(url.searchParams.get('name')).toBe('_docs-platform-challenge.docs.acme.example');
    expect(url.searchParams.get('type')).toBe('TXT');
    expect(seen[0].headers.get('accept')).toBe('application/dns-json');
  });

  it('reads NXDOMAIN as no record; a failing resolver is a 502, never a success', async () => {
    setOutboundFetch(async () => Response.json({ Status: 3 }));
    expect(await dohResolver({}).resolveTxt('nothing.example.com')).toEqual([]);
    setOutboundFetch(async () => new Response('down', { status: 503 }));
    await expect(dohResolver({}).resolveTxt('nothing.example.com')).rejects.toMatchObject({ status: 502 });
    setOutboundFetch(async () => Response.json({ Status: 2 }));
    await expect(dohResolver({}).resolveTxt('nothing.example.com')).rejects.toMatchObject({ status: 502 });
    // The guard applies: a resolver on a private address is refused unless OUTBOUND_ALLOWED_HOSTS lists it.
    await expect(dohResolver({ DNS_RESOLVER_URL: 'http://127.0.0.1:8053/dns-query' }).resolveTxt('a.example.com')).rejects.toMatchObject({ status: 502 });
    setOutboundFetch(async () => Response.json({ Status: 0, Answer: [{ type: 16, data: '"local"' }] }));
    expect(await dohResolver({ DNS_RESOLVER_URL: 'http://127.0.0.1:8053/dns-query', OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' }).resolveTxt('a.example.com')).toEqual(['local']);
  });
});
