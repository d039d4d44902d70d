import { z } from 'zod';
import type { Env } from '../env';
import { analyzeConversation } from '../services/conversations/analysis';
import type { JobContext } from './consumer';
import type { JobEnvelope } from './messages';

/** The payload of a `conversation-analyze` message (routes/conversations: ingestion; jobs/cron: requeueConversationJobs). */
export const ConversationAnalyzeJobSchema = z.object({ conversationId: z.string().min(1) });

/**
 * Analyses a conversation's current content (services/conversations/analysis). Idempotent by message id: the
 * message's id is the job the conversation must name, so a redelivered message, or one superseded by a newer
 * ingestion, changes nothing. A failure (the model's or ours) throws, so the consumer retries the message with
 * backoff; the conversation is `pending` again meanwhile.
 */
export async function handleConversationAnalyzeJob(job: JobEnvelope, env: Env, context: JobContext): Promise<void> {
  const parsed = ConversationAnalyzeJobSchema.safeParse(job.payload);
  if (!parsed.success) throw new Error(`conversation-analyze ${job.id}: the payload has no conversationId`);
  const { conversationId } = parsed.data;
  const outcome = await analyzeConversation(env, conversationId, job.id, { attempts: context.attempts });
  if (outcome === 'skipped') console.log(`conversation-analyze ${job.id}: conversation ${conversationId} is gone, complete, or names another job`);
  if (outcome === 'superseded') console.log(`conversation-analyze ${job.id}: conversation ${conversationId} was ingested again meanwhile; nothing written`);
}
