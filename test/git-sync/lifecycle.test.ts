import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { GIT_SYNC_JOB } from '../../src/jobs/git-sync';
import { runScheduled } from '../../src/jobs/cron';
import { GIT_SYNC_MAX_DELIVERIES } from '../../src/services/git-sync/cleanup';
import { deliverIntegrationEvent } from '../../src/services/integrations/delivery';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitInfo, repositoryUrl, runPending } from '../helpers/git-sync';
import { seedInstallation, seedIntegration } from '../helpers/integrations';

/**
 * The life of a Git Sync operation around its run: the `space_gitsync_started` and `space_gitsync_completed`
 * events delivered to the integrations installed on the space, and credentials that never outlive the operation
 * (the last delivery of its message, a run that throws on every delivery, a message lost).
 */

/** One delivery of the operation's queue message, as the queue makes it (`attempts`: this delivery's number). */
async function deliver(operationId: string, attempts: number) {
  const messageId = `m-${operationId}-${attempts}`;
  const batch = createMessageBatch<unknown>('docs-platform-jobs', [{ id: messageId, timestamp: new Date(), attempts, body: { id: operationId, type: GIT_SYNC_JOB, payload: { operationId } } }]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  const result = await getQueueResult(batch, ctx);
  return { acked: result.explicitAcks.includes(messageId), retried: result.retryMessages.some((m) => m.msgId === messageId) };
}

async function operationOf(spaceId: string) {
  return (await env.DB.prepare(`select id, state, secret, error from git_sync_operations where space_id = ? order by created_at desc, rowid desc limit 1`).bind(spaceId).first<{
    id: string;
    state: string;
    secret: string | null;
    error: string | null;
  }>())!;
}

/** A running operation of the space (what another delivery's run looks like while it runs). */
async function holdSpace(spaceId: string, userId: string) {
  await env.DB.prepare(`insert into git_sync_operations (id, space_id, direction, user_id, request, secret, state, created_at) values (?, ?, 'import', ?, '{}', null, 'running', ?)`)
    .bind(`held-${spaceId}`, spaceId, userId, new Date().toISOString())
    .run();
}

const SCRIPT = `
export default {
  async fetch(request) {
    const event = JSON.parse((await request.formData()).get('event'));
    console.log(event.type + ' space=' + event.spaceId + ' state=' + (event.state ?? '-') + ' revision=' + event.revisionId + ' commit=' + event.commitId);
    return new Response('OK');
  },
};
`;

describe('Git Sync events', () => {
  it('space_gitsync_started and space_gitsync_completed reach the integrations installed on the space, with the commit and the revision', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const other = await createSpace(org.id, token);
    const integration = await seedIntegration(org.id, { script: SCRIPT, scopes: ['space:content:read'] });
    const installation = await seedInstallation(integration, org.id, { spaces: [space.id] });
    const repo = await createRepository('events', { files: { 'README.md': '# Home\n\nHello.\n' } });

    for (const id of [space.id, other.id]) {
      expectStatus(await api('POST', `/v1/spaces/${id}/git/import`, { token, body: { url: repositoryUrl('events'), ref: 'refs/heads/main', force: true } }), 204);
      await runPending(id);
    }
    const head = expectStatus(await api('GET', `/v1/spaces/${space.id}`, { token }), 200).body.revision;
    const events = await env.DB.prepare(`select id, json_extract(payload, '$.type') as type from integration_events where installation_id = ? order by created_at, rowid`)
      .bind(installation.id)
      .all<{ id: string; type: string }>();
    // Only the space the installation covers: none for the other space's sync.
    expect(events.results.map((e) => e.type)).toEqual(['space_gitsync_started', 'space_content_updated', 'space_gitsync_completed']);
    const lines: string[] = [];
    for (const event of events.results) {
      expect(await deliverIntegrationEvent(env, event.id, 1)).toBe('delivered');
      const trace = await env.DB.prepare('select message from integration_event_logs where event_id = ? order by id').bind(event.id).all<{ message: string }>();
      lines.push(trace.results[0].message);
    }
    expect(lines[0]).toMatch(new RegExp(`^space_gitsync_started space=${space.id} state=- revision=\\w+ commit=${repo.head}$`));
    expect(lines[2]).toBe(`space_gitsync_completed space=${space.id} state=success revision=${head} commit=${repo.head}`);

    // A failed operation completes with state failure.
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/import`, { token, body: { url: repositoryUrl('events'), ref: 'refs/heads/gone', force: true } }), 204);
    await runPending(space.id);
    const failed = await env.DB.prepare(`select payload from integration_events where installation_id = ? and json_extract(payload, '$.type') = 'space_gitsync_completed' order by created_at desc, rowid desc limit 1`)
      .bind(installation.id)
      .first<{ payload: string }>();
    expect(JSON.parse(failed!.payload)).toMatchObject({ type: 'space_gitsync_completed', state: 'failure', spaceId: space.id });
  });
});

describe('Git Sync credentials end with the operation, whatever its end', () => {
  it("the last delivery of a message whose space stays busy ends the operation as a failure and deletes the credentials", async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('busy', { files: { 'README.md': '# Home\n' } });
    await holdSpace(space.id, org.owner.id);
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/import`, { token, body: { url: repositoryUrl('busy'), ref: 'refs/heads/main', force: true } }), 204);
    const op = await operationOf(space.id);
    expect(op.secret).not.toBeNull();

    // Busy: retried later, the credentials kept for the run to come.
    expect(await deliver(op.id, 1)).toEqual({ acked: false, retried: true });
    expect((await operationOf(space.id)).secret).not.toBeNull();
    // The last delivery: no dead-letter message keeps credentials alive; the operation says why it did not run.
    expect(await deliver(op.id, GIT_SYNC_MAX_DELIVERIES)).toEqual({ acked: true, retried: false });
    expect(await operationOf(space.id)).toMatchObject({ state: 'failure', secret: null, error: expect.stringContaining('was not run') });
    expect((await gitInfo(space.id, token)).body.operation).toMatchObject({ state: 'failure', error: expect.stringContaining('was not run') });
  });

  it('a run that throws on its last delivery goes to the dead-letter queue without its credentials', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    expectStatus(await api('POST', `/v1/spaces/${space.id}/git/import`, { token, body: { url: repositoryUrl('nowhere'), ref: 'refs/heads/main', force: true } }), 204);
    const op = await operationOf(space.id);
    // A request that cannot be read makes every run throw (as a bug would).
    await env.DB.prepare(`update git_sync_operations set request = 'not json' where id = ?`).bind(op.id).run();
    expect(await deliver(op.id, GIT_SYNC_MAX_DELIVERIES)).toEqual({ acked: false, retried: true });
    expect(await operationOf(space.id)).toMatchObject({ state: 'failure', secret: null });
    expect((await gitInfo(space.id, token)).body.operation.state).toBe('failure');
  });

  it('the hourly sweep ends operations whose messages are gone (pending for hours, running past the timeout) and deletes their credentials', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const lost = await createSpace(org.id, token);
    const stopped = await createSpace(org.id, token);
    const fresh = await createSpace(org.id, token);
    for (const space of [lost, stopped, fresh]) {
      expectStatus(await api('POST', `/v1/spaces/${space.id}/git/import`, { token, body: { url: repositoryUrl('nowhere'), ref: 'refs/heads/main', force: true } }), 204);
    }
    const hoursAgo = new Date(Date.now() - 3 * 60 * 60 * 1000).toISOString();
    await env.DB.prepare(`update git_sync_operations set created_at = ? where space_id = ?`).bind(hoursAgo, lost.id).run();
    await env.DB.prepare(`update git_sync_operations set created_at = ?, state = 'running' where space_id = ?`).bind(hoursAgo, stopped.id).run();
    await runScheduled(env, Date.now());
    expect(await operationOf(lost.id)).toMatchObject({ state: 'failure', secret: null });
    expect(await operationOf(stopped.id)).toMatchObject({ state: 'failure', secret: null, error: 'the operation did not finish in time' });
    // A pending operation whose message is still on its way keeps what it needs.
    expect((await operationOf(fresh.id)).secret).not.toBeNull();
    for (const space of [lost, stopped]) expect((await gitInfo(space.id, token)).body.operation.state).toBe('failure');
  });
});
