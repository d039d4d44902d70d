/**
 * The Worker of the Git Sync benchmark (git-sync.ts): the benchmark's Worker (worker.ts: the real one) plus what
 * the queue consumer does for a Git Sync message, on request: `POST /__bench/git-sync/run/<operationId>` runs the
 * queued operation to its end (runGitSyncOperation, as src/services/git-sync/queue.ts does) in this isolate, so
 * its time and the workerd process's memory are measured the way the deployment runs it.
 */
import worker, { SpaceWriter } from './worker';
import type { Env } from '../../src/env';

export { SpaceWriter };

const RUN = '/__bench/git-sync/run/';

export default {
  ...worker,
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (request.method === 'POST' && path.startsWith(RUN)) {
      // Loaded on first use, as the queue consumer loads it (jobs/git-sync.ts).
      const { runGitSyncOperation } = await import('../../src/services/git-sync/operations');
      const began = Date.now();
      await runGitSyncOperation(env, path.slice(RUN.length));
      return Response.json({ ms: Date.now() - began });
    }
    return worker.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
