import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { createDb, rawRun } from '../../src/db/client';
import { purgeDeletedSpaces } from '../../src/jobs/cron';
import { ApiError } from '../../src/lib/errors';
import { newId } from '../../src/lib/ids';
import { pageCommentGuard, runPageCommentWrite } from '../../src/services/collaboration/comments';
import type { ConversationInput } from '../../src/schemas/conversation';
import { storeConversations } from '../../src/services/conversations/records';
import { conversation } from '../helpers/conversations';
import { seedInstallation, seedIntegration, seedToken } from '../helpers/integrations';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { BASE, api, expectError, expectStatus, seedOrg, type ApiResponse, type TestOrg } from '../helpers/harness';
import { measureRoundTrips, requestWithBindings } from '../helpers/round-trips';

// The caps of the limits project (TEST_CAPS in test/limits/vitest.config.ts).
const COMMENTS_PER_PAGE = 3;
const CONVERSATIONS_PER_DAY = 150;

/** page_comment_counts of a space, as { page: count } ('' for comments on no page). */
async function pageCounts(spaceId: string): Promise<Record<string, number>> {
  const { results } = await env.DB.prepare('select page_id, count from page_comment_counts where space_id = ? order by page_id').bind(spaceId).all<{ page_id: string; count: number }>();
  return Object.fromEntries(results.map((r) => [r.page_id, r.count]));
}

async function insertComment(spaceId: string, userId: string, pageId: string | null): Promise<string> {
  const id = newId();
  await env.DB.prepare(`insert into comments (id, space_id, page_id, revision_id, body, posted_by, posted_at) values (?, ?, ?, 'r', '{}', ?, ?)`)
    .bind(id, spaceId, pageId, userId, new Date().toISOString())
    .run();
  return id;
}

async function insertReply(commentId: string, userId: string): Promise<string> {
  const id = newId();
  await env.DB.prepare(`insert into comment_replies (id, comment_id, body, posted_by, posted_at) values (?, ?, '{}', ?, ?)`)
    .bind(id, commentId, userId, new Date().toISOString())
    .run();
  return id;
}

describe('page_comment_counts (the triggers of migration 0011)', () => {
  it('count comments and replies per page, free them on deletion (a comment with its cascaded replies), and go with the space', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token, 'Counted');
    const user = org.owner.id;
    const a = await insertComment(space.id, user, 'page-a');
    const b = await insertComment(space.id, user, 'page-b');
    const loose = await insertComment(space.id, user, null);
    expect(await pageCounts(space.id)).toEqual({ '': 1, 'page-a': 1, 'page-b': 1 });

    const replies = [await insertReply(a, user), await insertReply(a, user), await insertReply(b, user), await insertReply(loose, user)];
    await insertComment(space.id, user, 'page-a');
    expect(await pageCounts(space.id)).toEqual({ '': 2, 'page-a': 4, 'page-b': 2 });

    await env.DB.prepare('delete from comment_replies where id = ?').bind(replies[0]).run();
    expect(await pageCounts(space.id)).toEqual({ '': 2, 'page-a': 3, 'page-b': 2 });

    // The comment and its remaining reply (cascaded): each counted once.
    await env.DB.prepare('delete from comments where id = ?').bind(a).run();
    expect(await env.DB.prepare('select count(*) as n from comment_replies where comment_id = ?').bind(a).first('n')).toBe(0);
    expect(await pageCounts(space.id)).toEqual({ '': 2, 'page-a': 1, 'page-b': 2 });

    await env.DB.prepare('delete from comments where id = ?').bind(loose).run();
    expect(await pageCounts(space.id)).toEqual({ '': 0, 'page-a': 1, 'page-b': 2 });

    // Purged from the trash: the space's counts go with it.
    await env.DB.prepare('update spaces set deleted_at = ? where id = ?').bind(new Date(Date.now() - 30 * 86_400_000).toISOString(), space.id).run();
    await purgeDeletedSpaces(createDb(env.DB), Date.now());
    expect(await env.DB.prepare('select count(*) as n from comments where space_id = ?').bind(space.id).first('n')).toBe(0);
    expect(await pageCounts(space.id)).toEqual({});
  });
});

// ---------------------------------------------------------------------------------------------
// Comments per page (MAX_COMMENTS_PER_PAGE)

interface CommentedSpace {
  org: TestOrg;
  spaceId: string;
  pages: [string, string];
  /** An open change request of the space (its content has both pages). */
  changeRequest: number;
  changeRequestId: string;
}

/** A space with two pages and an open change request, set up by the owner (two content writes). */
async function commentedSpace(): Promise<CommentedSpace> {
  const org = await seedOrg();
  const spaceId = (await createSpace(org.id, org.owner.token, 'Commented')).id;
  const cr = await openChangeRequest(spaceId, org.owner.token, 'Pages');
  const applied = await applyChanges(spaceId, cr.number, org.owner.token, [
    { operation: 'insert_page', title: 'One', document: { markdown: 'One.\n' } },
    { operation: 'insert_page', title: 'Two', document: { markdown: 'Two.\n' } },
  ]);
  expectStatus(await merge(spaceId, cr.number, org.owner.token), 200);
  const open = await openChangeRequest(spaceId, org.owner.token, 'Review');
  return { org, spaceId, pages: [applied.changes[0].page.id, applied.changes[1].page.id], changeRequest: open.number, changeRequestId: open.id };
}

const markdown = (text: string) => ({ markdown: text });

function postComment(s: CommentedSpace, token: string, page: string | undefined, where: 'space' | 'changeRequest' = 'space') {
  const base = where === 'space' ? `/v1/spaces/${s.spaceId}` : `/v1/spaces/${s.spaceId}/change-requests/${s.changeRequest}`;
  return api('POST', `${base}/comments`, { token, body: { body: markdown('A remark'), ...(page === undefined ? {} : { page }) } });
}

function postReply(s: CommentedSpace, token: string, commentId: string, where: 'space' | 'changeRequest' = 'space') {
  const base = where === 'space' ? `/v1/spaces/${s.spaceId}` : `/v1/spaces/${s.spaceId}/change-requests/${s.changeRequest}`;
  return api('POST', `${base}/comments/${commentId}/replies`, { token, body: { body: markdown('A reply') } });
}

function expectCommentCap(res: ApiResponse): void {
  expectError(res, 403, `Cap reached: at most ${COMMENTS_PER_PAGE} comments and replies on a page (MAX_COMMENTS_PER_PAGE)`);
}

describe('comments per page', () => {
  it('a page takes comments and replies up to the cap, refuses one more of either, never refuses edits, and a deletion frees its slots', async () => {
    const s = await commentedSpace();
    const token = s.org.members.comment.token;
    const [page] = s.pages;
    const first = expectStatus(await postComment(s, token, page), 200).body.id as string;
    expectStatus(await postReply(s, token, first), 200);
    const reply = expectStatus(await postReply(s, token, first), 200).body.id as string;
    expect(await pageCounts(s.spaceId)).toEqual({ [page]: COMMENTS_PER_PAGE });

    expectCommentCap(await postComment(s, token, page));
    expectCommentCap(await postReply(s, token, first));
    expect(await env.DB.prepare('select count(*) as n from comments where space_id = ?').bind(s.spaceId).first('n')).toBe(1);
    expect(await pageCounts(s.spaceId)).toEqual({ [page]: COMMENTS_PER_PAGE });

    // Editing, reacting and resolving add nothing.
    const comment = `/v1/spaces/${s.spaceId}/comments/${first}`;
    expectStatus(await api('PUT', comment, { token, body: { body: markdown('Edited'), addedReactions: ['👍'] } }), 200);
    expectStatus(await api('PUT', comment, { token, body: { resolved: true } }), 200);
    expectStatus(await api('PUT', `${comment}/replies/${reply}`, { token, body: { body: markdown('Edited reply') } }), 200);

    // A deleted reply frees its slot, for a reply or a comment.
    expectStatus(await api('DELETE', `${comment}/replies/${reply}`, { token }), 204);
    expectStatus(await postComment(s, token, page), 200);
    expectCommentCap(await postReply(s, token, first));

    // A deleted comment frees itself and its replies.
    expectStatus(await api('DELETE', comment, { token }), 204);
    expect(await pageCounts(s.spaceId)).toEqual({ [page]: 1 });
    expectStatus(await postComment(s, token, page), 200);
    expectStatus(await postComment(s, token, page), 200);
    expectCommentCap(await postComment(s, token, page));
  });

  it("a change request's comments on a page share the page's budget with the space's; other pages, and comments on no page, have their own", async () => {
    const s = await commentedSpace();
    const token = s.org.members.comment.token;
    const [one, two] = s.pages;
    const onSpace = expectStatus(await postComment(s, token, one), 200).body.id as string;
    const onChangeRequest = expectStatus(await postComment(s, token, one, 'changeRequest'), 200).body.id as string;
    expectStatus(await postReply(s, token, onChangeRequest, 'changeRequest'), 200);
    expectCommentCap(await postComment(s, token, one));
    expectCommentCap(await postComment(s, token, one, 'changeRequest'));
    expectCommentCap(await postReply(s, token, onSpace));
    expectCommentCap(await postReply(s, token, onChangeRequest, 'changeRequest'));

    for (let i = 0; i < COMMENTS_PER_PAGE; i++) expectStatus(await postComment(s, token, two, i % 2 ? 'changeRequest' : 'space'), 200);
    expectCommentCap(await postComment(s, token, two));
    // On no page, the space's comments are one budget and each change request's another.
    for (let i = 0; i < COMMENTS_PER_PAGE; i++) expectStatus(await postComment(s, token, undefined, 'space'), 200);
    expectCommentCap(await postComment(s, token, undefined, 'space'));
    for (let i = 0; i < COMMENTS_PER_PAGE; i++) expectStatus(await postComment(s, token, undefined, 'changeRequest'), 200);
    expectCommentCap(await postComment(s, token, undefined, 'changeRequest'));
    expect(await pageCounts(s.spaceId)).toEqual({ '': 3, [`change-request:${s.changeRequestId}`]: 3, [one]: 3, [two]: 3 });
  });

  it("a review's comment is one of its change request's comments on no page", async () => {
    const s = await commentedSpace();
    const reviews = `/v1/spaces/${s.spaceId}/change-requests/${s.changeRequest}/reviews`;
    const reviewer = s.org.members.review.token;
    expectStatus(await api('POST', reviews, { token: reviewer, body: { status: 'changes-requested', comment: markdown('Not yet') } }), 201);
    for (let i = 1; i < COMMENTS_PER_PAGE; i++) expectStatus(await postComment(s, s.org.members.comment.token, undefined, 'changeRequest'), 200);
    expectCommentCap(await api('POST', reviews, { token: reviewer, body: { status: 'approved', comment: markdown('Now yes') } }));
    // Nothing of the refused review was written; a review without a comment adds no comment and passes.
    expect((await api('GET', reviews, { token: reviewer })).body.items).toHaveLength(1);
    expectStatus(await api('POST', reviews, { token: reviewer, body: { status: 'approved' } }), 201);
    expect(await pageCounts(s.spaceId)).toEqual({ [`change-request:${s.changeRequestId}`]: COMMENTS_PER_PAGE });
  });

  it('posting a comment or a reply costs the same round trips as before the cap (one read batch, one write batch)', async () => {
    const s = await commentedSpace();
    const token = s.org.members.comment.token;
    await api('GET', '/v1/user', { token });
    const posted = await measureRoundTrips('POST', `/v1/spaces/${s.spaceId}/comments`, token, { page: s.pages[0], body: markdown('Counted') });
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);
    const replied = await measureRoundTrips('POST', `/v1/spaces/${s.spaceId}/comments/${(posted.body as { id: string }).id}/replies`, token, { body: markdown('Counted') });
    expect(replied.status, JSON.stringify(replied.body)).toBe(200);
    // The token is remembered since the warm-up: the read batch (scope, target, page count), the write batch (guard, insert, read back).
    expect(posted.roundTrips).toBe(2);
    expect(replied.roundTrips).toBe(2);
  });

  it("the write's guard refuses a comment the read let through when the page filled up in between (a race at cap - 1), writing nothing", async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token, 'Raced');
    for (let i = 0; i < COMMENTS_PER_PAGE; i++) await insertComment(space.id, org.owner.id, 'page-a');
    const db = createDb(env.DB);
    /** The guard, then the insert of a comment on `page`, as the route batches them. */
    const guardedInsert = (page: string) =>
      runPageCommentWrite(env, db, [
        pageCommentGuard(db, env, { spaceId: space.id }, page),
        rawRun(
          db,
          sql`insert into comments (id, space_id, page_id, revision_id, body, posted_by, posted_at)
            values (${newId()}, ${space.id}, ${page}, 'r', '{}', ${org.owner.id}, ${new Date().toISOString()})`,
        ),
      ]);
    const refused = await guardedInsert('page-a').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 403, message: expect.stringContaining('MAX_COMMENTS_PER_PAGE') });
    expect(await env.DB.prepare("select count(*) as n from comments where page_id = 'page-a'").first('n')).toBe(COMMENTS_PER_PAGE);
    // On a page never commented (no counter row yet) and below the cap, the guard lets the write through.
    await guardedInsert('page-b');
    await guardedInsert('page-b');
    expect(await pageCounts(space.id)).toEqual({ 'page-a': COMMENTS_PER_PAGE, 'page-b': 2 });
  });
});

// ---------------------------------------------------------------------------------------------
// Conversations per day (MAX_CONVERSATIONS_PER_DAY)

const app = createApp();

/** POSTs conversations with a queue that keeps what it is sent: the response (with its headers) and the messages. */
async function ingest(orgId: string, token: string, body: unknown): Promise<ApiResponse & { sent: unknown[] }> {
  const sent: unknown[] = [];
  const queue = {
    send: async (message: unknown) => void sent.push(message),
    sendBatch: async (messages: { body: unknown }[]) => void sent.push(...messages.map((m) => m.body)),
  };
  const ctx = createExecutionContext();
  const res = await app.request(
    `${BASE}/v1/orgs/${orgId}/conversations`,
    { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) },
    { ...env, JOBS: queue as unknown as Queue<unknown> },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers, sent };
}

const today = () => new Date().toISOString().slice(0, 10);
const yesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
let counter = 0;
/** `n` new conversations. */
const batch = (n: number) => Array.from({ length: n }, () => conversation(`conv-${Date.now().toString(36)}-${counter++}`, 'The export button is gone.'));

async function setDay(orgId: string, day: string, count: number): Promise<void> {
  await env.DB.prepare('update organizations set conversations_day = ?, conversations_today = ? where id = ?').bind(day, count, orgId).run();
}

async function usage(orgId: string) {
  const row = await env.DB.prepare('select conversations_day as day, conversations_today as today, (select count(*) from conversations where org_id = ?1) as stored from organizations where id = ?1')
    .bind(orgId)
    .first<{ day: string | null; today: number; stored: number }>();
  return row!;
}

function expectDailyCap(res: ApiResponse): void {
  expectError(res, 429, `Cap reached: at most ${CONVERSATIONS_PER_DAY} conversations an organization ingests per day (UTC) (MAX_CONVERSATIONS_PER_DAY)`);
  const retryAfter = Number(res.headers.get('Retry-After'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(86_400);
}

describe('conversations per day', () => {
  it('every input counts, the same id again too, from a first ingestion of the day', async () => {
    const org = await seedOrg();
    const [a, b] = batch(2);
    expectStatus(await ingest(org.id, org.owner.token, [a, b]), 204);
    expect(await usage(org.id)).toEqual({ day: today(), today: 2, stored: 2 });
    expectStatus(await ingest(org.id, org.owner.token, a), 204);
    expect(await usage(org.id)).toEqual({ day: today(), today: 3, stored: 2 });
  });

  it('a day of 150 conversations passes at the cap, then one more is a 429 until 00:00 UTC that stores and sends nothing', async () => {
    const org = await seedOrg();
    await setDay(org.id, today(), 100);
    const full = await ingest(org.id, org.owner.token, batch(CONVERSATIONS_PER_DAY - 100));
    expectStatus(full, 204);
    expect(full.sent).toHaveLength(CONVERSATIONS_PER_DAY - 100);
    expect(await usage(org.id)).toEqual({ day: today(), today: CONVERSATIONS_PER_DAY, stored: 50 });

    const refused = await ingest(org.id, org.owner.token, batch(1));
    expectDailyCap(refused);
    expect(refused.sent).toEqual([]);
    expect(await usage(org.id)).toEqual({ day: today(), today: CONVERSATIONS_PER_DAY, stored: 50 });
  });

  it('a request that would pass the cap is refused whole, though some of its inputs would fit', async () => {
    const org = await seedOrg();
    await setDay(org.id, today(), CONVERSATIONS_PER_DAY - 10);
    const refused = await ingest(org.id, org.owner.token, batch(11));
    expectDailyCap(refused);
    expect(refused.sent).toEqual([]);
    expect(await usage(org.id)).toEqual({ day: today(), today: CONVERSATIONS_PER_DAY - 10, stored: 0 });
    expectStatus(await ingest(org.id, org.owner.token, batch(10)), 204);
    expect(await usage(org.id)).toEqual({ day: today(), today: CONVERSATIONS_PER_DAY, stored: 10 });
  });

  it("yesterday's count does not carry over: the day starts again from the request's inputs", async () => {
    const org = await seedOrg();
    await setDay(org.id, yesterday(), CONVERSATIONS_PER_DAY);
    expectStatus(await ingest(org.id, org.owner.token, batch(100)), 204);
    expect(await usage(org.id)).toEqual({ day: today(), today: 100, stored: 100 });
  });

  it("an installation token's ingestion is checked against the same day as the API's", async () => {
    const org = await seedOrg();
    await setDay(org.id, today(), CONVERSATIONS_PER_DAY);
    const publisher = await seedOrg();
    const integration = await seedIntegration(publisher.id, { scopes: ['conversations:ingest'] });
    const installation = await seedInstallation(integration, org.id);
    expectDailyCap(await ingest(org.id, await seedToken(integration.id, installation.id), batch(1)));
  });

  it("the write's guard refuses an ingestion the read let through when the day filled up in between (a race), storing and sending nothing", async () => {
    const org = await seedOrg();
    await setDay(org.id, today(), CONVERSATIONS_PER_DAY - 1);
    const sent: unknown[] = [];
    const jobs = { sendBatch: async (messages: { body: unknown }[]) => void sent.push(...messages) } as unknown as Queue<unknown>;
    const refused = await storeConversations({ ...env, JOBS: jobs }, createDb(env.DB), org.id, 'api', batch(2) as ConversationInput[]).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 429, message: expect.stringContaining('MAX_CONVERSATIONS_PER_DAY'), headers: { 'Retry-After': expect.any(String) } });
    expect(sent).toEqual([]);
    expect(await usage(org.id)).toEqual({ day: today(), today: CONVERSATIONS_PER_DAY - 1, stored: 0 });
  });

  it('a request larger than a whole day of the cap is a 400, not a wait', async () => {
    const org = await seedOrg();
    const res = await requestWithBindings('POST', `/v1/orgs/${org.id}/conversations`, org.owner.token, batch(3), { MAX_CONVERSATIONS_PER_DAY: '2' });
    expect(res.status).toBe(400);
    expect((res.body as { error: { message: string } }).error.message).toContain('at most 2 per day (MAX_CONVERSATIONS_PER_DAY)');
    expect(await usage(org.id)).toMatchObject({ stored: 0 });
  });

  it('ingestion costs the same round trips as before the cap (the count is read with the access, written with the conversations)', async () => {
    const org = await seedOrg();
    await api('GET', '/v1/user', { token: org.owner.token });
    const res = await measureRoundTrips('POST', `/v1/orgs/${org.id}/conversations`, org.owner.token, batch(100));
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    // The token is remembered since the warm-up: the access read (role and the day's count), the write batch (count and upserts).
    expect(res.roundTrips).toBe(2);
  });
});
