import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { organizations } from './organizations';

/**
 * A support conversation ingested into an organization (routes/conversations), identified by the
 * caller's id within its `source` (`api`, or `integration:<integration>:<installation>`): ingesting the
 * same `(source, external_id)` again updates the row instead of adding one.
 *
 * `analysis_job` names the one queue message that is to analyse the current content (null when
 * nothing is outstanding), as `openapi_specs.processing_job` does: an ingestion that changes the content
 * (`content_hash`) names a new job and sets `analysis_state` back to `pending`; the consumer works only for
 * the job the row still names, so a redelivered or superseded message changes nothing.
 */
export const conversations = sqliteTable(
  'conversations',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    source: text('source').notNull(),
    externalId: text('external_id').notNull(),
    subject: text('subject'),
    /** `metadata.url`: where the conversation is in its source. */
    url: text('url'),
    attributes: text('attributes', { mode: 'json' }).$type<Record<string, string>>(),
    /** `metadata.createdAt`: when the conversation took place (its week in the clusters' pulse), else null. */
    startedAt: text('started_at'),
    parts: text('parts', { mode: 'json' }).notNull().$type<ConversationPartRow[]>(),
    contentHash: text('content_hash').notNull(),
    /** The highest impact of its issues, once analysed (null: none found, or not analysed yet). */
    impact: text('impact'),
    /** `pending` (queued), `analysing` (a consumer is at it), `complete`. */
    analysisState: text('analysis_state').notNull().default('pending'),
    analysisJob: text('analysis_job'),
    /** When the job was last sent or claimed (jobs/cron sends it again once this is 15 minutes old). */
    queuedAt: text('queued_at'),
    analysisAttempts: integer('analysis_attempts').notNull().default(0),
    processedAt: text('processed_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('conversations_source_id').on(t.orgId, t.source, t.externalId),
    index('conversations_org').on(t.orgId, t.createdAt, t.id),
    index('conversations_org_source').on(t.orgId, t.source, t.createdAt, t.id),
    index('conversations_requeue').on(t.analysisState, t.queuedAt),
  ],
);

export interface ConversationPartRow {
  type: 'message';
  role: 'user' | 'assistant' | 'team-member';
  body: string;
}

/**
 * A group of similar issues. Its counters, sources and centroid are recomputed from its issues by every
 * analysis that adds or removes one of them (services/conversations/clusters), so a replayed analysis
 * leaves them the same; `weeklyPulse` and `impact` depend on the clock and are computed when read.
 *
 * `analyzer` names the analyzer whose vectors `centroid` holds (`lexical` term weights, or `workers-ai`
 * embedding components): issues are only compared with clusters of the analyzer that vectorized them.
 */
export const conversationClusters = sqliteTable(
  'conversation_clusters',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    analyzer: text('analyzer').notNull(),
    label: text('label').notNull(),
    icon: text('icon').notNull(),
    summary: text('summary', { mode: 'json' }).notNull().$type<Record<string, unknown>>(),
    muted: integer('muted', { mode: 'boolean' }).notNull().default(false),
    /** Sum of its issues' vectors, as an object of component → weight. */
    centroid: text('centroid', { mode: 'json' }).notNull().$type<Record<string, number>>(),
    issuesCount: integer('issues_count').notNull().default(0),
    conversationsCount: integer('conversations_count').notNull().default(0),
    /** Issues per conversation source. */
    sources: text('sources', { mode: 'json' }).notNull().$type<Record<string, number>>(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    index('conversation_clusters_org_updated').on(t.orgId, t.updatedAt, t.id),
    index('conversation_clusters_org_created').on(t.orgId, t.createdAt, t.id),
    index('conversation_clusters_org_issues').on(t.orgId, t.issuesCount, t.id),
    index('conversation_clusters_org_conversations').on(t.orgId, t.conversationsCount, t.id),
  ],
);

/**
 * An issue found in a conversation by the analyzer, in one cluster. Re-analysing a conversation replaces
 * all of its issues (`position` orders them within it). `vector` is what the analyzer compared.
 */
export const conversationIssues = sqliteTable(
  'conversation_issues',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    conversationId: text('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    clusterId: text('cluster_id').notNull(),
    position: integer('position').notNull(),
    title: text('title').notNull(),
    /** Plain text of `details` (GitBook's `summary` of an issue). */
    summary: text('summary').notNull(),
    details: text('details', { mode: 'json' }).notNull().$type<Record<string, unknown>>(),
    impact: text('impact').notNull(),
    vector: text('vector', { mode: 'json' }).notNull().$type<Record<string, number>>(),
    /** When the problem was raised: the conversation's `metadata.createdAt`, else its ingestion. */
    createdAt: text('created_at').notNull(),
    /** When this analysis found it. */
    ingestedAt: text('ingested_at').notNull(),
  },
  (t) => [
    index('conversation_issues_org').on(t.orgId, t.ingestedAt, t.id),
    index('conversation_issues_cluster').on(t.clusterId, t.createdAt),
    index('conversation_issues_conversation').on(t.conversationId, t.position),
  ],
);
