import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeEach, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { treeCacheKey } from '../../src/services/git-sync/tree-cache';
import worker from '../../src/index';
import { SPACE_RETENTION_DAYS, purgeDeletedSpaces, runScheduled } from '../../src/jobs/cron';
import { api, expectError, seedOrg, type TestOrg } from '../helpers/harness';
import { countRows, createSpace, createTeam, expectStatus, getSpace, grant, setDeletedAt, spacePath, spaceRow } from '../spaces/support';

const DAY = 24 * 60 * 60 * 1000;

/** Runs the Worker's scheduled handler as the Cron Trigger would, and waits for its work. */
async function runCron(scheduledTime: number) {
  const controller = createScheduledController({ scheduledTime, cron: '0 * * * *' });
  const ctx = createExecutionContext();
  await worker.scheduled(controller, env, ctx);
  await waitOnExecutionContext(ctx);
}

/** A space with a user grant and a team grant, deleted through the API, then dated `daysAgo` before `from`. */
async function deletedSpace(org: TestOrg, daysAgo: number, from: number, teamId: string) {
  const space = await createSpace(org);
  await grant(org, space.id, { role: 'edit', users: [org.members.read.id], teams: [teamId] });
  expectStatus(await api('DELETE', spacePath(space.id), { token: org.owner.token }), 204);
  await setDeletedAt(space.id, daysAgo, from);
  return space;
}

async function snapshot() {
  const tables = ['spaces', 'revisions', 'space_user_grants', 'space_team_grants'];
  const out: Record<string, unknown[]> = {};
  for (const t of tables) out[t] = (await env.DB.prepare(`select * from ${t} order by 1, 2`).all()).results;
  return out;
}

async function rowsOf(spaceId: string, revisionId: string) {
  return {
    spaces: await countRows('spaces', 'id', spaceId),
    revisions: await countRows('revisions', 'space_id', spaceId),
    revision: await countRows('revisions', 'id', revisionId),
    userGrants: await countRows('space_user_grants', 'space_id', spaceId),
    teamGrants: await countRows('space_team_grants', 'space_id', spaceId),
  };
}

describe('scheduled handler: purge of deleted spaces', () => {
  // The purge takes every organization's expired spaces, and test files share the database (isolate: false): what
  // other files deleted is purged first, so that the counts below are this test's own.
  beforeEach(async () => {
    await purgeDeletedSpaces(createDb(env.DB), Date.now() + 365 * 24 * 60 * 60 * 1000);
  });

  it('removes spaces deleted more than 7 days before scheduledTime, keeps the rest, and is idempotent', async () => {
    expect(SPACE_RETENTION_DAYS).toBe(7);
    const org = await seedOrg();
    const team = await createTeam(org, [org.members.comment.id]);
    const now = Date.now();
    const expired = await deletedSpace(org, 8, now, team.id);
    const recent = await deletedSpace(org, 6, now, team.id);
    const active = await createSpace(org);
    await grant(org, active.id, { role: 'review', users: [org.members.read.id], teams: [team.id] });
    expect(await rowsOf(expired.id, expired.revision)).toEqual({ spaces: 1, revisions: 1, revision: 1, userGrants: 1, teamGrants: 1 });
    const activeBefore = await spaceRow(active.id);
    const recentBefore = await spaceRow(recent.id);

    await runCron(now);

    // Permanently removed, with its revisions and grants.
    expectError(await api('GET', spacePath(expired.id), { token: org.owner.token }), 404);
    expectError(await api('POST', `${spacePath(expired.id)}/restore`, { token: org.owner.token }), 404);
    expect(await rowsOf(expired.id, expired.revision)).toEqual({ spaces: 0, revisions: 0, revision: 0, userGrants: 0, teamGrants: 0 });
    // Deleted 6 days ago: kept as it was, and still restorable.
    expect(await spaceRow(recent.id)).toEqual(recentBefore);
    expect(await rowsOf(recent.id, recent.revision)).toEqual({ spaces: 1, revisions: 1, revision: 1, userGrants: 1, teamGrants: 1 });
    // Active: untouched.
    expect(await spaceRow(active.id)).toEqual(activeBefore);
    expect((await getSpace(active.id, org.members.read.token)).permissions.review).toBe(true);

    // A second run changes nothing more.
    const afterFirst = await snapshot();
    await runCron(now);
    expect(await snapshot()).toEqual(afterFirst);

    const restored = await api('POST', `${spacePath(recent.id)}/restore`, { token: org.owner.token });
    expectStatus(restored, 200);
    expect(restored.body.deletedAt).toBeUndefined();
    expect((await getSpace(recent.id, org.members.read.token)).permissions.edit).toBe(true);
  });

  it('measures the 7 days from scheduledTime, not from the wall clock', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, []);
    const now = Date.now();
    const threeDaysAgo = await deletedSpace(org, 3, now, team.id);
    // An earlier run (scheduled before the deletion's 7 days elapsed) keeps it.
    await runCron(now);
    expect(await spaceRow(threeDaysAgo.id)).not.toBeNull();
    await runCron(now + 3 * DAY);
    expect(await spaceRow(threeDaysAgo.id)).not.toBeNull();
    // A run 5 days from now: 8 days after the deletion.
    await runCron(now + 5 * DAY);
    expect(await spaceRow(threeDaysAgo.id)).toBeNull();
  });

  it('keeps a space deleted just under 7 days before, removes one just over', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, []);
    const now = Date.now();
    const under = await deletedSpace(org, 7 - 1 / 24, now, team.id);
    const over = await deletedSpace(org, 7 + 1 / 24, now, team.id);
    await runCron(now);
    expect(await spaceRow(under.id)).not.toBeNull();
    expect(await spaceRow(over.id)).toBeNull();
  });

  it('purges every organization\'s expired spaces, more than one statement\'s worth', async () => {
    const org = await seedOrg();
    const other = await seedOrg();
    const now = Date.now();
    const old = new Date(now - 10 * DAY).toISOString();
    // 95 expired spaces written directly (more than the 90 ids per statement), plus one via the API elsewhere.
    const ids = Array.from({ length: 95 }, (_, i) => `bulk${i.toString().padStart(16, '0')}`);
    const statements = ids.flatMap((id, i) => [
      env.DB.prepare(
        'insert into spaces (id, org_id, title, position, revision_id, created_at, updated_at, deleted_at) values (?, ?, ?, ?, ?, ?, ?, ?)',
      ).bind(id, org.id, `Bulk ${i}`, i + 1, `rev-${id}`, old, old, old),
      env.DB.prepare('insert into revisions (id, space_id, type, created_at) values (?, ?, ?, ?)').bind(`rev-${id}`, id, 'initial', old),
    ]);
    await env.DB.batch(statements);
    const elsewhere = await createSpace(other);
    expectStatus(await api('DELETE', spacePath(elsewhere.id), { token: other.owner.token }), 204);
    await setDeletedAt(elsewhere.id, 9, now);
    const keep = await createSpace(org);

    expect(await purgeDeletedSpaces(createDb(env.DB), now)).toBe(96);
    const left = await env.DB.prepare('select count(*) as n from spaces where id like ? or id = ?').bind('bulk%', elsewhere.id).first<number>('n');
    expect(left).toBe(0);
    expect(await env.DB.prepare('select count(*) as n from revisions where id like ?').bind('rev-bulk%').first<number>('n')).toBe(0);
    expect(await spaceRow(keep.id)).not.toBeNull();
    // Nothing left to do.
    expect(await purgeDeletedSpaces(createDb(env.DB), now)).toBe(0);
  });

  it('runScheduled purges with the same rule', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, []);
    const now = Date.now();
    const expired = await deletedSpace(org, 8, now, team.id);
    const kept = await deletedSpace(org, 1, now, team.id);
    await runScheduled(env, now);
    expect(await spaceRow(expired.id)).toBeNull();
    expect(await spaceRow(kept.id)).not.toBeNull();
  });

  it('removes the trees Git Sync kept for a purged space, and only its own', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, []);
    const now = Date.now();
    const expired = await deletedSpace(org, 8, now, team.id);
    const kept = await deletedSpace(org, 1, now, team.id);
    for (const space of [expired, kept]) await env.FILES.put(treeCacheKey(space.id), 'trees');
    await runScheduled(env, now);
    expect(await env.FILES.head(treeCacheKey(expired.id))).toBeNull();
    expect(await env.FILES.head(treeCacheKey(kept.id))).not.toBeNull();
  });
});
