import { createApp } from './app';
import type { Env } from './env';
import { handleQueueBatch } from './jobs/consumer';
import { runScheduled } from './jobs/cron';

export { SpaceWriter } from './durable-objects/space-writer';

const app = createApp();

export default {
  fetch: app.fetch,
  queue: (batch: MessageBatch<unknown>, env: Env) => handleQueueBatch(batch, env),
  scheduled: (controller: ScheduledController, env: Env, ctx: ExecutionContext) => {
    ctx.waitUntil(runScheduled(env, controller.scheduledTime));
  },
} satisfies ExportedHandler<Env>;
