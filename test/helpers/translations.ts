import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { expect } from 'vitest';
import worker from '../../src/index';
import { applyChanges, createSpace, merge, openChangeRequest } from './content';
import { expectStatus } from './harness';
import { apiCapturingQueue } from './integrations';
import type { QueuedJob } from './conversations';

/**
 * Translations in tests. The translator is injected where production's is: a fake `AI` binding whose `run`
 * answers m2m100's `{ translated_text }`, the text upper-cased (so what was and was not sent is visible).
 * Queue messages are captured and delivered by the test (JOBS goes to an unconsumed queue).
 */

export interface FakeAI {
  binding: { run(model: string, input: any): Promise<unknown> };
  /** Every text sent, in order. */
  texts: string[];
  models: string[];
}

export function uppercaseAI(options: { fail?: () => boolean } = {}): FakeAI {
  const texts: string[] = [];
  const models: string[] = [];
  return {
    texts,
    models,
    binding: {
      async run(model, input) {
        if (options.fail?.()) throw new Error('the model is down');
        models.push(model);
        texts.push(input.text);
        return { translated_text: String(input.text).toUpperCase() };
      },
    },
  };
}

/** POSTs a translation with a queue that keeps the messages. */
export async function postTranslation(orgId: string, token: string, body: unknown) {
  const { sent, status, body: answer } = await apiCapturingQueue('POST', `/v1/orgs/${orgId}/translations`, token, body);
  return { status, body: answer as any, sent: sent as unknown as QueuedJob[] };
}

/** POSTs a run with a queue that keeps the messages. */
export async function postRun(orgId: string, translationId: string, token: string) {
  const { sent, status, body } = await apiCapturingQueue('POST', `/v1/orgs/${orgId}/translations/${translationId}/run`, token);
  return { status, body: body as any, sent: sent as unknown as QueuedJob[] };
}

/**
 * Delivers messages to the consumer (one batch) with `AI` bound to `ai` (none when undefined) and a queue
 * that keeps what the consumer sends: the queue's verdict and the next messages.
 */
export async function deliverRun(jobs: QueuedJob[], ai: FakeAI | undefined, attempts = 1) {
  const sent: QueuedJob[] = [];
  const queue = {
    send: async (message: QueuedJob) => void sent.push(message),
    sendBatch: async (messages: { body: QueuedJob }[]) => void sent.push(...messages.map((m) => m.body)),
  };
  const batch = createMessageBatch<unknown>(
    'docs-platform-jobs',
    jobs.map((body, index) => ({ id: `m-${index}-${body.id}`, timestamp: new Date(), attempts, body })),
  );
  const ctx = createExecutionContext();
  const bindings = { ...env, AI: ai?.binding, JOBS: queue } as never;
  await worker.queue(batch, bindings, ctx);
  return { result: await getQueueResult(batch, ctx), sent };
}

/** Delivers messages and the ones they send, until none is sent; how many were delivered. */
export async function runToEnd(jobs: QueuedJob[], ai: FakeAI | undefined): Promise<number> {
  let pending = jobs;
  let delivered = 0;
  for (let round = 0; pending.length > 0; round++) {
    if (round > 200) throw new Error('the run does not end');
    const { result, sent } = await deliverRun(pending, ai);
    expect(result.retryMessages, 'no message is retried').toEqual([]);
    delivered += pending.length;
    pending = sent;
  }
  return delivered;
}

/** Creates a space and merges `changes` into its main content; the created pages' ids by ref. */
export async function seedSpace(orgId: string, token: string, title: string, changes: unknown[]): Promise<{ space: any; pages: Record<string, string> }> {
  const space = await createSpace(orgId, token, title);
  const cr = await openChangeRequest(space.id, token);
  const applied = await applyChanges(space.id, cr.number, token, changes);
  expectStatus(await merge(space.id, cr.number, token), 200);
  const pages: Record<string, string> = {};
  for (const change of applied.changes) if (change.ref) pages[change.ref] = typeof change.page === 'string' ? change.page : change.page.id;
  return { space, pages };
}

/** Applies changes to a space's main content through a merged change request. */
export async function editSpace(spaceId: string, token: string, changes: unknown[]): Promise<void> {
  const cr = await openChangeRequest(spaceId, token);
  await applyChanges(spaceId, cr.number, token, changes);
  expectStatus(await merge(spaceId, cr.number, token), 200);
}
