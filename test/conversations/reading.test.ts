import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { conversation, ingest, seedCluster, seedConversation, seedIssue } from '../helpers/conversations';
import { GITBOOK_0146, conversationComponents, gitbookErrors, gitbookOperations, schemaValidator } from '../helpers/gitbook-schema';
import { BASE, api, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';

const OPERATIONS = gitbookOperations(GITBOOK_0146);
const COMPONENTS = conversationComponents();

/** The answer of a read validates against GitBook 0.146's response schema of the operation (with the documented divergences). */
function expectGitbook(operationId: string, body: unknown) {
  const schema = OPERATIONS.get(operationId)!.responses['200']!;
  expect(gitbookErrors(schemaValidator(schema, COMPONENTS), body), JSON.stringify(body)).toBe('valid');
}

const base = (orgId: string) => `/v1/orgs/${orgId}`;
const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();

/** Every item of a list, page by page (`limit` each) from `page` (the first one by default); the number of pages. */
async function readAll(path: string, token: string, limit: number, from?: string): Promise<{ items: any[]; pages: number; counts: number[] }> {
  const items: any[] = [];
  const counts: number[] = [];
  let page = from;
  let pages = 0;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const res = expectStatus(await api('GET', `${path}${separator}limit=${limit}${page ? `&page=${page}` : ''}`, { token }), 200);
    items.push(...res.body.items);
    counts.push(res.body.count);
    page = res.body.next?.page;
    pages++;
  } while (page && pages < 50);
  return { items, pages, counts };
}

describe('listConversations and getConversationById', () => {
  let org: TestOrg;
  let other: TestOrg;
  beforeAll(async () => {
    org = await seedOrg();
    other = await seedOrg();
  });

  it('answer an ingested conversation as it was given, with its API id and location, valid against GitBook 0.146', async () => {
    const input = {
      id: 'detail-1',
      subject: 'Cannot log in',
      parts: [
        { type: 'message', role: 'user', body: 'The login page **loops**.' },
        { type: 'message', role: 'team-member', body: 'Clear your cookies.' },
      ],
      metadata: { url: 'https://support.example.com/c/1', attributes: { plan: 'pro' }, createdAt: '2026-01-05T10:00:00-05:00' },
    };
    const sent = await ingest(org.id, org.owner.token, input);
    expect(sent.status).toBe(204);
    const id = (sent.sent[0].payload as { conversationId: string }).conversationId;
    const detail = expectStatus(await api('GET', `${base(org.id)}/conversations/${id}`, { token: org.members.read.token }), 200).body;
    expectGitbook('getConversationById', detail);
    expect(detail).toEqual({
      conversation: {
        object: 'conversation',
        id,
        subject: 'Cannot log in',
        createdAt: expect.any(String),
        source: 'api',
        urls: { location: `${BASE}/v1/orgs/${org.id}/conversations/${id}`, source: 'https://support.example.com/c/1' },
      },
      parts: input.parts,
      metadata: { url: 'https://support.example.com/c/1', attributes: { plan: 'pro' }, createdAt: '2026-01-05T15:00:00.000Z' },
    });
    // Not analysed yet: no processedAt, no impact.
    const listed = expectStatus(await api('GET', `${base(org.id)}/conversations`, { token: org.members.read.token }), 200).body;
    expectGitbook('listConversations', listed);
    expect(listed.items.find((c: { id: string }) => c.id === id)).toEqual(detail.conversation);
  });

  it('show processedAt and impact once analysed, and omit what a conversation does not have', async () => {
    const analysed = await seedConversation(org.id, { impact: 'high', processedAt: '2026-02-01T00:00:00.000Z', subject: null });
    const detail = expectStatus(await api('GET', `${base(org.id)}/conversations/${analysed.id}`, { token: org.owner.token }), 200).body;
    expectGitbook('getConversationById', detail);
    expect(detail.conversation).toEqual({
      object: 'conversation',
      id: analysed.id,
      createdAt: expect.any(String),
      processedAt: '2026-02-01T00:00:00.000Z',
      source: 'api',
      impact: 'high',
      urls: { location: `${BASE}/v1/orgs/${org.id}/conversations/${analysed.id}` },
    });
    expect(detail.metadata).toEqual({});
  });

  it('list newest first, page by page, with the total count, stable while conversations are ingested', async () => {
    const fresh = await seedOrg();
    const seeded = [];
    for (let i = 0; i < 7; i++) seeded.push(await seedConversation(fresh.id, { createdAt: minutesAgo(100 - i) }));
    const path = `${base(fresh.id)}/conversations`;
    const first = expectStatus(await api('GET', `${path}?limit=3`, { token: fresh.owner.token }), 200).body;
    expect(first.count).toBe(7);
    expect(first.items.map((c: { id: string }) => c.id)).toEqual(seeded.slice(4).reverse().map((c) => c.id));
    // A conversation ingested between two pages comes first in a new read, and moves nothing in this one.
    await seedConversation(fresh.id);
    const rest = await readAll(path, fresh.owner.token, 3, first.next.page);
    expect(rest.items.map((c: { id: string }) => c.id)).toEqual(seeded.slice(0, 4).reverse().map((c) => c.id));
    expect(rest.counts.every((n) => n === 8)).toBe(true);
  });

  it('filter by source', async () => {
    const fresh = await seedOrg();
    const fromApi = await seedConversation(fresh.id);
    const source = 'integration:intercom:inst-1';
    const fromIntegration = await seedConversation(fresh.id, { source });
    const byIntegration = expectStatus(await api('GET', `${base(fresh.id)}/conversations?source=${encodeURIComponent(source)}`, { token: fresh.owner.token }), 200).body;
    expectGitbook('listConversations', byIntegration);
    expect(byIntegration).toMatchObject({ count: 1, items: [{ id: fromIntegration.id, source }] });
    const byApi = expectStatus(await api('GET', `${base(fresh.id)}/conversations?source=api`, { token: fresh.owner.token }), 200).body;
    expect(byApi.items.map((c: { id: string }) => c.id)).toEqual([fromApi.id]);
    const none = expectStatus(await api('GET', `${base(fresh.id)}/conversations?source=email`, { token: fresh.owner.token }), 200).body;
    expect(none).toEqual({ items: [], count: 0 });
  });

  it("answer 404 for another organization's conversation and an unknown one", async () => {
    const theirs = await seedConversation(other.id);
    expectError(await api('GET', `${base(org.id)}/conversations/${theirs.id}`, { token: org.owner.token }), 404, 'conversation');
    expectError(await api('GET', `${base(other.id)}/conversations/${theirs.id}`, { token: org.owner.token }), 404, 'organization');
    expectError(await api('GET', `${base(org.id)}/conversations/unknown`, { token: org.owner.token }), 404, 'conversation');
    const listed = expectStatus(await api('GET', `${base(org.id)}/conversations`, { token: org.owner.token }), 200).body;
    expect(listed.items.some((c: { id: string }) => c.id === theirs.id)).toBe(false);
  });

  it.each([
    ['page=not-a-cursor', 'page'],
    [`page=${btoa(JSON.stringify([5, 'x']))}`, 'page'],
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=x', 'limit'],
    ['source=', 'source'],
  ])('refuses %s with a 400', async (query, mention) => {
    expectError(await api('GET', `${base(org.id)}/conversations?${query}`, { token: org.owner.token }), 400, mention);
  });
});

describe('listConversationsIssues and getConversationIssueById', () => {
  let org: TestOrg;
  let clusters: [string, string];
  let conversations: Array<{ id: string }>;
  /** Issues by cluster, oldest found first. */
  let issues: Record<string, string[]>;
  beforeAll(async () => {
    org = await seedOrg();
    clusters = [await seedCluster(org.id, { label: 'Login' }), await seedCluster(org.id, { label: 'Export' })];
    conversations = [];
    issues = { [clusters[0]]: [], [clusters[1]]: [] };
    for (let i = 0; i < 5; i++) {
      const c = await seedConversation(org.id, { url: i === 0 ? 'https://support.example.com/0' : null, impact: 'medium' });
      conversations.push(c);
      const cluster = clusters[i % 2];
      issues[cluster].push(await seedIssue(org.id, c.id, cluster, { title: `Problem ${i}`, impact: 'medium', ingestedAt: minutesAgo(50 - i) }));
    }
  });

  const allIssues = () => [...issues[clusters[0]], ...issues[clusters[1]]];

  it('list every issue with its conversation, most recently found first, valid against GitBook 0.146', async () => {
    const res = expectStatus(await api('GET', `${base(org.id)}/conversations-issues`, { token: org.members.read.token }), 200).body;
    expectGitbook('listConversationsIssues', res);
    expect(res.count).toBe(5);
    // Found at minutes 50, 49, ... ago: issue i of conversation i.
    const order = [4, 3, 2, 1, 0];
    expect(res.items.map((item: any) => item.issue.title)).toEqual(order.map((i) => `Problem ${i}`));
    const first = res.items[4];
    expect(first).toEqual({
      issue: {
        object: 'conversation-issue',
        id: issues[clusters[0]][0],
        title: 'Problem 0',
        summary: 'Problem 0.',
        details: expect.objectContaining({ object: 'document' }),
        impact: 'medium',
        createdAt: expect.any(String),
        ingestedAt: expect.any(String),
        conversation: conversations[0].id,
        cluster: clusters[0],
        urls: { location: `${BASE}/v1/orgs/${org.id}/conversations-issues/${issues[clusters[0]][0]}` },
      },
      conversation: expect.objectContaining({ object: 'conversation', id: conversations[0].id, impact: 'medium', urls: expect.objectContaining({ source: 'https://support.example.com/0' }) }),
    });
  });

  it('page through issues with the total count on every page', async () => {
    const all = await readAll(`${base(org.id)}/conversations-issues`, org.owner.token, 2);
    expect(all.pages).toBe(3);
    expect(all.counts).toEqual([5, 5, 5]);
    expect(all.items.map((item) => item.issue.id).sort()).toEqual(allIssues().sort());
  });

  it('filter by cluster and by conversation', async () => {
    const byCluster = expectStatus(await api('GET', `${base(org.id)}/conversations-issues?cluster=${clusters[1]}`, { token: org.owner.token }), 200).body;
    expectGitbook('listConversationsIssues', byCluster);
    expect(byCluster.count).toBe(2);
    expect(byCluster.items.map((item: any) => item.issue.id).sort()).toEqual([...issues[clusters[1]]].sort());
    const byConversation = expectStatus(await api('GET', `${base(org.id)}/conversations-issues?conversation=${conversations[2].id}`, { token: org.owner.token }), 200).body;
    expect(byConversation.items.map((item: any) => item.conversation.id)).toEqual([conversations[2].id]);
    const both = expectStatus(await api('GET', `${base(org.id)}/conversations-issues?conversation=${conversations[2].id}&cluster=${clusters[1]}`, { token: org.owner.token }), 200).body;
    expect(both).toEqual({ items: [], count: 0 });
  });

  it("read one issue, and answer 404 for another organization's issue", async () => {
    const id = issues[clusters[0]][1];
    const res = expectStatus(await api('GET', `${base(org.id)}/conversations-issues/${id}`, { token: org.members.read.token }), 200).body;
    expectGitbook('getConversationIssueById', res);
    expect(res.issue).toMatchObject({ id, title: 'Problem 2', cluster: clusters[0], conversation: conversations[2].id });
    expect(res.conversation.id).toBe(conversations[2].id);
    const other = await seedOrg();
    const theirCluster = await seedCluster(other.id);
    const theirConversation = await seedConversation(other.id);
    const theirs = await seedIssue(other.id, theirConversation.id, theirCluster);
    expectError(await api('GET', `${base(org.id)}/conversations-issues/${theirs}`, { token: org.owner.token }), 404, 'issue');
    // Filters naming another organization's cluster or conversation find nothing here.
    for (const query of [`cluster=${theirCluster}`, `conversation=${theirConversation.id}`]) {
      expect(expectStatus(await api('GET', `${base(org.id)}/conversations-issues?${query}`, { token: org.owner.token }), 200).body).toEqual({ items: [], count: 0 });
    }
  });
});

describe('bad queries of the issue list', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await seedOrg();
  });

  it.each([
    ['cluster=', 'cluster'],
    [`cluster=${'x'.repeat(129)}`, 'cluster'],
    ['conversation=', 'conversation'],
    ['page=not-a-cursor', 'page'],
    [`page=${btoa(JSON.stringify([5, 'x']))}`, 'page'],
    ['limit=0', 'limit'],
  ])('refuses %s with a 400', async (query, mention) => {
    expectError(await api('GET', `${base(org.id)}/conversations-issues?${query}`, { token: org.owner.token }), 400, mention);
  });

  it('answers 404 for an unknown issue and an id over 128 characters is a 400', async () => {
    expectError(await api('GET', `${base(org.id)}/conversations-issues/unknown`, { token: org.owner.token }), 404, 'issue');
    expectError(await api('GET', `${base(org.id)}/conversations-issues/${'x'.repeat(129)}`, { token: org.owner.token }), 400, 'issueId');
  });
});

describe('D1 round trips of the reads', () => {
  it('answer in at most 2 (one batch after the token)', async () => {
    const org = await seedOrg();
    const cluster = await seedCluster(org.id);
    let issue = '';
    let conversationId = '';
    for (let i = 0; i < 20; i++) {
      const c = await seedConversation(org.id);
      conversationId = c.id;
      issue = await seedIssue(org.id, c.id, cluster);
    }
    const token = org.members.read.token;
    await api('GET', '/v1/user', { token });
    const paths = {
      conversations: `${base(org.id)}/conversations`,
      someConversations: `${base(org.id)}/conversations?source=api&limit=5`,
      conversation: `${base(org.id)}/conversations/${conversationId}`,
      issues: `${base(org.id)}/conversations-issues`,
      someIssues: `${base(org.id)}/conversations-issues?cluster=${cluster}&limit=5`,
      issue: `${base(org.id)}/conversations-issues/${issue}`,
    };
    const read: Record<string, any> = {};
    for (const [name, path] of Object.entries(paths)) {
      const r = await measureRoundTrips('GET', path, token);
      expect(r.status, `${path} ${JSON.stringify(r.body)}`).toBe(200);
      expect(r.roundTrips, path).toBeLessThanOrEqual(2);
      read[name] = r.body;
    }

    // What was read is what the rows say.
    const conversationRows = (
      await env.DB.prepare('select id, source, subject, parts, created_at, processed_at from conversations where org_id = ? order by created_at desc, id desc')
        .bind(org.id)
        .all<{ id: string; source: string; subject: string; parts: string; created_at: string; processed_at: string }>()
    ).results;
    const issueRows = (
      await env.DB.prepare('select id, conversation_id, cluster_id, title, impact, created_at from conversation_issues where org_id = ? order by ingested_at desc, id desc')
        .bind(org.id)
        .all<{ id: string; conversation_id: string; cluster_id: string; title: string; impact: string; created_at: string }>()
    ).results;
    expect(conversationRows).toHaveLength(20);
    expect(issueRows).toHaveLength(20);
    const asConversation = (row: (typeof conversationRows)[number]) =>
      expect.objectContaining({ id: row.id, source: row.source, subject: row.subject, createdAt: row.created_at, processedAt: row.processed_at });
    const asIssue = (row: (typeof issueRows)[number]) =>
      expect.objectContaining({ id: row.id, conversation: row.conversation_id, cluster: row.cluster_id, title: row.title, impact: row.impact, createdAt: row.created_at });

    // The lists: the newest rows first (all 20 in a page of the default size), the count of all of them.
    expect(read.conversations).toEqual({ items: conversationRows.map(asConversation), count: 20 });
    expect(read.someConversations).toMatchObject({ count: 20, next: { page: expect.any(String) } });
    expect(read.someConversations.items).toEqual(conversationRows.slice(0, 5).map(asConversation));
    expect(read.issues.count).toBe(20);
    expect(read.issues.next).toBeUndefined();
    expect(read.issues.items.map((item: any) => item.issue)).toEqual(issueRows.map(asIssue));
    for (const item of read.issues.items) expect(item.conversation).toEqual(asConversation(conversationRows.find((row) => row.id === item.issue.conversation)!));
    expect(read.someIssues).toMatchObject({ count: 20, next: { page: expect.any(String) } });
    expect(read.someIssues.items.map((item: any) => item.issue)).toEqual(issueRows.slice(0, 5).map(asIssue));

    // The single reads: the row asked for.
    const conversationRow = conversationRows.find((row) => row.id === conversationId)!;
    expect(read.conversation.conversation).toEqual(asConversation(conversationRow));
    expect(read.conversation.parts).toEqual(JSON.parse(conversationRow.parts));
    const issueRow = issueRows.find((row) => row.id === issue)!;
    expect(read.issue.issue).toEqual(asIssue(issueRow));
    expect(read.issue.conversation).toEqual(asConversation(conversationRows.find((row) => row.id === issueRow.conversation_id)!));
  });
});
