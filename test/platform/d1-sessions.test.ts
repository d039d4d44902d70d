/**
 * Every request runs on a D1 session (issue 42, point 3; middleware/context): reads may be served by a read replica
 * (`first-unconstrained`), writes start on the primary (`first-primary`), a request that sends back the bookmark of
 * an earlier answer (`X-D1-Bookmark`) reads at least what that answer saw or wrote, and every answer carries its
 * bookmark, the space writer's (a Durable Object writing on a session of its own) when it wrote for the request.
 * Locally every session is served by the primary: these tests prove the sessions are opened as they must be (a
 * binding that records them) and that bookmarks travel both ways.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { BOOKMARK_HEADER, laterBookmark } from '../../src/db/client';
import { spaceWriter, throughWriter } from '../../src/durable-objects/space-writer';
import { applyChanges, createSpace, openChangeRequest } from '../helpers/content';
import { api, BASE, seedOrg, type TestOrg } from '../helpers/harness';

/** The D1 binding, recording how each session was started. */
function recordingDb() {
  const starts: (string | undefined)[] = [];
  const db = new Proxy(env.DB, {
    get(target, prop) {
      if (prop === 'withSession') return (start?: string) => (starts.push(start), target.withSession(start));
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { db, starts };
}

async function call(method: string, path: string, token: string, headers: Record<string, string> = {}, body?: unknown) {
  const recorded = recordingDb();
  const ctx = createExecutionContext();
  const init: RequestInit = { method, headers: { Authorization: `Bearer ${token}`, ...(body !== undefined && { 'Content-Type': 'application/json' }), ...headers } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await createApp().request(`${BASE}${path}`, init, { ...env, DB: recorded.db }, ctx);
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (await res.json().catch(() => null)) as any, bookmark: res.headers.get(BOOKMARK_HEADER), starts: recorded.starts };
}

let org: TestOrg;
beforeAll(async () => {
  org = await seedOrg();
});

describe('sessions and bookmarks', () => {
  it('a read starts unconstrained (a replica may serve it), a write on the primary; both answer a bookmark', async () => {
    const read = await call('GET', '/v1/user', org.owner.token);
    expect(read.status).toBe(200);
    expect(read.starts).toEqual(['first-unconstrained']);
    expect(read.bookmark).toMatch(/^[0-9a-f]+(-[0-9a-f]+)+$/);
    const write = await call('PATCH', `/v1/orgs/${org.id}`, org.owner.token, {}, { title: 'Renamed by a session' });
    expect(write.status).toBe(200);
    expect(write.starts).toEqual(['first-primary']);
    expect(laterBookmark(write.bookmark, read.bookmark)).toBe(write.bookmark);
  });

  it('a bookmark sent back starts the session there, and the read sees the write it came from', async () => {
    const write = await call('PATCH', `/v1/orgs/${org.id}`, org.owner.token, {}, { title: 'Read your writes' });
    const read = await call('GET', `/v1/orgs/${org.id}`, org.owner.token, { [BOOKMARK_HEADER]: write.bookmark! });
    expect(read.starts).toEqual([write.bookmark]);
    expect(read.body.title).toBe('Read your writes');
    expect(laterBookmark(read.bookmark, write.bookmark)).toBe(read.bookmark);
  });

  it("a merge answers the space writer's bookmark, newer than any before it; reading with it shows the merged page", async () => {
    const space = await createSpace(org.id, org.owner.token);
    const cr = await openChangeRequest(space.id, org.owner.token);
    await applyChanges(space.id, cr.number, org.owner.token, [{ operation: 'insert_page', title: 'Merged page', document: { markdown: 'Here.\n' } }]);
    const before = await call('GET', '/v1/user', org.owner.token);
    const merged = await call('POST', `/v1/spaces/${space.id}/change-requests/${cr.number}/merge`, org.owner.token);
    expect(merged.status).toBe(200);
    expect(merged.bookmark).toBeTruthy();
    expect(merged.bookmark! > before.bookmark!).toBe(true);
    const pages = await call('GET', `/v1/spaces/${space.id}/content/pages`, org.owner.token, { [BOOKMARK_HEADER]: merged.bookmark! });
    expect(pages.starts).toEqual([merged.bookmark]);
    expect(pages.body.pages.map((p: { title: string }) => p.title)).toEqual(['Merged page']);
  });

  it("the space writer answers the bookmark of what it wrote, and throughWriter hands the newest to the request", async () => {
    const space = await createSpace(org.id, org.owner.token);
    const before = await call('GET', '/v1/user', org.owner.token);
    const result = await spaceWriter(env, space.id).reindex(space.id);
    expect(result.ok).toBe(true);
    expect(result.bookmark! >= before.bookmark!).toBe(true);
    const kept = new Map<string, string>();
    const sink = { get: (key: 'writerBookmark') => kept.get(key), set: (key: 'writerBookmark', value: string) => void kept.set(key, value) };
    await throughWriter(Promise.resolve({ ok: true as const, value: 1, bookmark: '00000000-00000002-00000000-0' }), sink);
    await throughWriter(Promise.resolve({ ok: true as const, value: 1, bookmark: '00000000-00000001-00000000-0' }), sink);
    expect(kept.get('writerBookmark')).toBe('00000000-00000002-00000000-0');
    // A refusal still hands its bookmark over (the request answers it with its error).
    await expect(throughWriter(Promise.resolve({ ok: false as const, status: 409, message: 'no', bookmark: '00000000-00000003-00000000-0' }), sink)).rejects.toThrow('no');
    expect(kept.get('writerBookmark')).toBe('00000000-00000003-00000000-0');
  });

  it('a header that is not a bookmark is a 400 with the error body, before anything is read', async () => {
    for (const bad of ['first-primary', 'not a bookmark', 'x'.repeat(300), '0000-zz']) {
      const res = await call('GET', '/v1/user', org.owner.token, { [BOOKMARK_HEADER]: bad });
      expect(res.status, bad).toBe(400);
      expect(res.body.error).toMatchObject({ code: 400, message: expect.stringContaining(BOOKMARK_HEADER) });
      expect(res.starts).toEqual([]);
    }
  });

  it('answers through the test harness carry the bookmark too (any route, any group)', async () => {
    const res = await api('GET', `/v1/orgs/${org.id}/spaces`, { token: org.owner.token });
    expect(res.status).toBe(200);
    expect(res.headers.get(BOOKMARK_HEADER)).toBeTruthy();
  });
});
