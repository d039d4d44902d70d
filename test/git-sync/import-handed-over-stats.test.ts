import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { createRepository } from '../helpers/git-sync';
import { queuedImport, runImport, slicedRepository, type WriterCall } from '../helpers/git-import-runs';
import { seedOrg, type TestOrg } from '../helpers/harness';

/**
 * A handed-over import's stats keep every run's (issue 40, bigimport21): the row kept only the last run's, so a large
 * import that handed over (vngcloud/docs under load) reported its writer's phases and nothing of its fetch and plan.
 * Each run that hands over records its stats in `earlierRuns`; the last run's stay at the top, as before.
 */

const REPO = 'import-handed-over-stats';

let org: TestOrg;
beforeAll(async () => {
  org = await seedOrg();
  await createRepository(REPO, { files: slicedRepository() });
});

type RunStats = { requests?: number; phases: Record<string, number> };

describe("a handed-over import's stats", () => {
  it('keep the runs before the last one: the first run fetched and planned, the continuations applied stored slices', async () => {
    const space = await createSpace(org.id, org.owner.token);
    const operationId = await queuedImport(org, space.id, REPO);
    const calls: WriterCall[] = [];
    const sent: unknown[] = [];
    let runs = 0;
    do {
      sent.length = 0;
      // No budget: each run applies one slice, then hands over.
      await runImport(space.id, operationId, calls, 1, { runBudgetMs: 0 }, { sent });
      expect(++runs).toBeLessThan(20);
    } while (sent.length > 0);
    expect(runs).toBeGreaterThanOrEqual(3);

    const row = await env.DB.prepare('select state, stats from git_sync_operations where id = ?').bind(operationId).first<{ state: string; stats: string }>();
    expect(row!.state).toBe('success');
    const stats = JSON.parse(row!.stats) as RunStats & { earlierRuns?: RunStats[] };
    // The last run's own, as before: it read the stored slices.
    expect(stats.phases.storedPlan).toBe(1);
    expect(stats.phases.planMs).toBeUndefined();
    // Every run before it, in order: the first fetched the repository and planned; the others read stored slices.
    expect(stats.earlierRuns).toHaveLength(runs - 1);
    const [first, ...continuations] = stats.earlierRuns!;
    expect(first.requests).toBeGreaterThan(0);
    expect(first.phases.planMs).toBeGreaterThan(0);
    for (const run of continuations) {
      expect(run.phases.storedPlan).toBe(1);
      expect(run.requests ?? 0).toBe(0);
    }
  }, 300_000);
});
