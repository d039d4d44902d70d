/**
 * Installations of integrations (routes/integrations/installations.ts, space-installations.ts,
 * site-installations.ts): installing on an organization and then on its spaces and sites, who may see
 * and change what, configuration checked against the integration's schema, the events each change
 * records, and the temporary tokens that act as an installation.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { decryptSecret } from '../../src/services/integrations/crypto';
import { createSpace } from '../helpers/content';
import { GITBOOK_0202, gitbookErrors, gitbookOperations, gitbookValidator, schemaValidator } from '../helpers/gitbook-schema';
import { ADMIN_TOKEN, api, byCaller, callerUser, CALLERS, expectError, expectStatus, seedOrg, type ApiResponse, type TestOrg } from '../helpers/harness';
import { seedIntegration, seedToken, type SeededIntegration } from '../helpers/integrations';
import { measureRoundTrips } from '../helpers/round-trips';

const GITBOOK = gitbookOperations();

/** The response validates against GitBook's schema of that operation and status. */
function expectConforms(operationId: string, res: ApiResponse) {
  const operation = GITBOOK.get(operationId);
  expect(operation, operationId).toBeDefined();
  const schema = operation!.responses[String(res.status)];
  expect(schema, `${operationId} documents ${res.status}`).toBeDefined();
  if (schema === null) return;
  expect(gitbookErrors(schemaValidator(schema, GITBOOK_0202.components), res.body), JSON.stringify(res.body)).toBe('valid');
}

const installationValidator = gitbookValidator('IntegrationInstallation', GITBOOK_0202.components);
const spaceInstallationValidator = gitbookValidator('IntegrationSpaceInstallation', GITBOOK_0202.components);
const siteInstallationValidator = gitbookValidator('IntegrationSiteInstallation', GITBOOK_0202.components);
const installationSetupValidator = gitbookValidator('InstallationSetupEvent', GITBOOK_0202.components);

const CONFIGURATIONS = {
  account: {
    properties: {
      name: { type: 'string', title: 'Name' },
      channel: { type: 'string', title: 'Channel', enum: ['general', 'random'], default: 'general' },
      count: { type: 'number', title: 'Count' },
      enabled: { type: 'boolean', title: 'Enabled', default: true },
      connect: { type: 'button', title: 'Connect', callback_url: 'https://example.com/connect', button_text: 'Connect' },
    },
    required: ['name'],
  },
  space: { properties: { path: { type: 'string', title: 'Path' }, depth: { type: 'number', title: 'Depth', default: 1 } }, required: ['path'] },
  site: { properties: { trackingId: { type: 'string', title: 'Tracking id' } }, required: ['trackingId'] },
};

interface EventRow {
  id: string;
  integration_id: string;
  installation_id: string;
  org_id: string;
  type: string;
  payload: string;
  status: string;
}

async function eventsOf(installationId: string, type: string) {
  const rows = await env.DB.prepare('select * from integration_events where installation_id = ? and type = ? order by created_at, rowid')
    .bind(installationId, type)
    .all<EventRow>();
  return rows.results.map((row) => ({ ...row, payload: JSON.parse(row.payload) as Record<string, any> }));
}

const install = (name: string, orgId: string, token: string | null) => api('POST', `/v1/integrations/${name}/installations`, { token, body: { organization: orgId } });
const base = (name: string, installationId: string) => `/v1/integrations/${name}/installations/${installationId}`;

let publisher: TestOrg;
let customer: TestOrg;
let integration: SeededIntegration;
/** Installed on `customer` by its owner, through the API. */
let installation: any;
let installationToken: string;
let integrationToken: string;

beforeAll(async () => {
  [publisher, customer] = await Promise.all([seedOrg(), seedOrg()]);
  integration = await seedIntegration(publisher.id, { scopes: ['space:metadata:read', 'space:content:read'], configurations: CONFIGURATIONS });
  installation = expectStatus(await install(integration.name, customer.id, customer.owner.token), 201).body;
  [installationToken, integrationToken] = await Promise.all([seedToken(integration.id, installation.id), seedToken(integration.id, null)]);
});

describe('installIntegration', () => {
  it('installs on an organization: 201 with the installation, its defaults, an installation_setup event, and a signing secret shown once', async () => {
    const org = await seedOrg();
    const res = expectStatus(await install(integration.name, org.id, org.owner.token), 201);
    expectConforms('installIntegration', res);
    expect(gitbookErrors(installationValidator, res.body)).toBe('valid');
    const created = res.body;
    expect(created).toMatchObject({
      status: 'active',
      space_selection: 'selected',
      site_selection: 'selected',
      spaces: 0,
      configuration: { channel: 'general', enabled: true },
      externalIds: [],
      target: { organization: org.id },
    });
    expect(created.urls.location).toBe(`http://api.test/v1/integrations/${integration.name}/installations/${created.id}`);
    expect(res.headers.get('Location')).toBe(created.urls.location);
    expect(created.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);

    // Stored encrypted; never shown again.
    const stored = await env.DB.prepare('select signing_secret from integration_installations where id = ?').bind(created.id).first<{ signing_secret: string }>();
    expect(stored!.signing_secret).not.toContain(created.signingSecret);
    expect(await decryptSecret(env as never, stored!.signing_secret)).toBe(created.signingSecret);
    const read = expectStatus(await api('GET', base(integration.name, created.id), { token: org.owner.token }), 200).body;
    expect(read).not.toHaveProperty('signingSecret');
    const { signingSecret: _secret, ...shown } = created;
    expect(read).toEqual(shown);
    const listed = expectStatus(await api('GET', `/v1/integrations/${integration.name}/installations`, { token: org.owner.token }), 200).body;
    expect(listed.items).toEqual([shown]);
    expect(JSON.stringify(listed)).not.toContain(created.signingSecret);

    const [event] = await eventsOf(created.id, 'installation_setup');
    expect(event).toMatchObject({ status: 'pending', integration_id: integration.id, org_id: org.id, payload: { type: 'installation_setup', installationId: created.id, status: 'active' } });
    expect(gitbookErrors(installationSetupValidator, { ...event.payload, eventId: event.id })).toBe('valid');
  });

  it('gives the installation the role of its scopes', async () => {
    const org = await seedOrg();
    const writer = await seedIntegration(publisher.id, { scopes: ['space:content:write'] });
    const created = expectStatus(await install(writer.name, org.id, org.owner.token), 201).body;
    const row = await env.DB.prepare('select space_role from integration_installations where id = ?').bind(created.id).first<{ space_role: number }>();
    expect(row!.space_role).toBeGreaterThanOrEqual(3);
  });

  it('answers 409 naming the installation when the integration is already installed on the organization', async () => {
    expectError(await install(integration.name, customer.id, customer.owner.token), 409, installation.id);
  });

  it('only lets the admins of the organization install (guests and members below admin 403, outsiders 404)', async () => {
    const expected = byCaller(201, 403, 403, 403, 403, 403, 403, 404);
    const org = await seedOrg();
    for (const caller of CALLERS) {
      const fresh = await seedIntegration(publisher.id);
      const res = await install(fresh.name, org.id, callerUser(org, caller).token);
      expect(res.status, `${caller}: ${JSON.stringify(res.body)}`).toBe(expected[caller]);
    }
  });

  it('refuses bad input, unknown targets, missing tokens and tokens that are no user', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    expectError(await api('POST', `/v1/integrations/${integration.name}/installations`, { token, body: {} }), 400, 'organization');
    expectError(await api('POST', `/v1/integrations/${integration.name}/installations`, { token, body: { organization: 42 } }), 400, 'organization');
    expectError(await api('POST', `/v1/integrations/${integration.name}/installations`, { token, rawBody: '{"organization":' }), 400);
    expectError(await install(integration.name, 'no-such-org', token), 404);
    expectError(await install('no-such-integration', org.id, token), 404, 'integration');
    expectError(await install(integration.name, org.id, null), 401);
    expectError(await install(integration.name, org.id, ADMIN_TOKEN), 403);
    expectError(await install(integration.name, org.id, integrationToken), 403);
    expectError(await install(integration.name, org.id, installationToken), 403);
    // A private integration is seen only by the members of the organization that publishes it.
    const hidden = await seedIntegration(publisher.id, { visibility: 'private' });
    expectError(await install(hidden.name, org.id, token), 404, 'integration');
    expectStatus(await install(hidden.name, publisher.id, publisher.owner.token), 201);
  });
});

describe('listIntegrationInstallations and getIntegrationInstallationById', () => {
  let other: TestOrg;
  let otherInstallation: any;

  beforeAll(async () => {
    other = await seedOrg();
    otherInstallation = expectStatus(await install(integration.name, other.id, other.owner.token), 201).body;
  });

  const list = (token: string, query = '') => api('GET', `/v1/integrations/${integration.name}/installations${query}`, { token });
  const ids = (res: ApiResponse) => expectStatus(res, 200).body.items.map((i: any) => i.id);

  it('shows every installation to the integration and its admins, its own to an installation token, and those of organizations they administer to others', async () => {
    const all = expectStatus(await list(publisher.owner.token), 200);
    expectConforms('listIntegrationInstallations', all);
    expect(all.body.items.map((i: any) => i.id)).toEqual(expect.arrayContaining([installation.id, otherInstallation.id]));
    expect(all.body.count).toBe(all.body.items.length);
    expect(ids(await list(integrationToken))).toEqual(all.body.items.map((i: any) => i.id));
    expect(ids(await list(installationToken))).toEqual([installation.id]);
    expect(ids(await list(customer.owner.token))).toEqual([installation.id]);
    expect(ids(await list(other.owner.token))).toEqual([otherInstallation.id]);
    expect(ids(await list(customer.members.create.token))).toEqual([]);
    expect(ids(await list(publisher.members.read.token))).toEqual([]);
    expectError(await api('GET', `/v1/integrations/${integration.name}/installations`, {}), 401);
    expectError(await list('dpi_unknown'), 401);
    expectError(await list(publisher.owner.token, '?limit=0'), 400, 'limit');
    expectError(await list(publisher.owner.token, '?page=nope'), 400, 'page');
    expectError(await api('GET', `/v1/integrations/no-such-integration/installations`, { token: publisher.owner.token }), 404);
  });

  it('pages with a keyset cursor and a total count', async () => {
    const first = expectStatus(await list(publisher.owner.token, '?limit=1'), 200).body;
    expect(first.items).toHaveLength(1);
    expect(first.count).toBeGreaterThanOrEqual(2);
    const second = expectStatus(await list(publisher.owner.token, `?limit=1&page=${first.next.page}`), 200).body;
    expect(second.items[0].id).not.toBe(first.items[0].id);
    expect(second.count).toBe(first.count);
  });

  it('filters on an external id', async () => {
    expectStatus(await api('PATCH', base(integration.name, otherInstallation.id), { token: integrationToken, body: { externalIds: ['team-42', 'team-43'] } }), 200);
    expect(ids(await list(integrationToken, '?externalId=team-43'))).toEqual([otherInstallation.id]);
    expect(ids(await list(customer.owner.token, '?externalId=team-43'))).toEqual([]);
    expect(ids(await list(integrationToken, '?externalId=team-4'))).toEqual([]);
  });

  it('gets an installation for whoever may see it; everyone else reads it as not found', async () => {
    const url = base(integration.name, installation.id);
    const res = expectStatus(await api('GET', url, { token: customer.owner.token }), 200);
    expectConforms('getIntegrationInstallationById', res);
    expect(res.body.id).toBe(installation.id);
    for (const token of [publisher.owner.token, integrationToken, installationToken]) expectStatus(await api('GET', url, { token }), 200);
    const expected = byCaller(200, 404, 404, 404, 404, 404, 404, 404);
    for (const caller of CALLERS) {
      const status = (await api('GET', url, { token: callerUser(customer, caller).token })).status;
      expect(status, caller).toBe(expected[caller]);
    }
    // Another installation's token, another organization's admin, another integration's name.
    expectError(await api('GET', url, { token: await seedToken(integration.id, otherInstallation.id) }), 404);
    expectError(await api('GET', url, { token: other.owner.token }), 404);
    const unrelated = await seedIntegration(publisher.id);
    expectError(await api('GET', base(unrelated.name, installation.id), { token: customer.owner.token }), 404);
    expectError(await api('GET', base(integration.name, 'no-such-installation'), { token: customer.owner.token }), 404);
    expectError(await api('GET', url, {}), 401);
  });
});

describe('updateIntegrationInstallation', () => {
  const patch = (token: string, body: unknown, id = installation.id) => api('PATCH', base(integration.name, id), { token, body });

  it('replaces the configuration (defaults applied), records installation_setup with the previous state', async () => {
    const before = expectStatus(await api('GET', base(integration.name, installation.id), { token: customer.owner.token }), 200).body;
    const res = expectStatus(await patch(customer.owner.token, { configuration: { name: 'Docs', channel: 'random', count: 3 } }), 200);
    expectConforms('updateIntegrationInstallation', res);
    expect(res.body.configuration).toEqual({ name: 'Docs', channel: 'random', count: 3, enabled: true });
    expect(res.body.updatedAt >= before.updatedAt).toBe(true);
    const events = await eventsOf(installation.id, 'installation_setup');
    const last = events[events.length - 1];
    expect(last).toMatchObject({
      status: 'pending',
      payload: { type: 'installation_setup', installationId: installation.id, status: 'active', previous: { status: 'active', configuration: before.configuration } },
    });
    expect(gitbookErrors(installationSetupValidator, { ...last.payload, eventId: last.id })).toBe('valid');
    expect((await api('GET', base(integration.name, installation.id), { token: customer.owner.token })).body.configuration).toEqual(res.body.configuration);
  });

  it('refuses a configuration that does not fit the schema, naming the property', async () => {
    const token = customer.owner.token;
    expectError(await patch(token, { configuration: { name: 'x', unknown: 1 } }), 400, 'configuration.unknown');
    expectError(await patch(token, { configuration: { name: 3 } }), 400, 'configuration.name');
    expectError(await patch(token, { configuration: { name: 'x', count: 'three' } }), 400, 'configuration.count');
    expectError(await patch(token, { configuration: { name: 'x', count: 1, enabled: 'yes' } }), 400, 'configuration.enabled');
    expectError(await patch(token, { configuration: { name: 'x', channel: 'other' } }), 400, 'configuration.channel');
    expectError(await patch(token, { configuration: { channel: 'general' } }), 400, 'configuration.name');
    expectError(await patch(token, { configuration: { name: 'x'.repeat(4097) } }), 400, 'configuration.name');
    expectError(await patch(token, { configuration: { name: 'x', connect: 'pressed' } }), 400, 'configuration.connect');
    expectError(await patch(token, { configuration: 'name=x' }), 400, 'configuration');
    // An own `__proto__` key, as JSON carries it: refused by name, not dropped without a word.
    expectError(await patch(token, { configuration: JSON.parse('{"name": "x", "__proto__": "y"}') }), 400, 'configuration.__proto__');
    expectStatus(await patch(token, { configuration: { name: 'x'.repeat(4096) } }), 200);
  });

  it("lets the integration keep undeclared state in the configuration, still checking what the schema declares", async () => {
    const res = expectStatus(await patch(installationToken, { configuration: { oauth_credentials: { access: 'abc' }, channel: 'general' } }), 200).body;
    expect(res.configuration).toEqual({ oauth_credentials: { access: 'abc' }, channel: 'general', enabled: true });
    expectError(await patch(integrationToken, { configuration: { channel: 'other' } }), 400, 'configuration.channel');
  });

  it("lets the integration store its OAuth credentials under a button, as GitBook's createOAuthHandler does (members give a button no value)", async () => {
    const credentials = { access_token: 'abc', refresh_token: 'def', expires_at: 1 };
    const res = expectStatus(await patch(installationToken, { configuration: { name: 'x', connect: credentials } }), 200).body;
    expect(res.configuration.connect).toEqual(credentials);
    expectError(await patch(customer.owner.token, { configuration: { name: 'x', connect: credentials } }), 400, 'configuration.connect');
  });

  it('sets external ids (at most 50, each at most 200 characters) without a setup event, and the selections', async () => {
    const setups = (await eventsOf(installation.id, 'installation_setup')).length;
    const res = expectStatus(await patch(installationToken, { externalIds: ['a', 'b'] }), 200).body;
    expect(res.externalIds).toEqual(['a', 'b']);
    expect(await eventsOf(installation.id, 'installation_setup')).toHaveLength(setups);
    expectError(await patch(customer.owner.token, { externalIds: Array.from({ length: 6 }, (_, i) => `id-${i}`) }), 400, 'externalIds');
    expectError(await patch(customer.owner.token, { externalIds: ['x'.repeat(201)] }), 400, 'externalIds');
    expectError(await patch(customer.owner.token, { space_selection: 'some' }), 400, 'space_selection');
    expectError(await patch(customer.owner.token, { status: 'paused' }), 400);
    expectError(await patch(customer.owner.token, {}), 400);
    expectStatus(await patch(customer.owner.token, { externalIds: [] }), 200);
  });

  it('lets the admins of the organization, the integration and the installation change it; the admins of the publisher only see it', async () => {
    const expected = byCaller(200, 404, 404, 404, 404, 404, 404, 404);
    for (const caller of CALLERS) {
      const status = (await patch(callerUser(customer, caller).token, { externalIds: ['x'] })).status;
      expect(status, caller).toBe(expected[caller]);
    }
    expectStatus(await patch(integrationToken, { externalIds: ['x'] }), 200);
    expectError(await patch(publisher.owner.token, { externalIds: ['x'] }), 403);
    expectError(await patch(customer.owner.token, { externalIds: ['x'] }, 'no-such-installation'), 404);
    expectError(await api('PATCH', base(integration.name, installation.id), { body: { externalIds: [] } }), 401);
  });
});

describe('createIntegrationInstallationToken', () => {
  const issue = (token: string | null, id = installation.id) => api('POST', `${base(integration.name, id)}/tokens`, { token });

  it('issues tokens to the integration and to the admins of its publisher; others 403 or 404', async () => {
    const res = expectStatus(await issue(integrationToken), 200);
    expectConforms('createIntegrationInstallationToken', res);
    expect(res.body.token).toMatch(/^dpi_/);
    expect(Date.parse(res.body.expiresAt) - Date.now()).toBeGreaterThan(50 * 60 * 1000);
    expectStatus(await issue(publisher.owner.token), 200);
    expectError(await issue(customer.owner.token), 403);
    expectError(await issue(installationToken), 403);
    expectError(await issue(customer.members.read.token), 404);
    expectError(await issue(publisher.outsider.token), 404);
    expectError(await issue(integrationToken, 'no-such-installation'), 404);
    expectError(await issue(null), 401);
    const otherIntegration = await seedIntegration(publisher.id);
    expectError(await issue(await seedToken(otherIntegration.id, null)), 404);
  });

  it('gives a token that reads only the spaces its installation covers, within its scopes, until it expires', async () => {
    const org = await seedOrg();
    const reader = await seedIntegration(publisher.id, { scopes: ['space:metadata:read'] });
    const [covered, uncovered] = [await createSpace(org.id, org.owner.token, 'Covered'), await createSpace(org.id, org.owner.token, 'Uncovered')];
    const created = expectStatus(await install(reader.name, org.id, org.owner.token), 201).body;
    expectStatus(await api('POST', `${base(reader.name, created.id)}/spaces`, { token: org.owner.token, body: { space: covered.id } }), 201);
    const { token } = expectStatus(await api('POST', `${base(reader.name, created.id)}/tokens`, { token: publisher.owner.token }), 200).body;

    expect(expectStatus(await api('GET', `/v1/spaces/${covered.id}`, { token }), 200).body.id).toBe(covered.id);
    expectError(await api('GET', `/v1/spaces/${uncovered.id}`, { token }), 404);
    expectStatus(await api('GET', base(reader.name, created.id), { token }), 200);
    expectError(await api('GET', base(integration.name, installation.id), { token }), 404);
    // A route that admits no integration token, and a scope the integration lacks.
    expectError(await api('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'Nope' } }), 403);
    expectError(await api('PATCH', `/v1/spaces/${covered.id}`, { token, body: { title: 'Nope' } }), 403);

    await env.DB.prepare('update integration_tokens set expires_at = ? where installation_id = ?').bind(new Date(Date.now() - 1000).toISOString(), created.id).run();
    expectError(await api('GET', `/v1/spaces/${covered.id}`, { token }), 401);
  });
});

describe('uninstallIntegration', () => {
  it('lets only the admins of the organization uninstall; records installation_deleted; 204 again once gone', async () => {
    const org = await seedOrg();
    const created = expectStatus(await install(integration.name, org.id, org.owner.token), 201).body;
    const space = await createSpace(org.id, org.owner.token, 'Installed');
    expectStatus(await api('POST', `${base(integration.name, created.id)}/spaces`, { token: org.owner.token, body: { space: space.id } }), 201);
    const token = await seedToken(integration.id, created.id);
    const url = base(integration.name, created.id);

    const expected = byCaller(204, 404, 404, 404, 404, 404, 404, 404);
    for (const caller of CALLERS.filter((c) => c !== 'admin')) {
      expect((await api('DELETE', url, { token: callerUser(org, caller).token })).status, caller).toBe(expected[caller]);
    }
    expectError(await api('DELETE', url, { token: publisher.owner.token }), 403);
    expectError(await api('DELETE', url, { token: integrationToken }), 403);
    expectError(await api('DELETE', url, { token }), 403);
    expectError(await api('DELETE', url, {}), 401);

    const res = expectStatus(await api('DELETE', url, { token: org.owner.token }), 204);
    expectConforms('uninstallIntegration', res);
    const [event] = await eventsOf(created.id, 'installation_deleted');
    expect(event).toMatchObject({
      status: 'pending',
      org_id: org.id,
      payload: { type: 'installation_deleted', installationId: created.id, previous: { configuration: created.configuration } },
    });
    expect(gitbookErrors(gitbookValidator('InstallationDeletedEvent', GITBOOK_0202.components), { ...event.payload, eventId: event.id })).toBe('valid');
    expectError(await api('GET', url, { token: org.owner.token }), 404);
    expectError(await api('GET', `/v1/spaces/${space.id}`, { token }), 401);
    const left = await env.DB.prepare('select count(*) as n from integration_space_installations where installation_id = ?').bind(created.id).first<{ n: number }>();
    expect(left!.n).toBe(0);
    expectStatus(await api('DELETE', url, { token: org.owner.token }), 204);
    // Installed again afterwards.
    expectStatus(await install(integration.name, org.id, org.owner.token), 201);
  });
});

describe('listOrganizationInstallations', () => {
  it("lists an organization's installations with their integrations to its admins, searchable by the integration's name or title", async () => {
    const url = `/v1/orgs/${customer.id}/installations`;
    const res = expectStatus(await api('GET', url, { token: customer.owner.token }), 200);
    expectConforms('listOrganizationInstallations', res);
    expect(res.body.items).toHaveLength(1);
    expect(res.body.items[0].installation.id).toBe(installation.id);
    expect(res.body.items[0].integration).toMatchObject({ object: 'integration', name: integration.name });
    expect(res.body.count).toBe(1);
    expect(expectStatus(await api('GET', `${url}?search=${integration.name.slice(3).toUpperCase()}`, { token: customer.owner.token }), 200).body.count).toBe(1);
    expect(expectStatus(await api('GET', `${url}?search=nothing-like-it`, { token: customer.owner.token }), 200).body).toEqual({ items: [], count: 0 });

    const expected = byCaller(200, 403, 403, 403, 403, 403, 403, 404);
    for (const caller of CALLERS) {
      expect((await api('GET', url, { token: callerUser(customer, caller).token })).status, caller).toBe(expected[caller]);
    }
    expectError(await api('GET', url, { token: installationToken }), 403);
    expectError(await api('GET', url, {}), 401);
    expectError(await api('GET', `/v1/orgs/no-such-org/installations`, { token: customer.owner.token }), 404);
    expectError(await api('GET', `${url}?limit=1001`, { token: customer.owner.token }), 400, 'limit');
  });
});

describe('space installations', () => {
  let org: TestOrg;
  let inst: any;
  let spaces: any[];
  let instToken: string;
  const spacesUrl = () => `${base(integration.name, inst.id)}/spaces`;

  beforeAll(async () => {
    org = await seedOrg();
    inst = expectStatus(await install(integration.name, org.id, org.owner.token), 201).body;
    spaces = [];
    for (const title of ['One', 'Two', 'Three']) spaces.push(await createSpace(org.id, org.owner.token, title));
    instToken = await seedToken(integration.id, inst.id);
  });

  it('installs on a space of the organization: 201, the space default configuration, a space_installation_setup event', async () => {
    const res = expectStatus(await api('POST', spacesUrl(), { token: org.owner.token, body: { space: spaces[0].id } }), 201);
    expectConforms('installIntegrationOnSpace', res);
    expect(gitbookErrors(spaceInstallationValidator, res.body)).toBe('valid');
    expect(res.body).toMatchObject({ integration: integration.name, installation: inst.id, status: 'active', space: spaces[0].id, configuration: { depth: 1 }, externalIds: [] });
    expect(res.headers.get('Location')).toBe(res.body.urls.location);
    const [event] = await eventsOf(inst.id, 'space_installation_setup');
    expect(event).toMatchObject({ status: 'pending', payload: { type: 'space_installation_setup', installationId: inst.id, spaceId: spaces[0].id, status: 'active' } });
    expect(gitbookErrors(gitbookValidator('SpaceInstallationSetupEvent', GITBOOK_0202.components), { ...event.payload, eventId: event.id })).toBe('valid');
    expect(expectStatus(await api('GET', base(integration.name, inst.id), { token: org.owner.token }), 200).body.spaces).toBe(1);

    expectError(await api('POST', spacesUrl(), { token: org.owner.token, body: { space: spaces[0].id } }), 409, 'already installed');
    expectError(await api('POST', spacesUrl(), { token: org.owner.token, body: {} }), 400, 'space');
    expectError(await api('POST', spacesUrl(), { token: org.owner.token, body: { space: 'no-such-space' } }), 404, 'space');
    const elsewhere = await createSpace(customer.id, customer.owner.token, 'Elsewhere');
    expectError(await api('POST', spacesUrl(), { token: org.owner.token, body: { space: elsewhere.id } }), 404, 'space');
    expectError(await api('POST', spacesUrl(), { token: customer.owner.token, body: { space: elsewhere.id } }), 404);
    expectError(await api('POST', spacesUrl(), { body: { space: spaces[1].id } }), 401);
  });

  it("lets the space's admins install it; members below admin get 403, and neither the integration's token nor an installation token may widen its reach", async () => {
    const space = await createSpace(org.id, org.owner.token, 'Granted');
    await env.DB.prepare('insert into space_user_grants (space_id, user_id, role, created_at) values (?, ?, 6, ?)').bind(space.id, org.members.read.id, new Date().toISOString()).run();
    expectError(await api('POST', spacesUrl(), { token: org.members.edit.token, body: { space: space.id } }), 404);
    expectError(await api('POST', spacesUrl(), { token: org.outsider.token, body: { space: space.id } }), 404);
    expectError(await api('POST', spacesUrl(), { token: publisher.owner.token, body: { space: space.id } }), 403);
    expectStatus(await api('POST', spacesUrl(), { token: org.members.read.token, body: { space: space.id } }), 201);
    expectStatus(await api('DELETE', `${spacesUrl()}/${space.id}`, { token: org.members.read.token }), 204);
    expectError(await api('POST', spacesUrl(), { token: instToken, body: { space: space.id } }), 403, 'installation token');
    expectError(await api('PATCH', base(integration.name, inst.id), { token: instToken, body: { space_selection: 'all' } }), 403, 'installation token');
    // Nor the integration itself (its publisher holds its token: test/integrations/consent.test.ts).
    expectError(await api('POST', spacesUrl(), { token: integrationToken, body: { space: space.id } }), 403, "integration's own token");
    expectError(await api('GET', `${spacesUrl()}/${space.id}`, { token: await seedToken(integration.id, inst.id) }), 404);
    // A space admin's installation is reached by the installation's tokens (a new token sees the new coverage).
    expectStatus(await api('POST', spacesUrl(), { token: org.members.read.token, body: { space: space.id } }), 201);
    expectStatus(await api('GET', `${spacesUrl()}/${space.id}`, { token: await seedToken(integration.id, inst.id) }), 200);
  });

  it('refuses spaces for an integration whose target has no spaces', async () => {
    const siteOnly = await seedIntegration(publisher.id, { target: 'site' });
    const created = expectStatus(await install(siteOnly.name, org.id, org.owner.token), 201).body;
    expectError(await api('POST', `${base(siteOnly.name, created.id)}/spaces`, { token: org.owner.token, body: { space: spaces[0].id } }), 400, 'target');
  });

  it('gets, lists (ids or space objects) and filters space installations', async () => {
    expectStatus(await api('POST', spacesUrl(), { token: org.owner.token, body: { space: spaces[1].id } }), 201);
    const get = expectStatus(await api('GET', `${spacesUrl()}/${spaces[0].id}`, { token: instToken }), 200);
    expectConforms('getIntegrationSpaceInstallation', get);
    expect(get.body.space).toBe(spaces[0].id);
    const extended = expectStatus(await api('GET', `${spacesUrl()}/${spaces[0].id}?extended=true`, { token: org.owner.token }), 200);
    expectConforms('getIntegrationSpaceInstallation', extended);
    expect(extended.body.space).toMatchObject({ object: 'space', id: spaces[0].id, title: 'One', permissions: { admin: true } });
    expectError(await api('GET', `${spacesUrl()}/${spaces[2].id}`, { token: org.owner.token }), 404, 'not installed');
    // An installation token reaches only the spaces it covers.
    expectError(await api('GET', `${spacesUrl()}/${spaces[2].id}`, { token: instToken }), 404);
    expectError(await api('GET', `${spacesUrl()}/${spaces[0].id}`, { token: org.members.create.token }), 404);

    const listed = expectStatus(await api('GET', `${spacesUrl()}?extended=true`, { token: instToken }), 200);
    expectConforms('listIntegrationInstallationSpaces', listed);
    expect(listed.body.items.map((i: any) => i.space.id)).toEqual(expect.arrayContaining([spaces[0].id, spaces[1].id]));
    expect(listed.body.count).toBe(listed.body.items.length);
    expect(listed.body.items.every((i: any) => i.space.object === 'space')).toBe(true);

    expectStatus(await api('PATCH', `${spacesUrl()}/${spaces[1].id}`, { token: instToken, body: { externalIds: ['repo-1'] } }), 200);
    const byIntegration = expectStatus(await api('GET', `/v1/integrations/${integration.name}/spaces?externalId=repo-1`, { token: integrationToken }), 200);
    expectConforms('listIntegrationSpaceInstallations', byIntegration);
    expect(byIntegration.body).toMatchObject({ count: 1, items: [{ installation: inst.id, space: spaces[1].id, externalIds: ['repo-1'] }] });
    const extendedList = expectStatus(await api('GET', `/v1/integrations/${integration.name}/spaces?externalId=repo-1&extended=true`, { token: integrationToken }), 200);
    expectConforms('listIntegrationSpaceInstallations', extendedList);
    expect(extendedList.body.items[0].space).toMatchObject({ object: 'space', id: spaces[1].id });
    // The organization's admins see theirs only; a member below admin none.
    const mine = expectStatus(await api('GET', `/v1/integrations/${integration.name}/spaces`, { token: org.owner.token }), 200).body;
    expect(new Set(mine.items.map((i: any) => i.installation))).toEqual(new Set([inst.id]));
    expect(expectStatus(await api('GET', `/v1/integrations/${integration.name}/spaces`, { token: org.members.create.token }), 200).body.count).toBe(0);
    expectError(await api('GET', `${spacesUrl()}`, { token: org.members.create.token }), 404);

    const page1 = expectStatus(await api('GET', `${spacesUrl()}?limit=1`, { token: org.owner.token }), 200).body;
    const page2 = expectStatus(await api('GET', `${spacesUrl()}?limit=1&page=${page1.next.page}`, { token: org.owner.token }), 200).body;
    expect(page2.items[0].space).not.toBe(page1.items[0].space);
  });

  it('changes the configuration of a space installation against the space schema, with an event holding the previous state', async () => {
    const url = `${spacesUrl()}/${spaces[0].id}`;
    expectError(await api('PATCH', url, { token: org.owner.token, body: { configuration: { depth: 2 } } }), 400, 'configuration.path');
    expectError(await api('PATCH', url, { token: org.owner.token, body: { configuration: { path: '/a', name: 'x' } } }), 400, 'configuration.name');
    expectError(await api('PATCH', url, { token: org.owner.token, body: { configuration: { path: 5 } } }), 400, 'configuration.path');
    expectError(await api('PATCH', url, { token: org.owner.token, body: { space: 'x' } }), 400);
    expectError(await api('PATCH', url, { token: org.members.edit.token, body: { externalIds: [] } }), 404);
    expectError(await api('PATCH', url, { token: publisher.owner.token, body: { externalIds: [] } }), 403);
    const res = expectStatus(await api('PATCH', url, { token: org.owner.token, body: { configuration: { path: '/docs', depth: 2 } } }), 200);
    expectConforms('updateIntegrationSpaceInstallation', res);
    expect(res.body.configuration).toEqual({ path: '/docs', depth: 2 });
    const events = await eventsOf(inst.id, 'space_installation_setup');
    expect(events[events.length - 1]).toMatchObject({
      status: 'pending',
      payload: { type: 'space_installation_setup', spaceId: spaces[0].id, status: 'active', previous: { status: 'active', configuration: { depth: 1 } } },
    });
  });

  it('uninstalls from a space with a space_installation_deleted event; 204 when it was not installed', async () => {
    const url = `${spacesUrl()}/${spaces[1].id}`;
    expectError(await api('DELETE', url, { token: org.members.create.token }), 404);
    expectError(await api('DELETE', url, { token: publisher.owner.token }), 403);
    const res = expectStatus(await api('DELETE', url, { token: org.owner.token }), 204);
    expectConforms('uninstallIntegrationFromSpace', res);
    const [event] = (await eventsOf(inst.id, 'space_installation_deleted')).filter((e) => e.payload.spaceId === spaces[1].id);
    expect(event).toMatchObject({ status: 'pending', payload: { type: 'space_installation_deleted', installationId: inst.id, spaceId: spaces[1].id, previous: { configuration: { depth: 1 } } } });
    expect(gitbookErrors(gitbookValidator('SpaceInstallationDeletedEvent', GITBOOK_0202.components), { ...event.payload, eventId: event.id })).toBe('valid');
    expectError(await api('GET', url, { token: org.owner.token }), 404);
    expectStatus(await api('DELETE', url, { token: org.owner.token }), 204);
    expect((await eventsOf(inst.id, 'space_installation_deleted')).filter((e) => e.payload.spaceId === spaces[1].id)).toHaveLength(1);
  });

  it('covers every live space of the organization with space_selection all', async () => {
    const other = await seedOrg();
    const created = expectStatus(await install(integration.name, other.id, other.owner.token), 201).body;
    const own = [await createSpace(other.id, other.owner.token, 'A'), await createSpace(other.id, other.owner.token, 'B')];
    const updated = expectStatus(await api('PATCH', base(integration.name, created.id), { token: other.owner.token, body: { space_selection: 'all' } }), 200).body;
    expect(updated).toMatchObject({ space_selection: 'all', spaces: 2 });
    const url = `${base(integration.name, created.id)}/spaces`;
    const listed = expectStatus(await api('GET', url, { token: other.owner.token }), 200).body;
    expect(listed.items.map((i: any) => i.space).sort()).toEqual(own.map((s) => s.id).sort());
    expect(listed.items[0]).toMatchObject({ status: 'active', configuration: { depth: 1 }, externalIds: [] });
    expectError(await api('POST', url, { token: other.owner.token, body: { space: own[0].id } }), 409, 'all');
    expectError(await api('DELETE', `${url}/${own[0].id}`, { token: other.owner.token }), 400, 'space_selection');
    // Settings of its own for one of them.
    expectStatus(await api('PATCH', `${url}/${own[0].id}`, { token: other.owner.token, body: { configuration: { path: '/x' } } }), 200);
    expect(expectStatus(await api('GET', `${url}/${own[0].id}`, { token: other.owner.token }), 200).body.configuration).toEqual({ path: '/x', depth: 1 });
    const token = await seedToken(integration.id, created.id);
    expectStatus(await api('GET', `/v1/spaces/${own[1].id}`, { token }), 200);
  });
});

describe('site installations', () => {
  let org: TestOrg;
  let inst: any;
  let site: any;
  const sitesUrl = () => `${base(integration.name, inst.id)}/sites`;

  beforeAll(async () => {
    org = await seedOrg();
    inst = expectStatus(await install(integration.name, org.id, org.owner.token), 201).body;
    site = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token: org.owner.token, body: { title: 'Docs' } }), 201).body;
  });

  it('installs on a site, gets and lists it, changes its configuration and uninstalls, with their events', async () => {
    expectError(await api('POST', sitesUrl(), { token: org.members.create.token, body: { siteId: site.id } }), 404);
    expectError(await api('POST', sitesUrl(), { token: org.owner.token, body: { site: site.id } }), 400, 'siteId');
    const created = expectStatus(await api('POST', sitesUrl(), { token: org.owner.token, body: { siteId: site.id } }), 201);
    expectConforms('installIntegrationOnSite', created);
    expect(gitbookErrors(siteInstallationValidator, created.body)).toBe('valid');
    expect(created.body).toMatchObject({ installation: inst.id, site: site.id, status: 'active', configuration: {} });
    const [setup] = await eventsOf(inst.id, 'site_installation_setup');
    expect(setup).toMatchObject({ status: 'pending', payload: { type: 'site_installation_setup', installationId: inst.id, siteId: site.id, status: 'active' } });
    expect(gitbookErrors(gitbookValidator('SiteInstallationSetupEvent', GITBOOK_0202.components), { ...setup.payload, eventId: setup.id })).toBe('valid');
    expectError(await api('POST', sitesUrl(), { token: org.owner.token, body: { siteId: site.id } }), 409);

    const url = `${sitesUrl()}/${site.id}`;
    const extended = expectStatus(await api('GET', `${url}?extended=true`, { token: org.owner.token }), 200);
    expectConforms('getIntegrationSiteInstallation', extended);
    expect(extended.body.site).toMatchObject({ object: 'site', id: site.id, title: 'Docs' });
    const listed = expectStatus(await api('GET', `${sitesUrl()}?extended=true`, { token: org.owner.token }), 200);
    expectConforms('listIntegrationInstallationSites', listed);
    expect(listed.body.items.map((i: any) => i.site.id)).toEqual([site.id]);
    const byIntegration = expectStatus(await api('GET', `/v1/integrations/${integration.name}/sites`, { token: integrationToken }), 200);
    expectConforms('listIntegrationSiteInstallations', byIntegration);
    expect(byIntegration.body.items.map((i: any) => i.site)).toContain(site.id);
    // GitBook admits only the integration's own token on the integration-wide site list.
    expectError(await api('GET', `/v1/integrations/${integration.name}/sites`, { token: await seedToken(integration.id, inst.id) }), 403);

    expectError(await api('PATCH', url, { token: org.owner.token, body: { configuration: {} } }), 400, 'configuration.trackingId');
    expectError(await api('PATCH', url, { token: org.members.create.token, body: { externalIds: [] } }), 404);
    const updated = expectStatus(await api('PATCH', url, { token: org.owner.token, body: { configuration: { trackingId: 'UA-1' }, externalIds: ['prop-1'] } }), 200);
    expectConforms('updateIntegrationSiteInstallation', updated);
    expect(updated.body).toMatchObject({ configuration: { trackingId: 'UA-1' }, externalIds: ['prop-1'] });
    const setups = await eventsOf(inst.id, 'site_installation_setup');
    expect(setups[setups.length - 1].payload).toMatchObject({ previous: { status: 'active', configuration: {} } });

    const removed = expectStatus(await api('DELETE', url, { token: org.owner.token }), 204);
    expectConforms('uninstallIntegrationFromSite', removed);
    const [deleted] = await eventsOf(inst.id, 'site_installation_deleted');
    expect(deleted).toMatchObject({ status: 'pending', payload: { type: 'site_installation_deleted', siteId: site.id, previous: { configuration: { trackingId: 'UA-1' } } } });
    expect(gitbookErrors(gitbookValidator('SiteInstallationDeletedEvent', GITBOOK_0202.components), { ...deleted.payload, eventId: deleted.id })).toBe('valid');
    expectStatus(await api('DELETE', url, { token: org.owner.token }), 204);
  });

  it("answers 404 for another organization's site and 400 for an integration without sites in its target", async () => {
    const foreign = expectStatus(await api('POST', `/v1/orgs/${customer.id}/sites`, { token: customer.owner.token, body: { title: 'Foreign' } }), 201).body;
    expectError(await api('POST', sitesUrl(), { token: org.owner.token, body: { siteId: foreign.id } }), 404, 'site');
    expectError(await api('GET', `${sitesUrl()}/${foreign.id}`, { token: org.owner.token }), 404, 'site');
    const spaceOnly = await seedIntegration(publisher.id, { target: 'space' });
    const created = expectStatus(await install(spaceOnly.name, org.id, org.owner.token), 201).body;
    expectError(await api('POST', `${base(spaceOnly.name, created.id)}/sites`, { token: org.owner.token, body: { siteId: site.id } }), 400, 'target');
  });
});

describe('round trips', () => {
  it('reads in at most 2 round trips and writes in at most 3, whatever the list length', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const name = integration.name;
    const check = async (method: string, path: string, body: unknown, status: number, most: number) => {
      const measured = await measureRoundTrips(method, path, token, body);
      expect(measured.status, `${method} ${path}: ${JSON.stringify(measured.body)}`).toBe(status);
      expect(measured.roundTrips, `${method} ${path}`).toBeLessThanOrEqual(most);
      return measured.body as any;
    };
    const created = await check('POST', `/v1/integrations/${name}/installations`, { organization: org.id }, 201, 3);
    const url = base(name, created.id);
    const spaces = [await createSpace(org.id, token, 'A'), await createSpace(org.id, token, 'B')];
    const site = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token, body: { title: 'Docs' } }), 201).body;
    for (const space of spaces) await check('POST', `${url}/spaces`, { space: space.id }, 201, 3);
    await check('POST', `${url}/sites`, { siteId: site.id }, 201, 3);
    await check('GET', `/v1/integrations/${name}/installations`, undefined, 200, 2);
    await check('GET', url, undefined, 200, 2);
    await check('PATCH', url, { configuration: { name: 'n' } }, 200, 3);
    await check('GET', `/v1/orgs/${org.id}/installations`, undefined, 200, 2);
    await check('GET', `${url}/spaces?extended=true`, undefined, 200, 2);
    await check('GET', `/v1/integrations/${name}/spaces?extended=true`, undefined, 200, 2);
    await check('GET', `${url}/spaces/${spaces[0].id}?extended=true`, undefined, 200, 2);
    await check('PATCH', `${url}/spaces/${spaces[0].id}`, { configuration: { path: '/' } }, 200, 3);
    await check('DELETE', `${url}/spaces/${spaces[0].id}`, undefined, 204, 3);
    await check('GET', `${url}/sites?extended=true`, undefined, 200, 2);
    await check('GET', `${url}/sites/${site.id}?extended=true`, undefined, 200, 2);
    await check('PATCH', `${url}/sites/${site.id}`, { configuration: { trackingId: 'x' } }, 200, 3);
    await check('DELETE', `${url}/sites/${site.id}`, undefined, 204, 3);
    for (const issuer of [integrationToken, publisher.owner.token]) {
      const issued = await measureRoundTrips('POST', `${url}/tokens`, issuer);
      expect(issued.status).toBe(200);
      expect(issued.roundTrips).toBeLessThanOrEqual(3);
    }
    await check('DELETE', url, undefined, 204, 3);
  });
});
