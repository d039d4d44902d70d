// Evaluated with the isolate, not with the first request that reads a document: Brotli-packed documents
// (services/content/packed-documents) need node:zlib, whose first import evaluates workerd's Node.js stream, process
// and zlib modules. On a cold isolate's first published page that import was about 45% of the Worker's CPU (the CPU
// profile's "(program)" block at the site module's import: 104 busy samples with it evaluated at startup, about 190
// without, test/bench/profile.ts --cold --route=/s/{site}/); workerd's DecompressionStream has no Brotli (issue 42 item 7).
import 'node:zlib';
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
