import { sql, type SQL } from 'drizzle-orm';
import { rawAll, rawRun, type Db } from '../../db/client';
import { newId } from '../../lib/ids';
import { LEXICAL_ANALYZER } from './lexical';
import type { ClusterCandidate, ConversationAnalyzer, Vector } from './types';

/**
 * Cluster maintenance for the analysis of a conversation (services/conversations/analysis.ts): which
 * clusters an issue is compared with, the greedy assignment of a conversation's issues to them (in memory),
 * and the set-based statements that bring the clusters' counters, sources and centroids back in line with
 * their issues.
 *
 * The stored counters are never incremented: every analysis that adds or removes issues of a cluster
 * recomputes that cluster from its issues, in SQL, in the transaction that changed them. So a replayed or
 * concurrent analysis cannot make them drift: whatever order the transactions commit in, each leaves its
 * clusters exactly as their issues say.
 */

/** Clusters an issue is compared with at most: the organization's most recently active ones of the analyzer. */
export const MAX_CANDIDATE_CLUSTERS = 500;

/**
 * Components a centroid keeps per analyzer, the heaviest first. The lexical analyzer's vocabulary grows with
 * every issue, so its centroids keep their 64 heaviest terms (what makes a cluster recognisable) and a row
 * stays small however many issues the cluster has; an embedding has a fixed number of components, all kept.
 */
export const CENTROID_TERMS: Readonly<Record<string, number>> = { [LEXICAL_ANALYZER]: 64 };

/** Titles of a cluster `describe` is given at most (newest first). */
export const DESCRIBE_TITLES = 5;

/** A weight this small left by subtracting vectors is rounding noise: the component is gone. */
const EPSILON = 1e-9;

/**
 * A vector to add into: without a prototype, since components are whatever terms readers wrote (`constructor`,
 * `__proto__`) and must read and write as plain keys.
 */
export function emptyVector(from: Vector = {}): Vector {
  return Object.assign(Object.create(null) as Vector, from);
}

/** A cluster during one analysis: a stored one (its centroid as read) or one this analysis creates. */
export interface WorkingCluster extends ClusterCandidate {
  /** Created by this analysis (not stored yet). */
  created: boolean;
  /** Titles of this conversation's issues assigned to it, in order. */
  titles: string[];
}

/** An issue of the conversation as stored before this analysis (excluded from the centroids it is in). */
export interface StoredIssue {
  clusterId: string;
  vector: Vector;
}

/**
 * Adds `sign` × `vector` into `target`, dropping components that end at (about) zero. Subtracting skips the
 * components `target` lacks: a stored centroid may keep only its heaviest terms (CENTROID_TERMS), and what it
 * does keep is the exact sum of its issues' weights, so nothing a member's vector holds goes below zero there.
 */
export function addVector(target: Vector, vector: Vector, sign: 1 | -1 = 1): void {
  for (const [key, weight] of Object.entries(vector)) {
    const present = Object.hasOwn(target, key);
    if (typeof weight !== 'number' || !Number.isFinite(weight) || (sign < 0 && !present)) continue;
    const sum = (present ? target[key] : 0) + sign * weight;
    if (Math.abs(sum) <= EPSILON) delete target[key];
    else target[key] = sum;
  }
}

/** The clusters an analysis compares issues with. */
export interface Candidates {
  /** Stored clusters (without this conversation's previous issues), then the ones this analysis creates. */
  live: WorkingCluster[];
  /**
   * Stored clusters that held only this conversation's previous issues, with the centroid they had: no
   * candidate for similarity (without those issues they are empty), but an issue that would start a new cluster
   * takes one of them back when it is as similar to what it was as it would have to be to join it. A
   * conversation re-ingested as it grows (a support tool sends it again with each new message) so keeps its
   * cluster, its id, `muted` flag and the change requests naming it, instead of trading it for a new one.
   */
  dormant: WorkingCluster[];
}

/**
 * The stored clusters as candidates, without this conversation's previous issues: a re-analysed conversation
 * must not be drawn to the clusters it was in by its own old vectors. A cluster that held only those issues is
 * dormant (see Candidates); unless an issue takes it back, it is left empty and the recompute deletes it.
 */
export function workingClusters(stored: Array<{ id: string; centroid: Vector; issuesCount: number }>, previous: StoredIssue[]): Candidates {
  const byId = new Map(stored.map((c) => [c.id, { id: c.id, centroid: emptyVector(c.centroid), issues: c.issuesCount, created: false, titles: [] as string[] }]));
  const dormant = new Map<string, WorkingCluster>();
  for (const issue of previous) {
    const cluster = byId.get(issue.clusterId);
    if (!cluster) continue;
    if (!dormant.has(cluster.id)) dormant.set(cluster.id, { ...cluster, centroid: emptyVector(cluster.centroid) });
    addVector(cluster.centroid, issue.vector, -1);
    cluster.issues--;
  }
  const live = [...byId.values()].filter((c) => c.issues > 0);
  return { live, dormant: [...dormant.values()].filter((c) => !live.some((l) => l.id === c.id)) };
}

/** The cluster most similar to `vector` among `clusters`, when the similarity reaches the analyzer's threshold. */
function closest(analyzer: ConversationAnalyzer, clusters: WorkingCluster[], vector: Vector): WorkingCluster | undefined {
  if (clusters.length === 0) return undefined;
  // A matcher per call: it may precompute from the centroids (term rarity), which the last issue changed.
  const best = analyzer.matcher(clusters)(vector);
  return best && best.score >= analyzer.threshold ? clusters.find((c) => c.id === best.cluster.id) : undefined;
}

/**
 * Assigns each issue (its vector and title, in order) to the most similar cluster when the similarity reaches
 * the analyzer's threshold, else to a dormant cluster it resembles as much (taken back), else to a new cluster;
 * either way the vector joins the cluster's centroid at once, so a second issue of the same conversation is
 * compared with what the first one changed (and can join the cluster it started). Answers the cluster id of
 * each issue; `candidates` is updated in place (a cluster taken back or created joins `live`).
 */
export function assignIssues(analyzer: ConversationAnalyzer, candidates: Candidates, issues: Array<{ vector: Vector; title: string }>): string[] {
  const assigned: string[] = [];
  for (const issue of issues) {
    let cluster = closest(analyzer, candidates.live, issue.vector);
    if (!cluster) {
      const revived = closest(analyzer, candidates.dormant, issue.vector);
      if (revived) candidates.dormant.splice(candidates.dormant.indexOf(revived), 1);
      cluster = revived
        ? { ...revived, centroid: emptyVector(), issues: 0, titles: [] }
        : { id: newId(), centroid: emptyVector(), issues: 0, created: true, titles: [] };
      candidates.live.push(cluster);
    }
    addVector(cluster.centroid, issue.vector);
    cluster.issues++;
    cluster.titles.push(issue.title);
    assigned.push(cluster.id);
  }
  return assigned;
}

/** The conversation, while it names the job: every write of an analysis is conditioned on it. */
export const ownedBy = (conversationId: string, jobId: string): SQL =>
  sql`exists (select 1 from conversations where id = ${conversationId} and analysis_job = ${jobId})`;

/**
 * The newest titles of stored clusters, besides this conversation's (at most DESCRIBE_TITLES each, newest
 * first): one indexed read of a few rows per cluster (`conversation_issues_cluster`), however large it is.
 */
export function newestTitlesQuery(db: Db, clusterIds: string[], conversationId: string) {
  const arms = clusterIds.map(
    (id) =>
      sql`select * from (select cluster_id as clusterId, title from conversation_issues
          where cluster_id = ${id} and conversation_id <> ${conversationId} order by created_at desc, id limit ${DESCRIBE_TITLES})`,
  );
  return rawAll<{ clusterId: string; title: string }>(db, sql.join(arms, sql` union all `));
}

/** What a cluster that receives issues is written with (its counters and centroid come from the recompute). */
export interface ClusterPresentation {
  id: string;
  orgId: string;
  analyzer: string;
  label: string;
  icon: string;
  summary: Record<string, unknown>;
  now: string;
}

/**
 * Creates the cluster, or refreshes its label, icon and summary: an upsert, so that a stored cluster deleted
 * meanwhile (emptied by another conversation's re-analysis) exists again for the issues this analysis puts in
 * it. `muted` and `created_at` of an existing cluster stay; its counters are the recompute's.
 */
export function upsertClusterStatement(db: Db, cluster: ClusterPresentation, owned: SQL) {
  const summary = JSON.stringify(cluster.summary);
  return rawRun(
    db,
    sql`insert into conversation_clusters
          (id, org_id, analyzer, label, icon, summary, muted, centroid, issues_count, conversations_count, sources, created_at, updated_at)
        select ${cluster.id}, ${cluster.orgId}, ${cluster.analyzer}, ${cluster.label}, ${cluster.icon}, ${summary}, 0, '{}', 0, 0, '{}', ${cluster.now}, ${cluster.now}
        where ${owned}
        on conflict (id) do update set label = excluded.label, icon = excluded.icon, summary = excluded.summary`,
  );
}

/**
 * Brings each of these clusters in line with its issues: counts (conversations distinct), issues per source
 * (`sources`), and the centroid, the sum of its issues' vectors per component (the heaviest CENTROID_TERMS of
 * them for the analyzers listed there), then removes those left without an issue, unless a change request names
 * one: its `conversationsIssuesCluster` keeps pointing at a cluster that exists (with its `muted` flag), and the
 * cluster may take issues again.
 */
export function recomputeClustersStatements(db: Db, clusterIds: string[], now: string, owned: SQL) {
  const ids = JSON.stringify(clusterIds);
  const caps = Object.entries(CENTROID_TERMS).map(([name, terms]) => sql` when ${name} then ${terms}`);
  // Uncapped analyzers compare a component's rank with itself: always kept.
  const cap = caps.length > 0 ? sql`case conversation_clusters.analyzer${sql.join(caps, sql``)} else ranked.rn end` : sql`ranked.rn`;
  return [
    rawRun(
      db,
      sql`update conversation_clusters set
            issues_count = (select count(*) from conversation_issues i where i.cluster_id = conversation_clusters.id),
            conversations_count = (select count(distinct i.conversation_id) from conversation_issues i where i.cluster_id = conversation_clusters.id),
            sources = (
              select json_group_object(per.source, per.issues) from (
                select c.source as source, count(*) as issues
                from conversation_issues i join conversations c on c.id = i.conversation_id
                where i.cluster_id = conversation_clusters.id
                group by c.source order by c.source) per),
            centroid = (
              select json_group_object(ranked.key, ranked.weight) from (
                select j.key as key, sum(j.value) as weight, row_number() over (order by sum(j.value) desc, j.key) as rn
                from conversation_issues i, json_each(i.vector) j
                where i.cluster_id = conversation_clusters.id
                group by j.key order by rn) ranked
              where ranked.rn <= ${cap}),
            updated_at = ${now}
          where id in (select value from json_each(${ids})) and ${owned}`,
    ),
    rawRun(
      db,
      sql`delete from conversation_clusters
          where id in (select value from json_each(${ids}))
            and not exists (select 1 from conversation_issues i where i.cluster_id = conversation_clusters.id)
            and not exists (select 1 from change_requests r where r.conversations_issues_cluster = conversation_clusters.id)
            and ${owned}`,
    ),
  ];
}
