import type { Env } from '../env';
import { CONVERSATION_ANALYZE_JOB } from '../services/conversations/types';
import { INTEGRATION_EVENT_JOB } from '../services/integrations/events';
import { OPENAPI_PROCESS_JOB } from '../services/openapi/jobs';
import { TRANSLATION_RUN_JOB } from '../services/translations/jobs';
import { IMPORT_RUN_JOB } from '../services/import/runs';
import { handleConversationAnalyzeJob } from './conversation-analyze';
import { GIT_SYNC_JOB, handleGitSyncJob } from './git-sync';
import { handleIntegrationEventJob } from './integration-event';
import { handleOpenAPIProcessJob } from './openapi-process';
import { handleTranslationRunJob } from './translation-run';
import { handleImportRunJob } from './import-run';
import { JobEnvelopeSchema, type JobEnvelope } from './messages';
import { handleSiteInsightsJob, SITE_INSIGHTS_JOB, storeSiteInsightsMessages } from './site-insights';

/** What a handler knows of the message besides its body. */
export interface JobContext {
  /** How many times the queue has delivered this message, this time included (1 on the first delivery). */
  attempts: number;
}

export type JobHandler = (job: JobEnvelope, env: Env, context: JobContext) => Promise<void>;

/** Handlers by message type; each capability registers its own here. */
export const JOB_HANDLERS: Record<string, JobHandler> = {
  [INTEGRATION_EVENT_JOB]: handleIntegrationEventJob,
  [OPENAPI_PROCESS_JOB]: handleOpenAPIProcessJob,
  [CONVERSATION_ANALYZE_JOB]: handleConversationAnalyzeJob,
  [TRANSLATION_RUN_JOB]: handleTranslationRunJob,
  [IMPORT_RUN_JOB]: handleImportRunJob,
  [GIT_SYNC_JOB]: handleGitSyncJob,
  [SITE_INSIGHTS_JOB]: handleSiteInsightsJob,
};

const RETRY_BASE_SECONDS = 10;
const RETRY_MAX_SECONDS = 3600;

/** Exponential backoff: 10 s, 20 s, 40 s ... capped at an hour. */
export function retryDelaySeconds(attempts: number): number {
  return Math.min(RETRY_BASE_SECONDS * 2 ** Math.max(attempts - 1, 0), RETRY_MAX_SECONDS);
}

/**
 * Acks each message on its own: a failure retries only that message, with exponential backoff,
 * and after the consumer's max_retries it lands in the dead-letter queue.
 */
export async function handleQueueBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  // Site insights events are many and small: a batch's are stored together, in one D1 round trip.
  const insights: Array<{ job: JobEnvelope; message: Message<unknown> }> = [];
  const others: Message<unknown>[] = [];
  for (const message of batch.messages) {
    const parsed = JobEnvelopeSchema.safeParse(message.body);
    if (parsed.success && parsed.data.type === SITE_INSIGHTS_JOB) insights.push({ job: parsed.data, message });
    else others.push(message);
  }
  if (insights.length > 0) await storeSiteInsightsMessages(insights, env, (message) => retryDelaySeconds(message.attempts));
  for (const message of others) {
    const delaySeconds = retryDelaySeconds(message.attempts);
    const parsed = JobEnvelopeSchema.safeParse(message.body);
    if (!parsed.success) {
      // A malformed message will never succeed: keep it for inspection in the dead-letter queue.
      console.error(`queue: malformed message ${message.id}`, parsed.error.issues);
      message.retry({ delaySeconds });
      continue;
    }
    const handler = JOB_HANDLERS[parsed.data.type];
    if (!handler) {
      console.error(`queue: no handler for job type "${parsed.data.type}" (${parsed.data.id})`);
      message.retry({ delaySeconds });
      continue;
    }
    try {
      await handler(parsed.data, env, { attempts: message.attempts });
      message.ack();
    } catch (error) {
      console.error(`queue: job ${parsed.data.id} (${parsed.data.type}) failed`, error);
      message.retry({ delaySeconds });
    }
  }
}
