import { createMessageBatch, getQueueResult, createExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { JOB_HANDLERS, retryDelaySeconds } from '../../src/jobs/consumer';

describe('queue consumer', () => {
  afterEach(() => {
    delete JOB_HANDLERS['test.echo'];
  });

  it('acks handled messages and retries failures and unknown or malformed messages, each on its own', async () => {
    const seen: string[] = [];
    JOB_HANDLERS['test.echo'] = async (job) => {
      if ((job.payload as { fail?: boolean }).fail) throw new Error('boom');
      seen.push(job.id);
    };
    const batch = createMessageBatch<unknown>('docs-platform-jobs', [
      { id: 'm1', timestamp: new Date(), attempts: 1, body: { id: 'job-1', type: 'test.echo', payload: {} } },
      { id: 'm2', timestamp: new Date(), attempts: 2, body: { id: 'job-2', type: 'test.echo', payload: { fail: true } } },
      { id: 'm3', timestamp: new Date(), attempts: 1, body: { id: 'job-3', type: 'nobody.handles.this', payload: {} } },
      { id: 'm4', timestamp: new Date(), attempts: 1, body: 'not an envelope' },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    const result = await getQueueResult(batch, ctx);
    expect(seen).toEqual(['job-1']);
    expect(result.explicitAcks).toEqual(['m1']);
    expect(result.retryMessages.map((m) => m.msgId).sort()).toEqual(['m2', 'm3', 'm4']);
  });

  it('backs off exponentially up to an hour', () => {
    expect([1, 2, 3, 4].map(retryDelaySeconds)).toEqual([10, 20, 40, 80]);
    expect(retryDelaySeconds(30)).toBe(3600);
  });
});
