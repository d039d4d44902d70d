import { createApp } from './app';
import type { Env } from './env';
import { handleQueueBatch } from './jobs/consumer';
import { runScheduled } from './jobs/cron';

export { SpaceWriter } from './durable-objects/space-writer';
/** The network of integration scripts' isolates (services/integrations/runtime), reached through `ctx.exports`. */
export { IntegrationOutbound } from './services/integrations/runtime-outbound';

const app = createApp();

export default {
  fetch: app.fetch,
  queue: (batch: MessageBatch<unknown>, env: Env, _ctx?: ExecutionContext) => handleQueueBatch(batch, env),
  scheduled: (controller: ScheduledController, env: Env, ctx: ExecutionContext) => {
    ctx.waitUntil(runScheduled(env, controller.scheduledTime));
  },
} satisfies ExportedHandler<Env>;
