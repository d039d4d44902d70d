import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import worker from '../../src/index';
import { newId } from '../../src/lib/ids';
import { markdownToDocument } from '../../src/services/markdown';
import { API_SOURCE } from '../../src/services/conversations/types';
import { apiCapturingQueue } from './integrations';

export interface QueuedJob {
  id: string;
  type: string;
  payload: unknown;
}

/** A conversation input of one user message (and optional extra parts). */
export function conversation(id: string, body: string, extra: Record<string, unknown> = {}) {
  return { id, subject: `Conversation ${id}`, parts: [{ type: 'message', role: 'user', body }], ...extra };
}

/** POSTs conversations (one input or an array) with a queue that keeps the messages: the response and the messages. */
export async function ingest(orgId: string, token: string, body: unknown) {
  const { sent, ...response } = await apiCapturingQueue('POST', `/v1/orgs/${orgId}/conversations`, token, body);
  return { ...response, sent: sent as unknown as QueuedJob[] };
}

/**
 * Runs the queue consumer over these messages, as the queue delivers them (one batch; `attempts` is the
 * delivery count each message says). Answers the queue's verdict on each.
 */
export async function deliver(jobs: QueuedJob[], attempts = 1) {
  const batch = createMessageBatch<unknown>(
    'docs-platform-jobs',
    jobs.map((body, index) => ({ id: `m-${index}-${body.id}`, timestamp: new Date(), attempts, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, env as never, ctx);
  return getQueueResult(batch, ctx);
}

/** Ingests and analyses: the ingestion must answer 204; the messages are delivered once. */
export async function ingestAndAnalyze(orgId: string, token: string, body: unknown) {
  const response = await ingest(orgId, token, body);
  if (response.status !== 204) throw new Error(`ingestion answered ${response.status}: ${JSON.stringify(response.body)}`);
  await deliver(response.sent);
  return response.sent;
}

// ---------------------------------------------------------------------------------------------
// Rows written straight to D1, for tests of what the reads show (the analysis has its own tests)

const iso = (value: Date | string) => (typeof value === 'string' ? value : value.toISOString());
const document = (markdown: string) => JSON.stringify(markdownToDocument(markdown).document);

export interface SeededConversation {
  id: string;
  source: string;
  externalId: string;
  /** The analysis job the row names. */
  job: string;
}

export interface SeededPart {
  type: 'message';
  role: 'user' | 'assistant' | 'team-member';
  body: string;
}

/** A conversation row (one user message, or `parts`), analysed (`complete`) unless `state` says otherwise. */
export async function seedConversation(
  orgId: string,
  options: {
    source?: string;
    externalId?: string;
    subject?: string | null;
    body?: string;
    parts?: SeededPart[];
    url?: string | null;
    startedAt?: Date | string | null;
    state?: 'pending' | 'analysing' | 'complete';
    impact?: string | null;
    createdAt?: Date | string;
    processedAt?: Date | string | null;
    /** Claims of its job already counted (`analysis_attempts`). */
    attempts?: number;
  } = {},
): Promise<SeededConversation> {
  const id = newId();
  const job = newId();
  const source = options.source ?? API_SOURCE;
  const externalId = options.externalId ?? `ext-${id}`;
  const createdAt = iso(options.createdAt ?? new Date());
  const state = options.state ?? 'complete';
  const processedAt = options.processedAt === undefined ? (state === 'complete' ? createdAt : null) : options.processedAt && iso(options.processedAt);
  const parts = options.parts ?? [{ type: 'message', role: 'user', body: options.body ?? 'I cannot find the export button.' }];
  await env.DB.prepare(
    `insert into conversations (id, org_id, source, external_id, subject, url, attributes, started_at, parts, content_hash, impact,
       analysis_state, analysis_job, queued_at, analysis_attempts, processed_at, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, null, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
    .bind(
      id,
      orgId,
      source,
      externalId,
      options.subject === undefined ? `Subject ${externalId}` : options.subject,
      options.url ?? null,
      options.startedAt ? iso(options.startedAt) : null,
      JSON.stringify(parts),
      `hash-${id}`,
      options.impact ?? null,
      state,
      job,
      createdAt,
      options.attempts ?? 0,
      processedAt,
      createdAt,
      createdAt,
    )
    .run();
  return { id, source, externalId, job };
}

/** A cluster row; its counters and sources are whatever the test says (the analysis keeps them in real life). */
export async function seedCluster(
  orgId: string,
  options: {
    label?: string;
    muted?: boolean;
    issues?: number;
    conversations?: number;
    sources?: Record<string, number>;
    createdAt?: Date | string;
    updatedAt?: Date | string;
  } = {},
): Promise<string> {
  const id = newId();
  const createdAt = iso(options.createdAt ?? new Date());
  await env.DB.prepare(
    `insert into conversation_clusters (id, org_id, analyzer, label, icon, summary, muted, centroid, issues_count, conversations_count, sources, created_at, updated_at)
     values (?, ?, 'lexical', ?, 'bug', ?, ?, '{}', ?, ?, ?, ?, ?)`,
  )
    .bind(
      id,
      orgId,
      options.label ?? `Cluster ${id}`,
      document(`Readers report **${options.label ?? 'a problem'}**.`),
      options.muted ? 1 : 0,
      options.issues ?? 0,
      options.conversations ?? 0,
      JSON.stringify(options.sources ?? {}),
      createdAt,
      iso(options.updatedAt ?? createdAt),
    )
    .run();
  return id;
}

/** An issue of a conversation in a cluster, raised at `createdAt` (default now). */
export async function seedIssue(
  orgId: string,
  conversationId: string,
  clusterId: string,
  options: { title?: string; impact?: 'low' | 'medium' | 'high'; createdAt?: Date | string; ingestedAt?: Date | string; position?: number } = {},
): Promise<string> {
  const id = newId();
  const createdAt = iso(options.createdAt ?? new Date());
  const title = options.title ?? `Issue ${id}`;
  await env.DB.prepare(
    `insert into conversation_issues (id, org_id, conversation_id, cluster_id, position, title, summary, details, impact, vector, created_at, ingested_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, '{}', ?, ?)`,
  )
    .bind(id, orgId, conversationId, clusterId, options.position ?? 0, title, `${title}.`, document(`${title}.`), options.impact ?? 'low', createdAt, iso(options.ingestedAt ?? createdAt))
    .run();
  return id;
}
