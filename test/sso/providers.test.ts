import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { TEST_CERTIFICATE } from '../fixtures/saml-providers/certificate';
import { GITBOOK_0202, gitbookErrors, gitbookValidator, schemaValidator } from '../helpers/gitbook-schema';
import { BASE, CALLERS, api, byCaller, callerUser, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';

const PROVIDER_SCHEMA = gitbookValidator('OrganizationSAMLProvider', GITBOOK_0202.components);
const LOGINS_SCHEMA = schemaValidator(
  (GITBOOK_0202.paths['/orgs/{organizationId}/sso'] as any).get.responses['200'].content['application/json'].schema,
  GITBOOK_0202.components,
);

const providersPath = (orgId: string) => `/v1/orgs/${orgId}/saml`;
const providerPath = (orgId: string, id: string) => `${providersPath(orgId)}/${id}`;
const CERT_BODY = TEST_CERTIFICATE.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');

const ACTIVE = {
  label: 'Okta',
  entityID: 'http://www.okta.com/exk1',
  certificate: TEST_CERTIFICATE,
  ssoURL: 'https://example.okta.com/app/sso/saml',
  defaultRole: 'edit',
};

function expectProvider(body: unknown) {
  expect(gitbookErrors(PROVIDER_SCHEMA, body), JSON.stringify(body)).toBe('valid');
}

async function createProvider(org: TestOrg, body: Record<string, unknown> = ACTIVE) {
  return expectStatus(await api('POST', providersPath(org.id), { token: org.owner.token, body }), 201).body;
}

async function createTeam(org: TestOrg, title = 'SSO people') {
  return expectStatus(await api('PUT', `/v1/orgs/${org.id}/teams`, { token: org.owner.token, body: { title } }), 201).body;
}

describe('SAML providers', () => {
  it('creates an active provider with its service URLs, default team and role, readable and listed', async () => {
    const org = await seedOrg();
    const team = await createTeam(org);
    const created = await api('POST', providersPath(org.id), { token: org.owner.token, body: { ...ACTIVE, defaultTeam: team.id } });
    expectStatus(created, 201);
    expectProvider(created.body);
    const id = created.body.id;
    expect(created.headers.get('Location')).toBe(`${BASE}${providerPath(org.id, id)}`);
    expect(created.body).toMatchObject({
      object: 'saml-provider',
      label: 'Okta',
      entityID: ACTIVE.entityID,
      ssoURL: ACTIVE.ssoURL,
      defaultRole: 'edit',
      status: 'active',
      defaultTeam: { object: 'team', id: team.id, title: 'SSO people', members: 0 },
      service: {
        acsURL: `${BASE}/sso/saml/${id}/acs`,
        startURL: `${BASE}/sso/saml/${id}/start`,
        entityID: `${BASE}/sso/saml/${id}/metadata`,
      },
      urls: { location: `${BASE}${providerPath(org.id, id)}` },
    });
    expect(created.body.certificate).toBe(TEST_CERTIFICATE);

    const got = expectStatus(await api('GET', providerPath(org.id, id), { token: org.owner.token }), 200);
    expect(got.body).toEqual(created.body);
    const list = expectStatus(await api('GET', providersPath(org.id), { token: org.owner.token }), 200);
    expect(list.body).toMatchObject({ count: 1, items: [{ id }] });
    expect(gitbookErrors(gitbookValidator('OrganizationSAMLProvider', GITBOOK_0202.components), list.body.items[0])).toBe('valid');
  });

  it('keeps a provider created with a label only pending, with empty fields and the read role', async () => {
    const org = await seedOrg();
    const body = await createProvider(org, { label: 'Later' });
    // GitBook's schema types ssoURL as a URI; a provider not configured yet has none: about:blank, a URI of no address.
    expectProvider(body);
    expect(body).toMatchObject({ status: 'pending', entityID: '', certificate: '', ssoURL: 'about:blank', defaultRole: 'read' });
    expect(body.defaultTeam).toBeUndefined();
    // Sent back as read, it stays without an SSO URL (and pending); a login through it is refused.
    const echoed = expectStatus(await api('PATCH', providerPath(org.id, body.id), { token: org.owner.token, body: { ssoURL: body.ssoURL, entityID: 'urn:idp', certificate: CERT_BODY } }), 200).body;
    expect(echoed).toMatchObject({ status: 'pending', ssoURL: 'about:blank' });
    expectProvider(echoed);
    const activated = expectStatus(
      await api('PATCH', providerPath(org.id, body.id), { token: org.owner.token, body: { entityID: 'urn:idp', certificate: CERT_BODY, ssoURL: 'https://idp.example/sso' } }),
      200,
    );
    expect(activated.body.status).toBe('active');
    // A bare base64 body is stored as the PEM it stands for.
    expect(activated.body.certificate).toBe(TEST_CERTIFICATE);
  });

  it('updates fields one at a time, clears the team with null, and makes a guest role with null', async () => {
    const org = await seedOrg();
    const team = await createTeam(org);
    const { id } = await createProvider(org, { ...ACTIVE, defaultTeam: team.id });
    const patch = (body: unknown) => api('PATCH', providerPath(org.id, id), { token: org.owner.token, body });
    expect(expectStatus(await patch({ label: 'Renamed' }), 200).body).toMatchObject({ label: 'Renamed', entityID: ACTIVE.entityID, defaultRole: 'edit' });
    const cleared = expectStatus(await patch({ defaultTeam: null, defaultRole: null }), 200).body;
    expect(cleared.defaultTeam).toBeUndefined();
    expect(cleared.defaultRole).toBeNull();
    expectProvider(cleared);
    expectError(await patch({}), 400, 'at least one field');
  });

  it('refuses bad input with 400 naming the field', async () => {
    const org = await seedOrg();
    const other = await seedOrg();
    const foreignTeam = await createTeam(other);
    const post = (body: unknown) => api('POST', providersPath(org.id), { token: org.owner.token, body });
    expectError(await post({}), 400, 'label');
    expectError(await post({ label: '' }), 400, 'label');
    expectError(await post({ label: 'x'.repeat(31) }), 400, 'label');
    expectError(await post({ label: 42 }), 400, 'label');
    expectError(await post({ label: 'A', entityID: 'e'.repeat(1025) }), 400, 'entityID');
    expectError(await post({ label: 'A', certificate: 'c'.repeat(10_001) }), 400, 'certificate');
    expectError(await post({ label: 'A', certificate: 'not a certificate' }), 400, 'certificate');
    expectError(await post({ label: 'A', certificate: '-----BEGIN CERTIFICATE-----\nTUlJQg==\n-----END CERTIFICATE-----' }), 400, 'not a parseable X.509');
    expectError(await post({ label: 'A', ssoURL: 'http://idp.example/sso' }), 400, 'https');
    expectError(await post({ label: 'A', ssoURL: 'https://user:pw@idp.example/sso' }), 400, 'credentials');
    expectError(await post({ label: 'A', ssoURL: 'not a url' }), 400, 'ssoURL');
    expectError(await post({ label: 'A', ssoURL: `https://idp.example/${'a'.repeat(2048)}` }), 400, 'ssoURL');
    expectError(await post({ label: 'A', defaultRole: 'owner' }), 400, 'defaultRole');
    expectError(await post({ label: 'A', defaultTeam: 'nope' }), 400, 'defaultTeam');
    expectError(await post({ label: 'A', defaultTeam: foreignTeam.id }), 400, 'defaultTeam');
    expect((await api('GET', providersPath(org.id), { token: org.owner.token })).body.count).toBe(0);
  });

  it('deletes with 204 whether or not the provider exists, and the provider is gone', async () => {
    const org = await seedOrg();
    const { id } = await createProvider(org);
    expectStatus(await api('DELETE', providerPath(org.id, id), { token: org.owner.token }), 204);
    expectStatus(await api('DELETE', providerPath(org.id, id), { token: org.owner.token }), 204);
    expectError(await api('GET', providerPath(org.id, id), { token: org.owner.token }), 404, 'SAML provider not found');
  });

  it("answers 404 for another organization's provider, whatever the caller's role there", async () => {
    const org = await seedOrg();
    const other = await seedOrg();
    const { id } = await createProvider(other);
    expectError(await api('GET', providerPath(org.id, id), { token: org.owner.token }), 404);
    expectError(await api('PATCH', providerPath(org.id, id), { token: org.owner.token, body: { label: 'Stolen' } }), 404);
    expectStatus(await api('DELETE', providerPath(org.id, id), { token: org.owner.token }), 204);
    expect(expectStatus(await api('GET', providerPath(other.id, id), { token: other.owner.token }), 200).body.label).toBe('Okta');
  });

  it('pages the list with a cursor', async () => {
    const org = await seedOrg();
    for (const label of ['One', 'Two', 'Three']) await createProvider(org, { label });
    const first = expectStatus(await api('GET', `${providersPath(org.id)}?limit=2`, { token: org.owner.token }), 200).body;
    expect(first.items.map((p: { label: string }) => p.label)).toEqual(['One', 'Two']);
    expect(first.count).toBe(3);
    const second = expectStatus(await api('GET', `${providersPath(org.id)}?limit=2&page=${first.next.page}`, { token: org.owner.token }), 200).body;
    expect(second.items.map((p: { label: string }) => p.label)).toEqual(['Three']);
    expect(second.next).toBeUndefined();
    expectError(await api('GET', `${providersPath(org.id)}?page=garbage`, { token: org.owner.token }), 400, 'page');
  });

  describe('authorization', () => {
    const ADMIN_ONLY = byCaller(200, 403, 403, 403, 403, 403, 403, 404);
    it.each(CALLERS)('%s: admins only manage providers', async (caller) => {
      const org = await seedOrg();
      const { id } = await createProvider(org);
      const token = callerUser(org, caller).token;
      const expected = ADMIN_ONLY[caller];
      expect((await api('GET', providersPath(org.id), { token })).status).toBe(expected);
      expect((await api('GET', providerPath(org.id, id), { token })).status).toBe(expected);
      expect((await api('PATCH', providerPath(org.id, id), { token, body: { label: 'Mine' } })).status).toBe(expected);
      expect((await api('POST', providersPath(org.id), { token, body: { label: 'Mine' } })).status).toBe(expected === 200 ? 201 : expected);
      expect((await api('DELETE', providerPath(org.id, id), { token })).status).toBe(expected === 200 ? 204 : expected);
    });

    it('answers 401 without a token', async () => {
      const org = await seedOrg();
      const { id } = await createProvider(org);
      expectError(await api('GET', providersPath(org.id)), 401);
      expectError(await api('POST', providersPath(org.id), { body: { label: 'A' } }), 401);
      expectError(await api('GET', providerPath(org.id, id)), 401);
      expectError(await api('PATCH', providerPath(org.id, id), { body: { label: 'A' } }), 401);
      expectError(await api('DELETE', providerPath(org.id, id)), 401);
      expectError(await api('GET', providersPath(org.id), { token: 'dpa_made_up' }), 401);
    });
  });

  it('stays within the round-trip budget', async () => {
    const org = await seedOrg();
    const { id } = await createProvider(org);
    const reads = [
      await measureRoundTrips('GET', providersPath(org.id), org.owner.token),
      await measureRoundTrips('GET', providerPath(org.id, id), org.owner.token),
      await measureRoundTrips('GET', `/v1/orgs/${org.id}/sso`, null),
    ];
    for (const read of reads) {
      expect(read.status).toBe(200);
      expect(read.roundTrips).toBeLessThanOrEqual(2);
    }
    const writes = [
      await measureRoundTrips('POST', providersPath(org.id), org.owner.token, { label: 'More' }),
      await measureRoundTrips('PATCH', providerPath(org.id, id), org.owner.token, { label: 'Changed' }),
      await measureRoundTrips('DELETE', providerPath(org.id, id), org.owner.token),
    ];
    for (const write of writes) expect(write.roundTrips).toBeLessThanOrEqual(3);
  });
});

describe('SSO logins of an organization', () => {
  it('lists the active providers to anyone, without a token, in GitBook’s shape', async () => {
    const org = await seedOrg();
    const active = await createProvider(org);
    await createProvider(org, { label: 'Pending' });
    const res = expectStatus(await api('GET', `/v1/orgs/${org.id}/sso`), 200);
    expect(gitbookErrors(LOGINS_SCHEMA, res.body)).toBe('valid');
    expect(res.body).toEqual({ items: [{ id: active.id, label: 'Okta', startURL: `${BASE}/sso/saml/${active.id}/start` }] });
    // An outsider's token reads it too.
    expect(expectStatus(await api('GET', `/v1/orgs/${org.id}/sso`, { token: org.outsider.token }), 200).body.items).toHaveLength(1);
  });

  it('answers an empty list for an organization without providers, and 404 for an unknown one', async () => {
    const org = await seedOrg();
    expect(expectStatus(await api('GET', `/v1/orgs/${org.id}/sso`), 200).body).toEqual({ items: [] });
    expectError(await api('GET', '/v1/orgs/nope/sso'), 404, 'Organization not found');
  });
});

describe('organization sso', () => {
  const patchOrg = (org: TestOrg, body: unknown) => api('PATCH', `/v1/orgs/${org.id}`, { token: org.owner.token, body });
  const ssoOf = async (org: TestOrg) => (await env.DB.prepare('select sso from organizations where id = ?').bind(org.id).first<{ sso: number }>())!.sso;

  it('is accepted only with an active provider', async () => {
    const org = await seedOrg();
    const pending = await createProvider(org, { label: 'Pending' });
    expectError(await patchOrg(org, { sso: true }), 400, 'active SAML provider');
    await api('PATCH', providerPath(org.id, pending.id), { token: org.owner.token, body: { entityID: 'urn:idp', certificate: TEST_CERTIFICATE, ssoURL: 'https://idp.example/sso' } });
    expect(expectStatus(await patchOrg(org, { sso: true }), 200).body.sso).toBe(true);
  });

  it('is turned off when the last active provider is deleted, and kept while another is active', async () => {
    const org = await seedOrg();
    const first = await createProvider(org);
    const second = await createProvider(org, { ...ACTIVE, label: 'Second' });
    expectStatus(await patchOrg(org, { sso: true }), 200);
    expectStatus(await api('DELETE', providerPath(org.id, first.id), { token: org.owner.token }), 204);
    expect(await ssoOf(org)).toBe(1);
    expectStatus(await api('DELETE', providerPath(org.id, second.id), { token: org.owner.token }), 204);
    expect(await ssoOf(org)).toBe(0);
  });
});
