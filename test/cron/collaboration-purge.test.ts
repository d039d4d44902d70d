import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { purgeDeletedSpaces } from '../../src/jobs/cron';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createSpace, openChangeRequest } from '../helpers/content';
import { setDeletedAt } from '../spaces/support';

const TABLES = ['comments', 'comment_replies', 'comment_reactions', 'change_request_reviews', 'change_request_review_requests'] as const;

async function counts() {
  const out: Record<string, number> = {};
  for (const table of TABLES) out[table] = ((await env.DB.prepare(`select count(*) as n from ${table}`).first()) as { n: number }).n;
  return out;
}

describe('purge of a deleted space with discussions', () => {
  it('removes its comments, replies, reactions, reviews and review requests; deleting a comment removes its replies and reactions', async () => {
    const org = await seedOrg();
    const before = await counts();
    const spaceId = (await createSpace(org.id, org.owner.token, 'Discussed')).id;
    const cr = await openChangeRequest(spaceId, org.members.edit.token);
    for (const base of [`/v1/spaces/${spaceId}`, `/v1/spaces/${spaceId}/change-requests/${cr.number}`]) {
      const c = expectStatus(await api('POST', `${base}/comments`, { token: org.owner.token, body: { body: { markdown: 'c' } } }), 200).body;
      const r = expectStatus(await api('POST', `${base}/comments/${c.id}/replies`, { token: org.owner.token, body: { body: { markdown: 'r' } } }), 200).body;
      expectStatus(await api('PUT', `${base}/comments/${c.id}`, { token: org.owner.token, body: { addedReactions: ['👍'] } }), 200);
      expectStatus(await api('PUT', `${base}/comments/${c.id}/replies/${r.id}`, { token: org.owner.token, body: { addedReactions: ['👍'] } }), 200);
    }
    const crBase = `/v1/spaces/${spaceId}/change-requests/${cr.number}`;
    expectStatus(await api('POST', `${crBase}/reviews`, { token: org.owner.token, body: { status: 'approved', comment: { markdown: 'ok' } } }), 201);
    expectStatus(await api('POST', `${crBase}/requested-reviewers`, { token: org.members.edit.token, body: { users: [org.members.review.id] } }), 200);
    const made = await counts();
    expect(Object.fromEntries(TABLES.map((t) => [t, made[t] - before[t]]))).toEqual({
      comments: 3,
      comment_replies: 2,
      comment_reactions: 4,
      change_request_reviews: 1,
      change_request_review_requests: 1,
    });

    // Deleting one comment takes its reply and both reactions.
    const spaceComment = (await api('GET', `/v1/spaces/${spaceId}/comments`, { token: org.owner.token })).body.items[0];
    expectStatus(await api('DELETE', `/v1/spaces/${spaceId}/comments/${spaceComment.id}`, { token: org.owner.token }), 204);
    const afterDelete = await counts();
    expect([afterDelete.comments, afterDelete.comment_replies, afterDelete.comment_reactions]).toEqual([made.comments - 1, made.comment_replies - 1, made.comment_reactions - 2]);

    expectStatus(await api('DELETE', `/v1/spaces/${spaceId}`, { token: org.owner.token }), 204);
    const now = Date.now();
    await setDeletedAt(spaceId, 8, now);
    await purgeDeletedSpaces(createDb(env.DB), now);
    expect(await counts()).toEqual(before);
  });
});
