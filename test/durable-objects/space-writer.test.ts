import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { spaceWriter } from '../../src/durable-objects/space-writer';
import { api, seedOrg } from '../helpers/harness';
import { createSpace, openChangeRequest } from '../helpers/content';

describe('SpaceWriter', () => {
  it('applies concurrent content batches one at a time: each builds on the previous head, none is lost', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const cr = await openChangeRequest(space.id, org.owner.token);
    const writer = spaceWriter(env, space.id);
    const target = { spaceId: space.id, changeRequestId: cr.id, userId: org.owner.id };
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        writer.applyContent(target, [{ operation: 'insert_page', title: `Page ${i}`, document: { markdown: `Body ${i}` } }]),
      ),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    const head = await env.DB.prepare('select revision_id from change_requests where id = ?').bind(cr.id).first<{ revision_id: string }>();
    const rows = await env.DB.prepare("select id, parents, page_count from revisions where space_id = ? and type = 'edits'").bind(space.id).all<{
      id: string;
      parents: string;
      page_count: number;
    }>();
    const byId = new Map(rows.results.map((r) => [r.id, r]));
    // Walking back from the head visits all 8 batches, then the space's initial revision.
    const chain: string[] = [];
    for (let id: string | undefined = head!.revision_id; id && id !== space.revision; id = JSON.parse(byId.get(id)!.parents)[0]) chain.push(id);
    expect(chain).toHaveLength(8);
    expect(byId.get(head!.revision_id)!.page_count).toBe(8);
    const pages = await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.id}/content/pages`, { token: org.owner.token });
    expect(pages.body.pages).toHaveLength(8);
  });

  it('answers a refusal as a status and message, not a thrown error', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const writer = spaceWriter(env, space.id);
    const result = await writer.merge({ spaceId: space.id, changeRequestId: 'no-such-change-request', userId: org.owner.id });
    expect(result).toEqual({ ok: false, status: 404, message: 'Change request not found', bookmark: expect.stringMatching(/^[0-9a-f-]+$/) });
  });
});
