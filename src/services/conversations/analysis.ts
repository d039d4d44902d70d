import { and, desc, eq, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import { createDb, rawRun, runBatch, type BatchItem, type Db } from '../../db/client';
import { conversationClusters, conversationIssues, conversations, type ConversationPartRow } from '../../db/schema';
import type { Env } from '../../env';
import { newId } from '../../lib/ids';
import { nowIso } from '../../lib/time';
import { sectionsOf } from '../indexing/extract';
import { MarkdownConversionError, markdownToDocument } from '../markdown';
import { IMPACTS, type Impact } from '../../lib/conversations';
import { analyzerFor } from './analyzers';
import {
  assignIssues,
  MAX_CANDIDATE_CLUSTERS,
  newestTitlesQuery,
  ownedBy,
  recomputeClustersStatements,
  upsertClusterStatement,
  workingClusters,
  type StoredIssue,
  type WorkingCluster,
} from './clusters';
import {
  ANALYSIS_LEASE_MS,
  IMPACT_RANK,
  MAX_ISSUES_PER_CONVERSATION,
  type ConversationAnalyzer,
  type ExtractedIssue,
  type Vector,
} from './types';

/**
 * Analysing a conversation in the background (jobs/conversation-analyze): its issues, and the clusters they
 * join. The conversation's `analysis_state` tells the truth at every step: `pending` (queued), `analysing`
 * (a consumer holds it), `complete` (`processed_at` says when, its issues and `impact` are the analysis').
 *
 * 1. Claim (one D1 batch): the message works only while the conversation names it as its `analysis_job` and
 *    is not complete; an ingestion that changed the content named a newer job, and a finished analysis cleared
 *    it, so a superseded or redelivered message changes nothing ('skipped'). The claim sets `analysing`,
 *    `queued_at` (the cron sends a job again once that is 15 minutes old) and counts itself in
 *    `analysis_attempts`, when it is `pending` or its last claim is older than ANALYSIS_LEASE_MS (a delivery of
 *    a job another consumer is at does nothing: 'skipped'); the same batch reads the organization's clusters of this analyzer (the most recently
 *    active MAX_CANDIDATE_CLUSTERS) and the conversation's current issues, both only when the claim applied.
 * 2. A claim that finds MAX_ANALYSIS_CLAIMS claims already counted does not analyse: those never ended, their
 *    isolate killed by the Worker's CPU or memory limit (no catch block runs then), or they failed at their
 *    message's last delivery (step 5), so another try would most likely end the same way. The conversation is
 *    recorded as `complete` with no issues, through the ordinary write (step 4), so that issues of its
 *    previous content do not stay attached to content they no longer describe. It is analysed again when its
 *    content changes (a new job starts counting at 0).
 * 3. In memory: the analyzer's issues (at most MAX_ISSUES_PER_CONVERSATION; it reads user messages only),
 *    their vectors, and their clusters, assigned greedily (services/conversations/clusters: assignIssues),
 *    after this conversation's previous issues were taken out of the centroids they are in (a cluster they were
 *    all of can be taken back by a similar issue: clusters.ts, Candidates). When issues join
 *    stored clusters, one read fetches the newest titles of those clusters, so that their refreshed label and
 *    summary describe more than this conversation.
 * 4. Write (one D1 batch, a transaction), every statement conditioned on the conversation still naming the job,
 *    so an ingestion that superseded it meanwhile makes the whole write a no-op ('superseded'): the previous
 *    issues deleted, the clusters receiving issues created or refreshed (label, icon, summary), the issues
 *    inserted, every cluster that lost or gained issues recomputed from its issues and deleted when left with
 *    none, and last the conversation `complete`, its job cleared, `processed_at` and `impact` set.
 * 5. A failure (the model's, or ours: D1, a bug) throws, so the queue retries the message with backoff. Before
 *    that the conversation goes back to `pending` with `queued_at` refreshed (so the cron does not send the job
 *    a second time while the queue retries it) and, until the message's last delivery, its claim given back:
 *    a model that is down for a while costs no claim. At the last delivery the claim stays counted, and the
 *    cron sends the job again 15 minutes later: a conversation that fails every time ends through step 2
 *    after MAX_ANALYSIS_CLAIMS rounds instead of being retried forever. When D1 itself fails, the conversation
 *    keeps its state (its claim counted) and the cron sends the job again as well.
 *
 * Concurrency: two conversations of one organization analysed at the same time each match against the
 * clusters as they were when claimed, so both may create a cluster for the same new problem. This is accepted:
 * avoiding it would serialize an organization's analyses (a lock, or a Durable Object per organization) for a
 * rare duplicate that the next issues settle (each joins the closer of the two). Their counters cannot drift
 * (each write recomputes its clusters from their issues), and a stored cluster emptied by one and joined by the
 * other is created again by the latter's upsert.
 *
 * D1: one round trip to claim, one to write, and one read of titles between them when issues join stored clusters.
 */

/** The queue consumer's `max_retries` (wrangler.toml) is 5: a message is delivered at most 6 times. */
export const MAX_ANALYSIS_DELIVERIES = 6;

/** Claims of one job that may end without completing it before the next claim ends it with no issues. */
export const MAX_ANALYSIS_CLAIMS = 3;

/** Characters of an issue's title (types.ts: ExtractedIssue) kept; an analyzer's longer title is cut. */
export const MAX_ISSUE_TITLE_LENGTH = 200;
/**
 * Characters of an issue's details (Markdown) kept. The analyzers write at most 4,000 (Workers AI; the lexical
 * analyzer 2,000 before escaping); the bound is for one that does not: the Markdown converter's time grows
 * faster than the nesting of its input (measured in workerd: 2,000 nested quotes cost 0.26 s before the stack
 * gives out, 20,000 cost 0.7 s, 100,000 cost 160 s), so what reaches it stays short.
 */
export const MAX_ISSUE_DETAILS_LENGTH = 8_000;
/** GitBook's cluster `label` and `icon` lengths. */
const MAX_LABEL_LENGTH = 100;
const MAX_ICON_LENGTH = 50;

export type AnalysisOutcome =
  /** Nothing done: the conversation is gone, complete, or names another job (redelivered or superseded). */
  | 'skipped'
  /** Analysed: its issues and clusters written, `complete`. */
  | 'analysed'
  /** MAX_ANALYSIS_CLAIMS claims never ended: recorded `complete` with no issues. */
  | 'exhausted'
  /** Analysed, but a newer ingestion named another job before the write, which therefore changed nothing. */
  | 'superseded';

export interface AnalyzeOptions {
  /** Defaults to the deployment's (services/conversations/analyzers: Workers AI when bound, else lexical). */
  analyzer?: ConversationAnalyzer;
  /** This delivery's number (1 on the first); at MAX_ANALYSIS_DELIVERIES a failure keeps its claim counted. */
  attempts: number;
}

/** The conversation as claimed, with what the analysis compares it with. */
interface Claim {
  conversationId: string;
  jobId: string;
  orgId: string;
  subject: string | null;
  parts: ConversationPartRow[];
  /** When its problems were raised: `metadata.createdAt`, else its first ingestion. */
  raisedAt: string;
  /** Claims counted, this one included. */
  claims: number;
  clusters: Array<{ id: string; centroid: Vector; issuesCount: number }>;
  previous: StoredIssue[];
}

/** An issue ready to be written. */
interface AnalysedIssue extends ExtractedIssue {
  vector: Vector;
  clusterId: string;
}

/** Analyses conversation `conversationId` for the message `jobId` (see the top of this file). */
export async function analyzeConversation(env: Env, conversationId: string, jobId: string, options: AnalyzeOptions): Promise<AnalysisOutcome> {
  const analyzer = options.analyzer ?? analyzerFor(env);
  const db = createDb(env.DB);
  const claim = await claimConversation(db, conversationId, jobId, analyzer.name);
  if (!claim) return 'skipped';
  try {
    if (claim.claims > MAX_ANALYSIS_CLAIMS) {
      console.error(`conversation ${conversationId}: ${MAX_ANALYSIS_CLAIMS} claims of ${jobId} ended without completing it; recorded as analysed with no issues`);
      return (await writeAnalysis(db, analyzer, claim, [], [])) ? 'exhausted' : 'superseded';
    }
    const { issues, clusters } = await analyse(analyzer, claim);
    const received = clusters.filter((c) => c.titles.length > 0);
    await addStoredTitles(db, received, conversationId);
    return (await writeAnalysis(db, analyzer, claim, issues, received)) ? 'analysed' : 'superseded';
  } catch (error) {
    await releaseClaim(db, conversationId, jobId, options.attempts).catch((writeError) =>
      console.error(`conversation ${conversationId}: the state after a failed attempt of ${jobId} could not be written`, writeError),
    );
    throw error;
  }
}

/**
 * A conversation the job may be claimed in: `pending`, or `analysing` under a claim older than the lease (its
 * consumer died). A claim within the lease is left to its consumer: a duplicate message (an unchanged
 * conversation ingested again while it is analysed, or the queue delivering twice) must neither analyse it a
 * second time nor count a claim that did not die.
 */
function claimable(now: string): SQL {
  const leaseStart = new Date(Date.parse(now) - ANALYSIS_LEASE_MS).toISOString();
  return or(
    eq(conversations.analysisState, 'pending'),
    and(eq(conversations.analysisState, 'analysing'), or(isNull(conversations.queuedAt), lt(conversations.queuedAt, leaseStart))),
  )!;
}

/** Step 1: the claim, and the clusters and previous issues, in one batch; null when the message has nothing to do. */
async function claimConversation(db: Db, conversationId: string, jobId: string, analyzerName: string): Promise<Claim | null> {
  const owned = ownedBy(conversationId, jobId);
  const now = nowIso();
  const [claimed, clusters, previous] = await db.batch([
    db
      .update(conversations)
      .set({ analysisState: 'analysing', queuedAt: now, analysisAttempts: sql`${conversations.analysisAttempts} + 1` })
      .where(and(eq(conversations.id, conversationId), eq(conversations.analysisJob, jobId), claimable(now)))
      .returning({
        orgId: conversations.orgId,
        subject: conversations.subject,
        parts: conversations.parts,
        startedAt: conversations.startedAt,
        createdAt: conversations.createdAt,
        claims: conversations.analysisAttempts,
      }),
    // After the claim in the batch: read only when it applied (the conversation names the job, `analysing`).
    db
      .select({ id: conversationClusters.id, centroid: conversationClusters.centroid, issuesCount: conversationClusters.issuesCount })
      .from(conversationClusters)
      .where(
        and(
          eq(conversationClusters.orgId, sql`(select org_id from conversations where id = ${conversationId})`),
          eq(conversationClusters.analyzer, analyzerName),
          owned,
        ),
      )
      .orderBy(desc(conversationClusters.updatedAt), conversationClusters.id)
      .limit(MAX_CANDIDATE_CLUSTERS),
    db
      .select({ clusterId: conversationIssues.clusterId, vector: conversationIssues.vector })
      .from(conversationIssues)
      .where(and(eq(conversationIssues.conversationId, conversationId), owned)),
  ]);
  const row = claimed[0];
  if (!row) return null;
  return {
    conversationId,
    jobId,
    orgId: row.orgId,
    subject: row.subject,
    parts: row.parts,
    raisedAt: row.startedAt ?? row.createdAt,
    claims: row.claims,
    clusters,
    previous,
  };
}

/** Step 3: the issues, their vectors and their clusters, in memory. */
async function analyse(analyzer: ConversationAnalyzer, claim: Claim): Promise<{ issues: AnalysedIssue[]; clusters: WorkingCluster[] }> {
  const extracted = normalizeIssues(await analyzer.extract({ subject: claim.subject, parts: claim.parts }));
  const vectors = extracted.length > 0 ? await analyzer.vectorize(extracted) : [];
  if (vectors.length !== extracted.length) throw new Error(`analyzer ${analyzer.name}: ${vectors.length} vectors for ${extracted.length} issues`);
  const candidates = workingClusters(claim.clusters, claim.previous);
  const assigned = assignIssues(
    analyzer,
    candidates,
    extracted.map((issue, i) => ({ vector: vectors[i], title: issue.title })),
  );
  return { issues: extracted.map((issue, i) => ({ ...issue, vector: vectors[i], clusterId: assigned[i] })), clusters: candidates.live };
}

/**
 * What the analyzer found, as stored: at most MAX_ISSUES_PER_CONVERSATION, titles and details cut to their
 * lengths, an unknown impact read as `low`. An analyzer is trusted to answer its own contract, but a model's
 * output reaches here through it, and a stored row must hold whatever it says.
 */
function normalizeIssues(found: ExtractedIssue[]): ExtractedIssue[] {
  return found
    .filter((issue) => typeof issue?.title === 'string' && issue.title.trim() !== '' && typeof issue.details === 'string')
    .slice(0, MAX_ISSUES_PER_CONVERSATION)
    .map((issue) => ({
      title: issue.title.trim().slice(0, MAX_ISSUE_TITLE_LENGTH),
      details: issue.details.slice(0, MAX_ISSUE_DETAILS_LENGTH),
      impact: (IMPACTS as readonly string[]).includes(issue.impact) ? issue.impact : 'low',
    }));
}

/** The newest titles of the stored clusters that receive issues, after this conversation's own (newest first). */
async function addStoredTitles(db: Db, received: WorkingCluster[], conversationId: string): Promise<void> {
  const stored = received.filter((c) => !c.created);
  if (stored.length === 0) return;
  const rows = await newestTitlesQuery(db, stored.map((c) => c.id), conversationId);
  for (const row of rows) stored.find((c) => c.id === row.clusterId)?.titles.push(row.title);
}

/** Step 4: the one write batch; whether it applied (false: a newer job superseded this one). */
async function writeAnalysis(db: Db, analyzer: ConversationAnalyzer, claim: Claim, issues: AnalysedIssue[], received: WorkingCluster[]): Promise<boolean> {
  const { conversationId, jobId, orgId } = claim;
  const now = nowIso();
  const owned = ownedBy(conversationId, jobId);
  const affected = [...new Set([...claim.previous.map((issue) => issue.clusterId), ...received.map((c) => c.id)])];
  const statements: BatchItem[] = [
    rawRun(db, sql`delete from conversation_issues where conversation_id = ${conversationId} and ${owned}`),
    ...received.map((cluster) => {
      const description = analyzer.describe(cluster.centroid, cluster.titles);
      return upsertClusterStatement(
        db,
        {
          id: cluster.id,
          orgId,
          analyzer: analyzer.name,
          label: description.label.slice(0, MAX_LABEL_LENGTH),
          icon: description.icon.slice(0, MAX_ICON_LENGTH),
          summary: markdownDocument(description.summary),
          now,
        },
        owned,
      );
    }),
    ...issues.map((issue, position) => insertIssueStatement(db, claim, issue, position, now)),
    ...(affected.length > 0 ? recomputeClustersStatements(db, affected, now, owned) : []),
    // Last: it clears the job every statement above is conditioned on.
    db
      .update(conversations)
      .set({ analysisState: 'complete', analysisJob: null, processedAt: now, impact: highestImpact(issues) })
      .where(and(eq(conversations.id, conversationId), eq(conversations.analysisJob, jobId)))
      .returning({ id: conversations.id }),
  ];
  const results = await runBatch(db, statements);
  return (results[results.length - 1] as unknown[]).length > 0;
}

function insertIssueStatement(db: Db, claim: Claim, issue: AnalysedIssue, position: number, now: string) {
  const details = markdownDocument(issue.details);
  return rawRun(
    db,
    sql`insert into conversation_issues
          (id, org_id, conversation_id, cluster_id, position, title, summary, details, impact, vector, created_at, ingested_at)
        select ${newId()}, ${claim.orgId}, ${claim.conversationId}, ${issue.clusterId}, ${position}, ${issue.title},
               ${plainTextOf(details)}, ${JSON.stringify(details)}, ${issue.impact}, ${JSON.stringify(issue.vector)}, ${claim.raisedAt}, ${now}
        where ${ownedBy(claim.conversationId, claim.jobId)}`,
  );
}

function highestImpact(issues: AnalysedIssue[]): Impact | null {
  let highest: Impact | null = null;
  for (const { impact } of issues) if (!highest || IMPACT_RANK[impact] > IMPACT_RANK[highest]) highest = impact;
  return highest;
}

type DocumentJson = { object: 'document'; data: Record<string, unknown>; nodes: unknown[] };

const textBlock = (type: 'paragraph' | 'heading-1', text: string) => ({
  object: 'block',
  type,
  ...(type === 'heading-1' ? { data: {} } : {}),
  nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }],
});

/**
 * Markdown an analyzer wrote (from what readers wrote) as a rich-text document. It is text, not a page: a
 * leading newline keeps an opening `---` from being read as YAML frontmatter, and a leading heading, which the
 * converter takes out as the page's title, is put back. Markdown that still cannot be converted (a runtime
 * limit met by hostile nesting) is kept as one paragraph of its text.
 */
export function markdownDocument(markdown: string): DocumentJson {
  try {
    const { document, title } = markdownToDocument(`\n${markdown}`);
    const nodes = title === undefined ? document.nodes : [textBlock('heading-1', title), ...document.nodes];
    return { object: 'document', data: {}, nodes };
  } catch (error) {
    if (!(error instanceof MarkdownConversionError) && !(error instanceof RangeError)) throw error;
    return { object: 'document', data: {}, nodes: markdown.trim() === '' ? [] : [textBlock('paragraph', markdown)] };
  }
}

/** The plain text of a document: its blocks' text, one per line (an issue's `summary`). */
export function plainTextOf(document: DocumentJson): string {
  return sectionsOf(document as Parameters<typeof sectionsOf>[0])
    .map((section) => [section.title, section.body].filter(Boolean).join('\n'))
    .join('\n');
}

/** Step 5: after a failure, queued again; the claim given back unless this was the message's last delivery. */
async function releaseClaim(db: Db, conversationId: string, jobId: string, attempts: number): Promise<void> {
  const keepClaim = attempts >= MAX_ANALYSIS_DELIVERIES;
  if (keepClaim) console.error(`conversation ${conversationId}: ${jobId} failed at its last delivery; its claim stays counted`);
  await db
    .update(conversations)
    .set({
      analysisState: 'pending',
      queuedAt: nowIso(),
      ...(keepClaim ? {} : { analysisAttempts: sql`max(${conversations.analysisAttempts} - 1, 0)` }),
    })
    .where(and(eq(conversations.id, conversationId), eq(conversations.analysisJob, jobId)));
}
