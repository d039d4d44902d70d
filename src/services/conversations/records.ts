import { and, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Context } from 'hono';
import { rawAll, rowsOf, runBatch, type BatchItem, type Db } from '../../db/client';
import { conversationClusters, conversationIssues, conversations, integrations, organizations } from '../../db/schema';
import type { AppBindings, Env } from '../../env';
import { ApiError, badRequest } from '../../lib/errors';
import { newId, sha256Hex } from '../../lib/ids';
import { beforeCursor, decodeCursor, type Cursor } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { DAY_MS } from '../../lib/time';
import { sendJobs } from '../../jobs/messages';
import { requireUser } from '../../middleware/auth';
import type { ConversationInput } from '../../schemas/conversation';
import { capOf, dailyCapReached, failedOnCapGuard } from '../limits/caps';
import { orgRankQuery } from '../organizations/organizations';
import { organizationPermissions } from '../../lib/permissions';
import type { ClusterReadRow, ConversationSummaryRow, IssueRow } from './presenter';
import { PULSE_WEEKS } from '../../lib/conversations';
import { API_SOURCE, CONVERSATION_ANALYZE_JOB, type ConversationAnalyzePayload } from './types';

/**
 * The records of conversations, their issues and clusters: who may read and write them, ingestion, and
 * the read queries (a cluster's pulse, impact and tasks are computed in the statement that reads it).
 *
 * Access is the organization's: its members (read and up) read everything; ingesting takes the
 * `ingestConversations` permission (admins), or an installation token with the `conversations:ingest`
 * scope (the route checks the scope and that the token's organization is this one); muting a cluster
 * takes the admin role. Guests and outsiders see nothing (404, as the organization itself).
 */

export const conversationNotFound = () => new ApiError(404, 'No matching conversation in this organization');
export const issueNotFound = () => new ApiError(404, 'No matching conversation issue in this organization');
export const clusterNotFound = () => new ApiError(404, 'No matching conversations issues cluster in this organization');
const orgNotFound = () => new ApiError(404, 'Organization not found');

// ---------------------------------------------------------------------------------------------
// Access

/** What a route needs of the caller: reading (members, read and up) or administering (mute). */
export type ConversationAccess = 'read' | 'admin';

const rankOf = (rows: unknown) => (rows as { rank: number | null }[])[0]?.rank ?? null;

export function authorizeConversations(rank: number | null, needed: ConversationAccess): void {
  if (rank === null || rank < RANK.read) throw orgNotFound();
  if (needed === 'admin' && rank < RANK.admin) {
    throw new ApiError(403, "You do not have permission to change this organization's conversations issues clusters (it takes the admin role)");
  }
}

/**
 * Authorizes the caller for `needed` and answers the results of `extra` statements, read in the same
 * batch as the caller's role: one round trip. Nothing read is shown before the check passed.
 */
export async function loadWithAccess<E extends unknown[]>(c: Context<AppBindings>, orgId: string, needed: ConversationAccess, extra: BatchItem[] = []): Promise<E> {
  const userId = requireUser(c);
  const db = c.get('db');
  const [rankRows, ...rest] = (await runBatch(db, [orgRankQuery(db, orgId, userId), ...extra])) as unknown[];
  authorizeConversations(rankOf(rankRows), needed);
  return rest as E;
}

/** The UTC day of `now`, as `organizations.conversations_day` stores it. */
const utcDay = (now: Date) => now.toISOString().slice(0, 10);

/**
 * The source the caller ingests as, once allowed: `integration:<name>:<installation>` for an installation
 * token (its bot reads as a member of its installation's organization while the installation is active),
 * else `api` for a member with `ingestConversations`. Then the organization's conversations of the day
 * (MAX_CONVERSATIONS_PER_DAY): `adding` more past the cap refuse the whole request (429 until 00:00 UTC).
 * One round trip (the role with the day's count, and the integration's name).
 */
export async function authorizeIngestion(c: Context<AppBindings>, orgId: string, adding: number, now: Date): Promise<string> {
  const userId = requireUser(c);
  const actor = c.get('actor');
  const db = c.get('db');
  const installation = actor.kind === 'installation' ? actor.grant : null;
  const [accessRows, nameRows] = (await runBatch(db, [
    // The caller's rank with the organization's conversations of the day: the one read ingestion authorizes with.
    orgRankQuery(db, orgId, userId, { day: organizations.conversationsDay, today: organizations.conversationsToday }),
    ...(installation ? [db.select({ name: integrations.name }).from(integrations).where(eq(integrations.id, installation.integrationId)).limit(1)] : []),
  ])) as unknown[];
  const access = (accessRows as Array<{ rank: number | null; day: string | null; today: number }>)[0];
  const rank = access?.rank ?? null;
  if (rank === null || rank < RANK.read) throw orgNotFound();
  let source = API_SOURCE;
  if (installation) {
    const name = (nameRows as { name: string }[])[0]?.name;
    if (!name) throw orgNotFound();
    source = `integration:${name}:${installation.installationId}`;
  } else if (!organizationPermissions(rank).ingestConversations) {
    throw new ApiError(403, 'You do not have permission to ingest conversations in this organization (it takes the ingestConversations permission: the admin role)');
  }
  const cap = capOf(c.env, 'conversationsPerDay');
  // A request larger than a whole day's cap would never pass: waiting for tomorrow would not help.
  if (adding > cap) throw badRequest(`This request holds ${adding} conversations; an organization ingests at most ${cap} per day (MAX_CONVERSATIONS_PER_DAY)`);
  const today = access.day === utcDay(now) ? access.today : 0;
  if (today + adding > cap) throw dailyCapReached(c.env, now);
  return source;
}

// ---------------------------------------------------------------------------------------------
// Ingestion

type NewConversation = typeof conversations.$inferInsert;

/**
 * What decides whether a conversation changed: its subject, parts and metadata in a fixed order (the
 * attributes sorted by name), so that the same content always hashes the same.
 */
export function canonicalContent(input: ConversationInput, startedAt: string | null): string {
  const attributes = input.metadata?.attributes;
  return JSON.stringify([
    input.subject ?? null,
    input.parts.map((part) => [part.type, part.role, part.body]),
    input.metadata?.url ?? null,
    attributes ? Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : null,
    startedAt,
  ]);
}

/** The row an input makes (a new id and job, used only when the conversation is new or changed). */
async function conversationValues(input: ConversationInput, orgId: string, source: string, now: string): Promise<NewConversation> {
  // Stored in UTC, as every time of this API: the pulse compares them as strings.
  const startedAt = input.metadata?.createdAt === undefined ? null : new Date(input.metadata.createdAt).toISOString();
  return {
    id: newId(),
    orgId,
    source,
    externalId: input.id,
    subject: input.subject ?? null,
    url: input.metadata?.url ?? null,
    attributes: input.metadata?.attributes ?? null,
    startedAt,
    parts: input.parts,
    contentHash: await sha256Hex(canonicalContent(input, startedAt)),
    impact: null,
    analysisState: 'pending',
    analysisJob: newId(),
    queuedAt: now,
    analysisAttempts: 0,
    processedAt: null,
    createdAt: now,
    updatedAt: now,
  };
}

const sameContent = sql`${conversations.contentHash} = excluded.content_hash`;
/** Keeps the row's value when the content is unchanged, else takes the new one. */
const keepIfSame = (column: SQLiteColumn, changed: SQL) => sql`case when ${sameContent} then ${column} else ${changed} end`;

/**
 * Inserts a conversation, or updates the one of the same `(org, source, id)`. A changed content names the
 * new analysis job and goes back to `pending` (its `processed_at` and issues stay until that analysis
 * completes); an unchanged one is left as it is (a job still pending only counts its wait from now).
 */
function upsertConversation(db: Db, values: NewConversation) {
  return db
    .insert(conversations)
    .values(values)
    .onConflictDoUpdate({
      target: [conversations.orgId, conversations.source, conversations.externalId],
      set: {
        subject: keepIfSame(conversations.subject, sql`excluded.subject`),
        url: keepIfSame(conversations.url, sql`excluded.url`),
        attributes: keepIfSame(conversations.attributes, sql`excluded.attributes`),
        startedAt: keepIfSame(conversations.startedAt, sql`excluded.started_at`),
        parts: keepIfSame(conversations.parts, sql`excluded.parts`),
        contentHash: sql`excluded.content_hash`,
        analysisJob: keepIfSame(conversations.analysisJob, sql`excluded.analysis_job`),
        analysisState: keepIfSame(conversations.analysisState, sql`'pending'`),
        analysisAttempts: keepIfSame(conversations.analysisAttempts, sql`0`),
        // The message is sent again: a job still waiting counts from now for the cron's re-send.
        queuedAt: sql`case when ${sameContent} and ${conversations.analysisState} <> 'pending' then ${conversations.queuedAt} else excluded.queued_at end`,
        updatedAt: keepIfSame(conversations.updatedAt, sql`excluded.updated_at`),
      },
    })
    .returning({ id: conversations.id, analysisJob: conversations.analysisJob });
}

/**
 * Counts `adding` conversations on `now`'s UTC day, starting again from them when the stored day is another.
 * Past the cap it writes null, which the column's NOT NULL refuses: the ingestion's batch (one transaction)
 * fails and nothing is stored, so two ingestions racing past the cap cannot both pass the check on the read.
 */
function countConversationsStatement(env: Env, db: Db, orgId: string, adding: number, now: Date) {
  const day = utcDay(now);
  const counted = sql`(case when ${organizations.conversationsDay} = ${day} then ${organizations.conversationsToday} + ${adding} else ${adding} end)`;
  return db
    .update(organizations)
    .set({
      conversationsToday: sql`case when ${counted} <= ${capOf(env, 'conversationsPerDay')} then ${counted} else null end`,
      conversationsDay: day,
    })
    .where(eq(organizations.id, orgId));
}

export interface AnalyzeMessage {
  id: string;
  type: typeof CONVERSATION_ANALYZE_JOB;
  payload: ConversationAnalyzePayload;
}

/**
 * Stores the conversations and counts them in the organization's day (one batch: one round trip, one
 * transaction; every input counts, an unchanged one too) and sends one analysis message per conversation,
 * naming the job its row names (for an unchanged conversation, its current or last job: the consumer does
 * nothing for a job already done). Answers the messages sent. Past the day's cap nothing is stored or sent (429).
 */
export async function storeConversations(env: Env, db: Db, orgId: string, source: string, inputs: ConversationInput[], now = new Date()): Promise<AnalyzeMessage[]> {
  const stamp = now.toISOString();
  const values = await Promise.all(inputs.map((input) => conversationValues(input, orgId, source, stamp)));
  let written: unknown[];
  try {
    written = await runBatch(db, [countConversationsStatement(env, db, orgId, inputs.length, now), ...values.map((row) => upsertConversation(db, row))]);
  } catch (error) {
    if (failedOnCapGuard(error, 'organizations.conversations_today')) throw dailyCapReached(env, now);
    throw error;
  }
  const results = written.slice(1) as Array<{ id: string; analysisJob: string | null }[]>;
  const messages = results.map(([row]): AnalyzeMessage => ({
    // A row without a job has nothing outstanding: a fresh id names a message the consumer ignores.
    id: row.analysisJob ?? newId(),
    type: CONVERSATION_ANALYZE_JOB,
    payload: { conversationId: row.id },
  }));
  await enqueueAnalyses(env, messages);
  return messages;
}

/** A failed send is logged, not thrown: the rows stay `pending` with their jobs named, and the cron sends them again. */
function enqueueAnalyses(env: Env, messages: AnalyzeMessage[]): Promise<void> {
  return sendJobs(env, messages, 'conversations: analysis');
}

// ---------------------------------------------------------------------------------------------
// Reads

/** A page cursor of this list: its sort value must be of the sort's kind (a time, or a count). */
export function listCursor(page: string | undefined, kind: 'text' | 'count'): Cursor | null {
  const cursor = decodeCursor(page);
  if (cursor && (kind === 'text' ? typeof cursor[0] !== 'string' : !Number.isSafeInteger(cursor[0]))) {
    throw badRequest('Invalid page: not a cursor returned by this list');
  }
  return cursor;
}

const summaryColumns = {
  id: conversations.id,
  orgId: conversations.orgId,
  source: conversations.source,
  subject: conversations.subject,
  url: conversations.url,
  createdAt: conversations.createdAt,
  processedAt: conversations.processedAt,
  impact: conversations.impact,
};

function conversationFilter(orgId: string, source: string | undefined): SQL {
  return and(eq(conversations.orgId, orgId), source === undefined ? undefined : eq(conversations.source, source))!;
}

/** A page of the organization's conversations, newest first (`limit + 1` rows: the extra one says a next page exists). */
export function conversationPageQuery(db: Db, orgId: string, source: string | undefined, cursor: Cursor | null, limit: number) {
  return db
    .select(summaryColumns)
    .from(conversations)
    .where(and(conversationFilter(orgId, source), beforeCursor(cursor, conversations.createdAt, conversations.id)))
    .orderBy(desc(conversations.createdAt), desc(conversations.id))
    .limit(limit + 1);
}

export function conversationCountQuery(db: Db, orgId: string, source: string | undefined) {
  return db.select({ total: count() }).from(conversations).where(conversationFilter(orgId, source));
}

export function conversationQuery(db: Db, orgId: string, conversationId: string) {
  return db
    .select()
    .from(conversations)
    .where(and(eq(conversations.orgId, orgId), eq(conversations.id, conversationId)))
    .limit(1);
}

/** An issue with the conversation it belongs to; the conversation's columns that an issue also has are aliased (a D1 batch keys rows by column name). */
export interface IssueWithConversationRow {
  issue: IssueRow;
  conversation: ConversationSummaryRow;
}

const issueSelection = {
  issue: {
    id: conversationIssues.id,
    orgId: conversationIssues.orgId,
    conversationId: conversationIssues.conversationId,
    clusterId: conversationIssues.clusterId,
    position: conversationIssues.position,
    title: conversationIssues.title,
    summary: conversationIssues.summary,
    details: conversationIssues.details,
    impact: conversationIssues.impact,
    createdAt: conversationIssues.createdAt,
    ingestedAt: conversationIssues.ingestedAt,
  },
  conversation: {
    id: sql<string>`${conversations.id}`.as('conversation_id_'),
    orgId: sql<string>`${conversations.orgId}`.as('conversation_org_id'),
    source: conversations.source,
    subject: conversations.subject,
    url: conversations.url,
    createdAt: sql<string>`${conversations.createdAt}`.as('conversation_created_at'),
    processedAt: conversations.processedAt,
    impact: sql<string | null>`${conversations.impact}`.as('conversation_impact'),
  },
};

export interface IssueFilters {
  cluster?: string;
  conversation?: string;
}

function issueFilter(orgId: string, filters: IssueFilters): SQL {
  return and(
    eq(conversationIssues.orgId, orgId),
    filters.cluster === undefined ? undefined : eq(conversationIssues.clusterId, filters.cluster),
    filters.conversation === undefined ? undefined : eq(conversationIssues.conversationId, filters.conversation),
  )!;
}

function issuesWithConversations(db: Db, where: SQL) {
  return db.select(issueSelection).from(conversationIssues).innerJoin(conversations, eq(conversations.id, conversationIssues.conversationId)).where(where);
}

/** A page of the organization's issues with their conversations (one joined statement), most recently found first. */
export function issuePageQuery(db: Db, orgId: string, filters: IssueFilters, cursor: Cursor | null, limit: number) {
  return issuesWithConversations(db, and(issueFilter(orgId, filters), beforeCursor(cursor, conversationIssues.ingestedAt, conversationIssues.id))!)
    .orderBy(desc(conversationIssues.ingestedAt), desc(conversationIssues.id))
    .limit(limit + 1);
}

export function issueCountQuery(db: Db, orgId: string, filters: IssueFilters) {
  return db.select({ total: count() }).from(conversationIssues).where(issueFilter(orgId, filters));
}

export function issueQuery(db: Db, orgId: string, issueId: string) {
  return issuesWithConversations(db, and(eq(conversationIssues.orgId, orgId), eq(conversationIssues.id, issueId))!).limit(1);
}

// ---------------------------------------------------------------------------------------------
// Clusters: pulse, impact and tasks, computed when read

export const WEEK_MS = 7 * DAY_MS;
/** In the SQL text, not bound: D1 binds numbers as reals, and the week index is an integer division. */
const WEEK_SECONDS = sql.raw(String(WEEK_MS / 1000));

/** The weeks of a pulse at `now`: from Monday 00:00 UTC twelve weeks before the current week's, up to `now` (later issues are not counted). */
export function pulseWindow(now: Date): { start: string; startSeconds: number; end: string } {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  const sinceMonday = (new Date(today).getUTCDay() + 6) % 7;
  const start = today - sinceMonday * DAY_MS - (PULSE_WEEKS - 1) * WEEK_MS;
  return { start: new Date(start).toISOString(), startSeconds: start / 1000, end: now.toISOString() };
}

/**
 * The index in `weeklyPulse` (0 the oldest week, 12 the current one) of an issue raised at `at`, or
 * undefined outside the window. The cluster read counts the same way in SQL (clusterReadQuery).
 */
export function pulseWeekIndex(at: string, now: Date): number | undefined {
  const start = Date.parse(pulseWindow(now).start);
  const time = Date.parse(at);
  if (!(time >= start) || time > now.getTime()) return undefined;
  return Math.floor((time - start) / WEEK_MS);
}

export const CLUSTER_ORDER_BY = ['updatedAt', 'createdAt', 'issues', 'conversations', 'tasksTotal', 'tasksBacklog', 'tasksStarted'] as const;
export type ClusterOrderBy = (typeof CLUSTER_ORDER_BY)[number];
export const CLUSTER_STATUSES = ['pending', 'analysing'] as const;
export type ClusterStatus = (typeof CLUSTER_STATUSES)[number];

/** The sort value of each order, over the columns of the clusters' subquery `c`. */
const SORT_KEYS: Record<ClusterOrderBy, SQL> = {
  updatedAt: sql`c.updated_at`,
  createdAt: sql`c.created_at`,
  issues: sql`c.issues_count`,
  conversations: sql`c.conversations_count`,
  tasksTotal: sql`json_extract(c.tasks, '$.total')`,
  tasksBacklog: sql`json_extract(c.tasks, '$.backlog')`,
  tasksStarted: sql`json_extract(c.tasks, '$.started')`,
};

export const clusterSortKind = (orderBy: ClusterOrderBy): 'text' | 'count' => (orderBy === 'updatedAt' || orderBy === 'createdAt' ? 'text' : 'count');

/** The change requests naming a cluster (in live spaces of its organization), by status, as one JSON object. */
const TASKS = sql`(select json_object(
    'total', count(*),
    'backlog', coalesce(sum(cr.status = 'draft'), 0),
    'started', coalesce(sum(cr.status = 'open'), 0),
    'completed', coalesce(sum(cr.status = 'merged'), 0),
    'cancelled', coalesce(sum(cr.status = 'archived'), 0))
  from change_requests cr join spaces s on s.id = cr.space_id
  where cr.conversations_issues_cluster = cl.id and s.org_id = cl.org_id and s.deleted_at is null)`;

/** A cluster is `pending` (or `analysing`) while one of its conversations is waiting for (or in) a new analysis. */
const statusFilter = (status: ClusterStatus | undefined) =>
  status === undefined
    ? sql``
    : sql` and exists (select 1 from conversation_issues si join conversations sc on sc.id = si.conversation_id
        where si.cluster_id = cl.id and sc.analysis_state = ${status})`;

export interface ClusterReadOptions {
  clusterId?: string;
  status?: ClusterStatus;
  orderBy: ClusterOrderBy;
  order: 'asc' | 'desc';
  cursor: Cursor | null;
  /** Rows answered (a list asks one more than its page). */
  limit: number;
}

/**
 * Clusters of an organization with everything their objects show, in one statement: the sort value
 * (a column, or a count of tasks) in a subquery so that the keyset cursor and the order apply to it, then
 * for the page's rows only the pulse (distinct conversations per week index, bucketed as pulseWeekIndex
 * does) and the rank of the highest impact raised in the pulse's weeks.
 */
export function clusterReadQuery(db: Db, orgId: string, options: ClusterReadOptions, now: Date) {
  const window = pulseWindow(now);
  const direction = options.order === 'asc' ? sql.raw('asc') : sql.raw('desc');
  const beyond = options.order === 'asc' ? sql.raw('>') : sql.raw('<');
  const after = options.cursor
    ? sql` and (sort_key ${beyond} ${options.cursor[0]} or (sort_key = ${options.cursor[0]} and id ${beyond} ${options.cursor[1]}))`
    : sql``;
  const byId = options.clusterId === undefined ? sql`` : sql` and cl.id = ${options.clusterId}`;
  return rawAll<ClusterReadRow>(
    db,
    sql`with page as (
      select * from (
        select c.*, ${SORT_KEYS[options.orderBy]} as sort_key from (
          select cl.id, cl.org_id, cl.label, cl.icon, cl.summary, cl.muted, cl.issues_count, cl.conversations_count, cl.sources,
            cl.created_at, cl.updated_at, ${TASKS} as tasks
          from conversation_clusters cl
          where cl.org_id = ${orgId}${byId}${statusFilter(options.status)}
        ) c
      ) where 1${after}
      order by sort_key ${direction}, id ${direction}
      limit ${options.limit}
    )
    select page.*,
      (select json_group_object(week, n) from (
        select (cast(strftime('%s', i.created_at) as integer) - cast(${window.startSeconds} as integer)) / ${WEEK_SECONDS} as week,
          count(distinct i.conversation_id) as n
        from conversation_issues i
        where i.cluster_id = page.id and i.created_at >= ${window.start} and i.created_at <= ${window.end}
        group by week)) as pulse,
      (select max(case i.impact when 'high' then 3 when 'medium' then 2 when 'low' then 1 end)
        from conversation_issues i
        where i.cluster_id = page.id and i.created_at >= ${window.start} and i.created_at <= ${window.end}) as impact_rank
    from page
    order by sort_key ${direction}, id ${direction}`,
  );
}

export function clusterCountQuery(db: Db, orgId: string, status: ClusterStatus | undefined) {
  return rawAll<{ total: number }>(db, sql`select count(*) as total from conversation_clusters cl where cl.org_id = ${orgId}${statusFilter(status)}`);
}

/** One cluster of the organization, as clusterReadQuery reads it. */
export function oneClusterQuery(db: Db, orgId: string, clusterId: string, now: Date) {
  return clusterReadQuery(db, orgId, { clusterId, orderBy: 'updatedAt', order: 'desc', cursor: null, limit: 1 }, now);
}

export const clusterRows = (result: unknown) => rowsOf<ClusterReadRow>(result);

/**
 * Mutes or unmutes a cluster, then reads it: one round trip. Its `updatedAt` stays: it tells when its issues
 * last changed, which is what the default order of the list follows.
 */
export async function setClusterMuted(db: Db, orgId: string, clusterId: string, muted: boolean, now: Date): Promise<ClusterReadRow | undefined> {
  const [, read] = await db.batch([
    db
      .update(conversationClusters)
      .set({ muted })
      .where(and(eq(conversationClusters.orgId, orgId), eq(conversationClusters.id, clusterId))),
    oneClusterQuery(db, orgId, clusterId, now),
  ]);
  return clusterRows(read)[0];
}

// ---------------------------------------------------------------------------------------------
// Change requests naming a cluster

/** The cluster a new change request of this space names, if it is one of the space's organization. */
export function clusterOfSpaceQuery(db: Db, spaceId: string, clusterId: string) {
  return db
    .select({ id: conversationClusters.id, muted: conversationClusters.muted })
    .from(conversationClusters)
    .where(and(eq(conversationClusters.id, clusterId), sql`${conversationClusters.orgId} = (select s.org_id from spaces s where s.id = ${spaceId})`))
    .limit(1);
}

/** A change request may name a cluster of its space's organization (else 400) that is not muted (else 409). */
export function checkClusterForChangeRequest(rows: unknown, clusterId: string): void {
  const cluster = (rows as { id: string; muted: boolean }[])[0];
  if (!cluster) throw badRequest(`conversationsIssuesCluster: no conversations issues cluster "${clusterId}" in the space's organization`);
  if (cluster.muted) throw new ApiError(409, `conversationsIssuesCluster: the cluster "${clusterId}" is muted for change request creation`);
}
