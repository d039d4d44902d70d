import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { setOutboundFetch } from '../../src/lib/outbound';
import { api, expectStatus, seedOrg, tokenOf, type TestOrg } from '../helpers/harness';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { apiCapturingQueue } from '../helpers/integrations';
import petstoreYaml from '../fixtures/openapi/petstore.yaml?raw';

/**
 * The "done when", end to end through the API and the queue consumer: an admin registers a
 * spec by URL, it becomes complete with one version whose content and raw text can be read, a broken
 * URL shows FETCH_ERROR with a message, a space page computed from the spec lists its operations, and
 * a public spec is readable at its published URL without a token.
 */

const SOURCE = 'https://specs.example.com/petstore.yaml';
const BROKEN = 'https://specs.example.com/gone.yaml';

let org: TestOrg;
let admin: string;
beforeAll(async () => {
  org = await seedOrg();
  admin = tokenOf(org, 'admin');
});

afterEach(() => {
  setOutboundFetch();
});

/** Runs the queue consumer on the messages a request sent, as the queue would deliver them. */
async function consume(sent: Array<{ id: string; type: string; payload: unknown }>) {
  const batch = createMessageBatch<unknown>(
    'docs-platform-jobs',
    sent.map((body) => ({ id: `m-${body.id}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, env as never, ctx);
  const result = await getQueueResult(batch, ctx);
  expect(result.retryMessages).toEqual([]);
}

describe('OpenAPI specs, end to end', () => {
  it('registers a spec by URL, processes it into one version, computes reference pages from it and publishes it', async () => {
    setOutboundFetch(async (request) =>
      request.url === SOURCE ? new Response(petstoreYaml, { headers: { 'content-type': 'application/yaml' } }) : new Response('gone', { status: 404 }),
    );
    const base = `/v1/orgs/${org.id}/openapi`;
    const created = await apiCapturingQueue('POST', base, admin, { slug: 'petstore', source: { url: SOURCE } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ slug: 'petstore', sourceURL: SOURCE, processingState: 'pending' });
    expect(created.sent).toHaveLength(1);
    await consume(created.sent as never);

    const spec = expectStatus(await api('GET', `${base}/petstore`, { token: admin }), 200).body;
    expect(spec.processingState).toBe('complete');
    expect(spec.lastProcessErrorCode).toBeUndefined();
    const versions = expectStatus(await api('GET', `${base}/petstore/versions`, { token: admin }), 200).body;
    expect(versions.items).toHaveLength(1);
    expect(spec.lastVersion).toBe(versions.items[0].id);
    const content = expectStatus(await api('GET', `${base}/petstore/versions/latest/content`, { token: admin }), 200).body;
    const [entry] = content.filesystem as Array<{ isEntrypoint: boolean; specification: { paths: Record<string, unknown> } }>;
    expect(entry.isEntrypoint).toBe(true);
    expect(Object.keys(entry.specification.paths)).toEqual(['/pets', '/pets/{petId}']);
    const raw = expectStatus(await api('GET', `${base}/petstore/versions/latest/content/raw`, { token: admin }), 200).body;
    expect(raw).toEqual({ text: petstoreYaml, format: 'yaml' });

    // A page computed from it lists the operations of each tag.
    const space = await createSpace(org.id, admin);
    const cr = await openChangeRequest(space.id, admin);
    await applyChanges(space.id, cr.number, admin, [
      {
        operation: 'insert_page',
        title: 'Reference',
        computed: { type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: 'petstore' } } }, props: { models: true } },
      },
    ]);
    expectStatus(await merge(space.id, cr.number, admin), 200);
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token: admin }), 200).body.pages;
    expect(pages).toHaveLength(1);
    expect(pages[0].pages.map((p: { title: string }) => p.title)).toEqual(['pets', 'Models']);
    const tagPage = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pages[0].pages[0].id}`, { token: admin }), 200).body;
    const operations = tagPage.document.nodes
      .filter((n: { type: string }) => n.type === 'openapi-operation')
      .map((n: { data: { method: string; path: string } }) => `${n.data.method} ${n.data.path}`);
    expect(operations).toEqual(['get /pets', 'post /pets', 'get /pets/{petId}']);

    // Private: the published URL is a 404; public: the raw document, without a token.
    const published = `/public/openapi/${org.id}/petstore`;
    expect((await api('GET', published)).status).toBe(404);
    const made = expectStatus(await api('PATCH', `${base}/petstore`, { token: admin, body: { visibility: 'public' } }), 200).body;
    expect(new URL(made.urls.published).pathname).toBe(published);
    const res = await worker.fetch(new Request(`http://api.test${published}`), env as never, createExecutionContext());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(await res.text()).toBe(petstoreYaml);
  });

  it('shows FETCH_ERROR with a message for a broken URL', async () => {
    setOutboundFetch(async () => new Response('gone', { status: 404 }));
    const created = await apiCapturingQueue('POST', `/v1/orgs/${org.id}/openapi`, admin, { slug: 'broken', source: { url: BROKEN } });
    expect(created.status).toBe(201);
    await consume(created.sent as never);
    const spec = expectStatus(await api('GET', `/v1/orgs/${org.id}/openapi/broken`, { token: admin }), 200).body;
    expect(spec.processingState).toBe('complete');
    expect(spec.lastProcessErrorCode).toBe('FETCH_ERROR');
    expect(spec.lastProcessedErrors[0].message).toContain(BROKEN);
    expect(spec.lastVersion).toBeUndefined();
    expect((await api('GET', `/v1/orgs/${org.id}/openapi/broken/versions/latest`, { token: admin })).status).toBe(404);
  });
});
