import type { Context } from 'hono';
import type { conversationIssues, conversations } from '../../db/schema';
import type { AppBindings } from '../../env';
import { urlContext, type UrlContext } from '../../schemas/common';
import type { Conversation, ConversationIssue, ConversationMetadata, ConversationPart, ConversationsIssuesCluster } from '../../schemas/conversation';
import { IMPACTS, PULSE_WEEKS, type Impact } from '../../lib/conversations';

/** Rows of conversations, issues and clusters to their API objects (schemas/conversation). */

export type ConversationRow = typeof conversations.$inferSelect;
/** What a Conversation object shows of its row (never its parts, which may be a megabyte). */
export type ConversationSummaryRow = Pick<ConversationRow, 'id' | 'orgId' | 'source' | 'subject' | 'url' | 'createdAt' | 'processedAt' | 'impact'>;
export type IssueRow = Omit<typeof conversationIssues.$inferSelect, 'vector'>;

/**
 * A cluster as records.clusterReadQuery answers it (raw SQL: snake_case columns, JSON as text): the
 * row with what is computed when read, its tasks (change requests naming it), the pulse counts by week
 * index and the rank of its highest recent impact.
 */
export interface ClusterReadRow {
  id: string;
  org_id: string;
  label: string;
  icon: string;
  summary: string;
  muted: number;
  issues_count: number;
  conversations_count: number;
  sources: string;
  created_at: string;
  updated_at: string;
  /** `{total, backlog, started, completed, cancelled}`. */
  tasks: string;
  /** `{"<week index>": conversations}` for the weeks that have any; null when none has. */
  pulse: string | null;
  /** 1 (low) to 3 (high); null when no issue was raised in the pulse's weeks. */
  impact_rank: number | null;
  sort_key: string | number;
}

export const conversationUrls = (c: Context<AppBindings>): UrlContext => urlContext(c.req.url, c.env.APP_URL);

const orgBase = (urls: UrlContext, orgId: string) => `${urls.api}/orgs/${encodeURIComponent(orgId)}`;
export const conversationLocation = (urls: UrlContext, orgId: string, id: string) => `${orgBase(urls, orgId)}/conversations/${encodeURIComponent(id)}`;
export const issueLocation = (urls: UrlContext, orgId: string, id: string) => `${orgBase(urls, orgId)}/conversations-issues/${encodeURIComponent(id)}`;
export const clusterLocation = (urls: UrlContext, orgId: string, id: string) => `${orgBase(urls, orgId)}/conversations-clusters/${encodeURIComponent(id)}`;

const isImpact = (value: string | null): value is Impact => value !== null && (IMPACTS as readonly string[]).includes(value);

export function toConversation(row: ConversationSummaryRow, urls: UrlContext): Conversation {
  return {
    object: 'conversation',
    id: row.id,
    ...(row.subject !== null && { subject: row.subject }),
    createdAt: row.createdAt,
    ...(row.processedAt !== null && { processedAt: row.processedAt }),
    source: row.source,
    ...(isImpact(row.impact) && { impact: row.impact }),
    urls: { location: conversationLocation(urls, row.orgId, row.id), ...(row.url !== null && { source: row.url }) },
  };
}

export function toConversationMetadata(row: Pick<ConversationRow, 'url' | 'attributes' | 'startedAt'>): ConversationMetadata {
  return {
    ...(row.url !== null && { url: row.url }),
    ...(row.attributes !== null && { attributes: row.attributes }),
    ...(row.startedAt !== null && { createdAt: row.startedAt }),
  };
}

export function toConversationDetail(row: ConversationRow, urls: UrlContext) {
  return { conversation: toConversation(row, urls), parts: row.parts as ConversationPart[], metadata: toConversationMetadata(row) };
}

export function toIssue(row: IssueRow, urls: UrlContext): ConversationIssue {
  return {
    object: 'conversation-issue',
    id: row.id,
    title: row.title,
    summary: row.summary,
    details: row.details,
    impact: isImpact(row.impact) ? row.impact : 'low',
    createdAt: row.createdAt,
    ingestedAt: row.ingestedAt,
    conversation: row.conversationId,
    cluster: row.clusterId,
    urls: { location: issueLocation(urls, row.orgId, row.id) },
  };
}

/** The 13 counts of a pulse from its `{week index: count}` object (weeks without conversations are absent from it). */
export function toWeeklyPulse(counts: string | null): number[] {
  const pulse = new Array<number>(PULSE_WEEKS).fill(0);
  const byWeek = counts ? (JSON.parse(counts) as Record<string, number>) : {};
  for (const [week, n] of Object.entries(byWeek)) {
    const index = Number(week);
    if (Number.isInteger(index) && index >= 0 && index < PULSE_WEEKS) pulse[index] = n;
  }
  return pulse;
}

const parseJson = <T>(text: string): T => JSON.parse(text) as T;

export function toCluster(row: ClusterReadRow, urls: UrlContext): ConversationsIssuesCluster {
  const tasks = parseJson<Record<'total' | 'backlog' | 'started' | 'completed' | 'cancelled', number>>(row.tasks);
  return {
    object: 'issues-cluster',
    id: row.id,
    label: row.label,
    icon: row.icon,
    summary: parseJson<Record<string, unknown>>(row.summary),
    muted: row.muted === 1,
    impact: row.impact_rank ? IMPACTS[row.impact_rank - 1] : 'low',
    weeklyPulse: toWeeklyPulse(row.pulse),
    sources: parseJson<Record<string, number>>(row.sources),
    stats: {
      issues: row.issues_count,
      conversations: row.conversations_count,
      tasksTotal: tasks.total,
      tasksBacklog: tasks.backlog,
      tasksStarted: tasks.started,
      tasksCompleted: tasks.completed,
      tasksCancelled: tasks.cancelled,
    },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    urls: {
      location: clusterLocation(urls, row.org_id, row.id),
      app: `${urls.app}/o/${encodeURIComponent(row.org_id)}/conversations/clusters/${encodeURIComponent(row.id)}`,
    },
  };
}
