import { createExecutionContext, createMessageBatch, getQueueResult, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { createApp } from '../../src/app';
import worker from '../../src/index';
import { BASE } from './harness';

/** Site insights in tests: requests whose queue messages are kept, delivered to the consumer by hand, and events. */

const app = createApp();

/** The messages a request sent to JOBS, instead of the queue. */
export interface CapturedQueue {
  messages: unknown[];
  queue: Queue<unknown>;
}

export function captureQueue(): CapturedQueue {
  const messages: unknown[] = [];
  const queue = {
    send: async (body: unknown) => void messages.push(body),
    sendBatch: async (batch: Iterable<{ body: unknown }>) => {
      for (const m of batch) messages.push(m.body);
    },
  } as unknown as Queue<unknown>;
  return { messages, queue };
}

/** A D1 binding (and its sessions) that records the SQL of every statement prepared on it. */
function recordingD1(real: D1Database, statements: string[]): D1Database {
  const recorded = <T extends D1Database | D1DatabaseSession>(client: T): T =>
    new Proxy(client, {
      get(target, prop) {
        if (prop === 'prepare') return (query: string) => (statements.push(query), target.prepare(query));
        if (prop === 'withSession') return (start?: string) => recorded((target as D1Database).withSession(start));
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return recorded(real);
}

/** A request through the app (a path of BASE, or a URL) with JOBS captured, and the SQL it prepared. */
export async function callCapturing(path: string, init: RequestInit, captured: CapturedQueue) {
  const statements: string[] = [];
  const ctx = createExecutionContext();
  const res = await app.request(path.startsWith('http') ? path : `${BASE}${path}`, init, { ...env, DB: recordingD1(env.DB, statements), JOBS: captured.queue }, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON (an HTML page, a plain text answer): `text` has it
  }
  return { status: res.status, text, body, statements };
}

/** Delivers queued messages to the Worker's consumer, as the queue would (attempts: 1 unless said). */
export async function deliver(messages: unknown[], attempts = 1) {
  const batch = createMessageBatch<unknown>(
    'docs-platform-jobs',
    messages.map((body, i) => ({ id: `m${i}-${attempts}-${Math.random()}`, timestamp: new Date(), attempts, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  return getQueueResult(batch, ctx);
}


/** A GitBook `page_view` event (now, unless `at`), on a page of `spaceId` (null: a 404). */
export function pageView(spaceId: string, pageId: string | null, options: { visitor?: string; session?: string; at?: number; url?: string; siteSpace?: string | null } = {}) {
  return {
    type: 'page_view',
    session: {
      visitorId: options.visitor ?? 'visitor-1',
      sessionId: options.session ?? 'session-1',
      cookies: {},
      userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15',
      language: 'en-US',
      referrer: 'https://www.google.com/search?q=x',
    },
    location: {
      url: options.url ?? `https://docs.example.com/${pageId ?? 'missing'}?utm_source=newsletter`,
      siteSection: null,
      siteSpace: options.siteSpace ?? null,
      siteShareKey: null,
      space: spaceId,
      revision: null,
      page: pageId,
    },
    timestamp: new Date(options.at ?? Date.now()).toISOString(),
  };
}
