/**
 * Shared vocabulary of conversations: their body limit, the analyzer seam, and the queue message that
 * analyses a conversation. The limits of an ingested conversation are its schema's (schemas/conversation);
 * impacts and the weeks of the pulse are lib/conversations'.
 *
 * Ingestion (routes/conversations/conversations.ts) stores conversations and sends one
 * `conversation-analyze` message per conversation; the consumer (jobs/conversation-analyze.ts) asks the
 * configured analyzer for the conversation's issues and their vectors, and assigns each issue to the most
 * similar cluster of the organization, or to a new one (services/conversations/analysis.ts).
 */

import type { ConversationPartRow } from '../../db/schema/conversations';
import type { Impact } from '../../lib/conversations';

/** Body limit of an ingestion request, in bytes (app.ts). */
export const CONVERSATIONS_BODY_LIMIT = 4 * 1024 * 1024;
/** POST `/v1/orgs/{organizationId}/conversations`: the body that gets CONVERSATIONS_BODY_LIMIT instead of the API's default. */
export const CONVERSATIONS_BODY_PATH = /^\/v1\/orgs\/[^/]+\/conversations\/?$/;
/** Most issues one conversation yields; the analyzer's extra candidates are dropped. */
export const MAX_ISSUES_PER_CONVERSATION = 10;

export const IMPACT_RANK: Record<Impact, number> = { low: 1, medium: 2, high: 3 };

/** The queue message that analyses a conversation's current content (its id is the conversation's `analysis_job`). */
export const CONVERSATION_ANALYZE_JOB = 'conversation-analyze';
export interface ConversationAnalyzePayload {
  conversationId: string;
}

/**
 * How long a claim of an analysis holds (`queued_at` of an `analysing` conversation): another delivery of the
 * same job within it leaves the analysis to the consumer at it; after it, that consumer is taken for dead
 * (killed by the Worker's limits) and the job may be claimed again, by a redelivery or the cron's re-send. A
 * queue consumer's invocation lasts at most 15 minutes.
 */
export const ANALYSIS_LEASE_MS = 15 * 60 * 1000;

/** Where a conversation came from when no integration ingested it. */
export const API_SOURCE = 'api';

/** What an analyzer reads of a conversation. */
export interface ConversationText {
  subject: string | null;
  parts: ConversationPartRow[];
}

/** A problem the analyzer found in a conversation. */
export interface ExtractedIssue {
  /** One line, at most 200 characters. */
  title: string;
  /** What the reader described, in Markdown (the issue's `details` document; its plain text is the issue's `summary`). */
  details: string;
  impact: Impact;
}

/** A vector as component → weight (term weights, or an embedding's components by index). */
export type Vector = Record<string, number>;

/** A cluster as the analyzer compares issues with it. */
export interface ClusterCandidate {
  id: string;
  /** The sum of its issues' vectors. */
  centroid: Vector;
  issues: number;
}

/** Finds the cluster most similar to a vector among the ones the matcher was made with. */
export type ClusterMatcher = (vector: Vector) => { cluster: ClusterCandidate; score: number } | undefined;

/** How a cluster presents itself: derived from its centroid and the titles of its newest issues. */
export interface ClusterDescription {
  /** At most 100 characters. */
  label: string;
  /** An icon name (GitBook's `Icon`: at most 50 characters). */
  icon: string;
  /** Markdown of the cluster's `summary` document. */
  summary: string;
}

/**
 * Finds issues in conversations and says which are alike. Two implementations: the deterministic
 * lexical analyzer (services/conversations/lexical.ts), and Workers AI when the `AI` binding is
 * configured (services/conversations/workers-ai.ts).
 */
export interface ConversationAnalyzer {
  /** Stored with each cluster: vectors of different analyzers are never compared. */
  readonly name: string;
  /** The least similarity (0 to 1) at which an issue joins an existing cluster instead of starting one. */
  readonly threshold: number;
  /** The conversation's issues (none when no user message describes a problem); throws on a failure of the model. */
  extract(conversation: ConversationText): Promise<ExtractedIssue[]>;
  /** One vector per issue, in order. */
  vectorize(issues: ExtractedIssue[]): Promise<Vector[]>;
  /** A matcher over these clusters (the lexical analyzer weighs terms by how few of them have each). */
  matcher(clusters: ClusterCandidate[]): ClusterMatcher;
  /** Label, icon and summary of a cluster with this centroid and these issue titles (newest first). */
  describe(centroid: Vector, titles: string[]): ClusterDescription;
}
