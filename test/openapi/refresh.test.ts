import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { requeueSpecJobs, runScheduled, SPEC_REFRESH_MS, SPEC_REQUEUE_PER_RUN, STALE_SPEC_JOB_MS } from '../../src/jobs/cron';
import { createDb } from '../../src/db/client';
import { setOutboundFetch } from '../../src/lib/outbound';
import { OPENAPI_PROCESS_JOB } from '../../src/services/openapi/jobs';
import { seedOrg } from '../helpers/harness';
import { seedSpec } from '../helpers/openapi';
import petstoreYaml from '../fixtures/openapi/petstore.yaml?raw';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

interface Message {
  id: string;
  type: string;
  payload: { specId: string };
}

/** JOBS standing in for the queue: what the cron sends is captured (or the send fails). */
function fakeQueue(options: { failing?: boolean } = {}) {
  const sent: Message[] = [];
  const queue = {
    send: async (body: unknown) => {
      if (options.failing) throw new Error('queue unavailable');
      sent.push(body as Message);
    },
    sendBatch: async (messages: { body: unknown }[]) => {
      if (options.failing) throw new Error('queue unavailable');
      sent.push(...messages.map((m) => m.body as Message));
    },
  };
  return { sent, env: { ...env, JOBS: queue as unknown as Queue<unknown> } };
}

interface SpecState {
  processing_state: string;
  processing_job: string | null;
  queued_at: string | null;
  last_processed_at: string | null;
}

async function specRow(id: string): Promise<SpecState> {
  return (await env.DB.prepare('select processing_state, processing_job, queued_at, last_processed_at from openapi_specs where id = ?').bind(id).first<SpecState>())!;
}

async function setRow(id: string, columns: Partial<SpecState>) {
  const names = Object.keys(columns);
  await env.DB.prepare(`update openapi_specs set ${names.map((n) => `${n} = ?`).join(', ')} where id = ?`)
    .bind(...Object.values(columns), id)
    .run();
}

const iso = (ms: number) => new Date(ms).toISOString();
const sentFor = (sent: Message[], ids: string[]) => sent.filter((m) => ids.includes(m.payload.specId));

let orgId: string;
beforeAll(async () => {
  orgId = (await seedOrg()).id;
});

afterEach(() => {
  setOutboundFetch();
});

describe('cron: openapi spec processing', () => {
  it('sends again a job not picked up for 15 minutes, and refreshes URL specs not processed for 24 hours; leaves the rest alone', async () => {
    expect(STALE_SPEC_JOB_MS).toBe(15 * MINUTE);
    expect(SPEC_REFRESH_MS).toBe(24 * HOUR);
    const now = Date.now();
    const url = (name: string) => `https://specs.example.com/${name}/openapi.yaml`;
    // A job sent 20 minutes ago whose consumer crashed in the middle of it.
    const lost = await seedSpec(orgId, { url: url('lost'), state: 'progress' });
    await setRow(lost.id, { queued_at: iso(now - 20 * MINUTE) });
    // A job sent 5 minutes ago: the queue still has it.
    const fresh = await seedSpec(orgId, { url: url('fresh') });
    await setRow(fresh.id, { queued_at: iso(now - 5 * MINUTE) });
    // Processed 25 hours ago, 1 hour ago, never (and nothing outstanding); a text source processed 25 hours ago.
    const due = await seedSpec(orgId, { url: url('due'), job: null, state: 'complete', lastProcessedAt: iso(now - 25 * HOUR) });
    const recent = await seedSpec(orgId, { url: url('recent'), job: null, state: 'complete', lastProcessedAt: iso(now - HOUR) });
    const never = await seedSpec(orgId, { url: url('never'), job: null, state: 'complete' });
    const text = await seedSpec(orgId, { text: petstoreYaml, job: null, state: 'complete', lastProcessedAt: iso(now - 25 * HOUR) });
    // An outstanding job on a spec that is also due: the job is what counts (sent again only once stale).
    const dueWithJob = await seedSpec(orgId, { url: url('due-with-job'), lastProcessedAt: iso(now - 25 * HOUR) });
    const ids = [lost, fresh, due, recent, never, text, dueWithJob].map((s) => s.id);
    const untouched = { fresh: await specRow(fresh.id), recent: await specRow(recent.id), text: await specRow(text.id), dueWithJob: await specRow(dueWithJob.id) };

    const queue = fakeQueue();
    await runScheduled(queue.env, now);
    const sent = sentFor(queue.sent, ids);
    expect(sent.map((m) => m.payload.specId).sort()).toEqual([lost.id, due.id, never.id].sort());
    for (const message of sent) expect(message.type).toBe(OPENAPI_PROCESS_JOB);

    // (a) the same job again, pending again.
    expect(sent.find((m) => m.payload.specId === lost.id)!.id).toBe(lost.job);
    expect(await specRow(lost.id)).toMatchObject({ processing_state: 'pending', processing_job: lost.job, queued_at: iso(now) });
    // (b) a new job each, named by the spec before its message is sent.
    for (const spec of [due, never]) {
      const row = await specRow(spec.id);
      expect(row.processing_job).toMatch(/^[0-9a-f]{20}$/);
      expect(row).toMatchObject({ processing_state: 'pending', queued_at: iso(now) });
      expect(sent.find((m) => m.payload.specId === spec.id)!.id).toBe(row.processing_job);
    }
    expect((await specRow(due.id)).processing_job).not.toBe((await specRow(never.id)).processing_job);
    expect(await specRow(fresh.id)).toEqual(untouched.fresh);
    expect(await specRow(recent.id)).toEqual(untouched.recent);
    expect(await specRow(text.id)).toEqual(untouched.text);
    expect(await specRow(dueWithJob.id)).toEqual(untouched.dueWithJob);

    // The next run sends none of them twice.
    const again = fakeQueue();
    await runScheduled(again.env, now + MINUTE);
    expect(sentFor(again.sent, ids)).toEqual([]);

    // The messages sent process the specs (a re-sent job included).
    setOutboundFetch(async () => new Response(petstoreYaml));
    for (const message of sent) {
      const batch = createMessageBatch<unknown>('docs-platform-jobs', [{ id: `m-${message.id}`, timestamp: new Date(), attempts: 1, body: message }]);
      const ctx = createExecutionContext();
      await worker.queue(batch, env, ctx);
      expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual([`m-${message.id}`]);
      expect(await specRow(message.payload.specId)).toMatchObject({ processing_state: 'complete', processing_job: null });
    }
  });

  it('a message that could not be sent is sent again once its job is stale', async () => {
    const now = Date.now() + 2 * HOUR; // later than every job the other tests left outstanding
    const spec = await seedSpec(orgId, { url: 'https://specs.example.com/unsent/openapi.yaml', job: null, state: 'complete', lastProcessedAt: iso(now - 30 * HOUR) });
    const db = createDb(env.DB);

    const down = fakeQueue({ failing: true });
    await requeueSpecJobs(down.env, db, now);
    const row = await specRow(spec.id);
    expect(row).toMatchObject({ processing_state: 'pending', queued_at: iso(now) });
    expect(row.processing_job).not.toBeNull();

    const soon = fakeQueue();
    await requeueSpecJobs(soon.env, db, now + 10 * MINUTE);
    expect(sentFor(soon.sent, [spec.id])).toEqual([]);

    const later = fakeQueue();
    await requeueSpecJobs(later.env, db, now + 16 * MINUTE);
    expect(sentFor(later.sent, [spec.id])).toEqual([{ id: row.processing_job!, type: OPENAPI_PROCESS_JOB, payload: { specId: spec.id } }]);
  });

  it('a refresh names a new job with no claim counted; a job sent again keeps the claims counted of it', async () => {
    const now = Date.now() + 6 * HOUR;
    // Failed a day ago because its claims were cut short (the count is the failed job's).
    const cutShort = await seedSpec(orgId, { url: 'https://specs.example.com/cut-short/openapi.yaml', job: null, state: 'complete', lastProcessedAt: iso(now - 25 * HOUR), attempts: 3 });
    // A job claimed twice, the last claim 20 minutes ago, its isolate killed.
    const killed = await seedSpec(orgId, { url: 'https://specs.example.com/killed/openapi.yaml', state: 'progress', attempts: 2 });
    await setRow(killed.id, { queued_at: iso(now - 20 * MINUTE) });
    const queue = fakeQueue();
    await requeueSpecJobs(queue.env, createDb(env.DB), now);
    expect(sentFor(queue.sent, [cutShort.id, killed.id])).toHaveLength(2);
    const attempts = async (id: string) => (await env.DB.prepare('select processing_attempts as n from openapi_specs where id = ?').bind(id).first<{ n: number }>())!.n;
    expect(await specRow(cutShort.id)).toMatchObject({ processing_state: 'pending', queued_at: iso(now) });
    expect(await attempts(cutShort.id)).toBe(0);
    expect(await specRow(killed.id)).toMatchObject({ processing_state: 'pending', processing_job: killed.job, queued_at: iso(now) });
    expect(await attempts(killed.id)).toBe(2);
  });

  it(`refreshes at most ${SPEC_REQUEUE_PER_RUN} specs per run, the longest unprocessed first`, async () => {
    const now = Date.now() + 4 * HOUR;
    const specs = [];
    for (let i = 0; i < SPEC_REQUEUE_PER_RUN + 5; i++) {
      // Spec i was processed i minutes later than spec 0: the last five are the most recently processed.
      specs.push(await seedSpec(orgId, { url: `https://specs.example.com/bulk/${i}.yaml`, job: null, state: 'complete', lastProcessedAt: iso(now - 48 * HOUR + i * MINUTE) }));
    }
    const ids = specs.map((s) => s.id);
    const db = createDb(env.DB);

    const first = fakeQueue();
    await requeueSpecJobs(first.env, db, now);
    expect(sentFor(first.sent, ids)).toHaveLength(SPEC_REQUEUE_PER_RUN);
    expect(sentFor(first.sent, ids).map((m) => m.payload.specId).sort()).toEqual(ids.slice(0, SPEC_REQUEUE_PER_RUN).sort());

    const second = fakeQueue();
    await requeueSpecJobs(second.env, db, now + MINUTE);
    expect(sentFor(second.sent, ids).map((m) => m.payload.specId).sort()).toEqual(ids.slice(SPEC_REQUEUE_PER_RUN).sort());
  });
});
