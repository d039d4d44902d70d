import { createApp } from './app';
import type { Env } from './env';

export { SpaceWriter } from './durable-objects/space-writer';
/** The network of integration scripts' isolates (services/integrations/runtime), reached through `ctx.exports`. */
export { IntegrationOutbound } from './services/integrations/runtime-outbound';

const app = createApp();

export default {
  fetch: app.fetch,
  // The jobs and the cron load on their first batch or tick, like the route groups (app.ts).
  queue: async (batch: MessageBatch<unknown>, env: Env, _ctx?: ExecutionContext) => (await import('./jobs/consumer')).handleQueueBatch(batch, env),
  scheduled: (controller: ScheduledController, env: Env, ctx: ExecutionContext) => {
    ctx.waitUntil(import('./jobs/cron').then(({ runScheduled }) => runScheduled(env, controller.scheduledTime)));
  },
} satisfies ExportedHandler<Env>;
