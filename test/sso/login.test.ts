/**
 * The SAML login (routes/sso/saml-login): metadata, start (HTTP-Redirect with an AuthnRequest), and the ACS
 * (HTTP-POST of a SAMLResponse) answering a page with a new token, or a refusal page without one. Responses are
 * built and signed at test time with the TEST-ONLY key pairs of test/fixtures/saml.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { createDb } from '../../src/db/client';
import { RANK } from '../../src/lib/roles';
import { purgeExpiredSamlRequests } from '../../src/services/sso/login';
import { PAGE_CSP, PAGE_STYLE } from '../../src/services/sso/pages';
import { countingD1 } from '../helpers/round-trips';
import { ADMIN_TOKEN, BASE, api, createUser, expectStatus, seedOrg, type ApiResponse, type TestOrg } from '../helpers/harness';
import {
  ALGORITHMS,
  ATTACKER,
  IDP,
  IDP_ENTITY_ID,
  IDP_SSO_URL,
  acsForm,
  assertionXml,
  encode,
  readRedirect,
  responseXml,
  signXml,
  type ResponseOptions,
} from './saml-fixtures';
import { fetchWorker } from '../helpers/worker';

let org: TestOrg;
let teamId: string;
let provider: { id: string; service: { acsURL: string; startURL: string; entityID: string } };
let otherProvider: { id: string };
let pendingProvider: { id: string };

let counter = 0;
const newEmail = () => `sso-${Date.now().toString(36)}-${counter++}@example.test`;

async function createProvider(orgId: string, token: string, body: Record<string, unknown>) {
  return expectStatus(await api('POST', `/v1/orgs/${orgId}/saml`, { token, body }), 201).body;
}

beforeAll(async () => {
  org = await seedOrg();
  const team = expectStatus(await api('PUT', `/v1/orgs/${org.id}/teams`, { token: org.owner.token, body: { title: 'SSO people' } }), 201);
  teamId = team.body.id;
  provider = await createProvider(org.id, org.owner.token, {
    label: 'Example IdP',
    entityID: IDP_ENTITY_ID,
    certificate: IDP.cert,
    ssoURL: IDP_SSO_URL,
    defaultRole: 'edit',
    defaultTeam: teamId,
  });
  otherProvider = await createProvider(org.id, org.owner.token, {
    label: 'Tenant IdP',
    entityID: IDP_ENTITY_ID,
    certificate: IDP.cert,
    ssoURL: `${IDP_SSO_URL}?tenant=acme&x=1`,
  });
  pendingProvider = await createProvider(org.id, org.owner.token, { label: 'Not configured' });
});

const acsUrl = (id = provider.id) => `${BASE}/sso/saml/${id}/acs`;
const spEntityId = (id = provider.id) => `${BASE}/sso/saml/${id}/metadata`;

/** GET start without following the redirect (the harness's `api` follows it). */
async function getStart(providerId: string): Promise<ApiResponse<string>> {
  const res = await fetchWorker(`${BASE}/sso/saml/${providerId}/start`, { redirect: 'manual' });
  return { status: res.status, body: await res.text(), headers: res.headers };
}

/** GET start: the AuthnRequest's ID and the RelayState. */
async function start(providerId = provider.id) {
  const res = expectStatus(await getStart(providerId), 302);
  const { xml, relayState, url } = await readRedirect(res.headers.get('Location')!);
  const id = /\bID="([^"]+)"/.exec(xml)?.[1];
  expect(id).toBeTruthy();
  return { id: id!, relayState, xml, url, res };
}

/** POST the form of the HTTP-POST binding. */
function post(samlResponse: string, relayState: string | null | undefined, providerId = provider.id): Promise<ApiResponse<string>> {
  return api('POST', `/sso/saml/${providerId}/acs`, {
    rawBody: acsForm(samlResponse, relayState),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });
}

const unescape = (html: string) => html.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
const tokenIn = (html: string) => /<code id="token">(dpa_[A-Za-z0-9]+)<\/code>/.exec(html)?.[1];

/** A refusal page: the status, the reason shown, no token anywhere, the page headers. */
function expectRefused(res: ApiResponse<string>, status: number, reason: string | RegExp) {
  expect(res.status, String(res.body)).toBe(status);
  expect(res.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
  expect(res.headers.get('Cache-Control')).toBe('no-store');
  expect(res.headers.get('Content-Security-Policy')).toBe(PAGE_CSP);
  const html = String(res.body);
  expect(html).not.toContain('dpa_');
  expect(html).not.toContain('<script');
  const shown = unescape(/<p id="reason">([\s\S]*?)<\/p>/.exec(html)?.[1] ?? '');
  if (typeof reason === 'string') expect(shown).toContain(reason);
  else expect(shown).toMatch(reason);
  expect(html).toContain('No token was issued');
}

/** Starts a login, builds a response for it (`o`), signs it (`sign`) and posts it. */
async function login(o: ResponseOptions = {}, sign: (xml: string) => string = (xml) => signXml(xml, IDP)) {
  const request = await start();
  const xml = sign(responseXml({ acsUrl: acsUrl(), spEntityId: spEntityId(), inResponseTo: request.id, email: newEmail(), ...o }));
  const res = await post(encode(xml), request.relayState);
  return { request, xml, res };
}

const minutesFromNow = (m: number) => new Date(Date.now() + m * 60_000);

async function memberRow(userId: string) {
  return env.DB.prepare('select role, sso from org_members where org_id = ? and user_id = ?').bind(org.id, userId).first<{ role: number; sso: number }>();
}

describe('metadata', () => {
  it('describes this service provider for the identity provider', async () => {
    const res = await api('GET', `/sso/saml/${provider.id}/metadata`);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('application/samlmetadata+xml; charset=utf-8');
    const xml = String(res.body);
    expect(xml).toContain(`<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${spEntityId()}">`);
    expect(xml).toContain('WantAssertionsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"');
    expect(xml).toContain('<md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>');
    expect(xml).toContain(`<md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${acsUrl()}"`);
    // The URLs the provider API shows are the ones served.
    expect(provider.service).toEqual({ acsURL: acsUrl(), startURL: `${BASE}/sso/saml/${provider.id}/start`, entityID: spEntityId() });
  });

  it('is served for a provider still pending (admins configure their IdP with it), not for an unknown one', async () => {
    expect((await api('GET', `/sso/saml/${pendingProvider.id}/metadata`)).status).toBe(200);
    expectRefused(await api('GET', '/sso/saml/zzzzzzzzzzzzzzzzzzzz/metadata'), 404, 'does not exist');
  });

  it('stays out of the OpenAPI document', async () => {
    const doc = await api('GET', '/openapi.json');
    expect(Object.keys(doc.body.paths).filter((p) => p.includes('/sso/saml/'))).toEqual([]);
  });
});

describe('start', () => {
  it('redirects to the ssoURL with a deflated AuthnRequest and a RelayState it records', async () => {
    const { id, relayState, xml, url, res } = await start();
    expect(`${url.origin}${url.pathname}`).toBe(IDP_SSO_URL);
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    expect(id).toMatch(/^_[0-9a-f]{40}$/);
    expect(relayState).toMatch(/^[0-9A-Za-z]{32}$/);
    expect(xml).toMatch(/^<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"/);
    expect(xml).toContain(`Destination="${IDP_SSO_URL}"`);
    expect(xml).toContain(`AssertionConsumerServiceURL="${acsUrl()}"`);
    expect(xml).toContain('ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"');
    expect(xml).toContain(`<saml:Issuer>${spEntityId()}</saml:Issuer>`);
    expect(xml).toContain('<samlp:NameIDPolicy Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress" AllowCreate="true"/>');
    const issued = Date.parse(/IssueInstant="([^"]+)"/.exec(xml)![1]);
    expect(Math.abs(issued - Date.now())).toBeLessThan(60_000);
    const row = await env.DB.prepare('select provider_id, relay_state, created_at, expires_at, consumed_at from saml_requests where id = ?')
      .bind(id)
      .first<{ provider_id: string; relay_state: string; created_at: string; expires_at: string; consumed_at: string | null }>();
    expect(row).toMatchObject({ provider_id: provider.id, relay_state: relayState, consumed_at: null });
    expect(Date.parse(row!.expires_at) - Date.parse(row!.created_at)).toBe(10 * 60_000);
  });

  it('keeps the query string the ssoURL already has', async () => {
    const { url } = await start(otherProvider.id);
    expect(url.searchParams.get('tenant')).toBe('acme');
    expect(url.searchParams.get('x')).toBe('1');
    expect(url.searchParams.get('SAMLRequest')).toBeTruthy();
  });

  it('answers 404 for a pending or unknown provider, recording nothing', async () => {
    expectRefused(await getStart(pendingProvider.id), 404, 'not configured');
    expectRefused(await getStart('zzzzzzzzzzzzzzzzzzzz'), 404, 'does not exist');
    const rows = await env.DB.prepare('select count(*) as n from saml_requests where provider_id in (?, ?)').bind(pendingProvider.id, 'zzzzzzzzzzzzzzzzzzzz').first<{ n: number }>();
    expect(rows!.n).toBe(0);
  });
});

describe('ACS: a valid response', () => {
  it('creates the user, makes them a member of the organization and the team, and shows a working token once', async () => {
    const email = newEmail();
    const { res } = await login({ email, attributes: { displayName: 'Ada <Lovelace>' } });
    expect(res.status, String(res.body)).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    expect(res.headers.get('Content-Security-Policy')).toBe(PAGE_CSP);
    expect(res.headers.get('Content-Security-Policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('Referrer-Policy')).toBe('no-referrer');
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
    const html = String(res.body);
    expect(html).not.toContain('<script');
    expect(html).toContain(email);
    const token = tokenIn(html);
    expect(token).toBeTruthy();

    const me = expectStatus(await api('GET', '/v1/user', { token }), 200);
    expect(me.body.email).toBe(email);
    expect(me.body.displayName).toBe('Ada <Lovelace>');
    const user = await env.DB.prepare('select id, email_verified, sso_provider_id from users where email = ?').bind(email).first<{ id: string; email_verified: number; sso_provider_id: string }>();
    // Not verified: the deployment does not vouch for an email an organization's identity provider asserts.
    expect(user).toMatchObject({ email_verified: 0, sso_provider_id: provider.id });
    expect(await memberRow(user!.id)).toEqual({ role: RANK.edit, sso: 1 });
    const teamMembers = expectStatus(await api('GET', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: org.owner.token }), 200);
    expect(teamMembers.body.items.map((m: any) => m.organization.user.id)).toContain(user!.id);
    const label = await env.DB.prepare('select label from api_tokens where user_id = ?').bind(user!.id).first<{ label: string }>();
    expect(label!.label).toBe('SAML login: Example IdP');
  });

  it('logs the same user in again with a new token; a member keeps the role they have', async () => {
    const email = newEmail();
    const first = await login({ email });
    const firstToken = tokenIn(String(first.res.body));
    const user = await env.DB.prepare('select id from users where email = ?').bind(email).first<{ id: string }>();
    await env.DB.prepare('update org_members set role = ? where org_id = ? and user_id = ?').bind(RANK.admin, org.id, user!.id).run();
    const second = await login({ email: email.toUpperCase() });
    expect(second.res.status, String(second.res.body)).toBe(200);
    const secondToken = tokenIn(String(second.res.body));
    expect(secondToken).toBeTruthy();
    expect(secondToken).not.toBe(firstToken);
    expect((await memberRow(user!.id))!.role).toBe(RANK.admin);
    const users = await env.DB.prepare('select count(*) as n from users where email = ?').bind(email).first<{ n: number }>();
    expect(users!.n).toBe(1);
  });

  it('accepts a signed Response (Assertion unsigned), both signed, and RSA-SHA384 and RSA-SHA512', async () => {
    const cases: [string, (xml: string) => string][] = [
      ['Response', (xml) => signXml(xml, IDP, 'Response')],
      ['both', (xml) => signXml(signXml(xml, IDP, 'Assertion'), IDP, 'Response')],
      ['sha384', (xml) => signXml(xml, IDP, 'Assertion', ALGORITHMS.rsaSha384)],
      ['sha512', (xml) => signXml(xml, IDP, 'Assertion', ALGORITHMS.rsaSha512)],
    ];
    for (const [name, sign] of cases) {
      const { res } = await login({}, sign);
      expect(res.status, `${name}: ${String(res.body)}`).toBe(200);
      expect(tokenIn(String(res.body)), name).toBeTruthy();
    }
  });

  it('tolerates 3 minutes of clock skew', async () => {
    const { res } = await login({ notBefore: minutesFromNow(2), notOnOrAfter: minutesFromNow(-2), confirmationNotOnOrAfter: minutesFromNow(-2) });
    expect(res.status, String(res.body)).toBe(200);
  });

  it('reads the email from an attribute when the NameID is not an email, and names the user from givenName and sn', async () => {
    const email = newEmail();
    const { res } = await login({
      email: 'opaque-id-123',
      nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
      attributes: { 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress': email, givenName: 'Grace', sn: 'Hopper' },
    });
    expect(res.status, String(res.body)).toBe(200);
    const me = expectStatus(await api('GET', '/v1/user', { token: tokenIn(String(res.body)) }), 200);
    expect(me.body).toMatchObject({ email, displayName: 'Grace Hopper' });
  });

  it('names a user without name attributes after the local part of their email', async () => {
    const email = newEmail();
    const { res } = await login({ email });
    const me = expectStatus(await api('GET', '/v1/user', { token: tokenIn(String(res.body)) }), 200);
    expect(me.body.displayName).toBe(email.slice(0, email.indexOf('@')));
  });

  it("serves the page's style by the hash its CSP names", async () => {
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(PAGE_STYLE));
    const hash = btoa(String.fromCharCode(...new Uint8Array(digest)));
    expect(PAGE_CSP).toContain(`style-src 'sha256-${hash}'`);
  });
});

describe('ACS: refusals (no token)', () => {
  it('a response altered after signing', async () => {
    const request = await start();
    const signed = signXml(responseXml({ acsUrl: acsUrl(), spEntityId: spEntityId(), inResponseTo: request.id, email: 'alice@example.test' }), IDP);
    const tampered = signed.replace('alice@example.test', 'mallory@example.test');
    expect(tampered).not.toBe(signed);
    expectRefused(await post(encode(tampered), request.relayState), 403, "The Assertion's signature is not valid for the identity provider's certificate");
  });

  it('an expired assertion, or one not valid yet', async () => {
    expectRefused((await login({ notOnOrAfter: minutesFromNow(-4) })).res, 403, 'The Assertion has expired');
    expectRefused((await login({ notBefore: minutesFromNow(4) })).res, 403, 'The Assertion is not valid yet');
    expectRefused((await login({ confirmationNotOnOrAfter: minutesFromNow(-4) })).res, 403, 'The subject confirmation has expired');
  });

  it('a wrong audience, destination, issuer or recipient', async () => {
    expectRefused((await login({ audience: 'https://someone-else.example.test' })).res, 403, "The Assertion's audience (https://someone-else.example.test) is not this service provider");
    // Before the signature is verified, nothing the document says is shown.
    const wrongDestination = (await login({ destination: 'https://evil.example.test/acs' })).res;
    expectRefused(wrongDestination, 403, `The SAML response's Destination is not this provider's ACS URL ${acsUrl()}`);
    expect(String(wrongDestination.body)).not.toContain('evil.example.test');
    expectRefused((await login({ destination: null })).res, 403, 'The SAML response has no Destination');
    expectRefused((await login({ issuer: 'https://evil-idp.example.test' })).res, 403, "The Assertion's Issuer \"https://evil-idp.example.test\" is not this provider's entity ID");
    expectRefused((await login({ responseIssuer: 'https://evil-idp.example.test' })).res, 403, "The Response's Issuer");
    expectRefused((await login({ recipient: 'https://evil.example.test/acs' })).res, 403, 'Recipient "https://evil.example.test/acs" is not this provider\'s ACS URL');
  });

  it('a replayed response (the second time)', async () => {
    const { request, xml, res } = await login();
    expect(res.status).toBe(200);
    expectRefused(await post(encode(xml), request.relayState), 403, 'was already used');
  });

  it('an unknown InResponseTo, another provider\'s request, none (unsolicited), or a Response answering another request', async () => {
    expectRefused((await login({ inResponseTo: '_0123456789abcdef' })).res, 403, 'answers no pending login request of this provider');
    const theirs = await start(otherProvider.id);
    const xml = signXml(responseXml({ acsUrl: acsUrl(), spEntityId: spEntityId(), inResponseTo: theirs.id, email: newEmail() }), IDP);
    expectRefused(await post(encode(xml), theirs.relayState), 403, 'answers no pending login request of this provider');
    expectRefused((await login({ inResponseTo: null })).res, 403, 'Unsolicited (IdP-initiated) SAML responses are not accepted');
    expectRefused((await login({ responseInResponseTo: '_other' })).res, 403, "The Response's InResponseTo differs from the Assertion's");
  });

  it('an expired request', async () => {
    const request = await start();
    await env.DB.prepare('update saml_requests set expires_at = ? where id = ?').bind(new Date(Date.now() - 1000).toISOString(), request.id).run();
    const xml = signXml(responseXml({ acsUrl: acsUrl(), spEntityId: spEntityId(), inResponseTo: request.id, email: newEmail() }), IDP);
    expectRefused(await post(encode(xml), request.relayState), 403, 'expired');
  });

  it('a RelayState other than the request\'s, which leaves the request pending for its own', async () => {
    const request = await start();
    const xml = signXml(responseXml({ acsUrl: acsUrl(), spEntityId: spEntityId(), inResponseTo: request.id, email: newEmail() }), IDP);
    expectRefused(await post(encode(xml), 'not-the-relay-state'), 403, 'The RelayState does not match the login request');
    expectRefused(await post(encode(xml), null), 403, 'The RelayState does not match the login request');
    const row = await env.DB.prepare('select consumed_at from saml_requests where id = ?').bind(request.id).first<{ consumed_at: string | null }>();
    expect(row).toEqual({ consumed_at: null });
    const genuine = await post(encode(xml), request.relayState);
    expect(genuine.status, String(genuine.body)).toBe(200);
  });

  it('an unsigned response, one signed by another key, or with SHA-1', async () => {
    expectRefused((await login({}, (xml) => xml)).res, 403, 'The SAML response is not signed');
    // The attacker's signature carries the attacker's certificate in KeyInfo: it is never trusted.
    const { xml, res } = await login({}, (x) => signXml(x, ATTACKER));
    expect(xml).toContain('<ds:X509Certificate>');
    expectRefused(res, 403, "The Assertion's signature is not valid for the identity provider's certificate");
    expectRefused((await login({}, (x) => signXml(x, ATTACKER, 'Response'))).res, 403, "The Response's signature is not valid");
    expectRefused((await login({}, (x) => signXml(x, IDP, 'Assertion', ALGORITHMS.rsaSha1))).res, 403, 'signed with RSA-SHA1, which is refused');
    expectRefused(
      (await login({}, (x) => signXml(x, IDP, 'Assertion', { signature: ALGORITHMS.rsaSha256.signature, digest: ALGORITHMS.rsaSha1.digest }))).res,
      403,
      'uses a SHA-1 digest, which is refused',
    );
  });

  it('a validly signed Assertion of the response with an attacker-signed Response around it', async () => {
    const { res } = await login({}, (x) => signXml(signXml(x, IDP, 'Assertion'), ATTACKER, 'Response'));
    expectRefused(res, 403, "The Response's signature is not valid");
  });

  it('signature wrapping: an evil Assertion beside or around the signed one, or the signed one moved', async () => {
    const request = await start();
    const base = { acsUrl: acsUrl(), spEntityId: spEntityId(), inResponseTo: request.id };
    const signed = signXml(responseXml({ ...base, email: 'victim@example.test' }), IDP);
    const signedAssertion = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(signed)![0];
    const evil = assertionXml({ ...base, email: 'mallory@example.test', assertionId: '_evil' });
    // The signed Assertion moved into the evil one's Advice.
    const inAdvice = signed.replace(signedAssertion, evil.replace('</saml:Assertion>', `<saml:Advice>${signedAssertion}</saml:Advice></saml:Assertion>`));
    expectRefused(await post(encode(inAdvice), request.relayState), 403, 'The SAML response must hold exactly one Assertion (it holds 2)');
    // The evil Assertion first, the signed one after it.
    const beside = signed.replace(signedAssertion, evil + signedAssertion);
    expectRefused(await post(encode(beside), request.relayState), 403, 'exactly one Assertion');
    // The signed Assertion alone, moved out of the Response's children into an Extensions element.
    const moved = signed.replace(signedAssertion, `<samlp:Extensions>${signedAssertion}</samlp:Extensions>`);
    expectRefused(await post(encode(moved), request.relayState), 403, 'The Assertion must be a direct child of the Response');
    // The Assertion's (valid) signature moved up into the Response: a Response "signed" by a reference to another element.
    const signature = /<ds:Signature[\s\S]*<\/ds:Signature>/.exec(signed)![0];
    const hoisted = signed.replace(signature, '').replace('</saml:Issuer>', `</saml:Issuer>${signature}`);
    expect(hoisted.indexOf(signature)).toBeLessThan(hoisted.indexOf('<saml:Assertion'));
    expectRefused(await post(encode(hoisted), request.relayState), 403, "The Response's signature does not reference the Response");
    // A signed Response whose ID was changed after signing: its reference no longer names it.
    const renamed = signXml(responseXml({ ...base, email: newEmail() }), IDP, 'Response').replace(/<samlp:Response ([^>]*)ID="[^"]+"/, '<samlp:Response $1ID="_x"');
    expectRefused(await post(encode(renamed), request.relayState), 403, "The Response's signature does not reference the Response");
    // Nothing was consumed by the refusals: the genuine response still logs in.
    expect((await post(encode(signed), request.relayState)).status).toBe(200);
  });

  it('a DOCTYPE (entity expansion), malformed base64 or XML, or not a Response', async () => {
    const request = await start();
    const xml = signXml(responseXml({ acsUrl: acsUrl(), spEntityId: spEntityId(), inResponseTo: request.id, email: newEmail() }), IDP);
    const withDoctype = `<!DOCTYPE r [<!ENTITY e "x">]>${xml}`;
    expectRefused(await post(encode(withDoctype), request.relayState), 400, 'DOCTYPE or ENTITY declaration');
    expectRefused(await post('%%%not base64%%%', request.relayState), 400, 'SAMLResponse is not valid base64');
    expectRefused(await post(encode('<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"><unclosed>'), request.relayState), 400, 'not well-formed XML');
    expectRefused(await post(encode('just text'), request.relayState), 400, 'not well-formed XML');
    expectRefused(await post(encode('<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" Version="2.0"/>'), request.relayState), 400, 'not a samlp:Response');
    expectRefused(await post(encode(xml.replace('Version="2.0"', 'Version="1.1"')), request.relayState), 400, 'not SAML 2.0');
    const badTime = await login({}, (x) => signXml(x.replace(/ NotBefore="[^"]+"/, ' NotBefore="yesterday"'), IDP));
    expectRefused(badTime.res, 400, 'Conditions NotBefore is not an xs:dateTime: "yesterday"');
  });

  it('an encrypted assertion, or a status other than Success', async () => {
    expectRefused((await login({ encrypted: true }, (x) => x)).res, 403, 'Encrypted assertions and identifiers are not supported');
    // The status code's name, from SAML's fixed vocabulary, is shown; the (unverified) StatusMessage is not.
    const cancelled = (await login({ statusCode: 'urn:oasis:names:tc:SAML:2.0:status:Responder', statusMessage: 'User cancelled <b>x</b>' }, (x) => x)).res;
    expectRefused(cancelled, 403, /^The identity provider did not log you in \(status Responder\)$/);
    expect(String(cancelled.body)).not.toContain('User cancelled');
    const unknown = (await login({ statusCode: 'urn:example:evil:Status' }, (x) => x)).res;
    expectRefused(unknown, 403, /^The identity provider did not log you in$/);
    expect(String(unknown.body)).not.toContain('evil');
  });

  it('an assertion without an email', async () => {
    const { res } = await login({ email: 'opaque-id-123', nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent' });
    expectRefused(res, 403, 'The assertion names no email');
    expectRefused((await login({ email: 'not an email' })).res, 403, "The assertion's email (NameID) is not an email address");
  });


  it('a disabled member', async () => {
    const email = newEmail();
    await login({ email });
    const user = await env.DB.prepare('select id from users where email = ?').bind(email).first<{ id: string }>();
    await env.DB.prepare('update org_members set disabled = 1 where org_id = ? and user_id = ?').bind(org.id, user!.id).run();
    expectRefused((await login({ email })).res, 403, 'membership of');
  });

  it('an organization at its members cap (nothing written)', async () => {
    const full = await seedOrg();
    const capped = await createProvider(full.id, full.owner.token, { label: 'Capped', entityID: IDP_ENTITY_ID, certificate: IDP.cert, ssoURL: IDP_SSO_URL, defaultTeam: null });
    const { member_count } = (await env.DB.prepare('select member_count from organizations where id = ?').bind(full.id).first<{ member_count: number }>())!;
    await env.DB.prepare('update organizations set member_count = ? where id = ?').bind(10_000, full.id).run();
    try {
      const email = newEmail();
      const request = await start(capped.id);
      const xml = signXml(responseXml({ acsUrl: acsUrl(capped.id), spEntityId: spEntityId(capped.id), inResponseTo: request.id, email }), IDP);
      expectRefused(await post(encode(xml), request.relayState, capped.id), 403, /cannot take more members: Cap reached: at most 10000 members/);
      expect(await env.DB.prepare('select id from users where email = ?').bind(email).first()).toBeNull();
    } finally {
      await env.DB.prepare('update organizations set member_count = ? where id = ?').bind(member_count, full.id).run();
    }
  });

  it('a pending or unknown provider, a missing SAMLResponse, a body that is not a form, an oversized body', async () => {
    expectRefused(await post(encode('<x/>'), 'r', pendingProvider.id), 404, 'not configured');
    expectRefused(await post(encode('<x/>'), 'r', 'zzzzzzzzzzzzzzzzzzzz'), 404, 'does not exist');
    const noField = await api('POST', `/sso/saml/${provider.id}/acs`, { rawBody: 'RelayState=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expectRefused(noField, 400, 'The form has no SAMLResponse');
    expectRefused(await api('POST', `/sso/saml/${provider.id}/acs`, { body: { SAMLResponse: 'x' } }), 400, 'must be posted as a form');
    const huge = await api('POST', `/sso/saml/${provider.id}/acs`, {
      rawBody: acsForm('A'.repeat(300 * 1024), 'r'),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expectRefused(huge, 413, 'larger than 65536 bytes');
  });
});

describe('D1 round trips', () => {
  const app = createApp();
  async function counted(path: string, init: RequestInit = {}) {
    const counter = countingD1(env.DB);
    const ctx = createExecutionContext();
    const res = await app.request(`${BASE}${path}`, { redirect: 'manual', ...init }, { ...env, DB: counter.db }, ctx);
    await waitOnExecutionContext(ctx);
    return { status: res.status, body: await res.text(), location: res.headers.get('Location'), roundTrips: counter.count };
  }

  it('metadata and start take one, the ACS four (provider; request, user and membership; the writes; the token)', async () => {
    expect(await counted(`/sso/saml/${provider.id}/metadata`)).toMatchObject({ status: 200, roundTrips: 1 });
    const started = await counted(`/sso/saml/${provider.id}/start`);
    expect(started).toMatchObject({ status: 302, roundTrips: 1 });
    const request = await readRedirect(started.location!);
    const id = /\bID="([^"]+)"/.exec(request.xml)![1];
    const xml = signXml(responseXml({ acsUrl: acsUrl(), spEntityId: spEntityId(), inResponseTo: id, email: newEmail() }), IDP);
    const acs = await counted(`/sso/saml/${provider.id}/acs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: acsForm(encode(xml), request.relayState),
    });
    expect(acs.status, acs.body).toBe(200);
    expect(acs.roundTrips).toBe(4);
  });
});

describe('purgeExpiredSamlRequests', () => {
  it('deletes requests expired more than a day ago, and only those', async () => {
    const old = await start();
    const recent = await start();
    const now = new Date();
    await env.DB.prepare('update saml_requests set expires_at = ? where id = ?').bind(new Date(now.getTime() - 25 * 3600_000).toISOString(), old.id).run();
    await env.DB.prepare('update saml_requests set expires_at = ? where id = ?').bind(new Date(now.getTime() - 23 * 3600_000).toISOString(), recent.id).run();
    expect(await purgeExpiredSamlRequests(createDb(env.DB), now)).toBeGreaterThanOrEqual(1);
    const left = await env.DB.prepare('select id from saml_requests where id in (?, ?)').bind(old.id, recent.id).all<{ id: string }>();
    expect(left.results.map((r) => r.id)).toEqual([recent.id]);
  });
});

/** A login through any provider (`login` is through `provider`). */
async function loginAt(providerId: string, o: ResponseOptions = {}, sign: (xml: string) => string = (xml) => signXml(xml, IDP)) {
  const request = await start(providerId);
  const xml = sign(responseXml({ acsUrl: acsUrl(providerId), spEntityId: spEntityId(providerId), inResponseTo: request.id, email: newEmail(), ...o }));
  return post(encode(xml), request.relayState, providerId);
}

/** The user a login page's token belongs to. */
async function userOfPage(res: ApiResponse<string>) {
  expect(res.status, String(res.body)).toBe(200);
  return expectStatus(await api('GET', '/v1/user', { token: tokenIn(String(res.body)) }), 200).body as { id: string; email: string };
}

const usersWithEmail = async (email: string) =>
  (await env.DB.prepare('select id, sso_provider_id from users where email = ? order by created_at, id').bind(email).all<{ id: string; sso_provider_id: string | null }>()).results;

async function membership(orgId: string, userId: string) {
  return env.DB.prepare('select role from org_members where org_id = ? and user_id = ?').bind(orgId, userId).first<{ role: number }>();
}

describe('ACS: an SSO user is an identity of its provider, never another account of the same email', () => {
  it('a normal account with the email stays untouched, and the login makes a separate user without naming it', async () => {
    const email = newEmail();
    const existing = await createUser({ email });
    const { res } = await login({ email });
    const ssoUser = await userOfPage(res);
    expect(ssoUser.id).not.toBe(existing.id);
    expect(String(res.body)).not.toContain('already exists');
    expect(await memberRow(existing.id)).toBeNull();
    expect(await usersWithEmail(email)).toEqual([
      { id: existing.id, sso_provider_id: null },
      { id: ssoUser.id, sso_provider_id: provider.id },
    ]);
    // The normal account keeps working as itself; logging in again through SSO is the SSO user again.
    expect(expectStatus(await api('GET', '/v1/user', { token: existing.token }), 200).body.id).toBe(existing.id);
    expect((await userOfPage((await login({ email })).res)).id).toBe(ssoUser.id);
  });

  it("another provider's user of the same email is a separate user too", async () => {
    const email = newEmail();
    const theirs = await userOfPage(await loginAt(otherProvider.id, { email }));
    const ours = await userOfPage((await login({ email })).res);
    expect(ours.id).not.toBe(theirs.id);
    const rows = await usersWithEmail(email);
    expect(rows.map((r) => r.sso_provider_id).sort()).toEqual([otherProvider.id, provider.id].sort());
  });

  it("the operator can create a normal user whose email an SSO user has (once: a second one is a conflict)", async () => {
    const email = newEmail();
    const ssoUser = await userOfPage((await login({ email })).res);
    const normal = await createUser({ email });
    expect(normal.id).not.toBe(ssoUser.id);
    const again = await api('POST', '/v1/users', { token: ADMIN_TOKEN, body: { displayName: 'Again', email } });
    expect(again.status).toBe(409);
  });

  it('an SSO user does not join another organization by email domain (their email is not verified)', async () => {
    const domain = `sso-domain-${Date.now().toString(36)}-${counter++}.test`;
    const other = await seedOrg();
    await env.DB.prepare('update organizations set email_domains = ? where id = ?').bind(JSON.stringify([domain]), other.id).run();
    const { res } = await login({ email: `someone@${domain}` });
    const ssoUser = await userOfPage(res);
    const token = tokenIn(String(res.body));
    const joined = await api('POST', `/v1/orgs/${other.id}/join`, { token });
    expect(joined.status).toBe(404); // as for an organization they may not see
    expect(await membership(other.id, ssoUser.id)).toBeNull();
    expect((await api('GET', `/v1/email-domains/${domain}/orgs`, { token })).status).toBe(403);
    // A normal, verified account of that domain does join: the organization's setup is not what refused.
    const normal = await createUser({ email: `someone@${domain}` });
    expect((await api('POST', `/v1/orgs/${other.id}/join`, { token: normal.token })).status).toBe(204);
  });

  it("another organization's email invitation does not make the SSO user a member, before or after the user exists", async () => {
    const other = await seedOrg();
    const later = newEmail();
    const heldFirst = expectStatus(await api('POST', `/v1/orgs/${other.id}/invites`, { token: other.owner.token, body: { emails: [later] } }), 200);
    expect(heldFirst.body.pending).toEqual([later]);
    const first = await userOfPage((await login({ email: later })).res);
    expect(await membership(other.id, first.id)).toBeNull();

    const email = newEmail();
    const ssoUser = await userOfPage((await login({ email })).res);
    const invited = expectStatus(await api('POST', `/v1/orgs/${other.id}/invites`, { token: other.owner.token, body: { emails: [email] } }), 200);
    expect(invited.body).toMatchObject({ users: [], pending: [email] });
    expect(await membership(other.id, ssoUser.id)).toBeNull();
  });
});

describe('ACS: the assertion checked in full', () => {
  it('a comment inside the NameID: the whole signed value is the email, never the part before the comment', async () => {
    const email = `${newEmail()}.evil.test`;
    const request = await start();
    const signed = signXml(responseXml({ acsUrl: acsUrl(), spEntityId: spEntityId(), inResponseTo: request.id, email }), IDP);
    const victim = email.slice(0, email.indexOf('.evil.test'));
    const commented = signed.replace(`>${email}<`, `>${victim}<!---->.evil.test<`);
    expect(commented).not.toBe(signed);
    const res = await post(encode(commented), request.relayState);
    // The comment is outside the signed canonical form: the signature holds, and the value is the signed one.
    expect((await userOfPage(res)).email).toBe(email);
    expect(await env.DB.prepare('select id from users where email = ?').bind(victim).first()).toBeNull();
  });

  it('a same-ID copy of the signed Assertion elsewhere in the response', async () => {
    const request = await start();
    const signed = signXml(responseXml({ acsUrl: acsUrl(), spEntityId: spEntityId(), inResponseTo: request.id, email: newEmail() }), IDP);
    const assertion = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(signed)![0];
    const copied = signed.replace('</samlp:Status>', `</samlp:Status><samlp:Extensions>${assertion}</samlp:Extensions>`);
    expectRefused(await post(encode(copied), request.relayState), 403, 'exactly one Assertion (it holds 2)');
    const decoy = assertion.replace(/^<saml:Assertion /, '<x:Decoy xmlns:x="urn:example:decoy" ').replace(/<\/saml:Assertion>$/, '</x:Decoy>').replace(/<\/?saml:Assertion\b/g, '');
    const disguised = signed.replace('</samlp:Status>', `</samlp:Status><samlp:Extensions>${decoy}</samlp:Extensions>`);
    const res = await post(encode(disguised), request.relayState);
    expect(res.status, String(res.body)).toBe(403);
    expect(String(res.body)).not.toContain('dpa_');
  });

  const without = (pattern: RegExp, replacement = '') => (xml: string) => signXml(xml.replace(pattern, replacement), IDP);

  it('missing Conditions or AudienceRestriction, or a second AudienceRestriction without our audience', async () => {
    expectRefused((await login({}, without(/<saml:Conditions[\s\S]*?<\/saml:Conditions>/))).res, 403, 'The Assertion has no Conditions');
    expectRefused((await login({}, without(/<saml:AudienceRestriction>[\s\S]*?<\/saml:AudienceRestriction>/))).res, 403, 'The Assertion has no AudienceRestriction');
    const second = '<saml:AudienceRestriction><saml:Audience>https://other-sp.example.test</saml:Audience></saml:AudienceRestriction>';
    expectRefused((await login({}, without(/<\/saml:AudienceRestriction>/, `</saml:AudienceRestriction>${second}`))).res, 403, "The Assertion's audience (https://other-sp.example.test) is not this service provider");
  });

  it('an Assertion without Issuer (in a signed Response), or without AuthnStatement', async () => {
    const noIssuer = (xml: string) => signXml(xml.replace(/(<saml:Assertion [^>]*>)<saml:Issuer>[^<]*<\/saml:Issuer>/, '$1'), IDP, 'Response');
    expectRefused((await login({}, noIssuer)).res, 403, 'The Assertion has no Issuer');
    expectRefused((await login({}, without(/<saml:AuthnStatement[\s\S]*?<\/saml:AuthnStatement>/))).res, 403, 'The Assertion has no AuthnStatement');
  });

  it('no bearer confirmation; a SubjectConfirmationData without NotOnOrAfter, or with NotBefore', async () => {
    expectRefused((await login({}, without(/urn:oasis:names:tc:SAML:2\.0:cm:bearer/, 'urn:oasis:names:tc:SAML:2.0:cm:holder-of-key'))).res, 403, 'no bearer SubjectConfirmation');
    expectRefused((await login({}, without(/(<saml:SubjectConfirmationData) NotOnOrAfter="[^"]+"/, '$1'))).res, 403, 'The SubjectConfirmationData has no NotOnOrAfter');
    const notBefore = `$1 NotBefore="${minutesFromNow(-1).toISOString()}"`;
    expectRefused((await login({}, without(/(<saml:SubjectConfirmationData)/, notBefore))).res, 403, 'must not have NotBefore');
  });

  it('times that are not strictly xs:dateTime (Feb 31, hour 24)', async () => {
    for (const bad of ['2030-02-31T00:00:00Z', '2030-01-01T24:00:00Z', '2030-01-01T10:00:00+15:00']) {
      const res = (await login({}, without(/(<saml:Conditions [^>]*NotOnOrAfter=")[^"]+"/, `$1${bad}"`))).res;
      expectRefused(res, 400, `Conditions NotOnOrAfter is not an xs:dateTime: "${bad}"`);
    }
    // Offsets and fractions are read exactly.
    const later = new Date(Date.now() + 60 * 60_000);
    const offset = `${later.toISOString().slice(0, 10)}T${String((later.getUTCHours() + 2) % 24).padStart(2, '0')}${later.toISOString().slice(13, 19)}.5+02:00`;
    if (later.getUTCHours() < 22) expect((await login({}, without(/(<saml:Conditions [^>]*NotOnOrAfter=")[^"]+"/, `$1${offset}"`))).res.status).toBe(200);
  });

  it('the signature: two references, a transform outside the allow-list, an unaccepted algorithm (RSA-PSS), named by no URI', async () => {
    const request = await start();
    const signed = signXml(responseXml({ acsUrl: acsUrl(), spEntityId: spEntityId(), inResponseTo: request.id, email: newEmail() }), IDP);
    const reference = /<ds:Reference[\s\S]*?<\/ds:Reference>/.exec(signed)![0];
    expectRefused(await post(encode(signed.replace(reference, reference + reference)), request.relayState), 403, 'must have exactly one reference');
    const xpath = signed.replace('http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/TR/1999/REC-xpath-19991116');
    expectRefused(await post(encode(xpath), request.relayState), 403, "The Assertion's signature uses a transform that is not accepted");
    const pss = signed.replace('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', 'http://www.w3.org/2007/05/xmldsig-more#sha256-rsa-MGF1');
    const refused = await post(encode(pss), request.relayState);
    expectRefused(refused, 403, "The Assertion's signature algorithm is not accepted");
    expect(String(refused.body)).not.toContain('MGF1');
    expect((await post(encode(signed), request.relayState)).status).toBe(200);
  });

  it('an EncryptedID in place of the NameID', async () => {
    const encryptedId =
      '<saml:EncryptedID><xenc:EncryptedData xmlns:xenc="http://www.w3.org/2001/04/xmlenc#"><xenc:CipherData><xenc:CipherValue>AAAA</xenc:CipherValue></xenc:CipherData></xenc:EncryptedData></saml:EncryptedID>';
    expectRefused((await login({}, without(/<saml:NameID [^>]*>[^<]*<\/saml:NameID>/, encryptedId))).res, 403, 'Encrypted assertions and identifiers are not supported');
  });

  it('a display name loses its control and bidirectional characters', async () => {
    const { res } = await login({ attributes: { displayName: 'Ada\u202E \u009BLove\u2066lace\u200F' } });
    expect((await userOfPage(res)) as unknown as { displayName: string }).toMatchObject({ displayName: 'Ada Lovelace' });
  });

  it('too many elements, or too deep a nesting, is refused before parsing (400)', async () => {
    const request = await start();
    const open = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_r" Version="2.0">`;
    const wide = `${open}${'<a/>'.repeat(2001)}</samlp:Response>`;
    expectRefused(await post(encode(wide), request.relayState), 400, 'more than 2000 elements');
    const deep = `${open}${'<a>'.repeat(70)}${'</a>'.repeat(70)}</samlp:Response>`;
    expectRefused(await post(encode(deep), request.relayState), 400, 'nests elements more than 64 deep');
  });
});

describe('ACS: invitations, teams, and what the page shows', () => {
  it("a held invitation of the provider's organization sets the newcomer's role, and is removed", async () => {
    const email = newEmail();
    const held = expectStatus(await api('POST', `/v1/orgs/${org.id}/invites`, { token: org.owner.token, body: { emails: [{ email, role: 'review' }] } }), 200);
    expect(held.body.pending).toEqual([email]);
    const user = await userOfPage((await login({ email })).res);
    expect(await memberRow(user.id)).toEqual({ role: RANK.review, sso: 1 });
    expect(await env.DB.prepare('select email from org_email_invites where org_id = ? and email = ?').bind(org.id, email).first()).toBeNull();
  });

  it("another organization's team as the default team is ignored", async () => {
    const elsewhere = await seedOrg();
    const theirs = await createProvider(elsewhere.id, elsewhere.owner.token, { label: 'Elsewhere', entityID: IDP_ENTITY_ID, certificate: IDP.cert, ssoURL: IDP_SSO_URL, defaultTeam: null });
    await env.DB.prepare('update saml_providers set default_team_id = ? where id = ?').bind(teamId, theirs.id).run();
    const user = await userOfPage(await loginAt(theirs.id));
    expect(await membership(elsewhere.id, user.id)).not.toBeNull();
    expect(await env.DB.prepare('select user_id from team_members where team_id = ? and user_id = ?').bind(teamId, user.id).first()).toBeNull();
  });

  it("markup in the organization's title and the provider's label is escaped on the token page", async () => {
    const marked = await seedOrg();
    await env.DB.prepare('update organizations set title = ? where id = ?').bind('<script>alert(1)</script> & co', marked.id).run();
    const labelled = await createProvider(marked.id, marked.owner.token, { label: '<i>IdP</i> "x"', entityID: IDP_ENTITY_ID, certificate: IDP.cert, ssoURL: IDP_SSO_URL, defaultTeam: null });
    const res = await loginAt(labelled.id);
    expect(res.status, String(res.body)).toBe(200);
    const html = String(res.body);
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<i>');
    expect(html).toContain('Signed in to &lt;script&gt;alert(1)&lt;/script&gt; &amp; co');
    expect(html).toContain('through &lt;i&gt;IdP&lt;/i&gt; &quot;x&quot;.');
  });
});

describe('API_URL: one entity ID and ACS URL whatever host a request came through', () => {
  const app = createApp();
  const API = 'https://api.docs.example.test';
  /** A request through the app with API_URL set (as `/v1/`-suffixed as a deployment might write it). */
  async function viaApiUrl(path: string, init: RequestInit = {}) {
    const ctx = createExecutionContext();
    const res = await app.request(`${BASE}${path}`, { redirect: 'manual', ...init }, { ...env, API_URL: `${API}/v1/` }, ctx);
    await waitOnExecutionContext(ctx);
    return { status: res.status, body: await res.text(), location: res.headers.get('Location') };
  }
  const apiAcs = (id = provider.id) => `${API}/sso/saml/${id}/acs`;
  const apiEntity = (id = provider.id) => `${API}/sso/saml/${id}/metadata`;

  it('the provider API, the login list, the metadata and the AuthnRequest name the configured URLs', async () => {
    const shown = JSON.parse((await viaApiUrl(`/v1/orgs/${org.id}/saml/${provider.id}`, { headers: { Authorization: `Bearer ${org.owner.token}` } })).body);
    expect(shown.service).toEqual({ acsURL: apiAcs(), startURL: `${API}/sso/saml/${provider.id}/start`, entityID: apiEntity() });
    const logins = JSON.parse((await viaApiUrl(`/v1/orgs/${org.id}/sso`)).body);
    expect(logins.items.find((l: { id: string }) => l.id === provider.id).startURL).toBe(`${API}/sso/saml/${provider.id}/start`);
    const metadata = await viaApiUrl(`/sso/saml/${provider.id}/metadata`);
    expect(metadata.body).toContain(`entityID="${apiEntity()}"`);
    expect(metadata.body).toContain(`Location="${apiAcs()}"`);
    const started = await viaApiUrl(`/sso/saml/${provider.id}/start`);
    const { xml } = await readRedirect(started.location!);
    expect(xml).toContain(`AssertionConsumerServiceURL="${apiAcs()}"`);
    expect(xml).toContain(`<saml:Issuer>${apiEntity()}</saml:Issuer>`);
  });

  it('the ACS accepts a response addressed to the configured URLs, and refuses one addressed to the request host', async () => {
    const postVia = (xml: string, relayState: string | null) =>
      viaApiUrl(`/sso/saml/${provider.id}/acs`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: acsForm(encode(xml), relayState) });
    const request = await start();
    const toHost = signXml(responseXml({ acsUrl: acsUrl(), spEntityId: spEntityId(), inResponseTo: request.id, email: newEmail() }), IDP);
    const refused = await postVia(toHost, request.relayState);
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('Destination is not this provider');
    const toApi = signXml(responseXml({ acsUrl: apiAcs(), spEntityId: apiEntity(), inResponseTo: request.id, email: newEmail() }), IDP);
    const accepted = await postVia(toApi, request.relayState);
    expect(accepted.status, accepted.body).toBe(200);
    expect(tokenIn(accepted.body)).toBeTruthy();
  });
});
