import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { control, createRepository } from '../helpers/git-sync';
import { headOf, pagesOf, queuedImport, runImport, slicedRepository, SLICE_PAGES, type WriterCall } from '../helpers/git-import-runs';
import { seedOrg, type TestOrg } from '../helpers/harness';

/**
 * A handed-over import (issue 40): the run whose budget ran out stores the slices it did not apply (stored-plan.ts), and
 * its continuation applies them without fetching the repository or planning again; what was stored is deleted at the end.
 */

const REPO = 'import-stored-plan';

let org: TestOrg;
beforeAll(async () => {
  org = await seedOrg();
  await createRepository(REPO, { files: slicedRepository() });
});

const storedKeys = async (operationId: string) => (await env.FILES.list({ prefix: `git-sync/staging/plans/${operationId}/` })).objects.map((o) => o.key);

async function lastRunStats(operationId: string) {
  const row = await env.DB.prepare('select state, stats from git_sync_operations where id = ?').bind(operationId).first<{ state: string; stats: string }>();
  return { state: row!.state, stats: JSON.parse(row!.stats) as { requests?: number; phases: Record<string, number> } };
}

describe('a handed-over import', () => {
  it('continues from the slices its run before stored: no fetch, no plan; the same import, each slice applied once', async () => {
    const space = await createSpace(org.id, org.owner.token);
    const operationId = await queuedImport(org, space.id, REPO);
    const before = await headOf(space.id);
    const calls: WriterCall[] = [];
    const sent: unknown[] = [];
    // No budget: each run applies one slice, then hands over.
    await runImport(space.id, operationId, calls, 1, { runBudgetMs: 0 }, { sent });
    expect(sent).toHaveLength(1);
    const stored = await storedKeys(operationId);
    expect(stored.length).toBeGreaterThanOrEqual(2);
    // A push meanwhile: a run that fetched again would import it; the continuation applies what was planned.
    await control('commit', { name: REPO, files: { 'guide/page-1.md': '# Guide page 1\n\nPushed meanwhile.\n' }, message: 'Push meanwhile' });
    let runs = 1;
    while (sent.length > 0) {
      sent.length = 0;
      await runImport(space.id, operationId, calls, 1, { runBudgetMs: 0 }, { sent });
      expect(++runs).toBeLessThan(20);
    }
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(calls.map((c) => c.from)).toEqual([...new Set(calls.map((c) => c.from))].sort((a, b) => a - b));
    const { state, stats } = await lastRunStats(operationId);
    expect(state).toBe('success');
    // The last run read the stored slice: it made no request to the repository and planned nothing.
    expect(stats.phases.storedPlan).toBe(1);
    expect(stats.phases.planMs).toBeUndefined();
    expect(stats.requests ?? 0).toBe(0);
    expect(await headOf(space.id)).not.toBe(before);
    const pages = await pagesOf(space.id, org.owner.token);
    expect(pages.filter((p) => p.title.startsWith('Guide page'))).toHaveLength(SLICE_PAGES);
    expect(await storedKeys(operationId)).toEqual([]);
  }, 300_000);
});
