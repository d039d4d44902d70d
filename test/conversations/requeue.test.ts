import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { CONVERSATION_REQUEUE_PER_RUN, requeueConversationJobs, runScheduled, STALE_CONVERSATION_JOB_MS } from '../../src/jobs/cron';
import { newId } from '../../src/lib/ids';
import { CONVERSATION_ANALYZE_JOB } from '../../src/services/conversations/types';

const MINUTE = 60_000;

interface Message {
  id: string;
  type: string;
  payload: { conversationId: string };
}

/** JOBS standing in for the queue: what the cron sends is captured, batch by batch (or the send fails). */
function fakeQueue(options: { failing?: boolean } = {}) {
  const sent: Message[] = [];
  const batches: number[] = [];
  const queue = {
    send: async () => {
      throw new Error('the cron sends batches');
    },
    sendBatch: async (messages: { body: unknown }[]) => {
      if (options.failing) throw new Error('queue unavailable');
      batches.push(messages.length);
      sent.push(...messages.map((m) => m.body as Message));
    },
  };
  return { sent, batches, env: { ...env, JOBS: queue as unknown as Queue<unknown> } };
}

async function newOrg(): Promise<string> {
  const id = newId();
  await env.DB.prepare(`insert into organizations (id, title, created_at, merge_rules) values (?, ?, ?, '{}')`).bind(id, `Org ${id}`, new Date().toISOString()).run();
  return id;
}

interface State {
  analysis_state: 'pending' | 'analysing' | 'complete';
  analysis_job: string | null;
  queued_at: string | null;
  analysis_attempts?: number;
}

/** A conversation in an analysis state, straight in D1. */
async function seedConversation(orgId: string, state: State): Promise<string> {
  const id = newId();
  const now = new Date().toISOString();
  await env.DB.prepare(
    `insert into conversations (id, org_id, source, external_id, parts, content_hash, analysis_state, analysis_job, queued_at, analysis_attempts, created_at, updated_at)
     values (?, ?, 'api', ?, '[]', 'hash', ?, ?, ?, ?, ?, ?)`,
  )
    .bind(id, orgId, `ext-${id}`, state.analysis_state, state.analysis_job, state.queued_at, state.analysis_attempts ?? 0, now, now)
    .run();
  return id;
}

async function stateOf(id: string): Promise<State> {
  return (await env.DB.prepare('select analysis_state, analysis_job, queued_at, analysis_attempts from conversations where id = ?').bind(id).first<State>())!;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Ends every outstanding job of this file's earlier tests (storage is per file), so a test counts only its own. */
async function settleAll() {
  await env.DB.prepare(`update conversations set analysis_state = 'complete', analysis_job = null`).run();
}

describe('cron: conversation analysis', () => {
  it('sends again the jobs of conversations pending or analysing for more than 15 minutes, and only those', async () => {
    expect(STALE_CONVERSATION_JOB_MS).toBe(15 * MINUTE);
    const orgId = await newOrg();
    const now = Date.now();
    const job = () => newId();
    const lost = { analysis_state: 'pending', analysis_job: job(), queued_at: iso(now - 20 * MINUTE) } as const;
    // Claimed 20 minutes ago by a consumer that was killed; two claims counted, which the cron keeps.
    const killed = { analysis_state: 'analysing', analysis_job: job(), queued_at: iso(now - 20 * MINUTE), analysis_attempts: 2 } as const;
    const neverStamped = { analysis_state: 'pending', analysis_job: job(), queued_at: null } as const;
    const ids = {
      lost: await seedConversation(orgId, lost),
      killed: await seedConversation(orgId, killed),
      neverStamped: await seedConversation(orgId, neverStamped),
      // The queue still has these, or nothing is outstanding.
      fresh: await seedConversation(orgId, { analysis_state: 'pending', analysis_job: job(), queued_at: iso(now - 5 * MINUTE) }),
      working: await seedConversation(orgId, { analysis_state: 'analysing', analysis_job: job(), queued_at: iso(now - 14 * MINUTE) }),
      complete: await seedConversation(orgId, { analysis_state: 'complete', analysis_job: null, queued_at: iso(now - 60 * MINUTE) }),
    };
    const queue = fakeQueue();
    await requeueConversationJobs(queue.env, createDb(env.DB), now);
    const mine = queue.sent.filter((m) => Object.values(ids).includes(m.payload.conversationId));
    expect(mine.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [
        { id: lost.analysis_job, type: CONVERSATION_ANALYZE_JOB, payload: { conversationId: ids.lost } },
        { id: killed.analysis_job, type: CONVERSATION_ANALYZE_JOB, payload: { conversationId: ids.killed } },
        { id: neverStamped.analysis_job, type: CONVERSATION_ANALYZE_JOB, payload: { conversationId: ids.neverStamped } },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
    for (const name of ['lost', 'killed', 'neverStamped'] as const) {
      expect(await stateOf(ids[name]), name).toMatchObject({ analysis_state: 'pending', queued_at: iso(now) });
    }
    expect((await stateOf(ids.killed)).analysis_attempts).toBe(2);
    expect(await stateOf(ids.working)).toMatchObject({ analysis_state: 'analysing', queued_at: iso(now - 14 * MINUTE) });
    expect(await stateOf(ids.complete)).toMatchObject({ analysis_state: 'complete', analysis_job: null });

    // A second run sends nothing twice.
    const second = fakeQueue();
    await requeueConversationJobs(second.env, createDb(env.DB), now + MINUTE);
    expect(second.sent.filter((m) => Object.values(ids).includes(m.payload.conversationId))).toEqual([]);
  });

  it(`sends at most ${CONVERSATION_REQUEUE_PER_RUN} per run, in batches of 100, the oldest first; the rest at the next run`, async () => {
    await settleAll();
    const orgId = await newOrg();
    const now = Date.now();
    const total = CONVERSATION_REQUEUE_PER_RUN + 1;
    await env.DB.prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?)
       insert into conversations (id, org_id, source, external_id, parts, content_hash, analysis_state, analysis_job, queued_at, created_at, updated_at)
       select 'bulk-' || i, ?, 'api', 'bulk-' || i, '[]', 'hash', 'pending', 'job-' || i, strftime('%Y-%m-%dT%H:%M:%fZ', '2024-01-01', '+' || i || ' seconds'), '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z'
       from n`,
    )
      .bind(total, orgId)
      .run();
    const db = createDb(env.DB);
    const first = fakeQueue();
    const count = await requeueConversationJobs(first.env, db, now);
    expect(count).toBe(CONVERSATION_REQUEUE_PER_RUN);
    expect(first.batches.every((size) => size <= 100)).toBe(true);
    expect(first.batches.reduce((a, b) => a + b, 0)).toBe(CONVERSATION_REQUEUE_PER_RUN);
    // The oldest first: the newest waits for the next run.
    expect(new Set(first.sent.map((m) => m.id))).toEqual(new Set(Array.from({ length: CONVERSATION_REQUEUE_PER_RUN }, (_, i) => `job-${i + 1}`)));
    const second = fakeQueue();
    expect(await requeueConversationJobs(second.env, db, now)).toBe(1);
    expect(second.sent.map((m) => m.id)).toEqual([`job-${total}`]);
  });

  it('a send that fails is sent again at a run 15 minutes later', async () => {
    await settleAll();
    const orgId = await newOrg();
    const now = Date.now();
    const jobId = newId();
    const id = await seedConversation(orgId, { analysis_state: 'pending', analysis_job: jobId, queued_at: iso(now - 20 * MINUTE) });
    const failing = fakeQueue({ failing: true });
    await requeueConversationJobs(failing.env, createDb(env.DB), now);
    expect((await stateOf(id)).queued_at).toBe(iso(now));
    const soon = fakeQueue();
    await requeueConversationJobs(soon.env, createDb(env.DB), now + 5 * MINUTE);
    expect(soon.sent.filter((m) => m.payload.conversationId === id)).toEqual([]);
    const later = fakeQueue();
    await requeueConversationJobs(later.env, createDb(env.DB), now + 16 * MINUTE);
    expect(later.sent.filter((m) => m.payload.conversationId === id)).toEqual([{ id: jobId, type: CONVERSATION_ANALYZE_JOB, payload: { conversationId: id } }]);
  });

  it('runs in the scheduled handler', async () => {
    await settleAll();
    const orgId = await newOrg();
    const now = Date.now();
    const jobId = newId();
    const id = await seedConversation(orgId, { analysis_state: 'analysing', analysis_job: jobId, queued_at: iso(now - 30 * MINUTE) });
    const queue = fakeQueue();
    await runScheduled(queue.env as never, now);
    expect(queue.sent.filter((m) => m.type === CONVERSATION_ANALYZE_JOB)).toEqual([{ id: jobId, type: CONVERSATION_ANALYZE_JOB, payload: { conversationId: id } }]);
    expect(await stateOf(id)).toMatchObject({ analysis_state: 'pending', queued_at: iso(now) });
  });
});
