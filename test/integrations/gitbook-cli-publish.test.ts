import { env } from 'cloudflare:workers';
import { describe, expect, inject, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, BASE, expectStatus, seedOrg } from '../helpers/harness';
import { deliverPendingEvents, integrationName } from '../helpers/integrations';
import { fetchWorker } from '../helpers/worker';

declare module 'vitest' {
  interface ProvidedContext {
    /** What the real `gitbook publish` sent (test/fixtures/integrations/capture-gitbook-publish.mjs). */
    gitbookCliPublish: { requests: { method: string; path: string; headers: Record<string, string>; body: string }[]; output: string };
  }
}

/**
 * The request of the real `gitbook publish` (@gitbook/cli 0.25.1, its own build and publish code, run by the
 * globalSetup on test/fixtures/integrations/cli-integration/), replayed against the Worker with this test's token
 * and organization: it is accepted, and the integration it publishes runs (events and its public endpoint).
 */
const { requests, output } = inject('gitbookCliPublish');

describe('gitbook publish (@gitbook/cli 0.25.1)', () => {
  it('sends one request, which the Worker accepts; the integration then handles events with context.api and answers at its public endpoint', async () => {
    expect(output).toContain('published');
    expect(requests).toHaveLength(1);
    const [sent] = requests;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/v1/integrations/cli-published');
    const body = JSON.parse(sent.body);
    expect(body).toMatchObject({ runtime: 'v2', title: 'Published with gitbook publish', organization: 'placeholder-organization' });
    expect(typeof body.script).toBe('string');

    // Replayed as it was sent, but for the name (unique per run), the organization and the token.
    const publisher = await seedOrg();
    const name = integrationName('cli');
    const res = await fetchWorker(
      new Request(`${BASE}/v1/integrations/${name}`, {
        method: 'POST',
        headers: { 'content-type': sent.headers['content-type'], 'user-agent': sent.headers['user-agent'], authorization: `Bearer ${publisher.owner.token}` },
        body: JSON.stringify({ ...body, organization: publisher.id }),
      }),
    );
    expect(res.status, await res.clone().text()).toBe(200);
    // What the CLI reads of the answer (it prints `urls.app`).
    const published = (await res.json()) as any;
    expect(published).toMatchObject({ name, version: 1, urls: { app: expect.any(String) } });

    const customer = await seedOrg();
    const token = customer.owner.token;
    const space = await createSpace(customer.id, token, 'Read by the CLI-published integration');
    const installation = expectStatus(await api('POST', `/v1/integrations/${name}/installations`, { token, body: { organization: customer.id } }), 201).body;
    expectStatus(await api('PATCH', `/v1/integrations/${name}/installations/${installation.id}`, { token, body: { space_selection: 'all' } }), 200);
    const cr = await openChangeRequest(space.id, token);
    await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', title: 'Hi', document: { markdown: 'Hi.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await deliverPendingEvents(installation.id);
    const events = await env.DB.prepare('select id, type, status from integration_events where installation_id = ?').bind(installation.id).all<{ id: string; type: string; status: string }>();
    expect(events.results.map((e) => e.status)).toEqual(events.results.map(() => 'success'));
    const updated = events.results.find((e) => e.type === 'space_content_updated')!;
    const lines = await env.DB.prepare('select message from integration_event_logs where event_id = ? order by id').bind(updated.id).all<{ message: string }>();
    expect(lines.results.map((l) => l.message)).toContain(`hello from the manifest: space ${space.id} "Read by the CLI-published integration"`);

    const endpoint = await fetchWorker(`${BASE}/integrations/${name}/installations/${installation.id}/public/ping`);
    expect(endpoint.status).toBe(200);
    expect(await endpoint.json()).toEqual({ path: `/integrations/${name}/installations/${installation.id}/public/ping`, installation: installation.id });
  });
});
