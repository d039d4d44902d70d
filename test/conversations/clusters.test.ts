import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DAY_MS } from '../../src/lib/time';
import { ConversationsIssuesClusterSchema } from '../../src/schemas/conversation';
import { WEEK_MS, pulseWeekIndex, pulseWindow } from '../../src/services/conversations/records';
import { PULSE_WEEKS } from '../../src/lib/conversations';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { conversation, ingestAndAnalyze, seedCluster, seedConversation, seedIssue } from '../helpers/conversations';
import { GITBOOK_0146, conversationComponents, gitbookErrors, gitbookOperations, gitbookValidator, schemaValidator } from '../helpers/gitbook-schema';
import { BASE, api, expectError, expectSchema, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { measureRoundTrips as measure } from '../helpers/round-trips';

/** measureRoundTrips, its body typed loosely like `api`'s. */
const measureRoundTrips = async (method: string, path: string, token: string, body?: unknown) =>
  (await measure(method, path, token, body)) as { status: number; roundTrips: number; body: any };

const OPERATIONS = gitbookOperations(GITBOOK_0146);
const COMPONENTS = conversationComponents();
const CLUSTER = gitbookValidator('ConversationsIssuesCluster', COMPONENTS);

/** A cluster answer: valid against GitBook 0.146 (with the documented divergences) and our own schema. */
function expectCluster(body: unknown) {
  expect(gitbookErrors(CLUSTER, body), JSON.stringify(body)).toBe('valid');
  return expectSchema(ConversationsIssuesClusterSchema, body);
}

function expectClusterList(body: unknown) {
  const schema = OPERATIONS.get('listConversationsIssuesClusters')!.responses['200']!;
  expect(gitbookErrors(schemaValidator(schema, COMPONENTS), body), JSON.stringify(body)).toBe('valid');
  for (const item of (body as { items: unknown[] }).items) expectSchema(ConversationsIssuesClusterSchema, item);
  return body as { items: any[]; count: number; next?: { page: string } };
}

const clustersPath = (orgId: string) => `/v1/orgs/${orgId}/conversations-clusters`;
const clusterPath = (orgId: string, id: string) => `${clustersPath(orgId)}/${id}`;
const crsPath = (spaceId: string) => `/v1/spaces/${spaceId}/change-requests`;
const at = (iso: string) => new Date(iso);
const hoursAgo = (n: number) => new Date(Date.now() - n * 3_600_000).toISOString();

afterEach(() => {
  vi.useRealTimers();
});

// ---------------------------------------------------------------------------------------------

describe('pulse weeks (pure)', () => {
  it('start on the Monday (00:00 UTC) twelve weeks before the current week, and end now', () => {
    // Wednesday 11 March 2026.
    expect(pulseWindow(at('2026-03-11T12:00:00.000Z'))).toEqual({ start: '2025-12-15T00:00:00.000Z', startSeconds: Date.parse('2025-12-15T00:00:00.000Z') / 1000, end: '2026-03-11T12:00:00.000Z' });
    // On Monday 00:00 itself, the current week starts now.
    expect(pulseWindow(at('2026-03-09T00:00:00.000Z')).start).toBe('2025-12-15T00:00:00.000Z');
    // Sunday 23:59:59.999 is still the week before.
    expect(pulseWindow(at('2026-03-08T23:59:59.999Z')).start).toBe('2025-12-08T00:00:00.000Z');
    // Across a year boundary.
    expect(pulseWindow(at('2026-01-01T08:00:00.000Z')).start).toBe('2025-10-06T00:00:00.000Z');
  });

  it('bucket a time into its week (0 the oldest, 12 the current), nothing outside the window or in the future', () => {
    const now = at('2026-03-11T12:00:00.000Z');
    const cases: Array<[string, number | undefined]> = [
      ['2026-03-11T12:00:00.000Z', 12],
      ['2026-03-11T12:00:00.001Z', undefined],
      ['2026-03-09T00:00:00.000Z', 12],
      ['2026-03-08T23:59:59.999Z', 11],
      ['2026-03-02T00:00:00.000Z', 11],
      ['2026-01-20T10:00:00.000Z', 5],
      ['2025-12-15T00:00:00.000Z', 0],
      ['2025-12-14T23:59:59.999Z', undefined],
      ['not a date', undefined],
    ];
    for (const [time, week] of cases) expect(pulseWeekIndex(time, now), time).toBe(week);
    // A week later everything moves one week back.
    const later = new Date(now.getTime() + WEEK_MS);
    expect(pulseWeekIndex('2026-03-09T00:00:00.000Z', later)).toBe(11);
    expect(pulseWeekIndex('2025-12-15T00:00:00.000Z', later)).toBeUndefined();
    expect(pulseWeekIndex('2026-03-11T12:00:00.001Z', later)).toBe(11);
  });
});

describe('weeklyPulse and impact, computed when read over a moving clock', () => {
  const T = at('2026-03-11T12:00:00.000Z');
  let org: TestOrg;
  let cluster: string;
  /** When each seeded issue was raised. */
  const raised: string[] = [];

  beforeAll(async () => {
    org = await seedOrg();
    cluster = await seedCluster(org.id, { label: 'Pulse' });
    const issue = async (createdAt: string, impact: 'low' | 'medium' | 'high' = 'low', conversationId?: string) => {
      const id = conversationId ?? (await seedConversation(org.id)).id;
      await seedIssue(org.id, id, cluster, { createdAt, impact });
      raised.push(createdAt);
      return id;
    };
    await issue('2026-03-09T00:00:00.000Z');
    await issue('2026-03-08T23:59:59.999Z');
    // Two issues of one conversation in one week count once.
    const twice = await issue('2026-03-10T08:00:00.000Z');
    await issue('2026-03-11T11:00:00.000Z', 'low', twice);
    await issue('2025-12-15T00:00:00.000Z', 'medium');
    await issue('2025-12-14T23:59:59.999Z', 'high');
    // In the future of T.
    await issue('2026-03-11T13:00:00.000Z', 'high');
    await issue('2026-01-20T10:00:00.000Z');
  });

  async function readAt(now: Date) {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(now);
    const one = expectCluster(expectStatus(await api('GET', clusterPath(org.id, cluster), { token: org.members.read.token }), 200).body);
    const list = expectClusterList(expectStatus(await api('GET', clustersPath(org.id), { token: org.members.read.token }), 200).body);
    vi.useRealTimers();
    expect(list.items).toEqual([one]);
    return one;
  }

  /** The pulse the pure bucketing gives for the seeded issues (distinct conversations are checked apart). */
  function expectedPulse(now: Date): number[] {
    const pulse = new Array<number>(PULSE_WEEKS).fill(0);
    for (const time of raised) {
      const week = pulseWeekIndex(time, now);
      if (week !== undefined) pulse[week]++;
    }
    return pulse;
  }

  it('counts the distinct conversations of each week, the current week last, future issues not counted', async () => {
    const read = await readAt(T);
    expect(read.weeklyPulse).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 2]);
    // The pure bucketing agrees, but for the conversation counted once in week 12.
    expect(expectedPulse(T)).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 3]);
    // The highest impact raised in the window: the high ones are before it and in the future.
    expect(read.impact).toBe('medium');
  });

  it('moves with the clock: a week later every count is one week back, and the issue that was in the future counts', async () => {
    const later = new Date(T.getTime() + WEEK_MS);
    const read = await readAt(later);
    expect(read.weeklyPulse).toEqual([0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 3, 0]);
    expect(read.impact).toBe('high');
  });

  it('is all zeros, and the impact low, once every issue is older than the window', async () => {
    const read = await readAt(new Date(T.getTime() + PULSE_WEEKS * WEEK_MS));
    expect(read.weeklyPulse).toEqual(new Array(PULSE_WEEKS).fill(0));
    expect(read.impact).toBe('low');
  });

  it('a cluster without issues has a pulse of 13 zeros and a low impact', async () => {
    const empty = await seedCluster(org.id);
    const read = expectCluster(expectStatus(await api('GET', clusterPath(org.id, empty), { token: org.owner.token }), 200).body);
    expect(read).toMatchObject({ weeklyPulse: new Array(PULSE_WEEKS).fill(0), impact: 'low', stats: { issues: 0, conversations: 0, tasksTotal: 0 } });
  });
});

// ---------------------------------------------------------------------------------------------

/** Change requests naming `cluster` in `spaceId`, one per status. */
async function openTask(spaceId: string, token: string, cluster: string, status: 'draft' | 'open' | 'archived' | 'merged') {
  const created = expectStatus(await api('POST', crsPath(spaceId), { token, body: { subject: `Task ${status}`, conversationsIssuesCluster: cluster } }), 201).body;
  if (status === 'draft' || status === 'archived') expectStatus(await api('PATCH', `${crsPath(spaceId)}/${created.number}`, { token, body: { status } }), 200);
  if (status === 'merged') {
    await applyChanges(spaceId, created.number, token, [{ operation: 'insert_page', title: `Fix ${created.number}`, document: { markdown: 'Fixed.\n' } }]);
    expectStatus(await merge(spaceId, created.number, token), 200);
  }
  return created;
}

describe('listConversationsIssuesClusters: orders, keyset pages and the status filter', () => {
  let org: TestOrg;
  /** label → cluster id */
  const ids: Record<string, string> = {};
  const TABLE = [
    // label, issues, conversations, created (hours ago), updated (hours ago), task statuses
    ['A', 5, 3, 120, 1, ['draft', 'open']],
    ['B', 2, 2, 96, 3, []],
    ['C', 5, 1, 72, 2, ['open']],
    ['D', 1, 4, 48, 5, ['draft', 'draft', 'archived']],
    ['E', 0, 0, 24, 4, []],
  ] as const;

  beforeAll(async () => {
    org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token, 'Tasks');
    for (const [label, issues, conversations, created, updated, tasks] of TABLE) {
      ids[label] = await seedCluster(org.id, { label, issues, conversations, createdAt: hoursAgo(created), updatedAt: hoursAgo(updated) });
      for (const status of tasks) await openTask(space.id, org.owner.token, ids[label], status);
    }
  });

  const value: Record<string, (row: (typeof TABLE)[number]) => number> = {
    updatedAt: (row) => -row[4],
    createdAt: (row) => -row[3],
    issues: (row) => row[1],
    conversations: (row) => row[2],
    tasksTotal: (row) => row[5].length,
    tasksBacklog: (row) => row[5].filter((s) => s === 'draft').length,
    tasksStarted: (row) => row[5].filter((s) => s === 'open').length,
  };

  /** The labels in the order of (value, id), ascending or descending. */
  function expectedOrder(orderBy: string, order: 'asc' | 'desc'): string[] {
    const sorted = [...TABLE].sort((a, b) => value[orderBy](a) - value[orderBy](b) || (ids[a[0]] < ids[b[0]] ? -1 : 1));
    const labels = sorted.map((row) => row[0] as string);
    return order === 'asc' ? labels : labels.reverse();
  }

  it('answers the clusters with their counters and tasks, valid against GitBook 0.146', async () => {
    const list = expectClusterList(expectStatus(await api('GET', clustersPath(org.id), { token: org.members.read.token }), 200).body);
    expect(list.count).toBe(5);
    const a = list.items.find((c) => c.label === 'A');
    expect(a).toMatchObject({
      object: 'issues-cluster',
      id: ids.A,
      icon: 'bug',
      muted: false,
      summary: expect.objectContaining({ object: 'document' }),
      sources: {},
      stats: { issues: 5, conversations: 3, tasksTotal: 2, tasksBacklog: 1, tasksStarted: 1, tasksCompleted: 0, tasksCancelled: 0 },
      urls: { location: `${BASE}/v1/orgs/${org.id}/conversations-clusters/${ids.A}`, app: `${BASE}/o/${org.id}/conversations/clusters/${ids.A}` },
    });
  });

  const ORDERS = ['updatedAt', 'createdAt', 'issues', 'conversations', 'tasksTotal', 'tasksBacklog', 'tasksStarted'].flatMap((orderBy) =>
    (['asc', 'desc'] as const).map((order) => [orderBy, order] as const),
  );

  it.each(ORDERS)('orders by %s %s (ties by id), the same whole or two by two', async (orderBy, order) => {
    const query = `orderBy=${orderBy}&order=${order}`;
    const whole = expectClusterList(expectStatus(await api('GET', `${clustersPath(org.id)}?${query}`, { token: org.owner.token }), 200).body);
    expect(whole.items.map((c) => c.label)).toEqual(expectedOrder(orderBy, order));
    const paged: string[] = [];
    let page: string | undefined;
    for (let i = 0; i < 5; i++) {
      const res = expectClusterList(expectStatus(await api('GET', `${clustersPath(org.id)}?${query}&limit=2${page ? `&page=${page}` : ''}`, { token: org.owner.token }), 200).body);
      expect(res.count).toBe(5);
      paged.push(...res.items.map((c) => c.label));
      page = res.next?.page;
      if (!page) break;
    }
    expect(paged).toEqual(whole.items.map((c) => c.label));
  });

  it('orders by updatedAt, newest first, by default', async () => {
    const list = expectClusterList(expectStatus(await api('GET', clustersPath(org.id), { token: org.owner.token }), 200).body);
    expect(list.items.map((c) => c.label)).toEqual(['A', 'C', 'B', 'E', 'D']);
  });

  it('keeps its pages stable when a cluster is created between two reads', async () => {
    const fresh = await seedOrg();
    for (let i = 0; i < 4; i++) await seedCluster(fresh.id, { label: `Old ${i}`, updatedAt: hoursAgo(10 - i) });
    const first = expectClusterList(expectStatus(await api('GET', `${clustersPath(fresh.id)}?limit=2`, { token: fresh.owner.token }), 200).body);
    expect(first.items.map((c) => c.label)).toEqual(['Old 3', 'Old 2']);
    await seedCluster(fresh.id, { label: 'New' });
    const second = expectClusterList(expectStatus(await api('GET', `${clustersPath(fresh.id)}?limit=2&page=${first.next!.page}`, { token: fresh.owner.token }), 200).body);
    expect(second.items.map((c) => c.label)).toEqual(['Old 1', 'Old 0']);
    expect(second.count).toBe(5);
    expect(second.next).toBeUndefined();
  });

  it('filters by status: clusters with a conversation pending, or being analysed, again', async () => {
    const fresh = await seedOrg();
    const pending = await seedCluster(fresh.id, { label: 'Pending' });
    const analysing = await seedCluster(fresh.id, { label: 'Analysing' });
    const settled = await seedCluster(fresh.id, { label: 'Settled' });
    const conversation = async (state: 'pending' | 'analysing' | 'complete') => (await seedConversation(fresh.id, { state })).id;
    await seedIssue(fresh.id, await conversation('pending'), pending);
    await seedIssue(fresh.id, await conversation('complete'), pending);
    await seedIssue(fresh.id, await conversation('analysing'), analysing);
    await seedIssue(fresh.id, await conversation('complete'), settled);
    const listed = async (query: string) => {
      const list = expectClusterList(expectStatus(await api('GET', `${clustersPath(fresh.id)}${query}`, { token: fresh.owner.token }), 200).body);
      expect(list.count).toBe(list.items.length);
      return list.items.map((c) => c.id as string);
    };
    const pendingList = await listed('?status=pending');
    const analysingList = await listed('?status=analysing');
    expect(pendingList).toEqual([pending]);
    expect(analysingList).toEqual([analysing]);
    // The cluster whose conversations are all analysed is in neither list, but in the unfiltered one.
    expect(pendingList).not.toContain(settled);
    expect(analysingList).not.toContain(settled);
    expect((await listed('')).sort()).toEqual([pending, analysing, settled].sort());
  });

  it.each([
    ['orderBy=label', 'orderBy'],
    ['order=up', 'order'],
    ['status=complete', 'status'],
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['page=garbage', 'page'],
    // A cursor of a time-ordered page given to a count-ordered list, and the other way round.
    [`orderBy=issues&page=${btoa(JSON.stringify(['2026-01-01T00:00:00.000Z', 'x']))}`, 'page'],
    [`orderBy=updatedAt&page=${btoa(JSON.stringify([3, 'x']))}`, 'page'],
    [`orderBy=tasksTotal&page=${btoa(JSON.stringify([1.5, 'x']))}`, 'page'],
  ])('refuses %s with a 400', async (query, mention) => {
    expectError(await api('GET', `${clustersPath(org.id)}?${query}`, { token: org.owner.token }), 400, mention);
  });
});

// ---------------------------------------------------------------------------------------------

describe('getConversationsIssuesCluster and updateConversationsIssuesCluster', () => {
  let org: TestOrg;
  let other: TestOrg;
  beforeAll(async () => {
    org = await seedOrg();
    other = await seedOrg();
  });

  it('reads one cluster with its sources and counters', async () => {
    const id = await seedCluster(org.id, { label: 'Login loops', issues: 4, conversations: 3, sources: { api: 1, 'integration:intercom:i1': 3 } });
    const read = expectCluster(expectStatus(await api('GET', clusterPath(org.id, id), { token: org.members.read.token }), 200).body);
    expect(read).toMatchObject({ id, label: 'Login loops', sources: { api: 1, 'integration:intercom:i1': 3 }, stats: { issues: 4, conversations: 3 } });
  });

  it('mutes and unmutes: kept on later reads, in the list, its updatedAt unchanged', async () => {
    const id = await seedCluster(org.id, { label: 'To mute', updatedAt: hoursAgo(30) });
    const before = expectStatus(await api('GET', clusterPath(org.id, id), { token: org.owner.token }), 200).body;
    const muted = expectCluster(expectStatus(await api('PATCH', clusterPath(org.id, id), { token: org.owner.token, body: { muted: true } }), 200).body);
    expect(muted).toEqual({ ...before, muted: true });
    expect(expectStatus(await api('GET', clusterPath(org.id, id), { token: org.members.read.token }), 200).body.muted).toBe(true);
    const listed = expectStatus(await api('GET', clustersPath(org.id), { token: org.owner.token }), 200).body.items.find((c: { id: string }) => c.id === id);
    expect(listed.muted).toBe(true);
    // Muting twice changes nothing.
    expect(expectStatus(await api('PATCH', clusterPath(org.id, id), { token: org.owner.token, body: { muted: true } }), 200).body).toEqual(muted);
    const unmuted = expectStatus(await api('PATCH', clusterPath(org.id, id), { token: org.owner.token, body: { muted: false } }), 200).body;
    expect(unmuted).toEqual(before);
  });

  it.each([
    ['no body', undefined, 'body'],
    ['an empty body', {}, 'muted'],
    ['muted as a string', { muted: 'true' }, 'muted'],
    ['muted as null', { muted: null }, 'muted'],
    ['an unknown property', { muted: true, label: 'x' }, 'label'],
  ])('refuses %s with a 400', async (_name, body, mention) => {
    const id = await seedCluster(org.id);
    expectError(await api('PATCH', clusterPath(org.id, id), { token: org.owner.token, body }), 400, mention);
    expect(expectStatus(await api('GET', clusterPath(org.id, id), { token: org.owner.token }), 200).body.muted).toBe(false);
  });

  it("answers 404 for another organization's cluster and an unknown one, changing nothing", async () => {
    const theirs = await seedCluster(other.id);
    expectError(await api('GET', clusterPath(org.id, theirs), { token: org.owner.token }), 404, 'cluster');
    expectError(await api('PATCH', clusterPath(org.id, theirs), { token: org.owner.token, body: { muted: true } }), 404, 'cluster');
    expectError(await api('GET', clusterPath(org.id, 'unknown'), { token: org.owner.token }), 404, 'cluster');
    expectError(await api('PATCH', clusterPath(org.id, 'unknown'), { token: org.owner.token, body: { muted: true } }), 404, 'cluster');
    const row = await env.DB.prepare('select muted from conversation_clusters where id = ?').bind(theirs).first<{ muted: number }>();
    expect(row!.muted).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------

describe('change requests naming a cluster: its tasks', () => {
  let org: TestOrg;
  let spaceId: string;
  beforeAll(async () => {
    org = await seedOrg();
    spaceId = (await createSpace(org.id, org.owner.token, 'Fixes')).id;
  });

  it('a change request shows the cluster it names, on creation and on reads', async () => {
    const cluster = await seedCluster(org.id);
    const created = expectStatus(await api('POST', crsPath(spaceId), { token: org.members.edit.token, body: { subject: 'Fix login', conversationsIssuesCluster: cluster } }), 201).body;
    expect(created.conversationsIssuesCluster).toBe(cluster);
    const read = expectStatus(await api('GET', `${crsPath(spaceId)}/${created.number}`, { token: org.owner.token }), 200).body;
    expect(read.conversationsIssuesCluster).toBe(cluster);
    // Without one, the field is absent.
    const plain = await openChangeRequest(spaceId, org.owner.token, 'Plain');
    expect(plain).not.toHaveProperty('conversationsIssuesCluster');
  });

  it('a change request opened from a template names its cluster too', async () => {
    const cluster = await seedCluster(org.id);
    const created = expectStatus(await api('POST', crsPath(spaceId), { token: org.owner.token, body: { template: { id: 'changelog' }, conversationsIssuesCluster: cluster } }), 201).body;
    expect(created.conversationsIssuesCluster).toBe(cluster);
    expect(expectStatus(await api('GET', `${crsPath(spaceId)}/${created.number}`, { token: org.owner.token }), 200).body.conversationsIssuesCluster).toBe(cluster);
  });

  it('refuses an unknown cluster or one of another organization (400), and a muted one (409), creating nothing', async () => {
    const other = await seedOrg();
    const theirs = await seedCluster(other.id);
    const muted = await seedCluster(org.id, { muted: true });
    const countCrs = async () => (await env.DB.prepare('select count(*) as n from change_requests where space_id = ?').bind(spaceId).first<{ n: number }>())!.n;
    const before = await countCrs();
    expectError(await api('POST', crsPath(spaceId), { token: org.owner.token, body: { conversationsIssuesCluster: 'unknown' } }), 400, 'conversationsIssuesCluster');
    expectError(await api('POST', crsPath(spaceId), { token: org.owner.token, body: { conversationsIssuesCluster: theirs } }), 400, 'conversationsIssuesCluster');
    expectError(await api('POST', crsPath(spaceId), { token: org.owner.token, body: { conversationsIssuesCluster: muted } }), 409, 'muted');
    expectError(await api('POST', crsPath(spaceId), { token: org.owner.token, body: { template: { id: 'changelog' }, conversationsIssuesCluster: muted } }), 409, 'muted');
    expectError(await api('POST', crsPath(spaceId), { token: org.owner.token, body: { conversationsIssuesCluster: '' } }), 400, 'conversationsIssuesCluster');
    expect(await countCrs()).toBe(before);
    // The space's access comes first: a reader is refused whatever the cluster.
    expectError(await api('POST', crsPath(spaceId), { token: org.members.read.token, body: { conversationsIssuesCluster: muted } }), 403);
    // Unmuted, it may be named again.
    expectStatus(await api('PATCH', clusterPath(org.id, muted), { token: org.owner.token, body: { muted: false } }), 200);
    expectStatus(await api('POST', crsPath(spaceId), { token: org.owner.token, body: { conversationsIssuesCluster: muted } }), 201);
  });

  it("counts the cluster's change requests by status in its stats, and only those of live spaces", async () => {
    const cluster = await seedCluster(org.id);
    const tasks = {
      draft: await openTask(spaceId, org.owner.token, cluster, 'draft'),
      open: await openTask(spaceId, org.owner.token, cluster, 'open'),
      merged: await openTask(spaceId, org.owner.token, cluster, 'merged'),
      archived: await openTask(spaceId, org.owner.token, cluster, 'archived'),
    };
    const stats = async () => expectCluster(expectStatus(await api('GET', clusterPath(org.id, cluster), { token: org.owner.token }), 200).body).stats;
    expect(await stats()).toMatchObject({ tasksTotal: 4, tasksBacklog: 1, tasksStarted: 1, tasksCompleted: 1, tasksCancelled: 1 });
    // A change request in a space that goes to the trash stops counting.
    const doomed = (await createSpace(org.id, org.owner.token, 'Doomed')).id;
    await openTask(doomed, org.owner.token, cluster, 'open');
    expect(await stats()).toMatchObject({ tasksTotal: 5, tasksStarted: 2 });
    expectStatus(await api('DELETE', `/v1/spaces/${doomed}`, { token: org.owner.token }), 204);
    expect(await stats()).toMatchObject({ tasksTotal: 4, tasksStarted: 1 });
    expect(tasks.open.conversationsIssuesCluster).toBe(cluster);
  });

  it('the change request lists of the space and of the organization filter by cluster', async () => {
    const cluster = await seedCluster(org.id);
    const otherCluster = await seedCluster(org.id);
    const mine = await openTask(spaceId, org.owner.token, cluster, 'open');
    const drafted = await openTask(spaceId, org.owner.token, cluster, 'draft');
    await openTask(spaceId, org.owner.token, otherCluster, 'open');
    await openChangeRequest(spaceId, org.owner.token, 'Unrelated');
    for (const list of [crsPath(spaceId), `/v1/orgs/${org.id}/change-requests`]) {
      const open = expectStatus(await api('GET', `${list}?conversationsIssuesCluster=${cluster}`, { token: org.members.read.token }), 200).body;
      expect(open.items.map((cr: { id: string }) => cr.id), list).toEqual([mine.id]);
      expect(open.count).toBe(1);
      const drafts = expectStatus(await api('GET', `${list}?conversationsIssuesCluster=${cluster}&status=draft`, { token: org.members.read.token }), 200).body;
      expect(drafts.items.map((cr: { id: string }) => cr.id), list).toEqual([drafted.id]);
      const none = expectStatus(await api('GET', `${list}?conversationsIssuesCluster=unknown`, { token: org.members.read.token }), 200).body;
      expect(none).toEqual({ items: [], count: 0 });
    }
  });
});

describe('what the analysis writes', () => {
  it('reads as valid clusters, issues and conversations (GitBook 0.146 with the documented divergences)', async () => {
    const org = await seedOrg();
    await ingestAndAnalyze(org.id, org.owner.token, [
      conversation('a', 'I cannot export my space to PDF: the export button does nothing and I am blocked.', { metadata: { url: 'https://support.example.com/a' } }),
      conversation('b', 'Exporting to PDF fails with an error every time, I cannot export anything.'),
    ]);
    const clusters = expectClusterList(expectStatus(await api('GET', clustersPath(org.id), { token: org.owner.token }), 200).body);
    // Both are about exporting to PDF: one cluster.
    expect(clusters.count).toBe(1);
    expect(clusters.items).toHaveLength(1);
    const [cluster] = clusters.items;
    expect(cluster.stats).toMatchObject({ issues: 2, conversations: 2 });
    expect(cluster.sources).toEqual({ api: 2 });
    // Both raised now (no metadata.createdAt): two conversations in the current week, none before.
    expect(cluster.weeklyPulse).toEqual([...new Array<number>(PULSE_WEEKS - 1).fill(0), 2]);
    expect(expectCluster(expectStatus(await api('GET', clusterPath(org.id, cluster.id), { token: org.owner.token }), 200).body)).toEqual(cluster);
    const issues = expectStatus(await api('GET', `/v1/orgs/${org.id}/conversations-issues`, { token: org.owner.token }), 200).body;
    const schema = OPERATIONS.get('listConversationsIssues')!.responses['200']!;
    expect(gitbookErrors(schemaValidator(schema, COMPONENTS), issues), JSON.stringify(issues)).toBe('valid');
    expect(issues.count).toBe(2);
    expect(issues.items).toHaveLength(2);
    for (const { issue, conversation: c } of issues.items) {
      expect(issue.cluster).toBe(cluster.id);
      expect(issue.conversation).toBe(c.id);
      expect(c.processedAt).toEqual(expect.any(String));
    }
    // One issue of each conversation.
    const conversations = expectStatus(await api('GET', `/v1/orgs/${org.id}/conversations`, { token: org.owner.token }), 200).body;
    expect(conversations.items).toHaveLength(2);
    expect(issues.items.map((item: any) => item.conversation.id).sort()).toEqual(conversations.items.map((c: { id: string }) => c.id).sort());
  });
});

// ---------------------------------------------------------------------------------------------

describe('D1 round trips of clusters', () => {
  it('a page of 30 clusters with their pulses, impact and tasks costs at most 3; one cluster at most 2; muting at most 3', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token, 'Tasks');
    const clusters: string[] = [];
    for (let i = 0; i < 30; i++) {
      const cluster = await seedCluster(org.id, { issues: 3 });
      clusters.push(cluster);
      for (let w = 0; w < 3; w++) {
        const conversation = await seedConversation(org.id);
        await seedIssue(org.id, conversation.id, cluster, { createdAt: new Date(Date.now() - w * WEEK_MS - DAY_MS).toISOString(), impact: w === 0 ? 'high' : 'low' });
      }
    }
    await openTask(space.id, org.owner.token, clusters[0], 'open');
    const token = org.owner.token;
    await api('GET', '/v1/user', { token });
    for (const query of ['', '?orderBy=tasksTotal', '?orderBy=issues&order=asc&limit=10', '?status=pending']) {
      const r = await measureRoundTrips('GET', `${clustersPath(org.id)}${query}`, token);
      expect(r.status, `${query} ${JSON.stringify(r.body)}`).toBe(200);
      expect(r.roundTrips, query).toBeLessThanOrEqual(3);
      for (const item of r.body.items) expect(item.weeklyPulse.reduce((a: number, b: number) => a + b, 0)).toBe(3);
    }
    const listed = await measureRoundTrips('GET', clustersPath(org.id), token);
    expect(listed.body.items).toHaveLength(30);
    expect(listed.body.items.every((c: { impact: string }) => c.impact === 'high')).toBe(true);
    const one = await measureRoundTrips('GET', clusterPath(org.id, clusters[0]), token);
    expect(one.status).toBe(200);
    expect(one.body.stats.tasksStarted).toBe(1);
    expect(one.roundTrips).toBeLessThanOrEqual(2);
    const muted = await measureRoundTrips('PATCH', clusterPath(org.id, clusters[0]), token, { muted: true });
    expect(muted.status).toBe(200);
    expect(muted.roundTrips).toBeLessThanOrEqual(3);
  });
});
