import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import type { Env } from '../../src/env';
import { newId } from '../../src/lib/ids';
import {
  analyzeConversation,
  MAX_ANALYSIS_CLAIMS,
  MAX_ANALYSIS_DELIVERIES,
  MAX_ISSUE_DETAILS_LENGTH,
  markdownDocument,
  plainTextOf,
  type AnalysisOutcome,
} from '../../src/services/conversations/analysis';
import { CENTROID_TERMS, DESCRIBE_TITLES } from '../../src/services/conversations/clusters';
import { LEXICAL_ANALYZER } from '../../src/services/conversations/lexical';
import {
  ANALYSIS_LEASE_MS,
  CONVERSATION_ANALYZE_JOB,
  MAX_ISSUES_PER_CONVERSATION,
  type ClusterCandidate,
  type ConversationAnalyzer,
  type ConversationText,
  type ExtractedIssue,
  type Vector,
} from '../../src/services/conversations/types';
import { deliver, seedConversation as seedConversationRow, type QueuedJob, type SeededPart } from '../helpers/conversations';
import { countingD1 } from '../helpers/counting-d1';

// ---------------------------------------------------------------------------------------------
// Seeding, straight to D1 (the ingestion route is tested on its own).

/** A bare organization: clusters are per organization, so each test has its own. */
async function newOrg(): Promise<string> {
  const id = newId();
  await env.DB.prepare(`insert into organizations (id, title, created_at, merge_rules) values (?, ?, ?, '{}')`).bind(id, `Org ${id}`, new Date().toISOString()).run();
  return id;
}

type Part = SeededPart;
const user = (body: string): Part => ({ type: 'message', role: 'user', body });

interface SeedOptions {
  source?: string;
  subject?: string | null;
  startedAt?: string | null;
  createdAt?: string;
  state?: 'pending' | 'analysing' | 'complete';
  attempts?: number;
}

/** A conversation as ingestion stores it, naming a new analysis job (`pending` unless `state` says otherwise). */
async function seedConversation(orgId: string, parts: Part[], options: SeedOptions = {}): Promise<{ id: string; job: string }> {
  const { id, job } = await seedConversationRow(orgId, { ...options, parts, state: options.state ?? 'pending', processedAt: null });
  return { id, job };
}

/** What an ingestion that changed the content does: new parts, a new job, `pending`, no claim counted. */
async function reingest(conversationId: string, parts: Part[]): Promise<string> {
  const job = newId();
  await env.DB.prepare(
    `update conversations set parts = ?, content_hash = ?, analysis_job = ?, analysis_state = 'pending', analysis_attempts = 0, queued_at = ? where id = ?`,
  )
    .bind(JSON.stringify(parts), newId(), job, new Date().toISOString(), conversationId)
    .run();
  return job;
}

// ---------------------------------------------------------------------------------------------
// Reading back.

interface ConversationRecord {
  analysis_state: string;
  analysis_job: string | null;
  analysis_attempts: number;
  queued_at: string | null;
  processed_at: string | null;
  impact: string | null;
  created_at: string;
}

interface ClusterRecord {
  id: string;
  analyzer: string;
  label: string;
  icon: string;
  summary: Record<string, unknown>;
  muted: number;
  centroid: Record<string, number>;
  issues_count: number;
  conversations_count: number;
  sources: Record<string, number>;
  created_at: string;
  updated_at: string;
}

interface IssueRecord {
  id: string;
  conversation_id: string;
  cluster_id: string;
  position: number;
  title: string;
  summary: string;
  details: { object: string; nodes: unknown[] };
  impact: string;
  vector: Record<string, number>;
  created_at: string;
  ingested_at: string;
}

async function conversationRow(id: string): Promise<ConversationRecord> {
  return (await env.DB.prepare('select * from conversations where id = ?').bind(id).first<ConversationRecord>())!;
}

async function clustersOf(orgId: string): Promise<ClusterRecord[]> {
  const { results } = await env.DB.prepare('select * from conversation_clusters where org_id = ? order by rowid').bind(orgId).all<Record<string, unknown>>();
  return results.map((row) => ({
    ...(row as unknown as ClusterRecord),
    summary: JSON.parse(row.summary as string),
    centroid: JSON.parse(row.centroid as string),
    sources: JSON.parse(row.sources as string),
  }));
}

async function issuesOf(orgId: string): Promise<IssueRecord[]> {
  const { results } = await env.DB.prepare('select * from conversation_issues where org_id = ? order by rowid').bind(orgId).all<Record<string, unknown>>();
  return results.map((row) => ({
    ...(row as unknown as IssueRecord),
    details: JSON.parse(row.details as string),
    vector: JSON.parse(row.vector as string),
  }));
}

const issuesOfConversation = async (orgId: string, conversationId: string) => (await issuesOf(orgId)).filter((i) => i.conversation_id === conversationId);
const clusterOf = async (orgId: string, issue: { cluster_id: string }) => (await clustersOf(orgId)).find((c) => c.id === issue.cluster_id);

// ---------------------------------------------------------------------------------------------
// A small deterministic analyzer, to control what the pipeline is given.

/**
 * Each line of a user message that starts with `problem:` is an issue (its rest the title); the vector is the
 * title's words, each weighing 1; similarity is the cosine; the label is the centroid's two heaviest terms.
 */
function fakeAnalyzer(overrides: Partial<ConversationAnalyzer> = {}): ConversationAnalyzer & { extracted: number } {
  const analyzer = {
    name: 'fake',
    threshold: 0.5,
    extracted: 0,
    async extract(conversation: ConversationText): Promise<ExtractedIssue[]> {
      analyzer.extracted++;
      const issues: ExtractedIssue[] = [];
      for (const part of conversation.parts.filter((p) => p.role === 'user')) {
        for (const line of part.body.split('\n')) {
          const match = /^problem:\s*(.+)$/.exec(line.trim());
          if (!match) continue;
          const title = match[1];
          const impact = /blocked|cannot/.test(title) ? 'high' : /error/.test(title) ? 'medium' : 'low';
          issues.push({ title, details: `The reader says: ${title}`, impact });
        }
      }
      return issues;
    },
    async vectorize(issues: ExtractedIssue[]): Promise<Vector[]> {
      return issues.map((issue) => Object.fromEntries(issue.title.toLowerCase().match(/[a-z_]+/g)!.map((word) => [word, 1])));
    },
    matcher(clusters: ClusterCandidate[]) {
      return (vector: Vector) => {
        let best: { cluster: ClusterCandidate; score: number } | undefined;
        for (const cluster of clusters) {
          const score = cosine(vector, cluster.centroid);
          if (!best || score > best.score) best = { cluster, score };
        }
        return best;
      };
    },
    describe(centroid: Vector, titles: string[]) {
      const top = Object.entries(centroid)
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, 2)
        .map(([term]) => term);
      return { label: top.join(' '), icon: 'circle-question', summary: `Readers report: ${titles.join('; ')}` };
    },
    ...overrides,
  };
  return analyzer;
}

function cosine(a: Vector, b: Vector): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [key, weight] of Object.entries(a)) {
    na += weight * weight;
    if (Object.hasOwn(b, key)) dot += weight * b[key];
  }
  for (const weight of Object.values(b)) nb += weight * weight;
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

/** A claim time older than the lease: its consumer is taken for dead. */
const leaseExpired = () => new Date(Date.now() - ANALYSIS_LEASE_MS - 60_000).toISOString();

const analyze = (conversation: { id: string; job: string }, analyzer: ConversationAnalyzer, attempts = 1, bindings: Partial<Env> = {}): Promise<AnalysisOutcome> =>
  analyzeConversation({ ...env, ...bindings } as Env, conversation.id, conversation.job, { analyzer, attempts });

const job = (conversation: { id: string; job: string }): QueuedJob => ({ id: conversation.job, type: CONVERSATION_ANALYZE_JOB, payload: { conversationId: conversation.id } });

/** One delivery through the Worker's queue handler with some bindings replaced; the queue's verdict on it. */
async function deliverWith(jobs: QueuedJob[], bindings: Partial<Env>, attempts = 1) {
  const batch = createMessageBatch<unknown>(
    'docs-platform-jobs',
    jobs.map((body, index) => ({ id: `m-${index}-${body.id}`, timestamp: new Date(), attempts, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, { ...env, ...bindings } as never, ctx);
  return getQueueResult(batch, ctx);
}

// ---------------------------------------------------------------------------------------------

describe('conversation analysis: issues and clusters', () => {
  it('extracts issues and clusters similar ones; a different problem starts a cluster of its own', async () => {
    const orgId = await newOrg();
    const analyzer = fakeAnalyzer();
    const a = await seedConversation(orgId, [user('Hello\nproblem: login fails with error'), { type: 'message', role: 'assistant', body: 'problem: not a user' }]);
    const b = await seedConversation(orgId, [user('problem: login fails after reset')], { startedAt: '2024-05-06T10:00:00.000Z' });
    const c = await seedConversation(orgId, [user('problem: pdf export blocked')]);
    expect(await analyze(a, analyzer)).toBe('analysed');
    expect(await analyze(b, analyzer)).toBe('analysed');
    expect(await analyze(c, analyzer)).toBe('analysed');

    const clusters = await clustersOf(orgId);
    expect(clusters).toHaveLength(2);
    const [login, pdf] = clusters;
    expect(login).toMatchObject({
      analyzer: 'fake',
      label: 'fails login',
      icon: 'circle-question',
      muted: 0,
      issues_count: 2,
      conversations_count: 2,
      sources: { api: 2 },
      centroid: { login: 2, fails: 2, with: 1, error: 1, after: 1, reset: 1 },
    });
    // Refreshed when the second issue joined: this conversation's title first, then the stored ones.
    expect(plainTextOf(login.summary as never)).toBe('Readers report: login fails after reset; login fails with error');
    expect(pdf).toMatchObject({ label: 'blocked export', issues_count: 1, conversations_count: 1, centroid: { pdf: 1, export: 1, blocked: 1 } });

    const issues = await issuesOf(orgId);
    expect(issues).toHaveLength(3);
    const [issueA] = await issuesOfConversation(orgId, a.id);
    const [issueB] = await issuesOfConversation(orgId, b.id);
    const [issueC] = await issuesOfConversation(orgId, c.id);
    expect(issueA).toMatchObject({ cluster_id: login.id, position: 0, title: 'login fails with error', impact: 'medium', summary: 'The reader says: login fails with error' });
    expect(issueA.details.object).toBe('document');
    expect(issueA.vector).toEqual({ login: 1, fails: 1, with: 1, error: 1 });
    // When the problem was raised: `metadata.createdAt`, else the conversation's ingestion.
    expect(issueA.created_at).toBe((await conversationRow(a.id)).created_at);
    expect(issueB.created_at).toBe('2024-05-06T10:00:00.000Z');
    expect(issueB.cluster_id).toBe(login.id);
    expect(issueC).toMatchObject({ cluster_id: pdf.id, impact: 'high' });
    expect(Date.parse(issueC.ingested_at)).toBeGreaterThan(0);

    for (const [conversation, impact] of [[a, 'medium'], [b, 'low'], [c, 'high']] as const) {
      const row = await conversationRow(conversation.id);
      expect(row).toMatchObject({ analysis_state: 'complete', analysis_job: null, impact, analysis_attempts: 1 });
      expect(row.processed_at).not.toBeNull();
    }
  });

  it('a second issue of a conversation joins the cluster its first one started; the impact is the highest', async () => {
    const orgId = await newOrg();
    const conversation = await seedConversation(orgId, [user('problem: login fails'), user('problem: login fails and I am blocked')]);
    expect(await analyze(conversation, fakeAnalyzer())).toBe('analysed');
    const [cluster] = await clustersOf(orgId);
    expect(await clustersOf(orgId)).toHaveLength(1);
    expect(cluster).toMatchObject({ issues_count: 2, conversations_count: 1, sources: { api: 2 } });
    expect((await issuesOf(orgId)).map((i) => [i.position, i.cluster_id])).toEqual([
      [0, cluster.id],
      [1, cluster.id],
    ]);
    expect((await conversationRow(conversation.id)).impact).toBe('high');
  });

  it(`keeps at most ${MAX_ISSUES_PER_CONVERSATION} issues of a conversation`, async () => {
    const orgId = await newOrg();
    const lines = Array.from({ length: MAX_ISSUES_PER_CONVERSATION + 3 }, (_, i) => `problem: topic${'abcdefghijklmnop'[i]} broken`).join('\n');
    const conversation = await seedConversation(orgId, [user(lines)]);
    expect(await analyze(conversation, fakeAnalyzer())).toBe('analysed');
    const issues = await issuesOf(orgId);
    expect(issues).toHaveLength(MAX_ISSUES_PER_CONVERSATION);
    expect(issues.map((i) => i.position)).toEqual([...Array(MAX_ISSUES_PER_CONVERSATION).keys()]);
  });

  it('a conversation with no problem ends complete, with no issues and no impact', async () => {
    const orgId = await newOrg();
    const conversation = await seedConversation(orgId, [user('Thanks, all good!')]);
    expect(await analyze(conversation, fakeAnalyzer())).toBe('analysed');
    expect(await issuesOf(orgId)).toEqual([]);
    expect(await clustersOf(orgId)).toEqual([]);
    const row = await conversationRow(conversation.id);
    expect(row).toMatchObject({ analysis_state: 'complete', analysis_job: null, impact: null });
    expect(row.processed_at).not.toBeNull();
  });

  it('counts issues per source', async () => {
    const orgId = await newOrg();
    const analyzer = fakeAnalyzer();
    const source = 'integration:intercom:inst1';
    for (const [body, options] of [
      ['problem: search results empty', {}],
      ['problem: search results empty again', {}],
      ['problem: search results empty today', { source }],
      ['problem: search results empty now\nproblem: search results empty still', { source }],
    ] as const) {
      expect(await analyze(await seedConversation(orgId, [user(body)], options), analyzer)).toBe('analysed');
    }
    const clusters = await clustersOf(orgId);
    expect(clusters).toHaveLength(1);
    expect(clusters[0]).toMatchObject({ issues_count: 5, conversations_count: 4, sources: { api: 2, [source]: 3 } });
  });

  it('compares issues only with clusters of their analyzer and organization', async () => {
    const orgId = await newOrg();
    const otherOrg = await newOrg();
    await analyze(await seedConversation(otherOrg, [user('problem: login fails')]), fakeAnalyzer());
    await analyze(await seedConversation(orgId, [user('problem: login fails')]), fakeAnalyzer({ name: 'other' }));
    await analyze(await seedConversation(orgId, [user('problem: login fails')]), fakeAnalyzer());
    const clusters = await clustersOf(orgId);
    expect(clusters.map((c) => [c.analyzer, c.issues_count])).toEqual([
      ['other', 1],
      ['fake', 1],
    ]);
    expect((await clustersOf(otherOrg)).map((c) => c.issues_count)).toEqual([1]);
  });

  it('terms such as constructor and __proto__ are ordinary components of vectors and centroids', async () => {
    const orgId = await newOrg();
    const analyzer = fakeAnalyzer();
    await analyze(await seedConversation(orgId, [user('problem: constructor __proto__ tostring broken')]), analyzer);
    await analyze(await seedConversation(orgId, [user('problem: constructor __proto__ tostring broken again')]), analyzer);
    const [cluster] = await clustersOf(orgId);
    expect(cluster.issues_count).toBe(2);
    expect(Object.getOwnPropertyDescriptor(cluster.centroid, '__proto__')?.value).toBe(2);
    expect(cluster.centroid.constructor).toBe(2);
    expect(cluster.centroid.again).toBe(1);
  });

  it(`keeps the ${CENTROID_TERMS[LEXICAL_ANALYZER]} heaviest terms of a lexical centroid, and every component of other analyzers'`, async () => {
    const cap = CENTROID_TERMS[LEXICAL_ANALYZER];
    const terms = Array.from({ length: cap + 36 }, (_, i) => `t${String(i).padStart(3, '0')}`);
    // Term i weighs i + 1: the heaviest are the last ones.
    const vectorize = async (issues: ExtractedIssue[]) => issues.map(() => Object.fromEntries(terms.map((t, i) => [t, i + 1])));
    for (const name of [LEXICAL_ANALYZER, 'embedding']) {
      const orgId = await newOrg();
      await analyze(await seedConversation(orgId, [user('problem: many terms')]), fakeAnalyzer({ name, vectorize }));
      const [cluster] = await clustersOf(orgId);
      const expected = name === LEXICAL_ANALYZER ? terms.slice(-cap) : terms;
      expect(Object.keys(cluster.centroid).sort(), name).toEqual(expected);
      expect(cluster.centroid.t099).toBe(100);
    }
  });

  it('keeps a reader\'s text as text in documents: an opening `---` or heading stays, Markdown that cannot convert is a paragraph', async () => {
    const frontmatter = markdownDocument('---\ntitle: Not frontmatter\n---\nThe export fails');
    expect(plainTextOf(frontmatter)).toContain('title: Not frontmatter');
    expect(plainTextOf(frontmatter)).toContain('The export fails');
    const heading = markdownDocument('# Export broken\n\nIt fails every time');
    expect(plainTextOf(heading)).toBe('Export broken\nIt fails every time');
    expect(plainTextOf(markdownDocument(''))).toBe('');

    const orgId = await newOrg();
    // Deep enough to exhaust the converter's stack (a RangeError): kept as one paragraph.
    const details = '---\n: : [\n---\n# Title\n' + '>'.repeat(3000) + ' deep';
    const analyzer = fakeAnalyzer({ extract: async () => [
        { title: 'x'.repeat(500), details, impact: 'severe' as never },
        { title: 'long', details: 'word '.repeat(5000), impact: 'low' },
      ],
    });
    expect(details.length).toBeLessThan(MAX_ISSUE_DETAILS_LENGTH);
    expect(await analyze(await seedConversation(orgId, [user('anything')]), analyzer)).toBe('analysed');
    const [issue, long] = await issuesOf(orgId);
    expect(long.summary.length).toBeLessThanOrEqual(MAX_ISSUE_DETAILS_LENGTH);
    expect(long.summary.length).toBeGreaterThan(MAX_ISSUE_DETAILS_LENGTH - 10);
    expect(issue.title).toHaveLength(200);
    expect(issue.impact).toBe('low');
    expect(issue.details.object).toBe('document');
    expect(issue.summary).toContain(': : [');
    expect(issue.summary).toContain('>>> deep');
    expect(issue.details.nodes).toHaveLength(1);
  });
});

describe('conversation analysis: idempotence and re-analysis', () => {
  it('a message for a job the conversation no longer names does nothing; nor does one for a complete conversation', async () => {
    const orgId = await newOrg();
    const analyzer = fakeAnalyzer();
    const conversation = await seedConversation(orgId, [user('problem: login fails')]);
    const newer = await reingest(conversation.id, [user('problem: login fails with error')]);
    expect(await analyze(conversation, analyzer)).toBe('skipped');
    expect(analyzer.extracted).toBe(0);
    expect(await conversationRow(conversation.id)).toMatchObject({ analysis_state: 'pending', analysis_job: newer, analysis_attempts: 0, processed_at: null });
    expect(await issuesOf(orgId)).toEqual([]);

    expect(await analyze({ id: conversation.id, job: newer }, analyzer)).toBe('analysed');
    const before = { clusters: await clustersOf(orgId), issues: await issuesOf(orgId), row: await conversationRow(conversation.id) };
    expect(await analyze({ id: conversation.id, job: newer }, analyzer)).toBe('skipped');
    expect(await analyze({ id: 'no-such-conversation', job: newer }, analyzer)).toBe('skipped');
    expect(analyzer.extracted).toBe(1);
    expect({ clusters: await clustersOf(orgId), issues: await issuesOf(orgId), row: await conversationRow(conversation.id) }).toEqual(before);
  });

  it('an ingestion between the claim and the write makes the write a no-op', async () => {
    const orgId = await newOrg();
    const analyzer = fakeAnalyzer();
    await analyze(await seedConversation(orgId, [user('problem: login fails')]), analyzer);
    const before = await clustersOf(orgId);
    const conversation = await seedConversation(orgId, [user('problem: login fails again\nproblem: billing wrong')]);
    let newer = '';
    const racing = fakeAnalyzer({
      async extract(text) {
        newer = await reingest(conversation.id, [user('problem: something else')]);
        return analyzer.extract(text);
      },
    });
    expect(await analyze(conversation, racing)).toBe('superseded');
    expect(await clustersOf(orgId)).toEqual(before);
    expect(await issuesOfConversation(orgId, conversation.id)).toEqual([]);
    expect(await conversationRow(conversation.id)).toMatchObject({ analysis_state: 'pending', analysis_job: newer, processed_at: null });
  });

  it('re-analysing new content replaces the issues, moves the clusters\' counts and deletes a cluster left empty', async () => {
    const orgId = await newOrg();
    const analyzer = fakeAnalyzer();
    const a = await seedConversation(orgId, [user('problem: login fails')]);
    const b = await seedConversation(orgId, [user('problem: login fails badly')]);
    const c = await seedConversation(orgId, [user('problem: pdf export broken')]);
    for (const conversation of [a, b, c]) await analyze(conversation, analyzer);
    const [login, pdf] = await clustersOf(orgId);
    expect([login.issues_count, pdf.issues_count]).toEqual([2, 1]);

    // C is now about logins: its pdf issue goes, and the pdf cluster with it.
    const cJob = await reingest(c.id, [user('problem: login fails every morning')]);
    expect(await analyze({ id: c.id, job: cJob }, analyzer)).toBe('analysed');
    let clusters = await clustersOf(orgId);
    expect(clusters.map((cl) => cl.id)).toEqual([login.id]);
    expect(clusters[0]).toMatchObject({ issues_count: 3, conversations_count: 3, sources: { api: 3 } });
    expect((await issuesOfConversation(orgId, c.id)).map((i) => [i.title, i.cluster_id])).toEqual([['login fails every morning', login.id]]);

    // A is now about billing: the login cluster loses an issue, a billing cluster starts.
    const aJob = await reingest(a.id, [user('problem: billing invoice wrong')]);
    expect(await analyze({ id: a.id, job: aJob }, analyzer)).toBe('analysed');
    clusters = await clustersOf(orgId);
    expect(clusters.map((cl) => [cl.id === login.id, cl.issues_count, cl.conversations_count])).toEqual([
      [true, 2, 2],
      [false, 1, 1],
    ]);
    expect(clusters[0].centroid).toEqual({ login: 2, fails: 2, badly: 1, every: 1, morning: 1 });
    expect(await issuesOf(orgId)).toHaveLength(3);

    // B no longer has a problem: its issue goes, its impact too.
    const bJob = await reingest(b.id, [user('All fine now, thanks')]);
    expect(await analyze({ id: b.id, job: bJob }, analyzer)).toBe('analysed');
    expect((await clustersOf(orgId)).map((cl) => cl.issues_count)).toEqual([1, 1]);
    expect(await conversationRow(b.id)).toMatchObject({ analysis_state: 'complete', impact: null });
  });

  it('a cluster left empty is kept while a change request names it', async () => {
    const orgId = await newOrg();
    const analyzer = fakeAnalyzer();
    const c = await seedConversation(orgId, [user('problem: pdf export broken')]);
    await analyze(c, analyzer);
    const [pdf] = await clustersOf(orgId);
    // A change request of the organization addressing the cluster (only the column matters here).
    const space = newId();
    const now = new Date().toISOString();
    await env.DB.prepare(`insert into spaces (id, org_id, title, position, revision_id, created_at, updated_at) values (?, ?, 'S', 0, 'r', ?, ?)`).bind(space, orgId, now, now).run();
    await env.DB.prepare(
      `insert into change_requests (id, space_id, number, status, created_by, created_at, updated_at, revision_id, revision_initial, conversations_issues_cluster)
       values (?, ?, 1, 'open', 'u', ?, ?, 'r', 'r', ?)`,
    )
      .bind(newId(), space, now, now, pdf.id)
      .run();

    const job = await reingest(c.id, [user('All fine now, thanks')]);
    expect(await analyze({ id: c.id, job }, analyzer)).toBe('analysed');
    expect((await clustersOf(orgId)).map((cl) => [cl.id, cl.issues_count, cl.conversations_count])).toEqual([[pdf.id, 0, 0]]);
  });

  it('a conversation re-analysed is not drawn to its old cluster by its own old issues', async () => {
    const orgId = await newOrg();
    const analyzer = fakeAnalyzer();
    const a = await seedConversation(orgId, [user('problem: login fails slowly today')]);
    const b = await seedConversation(orgId, [user('problem: login fails again now')]);
    await analyze(a, analyzer);
    await analyze(b, analyzer);
    const [cluster] = await clustersOf(orgId);
    expect(cluster.issues_count).toBe(2);
    // Against the centroid with A's old issue: 6 / sqrt(5 * 12) = 0.77; without it (B's alone): 2 / sqrt(5 * 4) = 0.45, under 0.5.
    const aJob = await reingest(a.id, [user('problem: login fails slowly today pdf')]);
    expect(await analyze({ id: a.id, job: aJob }, analyzer)).toBe('analysed');
    const clusters = await clustersOf(orgId);
    expect(clusters.map((c) => [c.id === cluster.id, c.issues_count])).toEqual([
      [true, 1],
      [false, 1],
    ]);
    expect(clusters[0].centroid).toEqual({ login: 1, fails: 1, again: 1, now: 1 });
  });

  it('a conversation alone in its cluster, re-ingested with more about its problem, keeps that cluster (and its muted flag)', async () => {
    const orgId = await newOrg();
    const analyzer = fakeAnalyzer();
    const conversation = await seedConversation(orgId, [user('problem: sso login fails')]);
    await analyze(conversation, analyzer);
    const [cluster] = await clustersOf(orgId);
    await env.DB.prepare('update conversation_clusters set muted = 1 where id = ?').bind(cluster.id).run();
    const job2 = await reingest(conversation.id, [user('problem: sso login fails'), user('problem: sso login fails with saml')]);
    expect(await analyze({ id: conversation.id, job: job2 }, analyzer)).toBe('analysed');
    const clusters = await clustersOf(orgId);
    expect(clusters.map((c) => [c.id, c.muted, c.issues_count, c.created_at])).toEqual([[cluster.id, 1, 2, cluster.created_at]]);
    // Different content: the old cluster goes, a new one starts.
    const job3 = await reingest(conversation.id, [user('problem: pdf export broken')]);
    expect(await analyze({ id: conversation.id, job: job3 }, analyzer)).toBe('analysed');
    const after = await clustersOf(orgId);
    expect(after).toHaveLength(1);
    expect(after[0].id).not.toBe(cluster.id);
  });

  it('a stored cluster emptied by another analysis between the claim and the write exists again with the issue that joined it', async () => {
    const orgId = await newOrg();
    const analyzer = fakeAnalyzer();
    const first = await seedConversation(orgId, [user('problem: login fails')]);
    await analyze(first, analyzer);
    const [cluster] = await clustersOf(orgId);
    const second = await seedConversation(orgId, [user('problem: login fails again')]);
    const racing = fakeAnalyzer({
      async extract(text) {
        // What the re-analysis of `first` into another problem does, committed while `second` is analysed.
        await env.DB.batch([
          env.DB.prepare('delete from conversation_issues where conversation_id = ?').bind(first.id),
          env.DB.prepare('delete from conversation_clusters where id = ?').bind(cluster.id),
        ]);
        return analyzer.extract(text);
      },
    });
    expect(await analyze(second, racing)).toBe('analysed');
    const clusters = await clustersOf(orgId);
    expect(clusters.map((c) => [c.id, c.issues_count, c.conversations_count])).toEqual([[cluster.id, 1, 1]]);
    expect(clusters[0].centroid).toEqual({ login: 1, fails: 1, again: 1 });
  });

  it(`describes a cluster from its centroid and its ${DESCRIBE_TITLES} newest titles, this conversation's first`, async () => {
    const orgId = await newOrg();
    const seen: string[][] = [];
    const analyzer = fakeAnalyzer();
    const recording = fakeAnalyzer({
      describe(centroid, titles) {
        seen.push(titles);
        return analyzer.describe(centroid, titles);
      },
    });
    for (let day = 1; day <= DESCRIBE_TITLES + 2; day++) {
      const startedAt = `2024-01-0${day}T00:00:00.000Z`;
      await analyze(await seedConversation(orgId, [user(`problem: login fails day${day}`)], { startedAt }), analyzer);
    }
    await analyze(await seedConversation(orgId, [user('problem: login fails today')]), recording);
    expect(seen).toEqual([['login fails today', 'login fails day7', 'login fails day6', 'login fails day5', 'login fails day4', 'login fails day3']]);
  });
});

describe('conversation analysis: failures and bounds', () => {
  it('a failing analyzer leaves the conversation pending, its claim given back; at the last delivery the claim stays counted', async () => {
    const orgId = await newOrg();
    const failing = fakeAnalyzer({
      async extract() {
        throw new Error('model unavailable');
      },
    });
    const conversation = await seedConversation(orgId, [user('problem: login fails')]);
    const queuedBefore = (await conversationRow(conversation.id)).queued_at!;
    await expect(analyze(conversation, failing)).rejects.toThrow('model unavailable');
    let row = await conversationRow(conversation.id);
    expect(row).toMatchObject({ analysis_state: 'pending', analysis_job: conversation.job, analysis_attempts: 0, processed_at: null });
    expect(row.queued_at! >= queuedBefore).toBe(true);

    await expect(analyze(conversation, failing, MAX_ANALYSIS_DELIVERIES)).rejects.toThrow('model unavailable');
    row = await conversationRow(conversation.id);
    expect(row).toMatchObject({ analysis_state: 'pending', analysis_job: conversation.job, analysis_attempts: 1 });
    expect(await issuesOf(orgId)).toEqual([]);

    // The model is back: the job completes.
    expect(await analyze(conversation, fakeAnalyzer())).toBe('analysed');
    expect(await conversationRow(conversation.id)).toMatchObject({ analysis_state: 'complete', analysis_job: null, impact: 'low' });
  });

  it('a failure of the model through the consumer: the message is retried, the conversation pending', async () => {
    const orgId = await newOrg();
    const conversation = await seedConversation(orgId, [user('I cannot log in: the login page shows an error.')]);
    const calls: string[] = [];
    const AI = {
      async run(model: string) {
        calls.push(model);
        throw new Error('Workers AI: capacity exceeded');
      },
    };
    const result = await deliverWith([job(conversation)], { AI });
    expect(calls.length).toBeGreaterThan(0);
    expect(result.retryMessages.map((m) => m.msgId)).toEqual([`m-0-${conversation.job}`]);
    expect(result.explicitAcks).toEqual([]);
    expect(await conversationRow(conversation.id)).toMatchObject({ analysis_state: 'pending', analysis_job: conversation.job, analysis_attempts: 0 });
  });

  it('a malformed payload is retried (and ends in the dead-letter queue)', async () => {
    const result = await deliver([{ id: newId(), type: CONVERSATION_ANALYZE_JOB, payload: { conversation: 'x' } }]);
    expect(result.retryMessages).toHaveLength(1);
  });

  it(`a job whose ${MAX_ANALYSIS_CLAIMS} claims never ended is recorded complete with no issues at the next claim, without analysing`, async () => {
    const orgId = await newOrg();
    const analyzer = fakeAnalyzer();
    const conversation = await seedConversation(orgId, [user('problem: login fails')]);
    await analyze(conversation, analyzer);
    const other = await seedConversation(orgId, [user('problem: pdf export broken')]);
    await analyze(other, analyzer);
    expect(await clustersOf(orgId)).toHaveLength(2);
    // New content whose analysis killed the isolate three times (each claim counted, none ended).
    const job2 = await reingest(conversation.id, [user('problem: login fails '.repeat(100))]);
    await env.DB.prepare(`update conversations set analysis_state = 'analysing', analysis_attempts = ?, queued_at = ? where id = ?`)
      .bind(MAX_ANALYSIS_CLAIMS, leaseExpired(), conversation.id)
      .run();
    const before = analyzer.extracted;
    expect(await analyze({ id: conversation.id, job: job2 }, analyzer)).toBe('exhausted');
    expect(analyzer.extracted).toBe(before);
    const row = await conversationRow(conversation.id);
    expect(row).toMatchObject({ analysis_state: 'complete', analysis_job: null, impact: null, analysis_attempts: MAX_ANALYSIS_CLAIMS + 1 });
    expect(row.processed_at).not.toBeNull();
    expect(await issuesOfConversation(orgId, conversation.id)).toEqual([]);
    expect((await clustersOf(orgId)).map((c) => c.issues_count)).toEqual([1]);
  });

  it('one claim short of the bound still analyses', async () => {
    const orgId = await newOrg();
    const conversation = await seedConversation(orgId, [user('problem: login fails')], { state: 'analysing', attempts: MAX_ANALYSIS_CLAIMS - 1 });
    await env.DB.prepare(`update conversations set queued_at = ? where id = ?`).bind(leaseExpired(), conversation.id).run();
    expect(await analyze(conversation, fakeAnalyzer())).toBe('analysed');
    expect(await issuesOf(orgId)).toHaveLength(1);
  });

  it('a delivery of a job another consumer is at does nothing and counts no claim, until the lease ends', async () => {
    const orgId = await newOrg();
    const conversation = await seedConversation(orgId, [user('problem: login fails')], { state: 'analysing', attempts: 1 });
    const analyzer = fakeAnalyzer();
    expect(await analyze(conversation, analyzer)).toBe('skipped');
    expect(analyzer.extracted).toBe(0);
    expect(await conversationRow(conversation.id)).toMatchObject({ analysis_state: 'analysing', analysis_attempts: 1 });
    // Its consumer died: after the lease, a delivery claims the job again.
    await env.DB.prepare(`update conversations set queued_at = ? where id = ?`).bind(leaseExpired(), conversation.id).run();
    expect(await analyze(conversation, analyzer)).toBe('analysed');
    expect(await conversationRow(conversation.id)).toMatchObject({ analysis_state: 'complete', analysis_attempts: 2 });
  });

  it('duplicate messages while an analysis runs neither end it early nor analyse twice', async () => {
    const orgId = await newOrg();
    const conversation = await seedConversation(orgId, [user('problem: login fails')]);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = fakeAnalyzer();
    const extract = slow.extract.bind(slow);
    slow.extract = async (text) => (await gate, extract(text));
    const running = analyze(conversation, slow);
    // The same job delivered again and again meanwhile (an unchanged conversation re-sent by its source).
    const duplicates = fakeAnalyzer();
    for (let i = 0; i < MAX_ANALYSIS_CLAIMS + 1; i++) expect(await analyze(conversation, duplicates)).toBe('skipped');
    release();
    expect(await running).toBe('analysed');
    expect(duplicates.extracted).toBe(0);
    expect(await conversationRow(conversation.id)).toMatchObject({ analysis_state: 'complete', analysis_attempts: 1 });
    expect(await issuesOfConversation(orgId, conversation.id)).toHaveLength(1);
  });

  it('costs one D1 round trip when skipped, two for new clusters, three when issues join stored clusters', async () => {
    const orgId = await newOrg();
    const analyzer = fakeAnalyzer();
    const measure = async (conversation: { id: string; job: string }) => {
      const counter = countingD1(env.DB);
      const outcome = await analyze(conversation, analyzer, 1, { DB: counter.db });
      return { outcome, roundTrips: counter.count };
    };
    const first = await seedConversation(orgId, [user('problem: login fails\nproblem: pdf export broken')]);
    expect(await measure(first)).toEqual({ outcome: 'analysed', roundTrips: 2 });
    expect(await measure(first)).toEqual({ outcome: 'skipped', roundTrips: 1 });
    const second = await seedConversation(orgId, [user('problem: login fails again\nproblem: pdf export broken again\nproblem: billing wrong')]);
    expect(await measure(second)).toEqual({ outcome: 'analysed', roundTrips: 3 });
    expect((await clustersOf(orgId)).map((c) => c.issues_count).sort()).toEqual([1, 2, 2]);
  });
});

describe('conversation analysis through the queue (lexical analyzer)', () => {
  it('analyses a delivered message; the same message delivered twice changes nothing more', async () => {
    const orgId = await newOrg();
    const conversations = [
      await seedConversation(orgId, [user('I cannot reset my password: the reset email never arrives.')]),
      await seedConversation(orgId, [user('The password reset email does not arrive, what should I do?')], { source: 'integration:zendesk:inst' }),
      await seedConversation(orgId, [user('Our custom domain shows an SSL certificate error.')]),
    ];
    const jobs = conversations.map(job);
    const first = await deliver(jobs);
    expect(first.retryMessages).toEqual([]);
    expect(first.explicitAcks).toHaveLength(3);
    const clusters = await clustersOf(orgId);
    expect(clusters.map((c) => [c.analyzer, c.issues_count, c.conversations_count])).toEqual([
      [LEXICAL_ANALYZER, 2, 2],
      [LEXICAL_ANALYZER, 1, 1],
    ]);
    expect(clusters[0].sources).toEqual({ api: 1, 'integration:zendesk:inst': 1 });
    const issues = await issuesOf(orgId);
    expect(issues).toHaveLength(3);

    const again = await deliver([...jobs, jobs[0]]);
    expect(again.explicitAcks).toHaveLength(4);
    expect(await clustersOf(orgId)).toEqual(clusters);
    expect(await issuesOf(orgId)).toEqual(issues);
  });
});
