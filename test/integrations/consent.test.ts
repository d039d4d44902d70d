/**
 * Consent (issue 27): an integration cannot widen its own reach. An installation records the scopes its
 * organization approved; a publish asking for more leaves it `pending` with what it approved until an
 * admin of that organization installs it again; a publish asking for fewer narrows it at once. The
 * integration's own token (which the runtime hands its publisher's script) and installation tokens may
 * narrow what an installation covers, never widen it.
 */
import { env } from 'cloudflare:workers';
import { eq, sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge } from '../helpers/content';
import { addMember, api, BASE, createUser, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { GITBOOK_0202, gitbookErrors, gitbookValidator } from '../helpers/gitbook-schema';
import { integrationName, seedToken } from '../helpers/integrations';
import { createDb } from '../../src/db/client';
import { integrationInstallations, integrations } from '../../src/db/schema';
import { approveScopes } from '../../src/services/integrations/installations';
import { INTEGRATION_SCOPES } from '../../src/lib/integration-scopes';
import { spaceRoleForScopes, spaceRoleForScopesSql } from '../../src/services/integrations/scopes';
import { fetchWorker } from '../helpers/worker';

/** A script whose public endpoint answers the integration token the runtime hands it, as any script can. */
const ECHO_TOKEN_SCRIPT = `
export default {
  async fetch(request) {
    const form = await request.formData();
    const environment = JSON.parse(form.get('environment'));
    return Response.json({ token: environment.apiTokens.integration });
  },
};
`;

const READ = 'space:content:read';
const WRITE = 'space:content:write';
const SITE = 'site:metadata:read';

let publisher: TestOrg;
let victim: TestOrg;
let name: string;
let integrationId: string;
let installationId: string;
let privateSpace: { id: string };

const I = () => `/v1/integrations/${name}`;
const installationUrl = () => `${I()}/installations/${installationId}`;

function publish(scopes: string[]) {
  return api('POST', I(), {
    token: publisher.owner.token,
    body: { organization: publisher.id, title: 'Helper', description: 'Helps', visibility: 'public', scopes, script: ECHO_TOKEN_SCRIPT },
  });
}

/** The integration token, obtained the way its publisher can: from its own public endpoint. */
async function integrationTokenFromPublicEndpoint(): Promise<string> {
  const res = await fetchWorker(`${BASE}/integrations/${name}/public`);
  expect(res.status).toBe(200);
  const { token } = (await res.json()) as { token: string };
  expect(token).toMatch(/^dpi_/);
  return token;
}

/** A fresh installation token (what the runtime hands the script with every event). */
async function installationToken(): Promise<string> {
  return expectStatus(await api('POST', `${installationUrl()}/tokens`, { token: publisher.owner.token }), 200).body.token;
}

const installationRow = () =>
  env.DB.prepare('select status, approved_scopes, space_role, space_selection from integration_installations where id = ?')
    .bind(installationId)
    .first<{ status: string; approved_scopes: string; space_role: number; space_selection: string }>();

const readSpace = (token: string) => api('GET', `/v1/spaces/${privateSpace.id}/content`, { token });
const openChangeRequest = (token: string) => api('POST', `/v1/spaces/${privateSpace.id}/change-requests`, { token, body: { subject: 'Hello' } });
const approve = (token: string, organization = victim.id) => api('POST', `${I()}/installations`, { token, body: { organization } });

beforeEach(async () => {
  [publisher, victim] = await Promise.all([seedOrg(), seedOrg()]);
  name = integrationName('consent');
  expectStatus(await publish([SITE]), 200);
  const installed = expectStatus(await api('POST', `${I()}/installations`, { token: victim.owner.token, body: { organization: victim.id } }), 201).body;
  installationId = installed.id;
  expect(installed.status).toBe('active');
  privateSpace = await createSpace(victim.id, victim.owner.token, 'Private');
  const row = await env.DB.prepare('select id from integrations where name = ?').bind(name).first<{ id: string }>();
  integrationId = row!.id;
});

describe('the reproduction of issue 27 fails where it should', () => {
  it('a wider republish leaves the installation pending, and neither its tokens nor the integration token reach further', async () => {
    expectError(await readSpace(await installationToken()), 403, READ);

    expectStatus(await publish([SITE, READ, WRITE]), 200);
    const shown = expectStatus(await api('GET', installationUrl(), { token: victim.owner.token }), 200).body;
    expect(shown.status).toBe('pending');
    expect(await installationRow()).toMatchObject({ status: 'pending', approved_scopes: JSON.stringify([SITE]), space_role: 0 });
    // A pending installation keeps working with what it approved (its tokens are still issued and accepted).
    const pendingToken = await installationToken();
    expectStatus(await api('GET', installationUrl(), { token: pendingToken }), 200);
    expectError(await readSpace(pendingToken), 403, READ);
    expectError(await openChangeRequest(pendingToken), 403, WRITE);

    // The publisher's integration token, from its public endpoint, may not widen the selection, nor add the space.
    const integrationToken = await integrationTokenFromPublicEndpoint();
    expectError(await api('PATCH', installationUrl(), { token: integrationToken, body: { space_selection: 'all' } }), 403, "integration's own token");
    expectError(await api('PATCH', installationUrl(), { token: integrationToken, body: { site_selection: 'all' } }), 403, "integration's own token");
    expectError(await api('POST', `${installationUrl()}/spaces`, { token: integrationToken, body: { space: privateSpace.id } }), 403, "integration's own token");
    // Nor may the installation's own token.
    expectError(await api('PATCH', installationUrl(), { token: pendingToken, body: { space_selection: 'all' } }), 403, 'installation token');
    expectError(await api('POST', `${installationUrl()}/spaces`, { token: pendingToken, body: { space: privateSpace.id } }), 403, 'installation token');
    expect(await installationRow()).toMatchObject({ space_selection: 'selected' });

    const freshToken = await installationToken();
    expectError(await readSpace(freshToken), 403);
    expectError(await openChangeRequest(freshToken), 403);
  });

  it("an admin of the installing organization approves by installing again: then the new scopes work where that admin extends it", async () => {
    expectStatus(await publish([SITE, READ, WRITE]), 200);
    const approved = expectStatus(await approve(victim.owner.token), 201).body;
    expect(approved).toMatchObject({ id: installationId, status: 'active' });
    expect(approved.signingSecret).toBeUndefined();
    // GitBook's answer of installIntegration (201, an IntegrationInstallation).
    expect(gitbookErrors(gitbookValidator('IntegrationInstallation', GITBOOK_0202.components), approved), JSON.stringify(approved)).toBe('valid');
    expect(await installationRow()).toMatchObject({ status: 'active', approved_scopes: JSON.stringify([SITE, READ, WRITE]), space_role: 4 });
    const events = await env.DB.prepare(`select payload from integration_events where installation_id = ? and type = 'installation_setup' order by created_at, rowid`)
      .bind(installationId)
      .all<{ payload: string }>();
    expect(JSON.parse(events.results[events.results.length - 1].payload)).toMatchObject({ status: 'active', previous: { status: 'pending' } });
    // Approving again has nothing to approve.
    expectError(await approve(victim.owner.token), 409, 'already installed');

    // Still nothing reached until the organization's admin extends the installation.
    expectError(await readSpace(await installationToken()), 404);
    expectStatus(await api('PATCH', installationUrl(), { token: victim.owner.token, body: { space_selection: 'all' } }), 200);
    const token = await installationToken();
    expectStatus(await readSpace(token), 200);
    expectStatus(await openChangeRequest(token), 201);
  });

  it("another organization's admin cannot approve (404), nor a member of the installing organization below admin (403)", async () => {
    expectStatus(await publish([SITE, READ]), 200);
    expectError(await approve(publisher.owner.token), 404);
    const stranger = await seedOrg();
    expectError(await approve(stranger.owner.token), 404);
    const member = await createUser();
    await addMember(victim.id, member.id, 'create');
    expectError(await approve(member.token), 403);
    expect(await installationRow()).toMatchObject({ status: 'pending', approved_scopes: JSON.stringify([SITE]) });
    // Nor the integration's tokens: approving is a user's act.
    expectError(await approve(await seedToken(integrationId, null)), 403);
    expectError(await approve(await installationToken()), 403);
    expect(await installationRow()).toMatchObject({ status: 'pending' });
  });
});

describe('an approval', () => {
  it('applies only to the version the admin was shown: a publish in between leaves the installation pending', async () => {
    expectStatus(await publish([SITE, READ]), 200);
    const db = createDb(env.DB);
    const seen = (await db.select().from(integrations).where(eq(integrations.id, integrationId)))[0];
    const installation = (await db.select().from(integrationInstallations).where(eq(integrationInstallations.id, installationId)))[0];
    expectStatus(await publish([SITE, READ, WRITE]), 200);
    const approval = approveScopes(db, seen, installation, new Date().toISOString());
    const [, updated] = await db.batch([approval.event.statement, approval.update]);
    expect(updated).toEqual([]);
    expect(await installationRow()).toMatchObject({ status: 'pending', approved_scopes: JSON.stringify([SITE]) });
    const events = await env.DB.prepare(`select count(*) as n from integration_events where id = ?`).bind(approval.event.id).first<{ n: number }>();
    expect(events!.n).toBe(0);
  });
});

describe('narrowing', () => {
  it('the integration token and installation tokens may narrow what an installation covers', async () => {
    const other = await createSpace(victim.id, victim.owner.token, 'Other');
    expectStatus(await publish([SITE, READ]), 200);
    expectStatus(await approve(victim.owner.token), 201);
    expectStatus(await api('POST', `${installationUrl()}/spaces`, { token: victim.owner.token, body: { space: privateSpace.id } }), 201);
    expectStatus(await api('PATCH', installationUrl(), { token: victim.owner.token, body: { space_selection: 'all' } }), 200);
    expectStatus(await readSpace(await installationToken()), 200);

    const integrationToken = await seedToken(integrationId, null);
    // Selecting all again is no widening; selecting some is a narrowing.
    expectStatus(await api('PATCH', installationUrl(), { token: integrationToken, body: { space_selection: 'all' } }), 200);
    expect(expectStatus(await api('PATCH', installationUrl(), { token: integrationToken, body: { space_selection: 'selected' } }), 200).body.space_selection).toBe('selected');
    const token = await installationToken();
    expectStatus(await readSpace(token), 200);
    expectError(await api('GET', `/v1/spaces/${other.id}/content`, { token }), 404);
    // The installation token removes the space it was installed on.
    expectStatus(await api('DELETE', `${installationUrl()}/spaces/${privateSpace.id}`, { token }), 204);
    expectError(await readSpace(await installationToken()), 404);
    expectStatus(await api('PATCH', installationUrl(), { token: await installationToken(), body: { site_selection: 'selected' } }), 200);
  });

  it('a publish asking for fewer scopes narrows at once, and asking for them again needs consent again', async () => {
    expectStatus(await publish([SITE, READ, WRITE]), 200);
    expectStatus(await approve(victim.owner.token), 201);
    expectStatus(await api('PATCH', installationUrl(), { token: victim.owner.token, body: { space_selection: 'all' } }), 200);
    const token = await installationToken();
    expectStatus(await openChangeRequest(token), 201);

    expectStatus(await publish([SITE, READ]), 200);
    expect(await installationRow()).toMatchObject({ status: 'active', approved_scopes: JSON.stringify([SITE, READ]), space_role: 1 });
    // The same token, issued before: its scopes are read with each request.
    expectError(await openChangeRequest(token), 403, WRITE);
    expectStatus(await readSpace(token), 200);

    expectStatus(await publish([SITE, READ, WRITE]), 200);
    expect(await installationRow()).toMatchObject({ status: 'pending', approved_scopes: JSON.stringify([SITE, READ]), space_role: 1 });
    expectError(await openChangeRequest(token), 403, WRITE);
    expectStatus(await readSpace(token), 200);
  });

  it('a publish back within what was approved makes a pending installation active again', async () => {
    expectStatus(await publish([SITE, READ]), 200);
    expect(await installationRow()).toMatchObject({ status: 'pending' });
    expectStatus(await publish([SITE]), 200);
    expect(await installationRow()).toMatchObject({ status: 'active', approved_scopes: JSON.stringify([SITE]) });
  });
});

describe('a pending installation keeps working with what it approved', () => {
  it('its tokens read the spaces it covers, and it still receives their events', async () => {
    expectStatus(await publish([SITE, READ]), 200);
    expectStatus(await approve(victim.owner.token), 201);
    expectStatus(await api('POST', `${installationUrl()}/spaces`, { token: victim.owner.token, body: { space: privateSpace.id } }), 201);
    expectStatus(await publish([SITE, READ, WRITE]), 200);
    expect(await installationRow()).toMatchObject({ status: 'pending', space_role: 1 });
    const token = await installationToken();
    expectStatus(await readSpace(token), 200);
    expectError(await openChangeRequest(token), 403, WRITE);

    // A merge by a member of the organization is an event for it.
    const cr = expectStatus(await openChangeRequest(victim.owner.token), 201).body;
    await applyChanges(privateSpace.id, cr.number, victim.owner.token, [{ operation: 'insert_page', title: 'New', document: { markdown: 'New.\n' } }]);
    expectStatus(await merge(privateSpace.id, cr.number, victim.owner.token), 200);
    const events = await env.DB.prepare(`select count(*) as n from integration_events where installation_id = ? and type = 'space_content_updated'`)
      .bind(installationId)
      .first<{ n: number }>();
    expect(events!.n).toBe(1);
  });
});

describe('the space role of approved scopes', () => {
  it('is the same in SQL (publishing) as in code (installing, approving), for every set of one or two scopes', async () => {
    const sets = [[], ...INTEGRATION_SCOPES.map((a) => [a]), ...INTEGRATION_SCOPES.flatMap((a) => INTEGRATION_SCOPES.map((b) => [a, b]))];
    const rows = await createDb(env.DB).all<{ key: number; role: number }>(
      sql`select s.key as key, ${spaceRoleForScopesSql(sql.raw('s.value'))} as role from json_each(${JSON.stringify(sets)}) s`,
    );
    expect(rows).toHaveLength(sets.length);
    for (const { key, role } of rows) expect(role, sets[key].join(' ')).toBe(spaceRoleForScopes(sets[key]));
    expect(new Set(rows.map((r) => r.role))).toEqual(new Set([0, 1, 4]));
  });
});
