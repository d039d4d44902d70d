import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitInfo, repositoryUrl, runPending } from '../helpers/git-sync';

/**
 * An import whose `timestamp` is older than the newest one the space accepted is skipped (operations run in timestamp
 * order, GitBook's integrations send the pushed commit's time): nothing is imported. `git/info` then keeps reporting the
 * operation that last ran, as it was, never a `success` of the skipped one (GitBook's GitSyncState `operation`, "the latest
 * operation": running, failure, success or timeout, nothing for "not run"). Before, it answered `success` with the
 * skipped operation's times, though the space did not change.
 */

async function headOf(spaceId: string, token: string): Promise<string> {
  return (await api('GET', `/v1/spaces/${spaceId}`, { token })).body.revision;
}

async function queueImport(spaceId: string, token: string, body: Record<string, unknown>) {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/import`, { token, body }), 204);
  await runPending(spaceId);
  return (await gitInfo(spaceId, token)).body;
}

describe('an import older than the last one accepted', () => {
  it('is skipped, and git/info keeps the operation that last ran', { timeout: 120_000 }, async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('older-timestamp', { files: { 'README.md': '# Home\n\nFirst.\n' } });
    const url = repositoryUrl('older-timestamp');
    const ran = await queueImport(space.id, token, { url, ref: 'refs/heads/main', force: true, timestamp: '2024-02-01T00:00:00.000Z' });
    expect(ran.operation, JSON.stringify(ran)).toMatchObject({ state: 'success', direction: 'import' });
    const head = await headOf(space.id, token);

    await control('commit', { name: 'older-timestamp', files: { 'README.md': '# Home\n\nSecond.\n' } });
    const skipped = await queueImport(space.id, token, { url, ref: 'refs/heads/main', timestamp: '2024-01-01T00:00:00.000Z' });
    expect(await headOf(space.id, token)).toBe(head);
    // The operation that ran, as git/info reported it: its state, times and (no) error.
    expect(skipped.operation, JSON.stringify(skipped)).toEqual(ran.operation);
    const row = await env.DB.prepare(`select state, error from git_sync_operations where space_id = ? order by created_at desc, rowid desc limit 1`).bind(space.id).first<{ state: string; error: string }>();
    expect(row!.state).toBe('skipped');
    expect(row!.error).toMatch(/2024-01-01T00:00:00.000Z.*older.*2024-02-01T00:00:00.000Z.*nothing was imported/);
  });

  it('after a failure, git/info still says the failure', { timeout: 120_000 }, async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('older-after-failure', { files: { 'README.md': '# Home\n' } });
    const url = repositoryUrl('older-after-failure');
    await queueImport(space.id, token, { url, ref: 'refs/heads/main', force: true, timestamp: '2024-02-01T00:00:00.000Z' });
    const failed = await queueImport(space.id, token, { url, ref: 'refs/heads/no-such-branch', timestamp: '2024-03-01T00:00:00.000Z' });
    expect(failed.operation, JSON.stringify(failed)).toMatchObject({ state: 'failure', direction: 'import' });
    const skipped = await queueImport(space.id, token, { url, ref: 'refs/heads/main', timestamp: '2024-01-01T00:00:00.000Z' });
    expect(skipped.operation, JSON.stringify(skipped)).toEqual(failed.operation);
  });
});
