import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectError, expectStatus, seedOrg } from '../helpers/harness';
import { apiCapturingQueue, seedInstallation, seedIntegration, seedToken } from '../helpers/integrations';

/** What an installation token reaches: its scopes decide the operations, its installation the spaces and sites. */
describe('installation tokens', () => {
  async function setup(scopes: string[], spaces: 'all' | 'first' = 'first') {
    const publisher = await seedOrg();
    const org = await seedOrg();
    const token = org.owner.token;
    const covered = await createSpace(org.id, token, 'Covered');
    const other = await createSpace(org.id, token, 'Other');
    const foreign = await createSpace(publisher.id, publisher.owner.token, 'Foreign');
    const integration = await seedIntegration(publisher.id, { scopes });
    const installation = await seedInstallation(integration, org.id, { spaces: spaces === 'all' ? 'all' : [covered.id] });
    const installationToken = await seedToken(integration.id, installation.id);
    return { publisher, org, covered, other, foreign, integration, installation, installationToken };
  }

  it('reach the spaces their installation covers, and nothing else reads as existing', async () => {
    const { org, covered, other, foreign, installationToken } = await setup(['space:metadata:read', 'space:content:read']);
    const space = expectStatus(await api('GET', `/v1/spaces/${covered.id}`, { token: installationToken }), 200).body;
    expect(space.id).toBe(covered.id);
    expectStatus(await api('GET', `/v1/spaces/${covered.id}/content/pages`, { token: installationToken }), 200);
    expectError(await api('GET', `/v1/spaces/${other.id}`, { token: installationToken }), 404);
    expectError(await api('GET', `/v1/spaces/${other.id}/content/pages`, { token: installationToken }), 404);
    expectError(await api('GET', `/v1/spaces/${foreign.id}`, { token: installationToken }), 404);

    const listed = expectStatus(await api('GET', `/v1/orgs/${org.id}/spaces`, { token: installationToken }), 200).body;
    expect(listed.items.map((s: any) => s.id)).toEqual([covered.id]);
  });

  it('with space_selection all reach every space of their organization, and no other organization', async () => {
    const { org, covered, other, foreign, publisher, installationToken } = await setup(['space:metadata:read'], 'all');
    expectStatus(await api('GET', `/v1/spaces/${covered.id}`, { token: installationToken }), 200);
    expectStatus(await api('GET', `/v1/spaces/${other.id}`, { token: installationToken }), 200);
    expectError(await api('GET', `/v1/spaces/${foreign.id}`, { token: installationToken }), 404);
    expectError(await api('GET', `/v1/orgs/${publisher.id}/spaces`, { token: installationToken }), 404);
    const listed = expectStatus(await api('GET', `/v1/orgs/${org.id}/spaces`, { token: installationToken }), 200).body;
    expect(listed.items.map((s: any) => s.id).sort()).toEqual([covered.id, other.id].sort());
  });

  it("never reach a space of another organization's installation of the same integration", async () => {
    const { covered, integration, installationToken } = await setup(['space:metadata:read', 'space:content:read', 'space:content:write'], 'all');
    const second = await seedOrg();
    const theirs = await createSpace(second.id, second.owner.token, 'Theirs');
    await seedInstallation(integration, second.id, { spaces: [theirs.id] });
    expectStatus(await api('GET', `/v1/spaces/${covered.id}`, { token: installationToken }), 200);
    expectError(await api('GET', `/v1/spaces/${theirs.id}`, { token: installationToken }), 404);
    expectError(await api('GET', `/v1/spaces/${theirs.id}/content/pages`, { token: installationToken }), 404);
    expectError(await api('POST', `/v1/spaces/${theirs.id}/change-requests`, { token: installationToken, body: { subject: 'x' } }), 404);
    expectError(await api('GET', `/v1/orgs/${second.id}/spaces`, { token: installationToken }), 404);
  });

  it('are refused (403) an operation whose scope the integration lacks, and every operation that admits no integration token', async () => {
    const { org, covered, installationToken } = await setup(['space:metadata:read']);
    expectError(await api('GET', `/v1/spaces/${covered.id}/content/pages`, { token: installationToken }), 403, 'space:content:read');
    expectError(await api('POST', `/v1/spaces/${covered.id}/change-requests`, { token: installationToken, body: { subject: 'x' } }), 403, 'space:content:write');
    expectError(await api('GET', `/v1/orgs/${org.id}/members`, { token: installationToken }), 403);
    expectError(await api('POST', `/v1/orgs/${org.id}/spaces`, { token: installationToken, body: { title: 'x' } }), 403);
    expectError(await api('DELETE', `/v1/spaces/${covered.id}`, { token: installationToken }), 403);
  });

  it('write content where space:content:write allows it, as the integration (its bot user)', async () => {
    const { covered, installation, installationToken } = await setup(['space:content:read', 'space:content:write']);
    const cr = expectStatus(await api('POST', `/v1/spaces/${covered.id}/change-requests`, { token: installationToken, body: { subject: 'From the integration' } }), 201).body;
    await applyChanges(covered.id, cr.number, installationToken, [{ operation: 'insert_page', title: 'Synced', document: { markdown: 'Synced.\n' } }]);
    expectStatus(await merge(covered.id, cr.number, installationToken), 200);
    const pages = expectStatus(await api('GET', `/v1/spaces/${covered.id}/content/pages`, { token: installationToken }), 200).body;
    expect(pages.pages.map((p: any) => p.title)).toContain('Synced');
    const me = expectStatus(await api('GET', '/v1/user', { token: installationToken }), 200).body;
    expect(me.id).toBe(installation.botUserId);
    // Not a member anywhere: writing never grants more than its installation.
    expectError(await api('PATCH', `/v1/spaces/${covered.id}`, { token: installationToken, body: { title: 'Renamed' } }), 403);
  });

  it('reach only the sites their installation covers', async () => {
    const publisher = await seedOrg();
    const org = await seedOrg();
    const token = org.owner.token;
    const base = `/v1/orgs/${org.id}/sites`;
    const site = expectStatus(await api('POST', base, { token, body: { title: 'Covered site' } }), 201).body;
    const other = expectStatus(await api('POST', base, { token, body: { title: 'Other site' } }), 201).body;
    const integration = await seedIntegration(publisher.id, { scopes: ['site:metadata:read'] });
    const installation = await seedInstallation(integration, org.id, { sites: [site.id] });
    const installationToken = await seedToken(integration.id, installation.id);
    expectStatus(await api('GET', `${base}/${site.id}`, { token: installationToken }), 200);
    expectStatus(await api('GET', `${base}/${site.id}/sections`, { token: installationToken }), 200);
    expectError(await api('GET', `${base}/${other.id}`, { token: installationToken }), 404);
    expectError(await api('GET', `/v1/orgs/${publisher.id}/sites/${site.id}`, { token: installationToken }), 404);
    expectError(await api('PATCH', `${base}/${site.id}`, { token: installationToken, body: { title: 'Renamed' } }), 403);
  });

  it('stop working when the installation is paused and when the integration is unpublished', async () => {
    const { covered, integration, installation, installationToken } = await setup(['space:metadata:read']);
    expectStatus(await api('GET', `/v1/spaces/${covered.id}`, { token: installationToken }), 200);
    await env.DB.prepare(`update integration_installations set status = 'paused' where id = ?`).bind(installation.id).run();
    expectError(await api('GET', `/v1/spaces/${covered.id}`, { token: installationToken }), 401);
    await env.DB.prepare(`update integration_installations set status = 'active' where id = ?`).bind(installation.id).run();
    expectStatus(await api('GET', `/v1/spaces/${covered.id}`, { token: installationToken }), 200);
    await env.DB.prepare(`update integrations set deleted_at = ? where id = ?`).bind(new Date().toISOString(), integration.id).run();
    expectError(await api('GET', `/v1/spaces/${covered.id}`, { token: installationToken }), 401);
  });

  it('an expired token answers 401', async () => {
    const { covered, integration, installation } = await setup(['space:metadata:read']);
    const token = await seedToken(integration.id, installation.id);
    await env.DB.prepare(`update integration_tokens set expires_at = '2000-01-01T00:00:00.000Z' where installation_id = ?`).bind(installation.id).run();
    expectError(await api('GET', `/v1/spaces/${covered.id}`, { token }), 401, 'expired');
  });

  it("an integration's own token is refused by every route that does not admit it", async () => {
    const { org, covered, integration } = await setup(['space:metadata:read'], 'all');
    const integrationToken = await seedToken(integration.id, null);
    expectError(await api('GET', `/v1/spaces/${covered.id}`, { token: integrationToken }), 403);
    expectError(await api('GET', `/v1/orgs/${org.id}/spaces`, { token: integrationToken }), 403);
  });
});

describe('space_content_updated', () => {
  it('is recorded for every installation covering the space when a change request is merged, and for no other', async () => {
    const publisher = await seedOrg();
    const org = await seedOrg();
    const token = org.owner.token;
    const covered = await createSpace(org.id, token, 'Covered');
    const other = await createSpace(org.id, token, 'Other');
    const selected = await seedIntegration(publisher.id);
    const everywhere = await seedIntegration(publisher.id);
    const selectedInstallation = await seedInstallation(selected, org.id, { spaces: [covered.id] });
    const everywhereInstallation = await seedInstallation(everywhere, org.id, { spaces: 'all' });

    const cr = await openChangeRequest(covered.id, token);
    await applyChanges(covered.id, cr.number, token, [{ operation: 'insert_page', title: 'New', document: { markdown: 'New.\n' } }]);
    const merged = expectStatus(await merge(covered.id, cr.number, token), 200).body;

    const events = await env.DB.prepare(`select * from integration_events where type = 'space_content_updated' and org_id = ? order by installation_id`).bind(org.id).all<any>();
    expect(events.results.map((e) => e.installation_id).sort()).toEqual([selectedInstallation.id, everywhereInstallation.id].sort());
    for (const event of events.results) {
      expect(event.status).toBe('pending');
      const payload = JSON.parse(event.payload);
      expect(payload).toMatchObject({ type: 'space_content_updated', spaceId: covered.id, installationId: event.installation_id, revisionId: merged.revision });
      expect(payload.updatedBy).toEqual([expect.objectContaining({ object: 'user', id: org.owner.id })]);
    }

    const cr2 = await openChangeRequest(other.id, token);
    await applyChanges(other.id, cr2.number, token, [{ operation: 'insert_page', title: 'New', document: { markdown: 'New.\n' } }]);
    expectStatus(await merge(other.id, cr2.number, token), 200);
    const forOther = await env.DB.prepare(`select installation_id from integration_events where type = 'space_content_updated' and payload ->> 'spaceId' = ?`).bind(other.id).all<any>();
    expect(forOther.results.map((e) => e.installation_id)).toEqual([everywhereInstallation.id]);
  });

  it('is not recorded when the merge is refused', async () => {
    const publisher = await seedOrg();
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token, 'Covered');
    const integration = await seedIntegration(publisher.id);
    await seedInstallation(integration, org.id, { spaces: 'all' });
    const cr = await openChangeRequest(space.id, token);
    expectError(await merge(space.id, cr.number, org.members.read.token), 403);
    const count = await env.DB.prepare(`select count(*) as n from integration_events where org_id = ?`).bind(org.id).first<{ n: number }>();
    expect(count!.n).toBe(0);
  });
});

describe('a space that leaves its organization', () => {
  it('leaves the installations of that organization, which are told with space_installation_deleted', async () => {
    const publisher = await seedOrg();
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token, 'Moving');
    const target = expectStatus(await api('POST', '/v1/orgs', { token, body: { title: 'Target' } }), 201).body;
    const integration = await seedIntegration(publisher.id, { scopes: ['space:metadata:read'] });
    const installation = await seedInstallation(integration, org.id, { spaces: [space.id] });
    const installationToken = await seedToken(integration.id, installation.id);
    expectStatus(await api('GET', `/v1/spaces/${space.id}`, { token: installationToken }), 200);

    const { status, sent } = await apiCapturingQueue('POST', `/v1/spaces/${space.id}/transfer`, token, { organization: target.id });
    expect(status).toBe(200);
    expectError(await api('GET', `/v1/spaces/${space.id}`, { token: installationToken }), 404);
    const left = await env.DB.prepare('select count(*) as n from integration_space_installations where installation_id = ?').bind(installation.id).first<{ n: number }>();
    expect(left!.n).toBe(0);
    const event = await env.DB.prepare(`select id, payload, status from integration_events where installation_id = ? and type = 'space_installation_deleted'`).bind(installation.id).first<any>();
    expect(JSON.parse(event.payload)).toEqual({ type: 'space_installation_deleted', installationId: installation.id, spaceId: space.id });
    expect(event.status).toBe('pending');
    expect(sent.map((m) => m.payload.eventId)).toEqual([event.id]);
  });
});
