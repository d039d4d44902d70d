import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectError, expectStatus, seedOrg } from '../helpers/harness';
import { deliverPendingEvents, integrationName } from '../helpers/integrations';

/** A script as an integration publishes it: an ES module whose default export's fetch receives GitBook's runtime request. */
const SCRIPT = `
export default {
  async fetch(request) {
    const form = await request.formData();
    const event = JSON.parse(form.get('event'));
    const environment = JSON.parse(form.get('environment'));
    console.log('received ' + event.type + (event.spaceId ? ' for ' + event.spaceId : '') + ' in installation ' + environment.installation.id);
    return new Response('OK');
  },
};
`;

/** The "done when", through the API from publishing to the event's trace. */
describe('an integration from publishing to its script receiving a merge', () => {
  it('is published by one organization, installed on a space of another, receives space_content_updated, and its token reads only that space', async () => {
    const publisher = await seedOrg();
    const customer = await seedOrg();
    const name = integrationName('flow');

    const published = expectStatus(
      await api('POST', `/v1/integrations/${name}`, {
        token: publisher.owner.token,
        body: {
          organization: publisher.id,
          title: 'Flow integration',
          description: 'Receives content updates',
          scopes: ['space:metadata:read', 'space:content:read'],
          visibility: 'public',
          script: SCRIPT,
        },
      }),
      200,
    ).body;
    expect(published).toMatchObject({ object: 'integration', name, version: 1 });

    const token = customer.owner.token;
    const space = await createSpace(customer.id, token, 'Synced');
    const other = await createSpace(customer.id, token, 'Not synced');
    const installation = expectStatus(await api('POST', `/v1/integrations/${name}/installations`, { token, body: { organization: customer.id } }), 201).body;
    expectStatus(await api('POST', `/v1/integrations/${name}/installations/${installation.id}/spaces`, { token, body: { space: space.id } }), 201);

    const cr = await openChangeRequest(space.id, token);
    await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', title: 'Hello', document: { markdown: 'Hello.\n' } }]);
    const merged = expectStatus(await merge(space.id, cr.number, token), 200).body;
    await deliverPendingEvents(installation.id);

    const events = expectStatus(await api('GET', `/v1/integrations/${name}/events`, { token: publisher.owner.token }), 200).body;
    const updated = events.items.find((e: any) => e.payload.type === 'space_content_updated');
    expect(updated).toMatchObject({ installationId: installation.id, status: 'success', payload: { spaceId: space.id, revisionId: merged.revision } });
    const detail = expectStatus(await api('GET', `/v1/integrations/${name}/events/${updated.id}`, { token: publisher.owner.token }), 200).body;
    expect(detail.trace.logs.map((l: any) => l.message)).toContain(`received space_content_updated for ${space.id} in installation ${installation.id}`);
    // The installation itself was announced to the script too.
    expect(events.items.map((e: any) => e.payload.type)).toEqual(expect.arrayContaining(['installation_setup', 'space_installation_setup', 'space_content_updated']));

    const { token: installationToken } = expectStatus(
      await api('POST', `/v1/integrations/${name}/installations/${installation.id}/tokens`, { token: publisher.owner.token }),
      200,
    ).body;
    expectStatus(await api('GET', `/v1/spaces/${space.id}`, { token: installationToken }), 200);
    expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token: installationToken }), 200);
    expectError(await api('GET', `/v1/spaces/${other.id}`, { token: installationToken }), 404);
    expectError(await api('GET', `/v1/spaces/${(await createSpace(publisher.id, publisher.owner.token)).id}`, { token: installationToken }), 404);
    expectError(await api('POST', `/v1/spaces/${space.id}/change-requests`, { token: installationToken, body: { subject: 'x' } }), 403);
  });
});
