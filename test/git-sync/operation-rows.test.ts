import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { runScheduled } from '../../src/jobs/cron';
import { GIT_OPERATION_RETENTION, pruneGitOperations } from '../../src/services/git-sync/cleanup';
import { GIT_OPERATION_TIMEOUT_MS } from '../../src/services/git-sync/queue';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitInfo, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * An operation's row once it ended (issue 40, re-import bytes; issue 42 item 1): it keeps no request (its URLs and body:
 * nothing reads them once it ended; git/info reads git_sync_states) and no zero stats, and the audit event of the request
 * that queued it stores no payload its row already holds (the space is its target). git/info, the space's Git Sync and the
 * audit log read as before. Ended operations are pruned by the hourly cron past GIT_OPERATION_RETENTION, a space's newest
 * ones, its running one and the one its git/info reports always kept.
 */

const FILES = { 'README.md': '# Home\n\nWelcome.\n', 'SUMMARY.md': '# Summary\n\n* [Home](README.md)\n* [Guide](guide.md)\n', 'guide.md': '# Guide\n\nFirst text.\n' };

const operationsOf = async (spaceId: string) =>
  (await env.DB.prepare('select id, direction, state, request, stats, created_at from git_sync_operations where space_id = ? order by created_at, rowid').bind(spaceId).all<Record<string, any>>()).results;

const zeroesIn = (value: unknown): string[] =>
  value && typeof value === 'object' ? Object.entries(value).flatMap(([key, v]) => (v === 0 ? [key] : zeroesIn(v).map((inner) => `${key}.${inner}`))) : [];

describe("an ended operation's row and its audit event", { timeout: 180_000 }, () => {
  it('keep no request, no zero stats and no payload the audit row holds; git/info, gitSync and the audit log read as before', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const name = 'operation-rows-bytes';
    await createRepository(name, { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    const pushed = await control<{ head: string }>('commit', { name, message: 'Edit', files: { 'guide.md': '# Guide\n\nSecond text.\n' } });
    const timestamp = new Date().toISOString();
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), timestamp });

    const rows = await operationsOf(space.id);
    expect(rows.map((row) => [row.direction, row.state])).toEqual([
      ['import', 'success'],
      ['import', 'success'],
    ]);
    for (const row of rows) {
      expect(row.request).toBe('{}');
      const stats = JSON.parse(row.stats);
      expect(zeroesIn(stats)).toEqual([]);
      // What the operation fetched and where its time went stay.
      expect(stats).toMatchObject({ protocol: 'v2', requests: expect.any(Number), phases: { planMs: expect.any(Number) } });
    }

    // git/info as before: the repository, and the latest operation with its times.
    const state = await env.DB.prepare('select op_id, op_started_at, op_ended_at, updated_at from git_sync_states where space_id = ?').bind(space.id).first<Record<string, string>>();
    expect(state!.op_id).toBe(rows[1].id);
    expect(expectStatus(await gitInfo(space.id, token), 200).body).toEqual({
      repoName: `repos/${name}`,
      installationStatus: 'active',
      installationProvider: 'github',
      installationId: `git-sync:${space.id}`,
      url: `https://github.com/acme/${name}/blob/main`,
      operation: { state: 'success', direction: 'import', startedAt: state!.op_started_at, endedAt: state!.op_ended_at },
      operationTimeout: GIT_OPERATION_TIMEOUT_MS,
      updatedAt: state!.updated_at,
    });
    // The space's Git Sync, written by the ending from the request it no longer keeps.
    const gitSync = expectStatus(await api('GET', `/v1/spaces/${space.id}`, { token }), 200).body.gitSync;
    expect(gitSync).toMatchObject({ installationProvider: 'github', integration: 'github', url: `https://github.com/acme/${name}/blob/main` });
    // The revision records the pushed commit, with the commit URL the request gave.
    const revision = expectStatus(await api('GET', `/v1/spaces/${space.id}/revisions/${expectStatus(await api('GET', `/v1/spaces/${space.id}`, { token }), 200).body.revision}`, { token }), 200).body;
    expect(revision.git).toMatchObject({ oid: pushed.head, url: `https://github.com/acme/${name}/commit/${pushed.head}` });

    // The audit event: stored without the space (its row's target) nor an empty request; the API answers the whole payload.
    const events = (
      await env.DB.prepare(`select id, payload, target_id from audit_events where org_id = ? and action = 'space.git_sync.import_started' order by occurred_at`).bind(org.id).all<Record<string, string>>()
    ).results;
    expect(events).toHaveLength(2);
    for (const event of events) {
      expect(event.target_id).toBe(space.id);
      expect(JSON.parse(event.payload)).toEqual({});
      const details = expectStatus(await api('GET', `/v1/orgs/${org.id}/audit-events/${event.id}`, { token }), 200).body;
      expect(details.payload).toEqual({ request: { method: 'POST', route: '/v1/spaces/:spaceId/git/import', ip: null, userAgent: null }, params: { spaceId: space.id } });
      expect(details.target).toEqual({ type: 'space', id: space.id });
    }
  });

  it('an audit event whose request says more keeps it, and one whose target is not its only parameter keeps its params', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const headers = { 'CF-Connecting-IP': '198.51.100.23', 'User-Agent': 'GitBook-Integration/1.0' };
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/import`, { token, headers, body: { ...githubBody('operation-rows-none'), force: true } }), 204);
    const event = await env.DB.prepare(`select id, payload from audit_events where org_id = ? and action = 'space.git_sync.import_started'`).bind(org.id).first<Record<string, string>>();
    expect(JSON.parse(event!.payload)).toEqual({ request: { ip: '198.51.100.0', userAgent: 'GitBook-Integration/1.0' } });
    const details = expectStatus(await api('GET', `/v1/orgs/${org.id}/audit-events/${event!.id}`, { token }), 200).body;
    expect(details.payload).toEqual({ request: { method: 'POST', route: '/v1/spaces/:spaceId/git/import', ip: '198.51.100.0', userAgent: 'GitBook-Integration/1.0' }, params: { spaceId: space.id } });
  });
});

describe('pruning ended operations (the hourly cron)', { timeout: 180_000 }, () => {
  const DAY = 24 * 60 * 60 * 1000;
  const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();
  const insert = (spaceId: string, userId: string, id: string, createdAt: string, fields: { direction?: string; state?: string; revisionId?: string | null } = {}) =>
    env.DB.prepare(
      `insert into git_sync_operations (id, space_id, direction, user_id, request, state, revision_id, created_at, ended_at) values (?, ?, ?, ?, '{}', ?, ?, ?, ?)`,
    )
      .bind(id, spaceId, fields.direction ?? 'export', userId, fields.state ?? 'success', fields.revisionId === undefined ? null : fields.revisionId, createdAt, createdAt)
      .run();

  it("trims a space's many ended operations to its newest and its recent ones; git/info and another space's rows unchanged", async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const other = await createSpace(org.id, token);
    const name = 'operation-rows-prune';
    await createRepository(name, { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    // The operation git/info reports, made older than anything else: kept whatever its age.
    const [reported] = await operationsOf(space.id);
    await env.DB.prepare('update git_sync_operations set created_at = ? where id = ?').bind(ago(90), reported.id).run();
    const infoBefore = expectStatus(await gitInfo(space.id, token), 200).body;

    const p = (n: number) => `${space.id.slice(0, 8)}-${n}`;
    // 30 ended operations 8 to 37 days old (past `days`), 3 younger ones, a running one 60 days old, imports without a
    // revision 20 and 40 days old (what the orphan sweep may still need: kept `orphanDays`).
    for (let i = 0; i < 30; i++) await insert(space.id, org.owner.id, p(i), ago(8 + i), { state: i % 3 === 0 ? 'failure' : 'success' });
    for (let i = 0; i < 3; i++) await insert(space.id, org.owner.id, p(100 + i), ago(1 + i));
    await insert(space.id, org.owner.id, p(200), ago(60), { direction: 'import', state: 'running' });
    await insert(space.id, org.owner.id, p(300), ago(20), { direction: 'import', state: 'failure' });
    await insert(space.id, org.owner.id, p(301), ago(40), { direction: 'import', state: 'timeout' });
    // Another space: few operations, all old: none goes.
    for (let i = 0; i < 4; i++) await insert(other.id, org.owner.id, `${other.id.slice(0, 8)}-${i}`, ago(50 + i));
    const otherBefore = await operationsOf(other.id);

    // Bounded: one round of 2 removes at most 2 rows (of any space).
    expect(await pruneGitOperations(env, Date.now(), { batch: 2, rounds: 1 })).toBeLessThanOrEqual(2);
    await runScheduled(env, Date.now());

    const kept = new Set((await operationsOf(space.id)).map((row) => row.id));
    const keep = GIT_OPERATION_RETENTION.perSpace;
    // The newest `perSpace` of the space (the 3 young ones and the 7 newest of the 30 old ones), the running one, the one
    // git/info reports, and the import without a revision younger than orphanDays; the 40-day one went.
    const newest = [p(100), p(101), p(102), ...[0, 1, 2, 3, 4, 5, 6].map(p)];
    expect(newest).toHaveLength(keep);
    expect([...kept].sort()).toEqual([...newest, p(200), p(300), reported.id].sort());
    expect(await operationsOf(other.id)).toEqual(otherBefore);
    expect(expectStatus(await gitInfo(space.id, token), 200).body).toEqual(infoBefore);
  });

  it('keeps an import that ended without a revision until orphanDays, then prunes it', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const p = (n: number) => `${space.id.slice(0, 8)}-o${n}`;
    for (let i = 0; i < 12; i++) await insert(space.id, org.owner.id, p(i), ago(1 + i / 10));
    await insert(space.id, org.owner.id, p(20), ago(GIT_OPERATION_RETENTION.orphanDays - 1), { direction: 'import', state: 'failure' });
    await insert(space.id, org.owner.id, p(21), ago(GIT_OPERATION_RETENTION.orphanDays + 1), { direction: 'import', state: 'failure' });
    await insert(space.id, org.owner.id, p(22), ago(GIT_OPERATION_RETENTION.orphanDays - 1), { direction: 'import', revisionId: 'made-a-revision' });
    await pruneGitOperations(env, Date.now());
    const kept = (await operationsOf(space.id)).map((row) => row.id);
    expect(kept).toContain(p(20));
    expect(kept).not.toContain(p(21));
    expect(kept).not.toContain(p(22));
    expect(kept).toHaveLength(13);
  });
});
