import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, BASE, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { fetchWorker } from '../helpers/worker';

/**
 * listPages (and its change-request and revision twins) answer their JSON streamed a top-level page at a time
 * (services/content/pages-json), so a 5,000-page list is never held whole as API objects and text at once: the bytes are
 * those of the same revision's `pages` as its revision read answers them (GitBook's Revision holds the same page objects),
 * made whole (nested pages, an empty space), and the body arrives in several chunks.
 */

async function body(path: string, token: string) {
  const res = await fetchWorker(`${BASE}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('application/json');
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let chunks = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    chunks++;
    text += decoder.decode(read.value, { stream: true });
  }
  return { text: text + decoder.decode(), chunks };
}

/** `{"pages":[…]}` of the revision `revisionPath` reads (`…/content`, a change request's `…/content`, `…/revisions/:id`), made whole. */
async function expected(revisionPath: string, token: string) {
  const revision = expectStatus(await api('GET', revisionPath, { token }), 200).body;
  return JSON.stringify({ pages: revision.pages });
}

describe('the page list, streamed', () => {
  let org: TestOrg;
  let spaceId: string;
  let cr: number;
  beforeAll(async () => {
    org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token, 'Streamed list');
    spaceId = space.id;
    const first = await openChangeRequest(spaceId, org.owner.token, 'Pages');
    await applyChanges(spaceId, first.number, org.owner.token, [
      { operation: 'insert_page', ref: 'parent', title: 'Parent "quoted" ü', document: { markdown: 'Parent **text**.\n' } },
      { operation: 'insert_page', ref: 'child', into: 'parent', title: 'Child', document: { markdown: 'Child text.\n' } },
      { operation: 'insert_page', into: 'child', title: 'Grandchild', document: {} },
      { operation: 'insert_page', title: 'Sibling', document: { markdown: 'Sibling text.\n\n## Part\n' } },
      { operation: 'insert_page', title: 'Third', document: { markdown: 'Third.\n' } },
    ]);
    expectStatus(await merge(spaceId, first.number, org.owner.token), 200);
    cr = (await openChangeRequest(spaceId, org.owner.token, 'Later')).number;
  });

  it("answers the bytes the whole response made, a top-level page at a time", async () => {
    const listed = await body(`/v1/spaces/${spaceId}/content/pages`, org.owner.token);
    expect(listed.text).toBe(await expected(`/v1/spaces/${spaceId}/content`, org.owner.token));
    expect(JSON.parse(listed.text).pages.length).toBe(3);
    expect(listed.chunks).toBeGreaterThanOrEqual(JSON.parse(listed.text).pages.length);
  });

  it("a change request's and a revision's list too", async () => {
    const inRequest = await body(`/v1/spaces/${spaceId}/change-requests/${cr}/content/pages`, org.owner.token);
    expect(inRequest.chunks).toBeGreaterThan(1);
    const titles = (text: string) => (JSON.parse(text).pages as Array<{ title: string }>).map((p) => p.title);
    expect(titles(inRequest.text)).toEqual(['Parent "quoted" ü', 'Sibling', 'Third']);
    expect(inRequest.text).toBe(await expected(`/v1/spaces/${spaceId}/change-requests/${cr}/content`, org.owner.token));
    const revision = (await env.DB.prepare('select revision_id as id from spaces where id = ?').bind(spaceId).first<{ id: string }>())!.id;
    const atRevision = await body(`/v1/spaces/${spaceId}/revisions/${revision}/pages`, org.owner.token);
    expect(atRevision.chunks).toBeGreaterThan(1);
    expect(atRevision.text).toBe(await expected(`/v1/spaces/${spaceId}/revisions/${revision}`, org.owner.token));
  });

  it('an empty space lists no page, in the same bytes', async () => {
    const empty = await createSpace(org.id, org.owner.token, 'Empty list');
    const listed = await body(`/v1/spaces/${empty.id}/content/pages`, org.owner.token);
    expect(listed.text).toBe(await expected(`/v1/spaces/${empty.id}/content`, org.owner.token));
  });

  it('another organization reads none of it (404), streamed or not', async () => {
    const other = await seedOrg();
    const res = await fetchWorker(`${BASE}/v1/spaces/${spaceId}/content/pages`, { headers: { Authorization: `Bearer ${other.owner.token}` } });
    expect([403, 404]).toContain(res.status);
    const parsed = JSON.parse(await res.text());
    expect(parsed.error.code).toBe(res.status);
  });
});
