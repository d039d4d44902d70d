import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { runGitSyncOperation } from '../../src/services/git-sync/operations';
import { sweepGitOperations } from '../../src/services/git-sync/cleanup';
import { createSpace } from '../helpers/content';
import { createRepository, gitInfo, githubBody } from '../helpers/git-sync';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { seedInstallation, seedIntegration } from '../helpers/integrations';

/**
 * An operation left running past its limit (its consumer died) ends `timeout` whichever path finds it: another
 * operation's claim, a later delivery of its own message, the hourly sweep. Each time git/info (when it is the space's
 * latest), the operation's row, the `space_gitsync_completed` event and what its slices stored agree (issue 40).
 */

const REPO = 'stale-endings';
const LONG_AGO = () => new Date(Date.now() - 20 * 60 * 1000).toISOString();

let org: TestOrg;
beforeAll(async () => {
  org = await seedOrg();
  await createRepository(REPO, { files: { 'README.md': '# Home\n\nThe first page.\n' } });
});

/** A space whose events an integration receives. */
async function watchedSpace() {
  const space = await createSpace(org.id, org.owner.token);
  const integration = await seedIntegration(org.id, { scopes: ['space:content:read'] });
  const installation = await seedInstallation(integration, org.id, { spaces: [space.id] });
  return { space, installation };
}

async function queued(spaceId: string): Promise<string> {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/git/import`, { token: org.owner.token, body: { ...githubBody(REPO), force: true } }), 204);
  return (await env.DB.prepare(`select id from git_sync_operations where space_id = ? order by created_at desc, rowid desc limit 1`).bind(spaceId).first<{ id: string }>())!.id;
}

/** The operation's consumer claimed it, stored a slice's rows, and died 20 minutes ago. */
async function diedLongAgo(operationId: string) {
  await env.DB.prepare(`update git_sync_operations set state = 'running', created_at = ? where id = ?`).bind(LONG_AGO(), operationId).run();
  await env.DB.prepare(`insert into git_sync_import_rows (operation_id, path, kind, target_id, oid) values (?, 'README.md', 'page', 'p1', 'abc')`).bind(operationId).run();
  await env.DB.prepare(`insert into git_sync_import_progress (operation_id, space_id, progress, updated_at) values (?, 'x', '{}', ?)`).bind(operationId, LONG_AGO()).run();
}

async function completedEvents(installationId: string) {
  const rows = await env.DB.prepare(`select payload from integration_events where installation_id = ? and json_extract(payload, '$.type') = 'space_gitsync_completed' order by created_at, rowid`)
    .bind(installationId)
    .all<{ payload: string }>();
  return rows.results.map((r) => JSON.parse(r.payload) as Record<string, unknown>);
}

async function expectEnded(operationId: string, state: string) {
  const row = await env.DB.prepare('select state, secret, error from git_sync_operations where id = ?').bind(operationId).first();
  expect(row).toEqual({ state, secret: null, error: 'the operation did not finish in time' });
  const stored = await env.DB.prepare(
    'select (select count(*) from git_sync_import_rows where operation_id = ?1) + (select count(*) from git_sync_import_progress where operation_id = ?1) as n',
  )
    .bind(operationId)
    .first<{ n: number }>();
  expect(stored!.n).toBe(0);
}

describe('an operation left running past its limit', () => {
  it("another operation's claim ends it as git/info, the event and its row say: `timeout`", async () => {
    const { space, installation } = await watchedSpace();
    // Queued first, its message delivered last (retried): the space's latest operation is the one that died.
    const waiting = await queued(space.id);
    const died = await queued(space.id);
    await diedLongAgo(died);
    await runGitSyncOperation(env, waiting, 3);
    await expectEnded(died, 'timeout');
    const info = (await gitInfo(space.id, org.owner.token)).body;
    expect(info.operation, JSON.stringify(info)).toMatchObject({ state: 'timeout', error: 'the operation did not finish in time' });
    expect(info.operation.endedAt).toBeDefined();
    // The stale one's, then the claimer's own.
    expect(await completedEvents(installation.id)).toEqual([expect.objectContaining({ state: 'failure', spaceId: space.id }), expect.objectContaining({ state: 'success', spaceId: space.id })]);
    expect((await env.DB.prepare('select state from git_sync_operations where id = ?').bind(waiting).first())!.state).toBe('success');
  }, 120_000);

  it('a later delivery of its own message ends it, with its completed event', async () => {
    const { space, installation } = await watchedSpace();
    const died = await queued(space.id);
    await diedLongAgo(died);
    await runGitSyncOperation(env, died, 2);
    await expectEnded(died, 'timeout');
    expect((await gitInfo(space.id, org.owner.token)).body.operation).toMatchObject({ state: 'timeout' });
    expect(await completedEvents(installation.id)).toEqual([expect.objectContaining({ state: 'failure', spaceId: space.id })]);
  }, 120_000);

  it('the hourly sweep ends it, with its completed event and without what its slices stored', async () => {
    const { space, installation } = await watchedSpace();
    const died = await queued(space.id);
    await diedLongAgo(died);
    await sweepGitOperations(env, Date.now());
    await expectEnded(died, 'failure');
    expect((await gitInfo(space.id, org.owner.token)).body.operation).toMatchObject({ state: 'failure' });
    expect(await completedEvents(installation.id)).toEqual([expect.objectContaining({ state: 'failure', spaceId: space.id })]);
  }, 120_000);

  it("another space's operation is never ended by this space's claim", async () => {
    const { space } = await watchedSpace();
    const other = await watchedSpace();
    const died = await queued(other.space.id);
    await diedLongAgo(died);
    await runGitSyncOperation(env, await queued(space.id), 1);
    expect((await env.DB.prepare('select state from git_sync_operations where id = ?').bind(died).first())!.state).toBe('running');
    expect(await completedEvents(other.installation.id)).toEqual([]);
  }, 120_000);
});
