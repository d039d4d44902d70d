import { describe, expect, it } from 'vitest';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitInfo, githubBody, runPending } from '../helpers/git-sync';

/**
 * Timestamps with a UTC offset (`2026-01-01T10:30:00+02:00`, as a commit's time is written, and as the API accepts):
 * the newest accepted one was kept as the larger string, so after `10:30+02:00` (08:30 UTC) then `09:00Z` the space
 * remembered 08:30 UTC, and an operation of 08:45 UTC, older than one already run, was run instead of skipped.
 */

async function importAt(spaceId: string, token: string, name: string, timestamp: string) {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/import`, { token, body: { ...githubBody(name), force: false, timestamp } }), 204);
  await runPending(spaceId);
  const info = (await gitInfo(spaceId, token)).body;
  expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'success' });
}

const headOf = async (spaceId: string, token: string) => expectStatus(await api('GET', `/v1/spaces/${spaceId}`, { token }), 200).body.revision;

describe('operations in timestamp order', () => {
  it('compare instants, whatever UTC offset their timestamps are written with', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('timestamp-offsets', { files: { 'README.md': '# Home\n\nOne.\n' } });
    await importAt(space.id, token, 'timestamp-offsets', '2026-01-01T10:30:00+02:00');
    await control('commit', { name: 'timestamp-offsets', files: { 'README.md': '# Home\n\nTwo.\n' } });
    await importAt(space.id, token, 'timestamp-offsets', '2026-01-01T09:00:00.000Z');
    const head = await headOf(space.id, token);
    // 08:45 UTC: older than the 09:00 UTC import already run, so skipped.
    await control('commit', { name: 'timestamp-offsets', files: { 'README.md': '# Home\n\nThree.\n' } });
    await importAt(space.id, token, 'timestamp-offsets', '2026-01-01T08:45:00.000Z');
    expect(await headOf(space.id, token)).toBe(head);
    // 09:30 UTC, written with an offset: newer, so run.
    await importAt(space.id, token, 'timestamp-offsets', '2026-01-01T08:30:00-01:00');
    expect(await headOf(space.id, token)).not.toBe(head);
  });
});
