/**
 * CPU cost of analysing one conversation with the lexical analyzer, in Node (run by `npm run bench`): text
 * extraction, issue extraction, vectors and the assignment to the organization's clusters, as the queue
 * consumer does it for each message (services/conversations/analysis), without D1. The organization grows as
 * the conversations go in, so the last ones are compared with every cluster the first ones made.
 * A benchmark, not a test: it prints numbers.
 */
import { cpuUsage } from 'node:process';
import type { ConversationPartRow } from '../../src/db/schema/conversations';
import { MAX_CANDIDATE_CLUSTERS, assignIssues, workingClusters } from '../../src/services/conversations/clusters';
import { createLexicalAnalyzer } from '../../src/services/conversations/lexical';
import type { ConversationText, Vector } from '../../src/services/conversations/types';

const PROBLEMS = [
  ['I never received the password reset email.', 'The reset link in the email says it has expired.', 'Why does the password reset not work for my account?'],
  ['Our sync fails with a 429 error from the API.', 'The API rate limit blocks our nightly export.', 'How do I raise the rate limit? We get too many requests errors.'],
  ['The SSL certificate for our custom domain is still pending.', 'Our custom domain shows a certificate error in Chrome.', 'Why is the DNS of the custom domain not verified?'],
  ['Search does not find pages that contain the word deployment.', 'The search results are missing our newest pages.', 'Why does search return nothing for exact phrases?'],
  ['I cannot invite a new member to the organization.', 'The invite link says it is invalid.', 'How do I resend an invitation that never arrived?'],
];

/** Words no other problem uses (a seeded sequence): problems unlike each other, so each starts a cluster. */
function distinctProblem(index: number): string[] {
  const word = (n: number) => `w${((n * 2_654_435_761) % 1_000_003).toString(36)}`;
  const words = Array.from({ length: 6 }, (_, i) => word(index * 6 + i));
  return [`Why does ${words.join(' ')} not work?`];
}

/** A support conversation: a greeting, one to three messages about one problem, the agent's answers (not analysed). */
function conversation(index: number, distinct: boolean): ConversationText {
  const problem = distinct ? distinctProblem(index) : PROBLEMS[index % PROBLEMS.length];
  const parts: ConversationPartRow[] = [{ type: 'message', role: 'user', body: `Hello, this is customer ${index}.` }];
  for (let i = 0; i <= index % 3; i++) {
    parts.push({ type: 'message', role: 'user', body: `${problem[(index + i) % problem.length]} We tried again on day ${i + 1}; it still happens.` });
    parts.push({ type: 'message', role: 'team-member', body: 'Thanks for reaching out, we are looking into it.' });
  }
  return { subject: `Ticket ${index}`, parts };
}

const analyzer = createLexicalAnalyzer();
let stored: Array<{ id: string; centroid: Vector; issuesCount: number }> = [];

/** One conversation's analysis, with the clusters the organization has so far (at most what the consumer reads); the clusters it changed are kept. */
async function analyse(index: number, distinct: boolean) {
  const issues = await analyzer.extract(conversation(index, distinct));
  const vectors = await analyzer.vectorize(issues);
  const candidates = workingClusters(stored.slice(-MAX_CANDIDATE_CLUSTERS), []);
  assignIssues(analyzer, candidates, issues.map((issue, i) => ({ vector: vectors[i], title: issue.title })));
  for (const cluster of candidates.live) {
    const existing = stored.find((c) => c.id === cluster.id);
    if (existing) Object.assign(existing, { centroid: cluster.centroid, issuesCount: cluster.issues });
    else stored.push({ id: cluster.id, centroid: cluster.centroid, issuesCount: cluster.issues });
  }
}

const TOTAL = 1_000;
const REPORT_EVERY = 250;
for (const [name, distinct] of [['five recurring problems', false], ['every problem new', true]] as const) {
  stored = [];
  let batchStart = cpuUsage();
  for (let index = 0; index < TOTAL; index++) {
    await analyse(index, distinct);
    if ((index + 1) % REPORT_EVERY === 0) {
      const used = cpuUsage(batchStart);
      const ms = (used.user + used.system) / 1000 / REPORT_EVERY;
      const label = `lexical analysis, ${name}, ${index + 2 - REPORT_EVERY}-${index + 1}`;
      console.log(`${label.padEnd(56)} ${ms.toFixed(2).padStart(8)} ms CPU each (${stored.length} clusters)`);
      batchStart = cpuUsage();
    }
  }
}
