import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import worker from '../../src/index';
import { runScheduled, STALE_EVENT_MS } from '../../src/jobs/cron';
import { setOutboundFetch } from '../../src/lib/outbound';
import { DELIVERY_LEASE_MS, DeliveryRetry, deliverIntegrationEvent, MAX_DELIVERY_ATTEMPTS } from '../../src/services/integrations/delivery';
import { contentUpdatedEvents, eventIdsOf, INTEGRATION_EVENT_JOB, insertEvent, type StoredEventPayload } from '../../src/services/integrations/events';
import { newIntegrationToken } from '../../src/services/integrations/tokens';
import { MAX_LOG_CHARS, MAX_LOG_LINES } from '../../src/services/integrations/runtime';
import { webhookHeaders } from '../../src/services/integrations/webhooks';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { seedInstallation, seedIntegration, type SeededIntegration } from '../helpers/integrations';

const SECRET_VALUE = 'sk-live-do-not-leak-0123456789';

/** A script as an integration publishes it: GitBook's runtime request in, its environment used, the API called back. */
const SCRIPT = `
export default {
  async fetch(request) {
    const form = await request.formData();
    const event = JSON.parse(form.get('event'));
    const environment = JSON.parse(form.get('environment'));
    console.log('received ' + event.type + ' ' + event.eventId + ' for installation ' + environment.installation.id);
    console.info('csp: ' + request.headers.get('content-security-policy'));
    console.warn('secret matches: ' + (environment.secrets.API_KEY === '${SECRET_VALUE}'));
    if (event.type === 'space_content_updated') {
      console.debug('space installation: ' + environment.spaceInstallation.space + ', updated by ' + event.updatedBy[0].urls.location);
      const content = await fetch(environment.apiEndpoint + '/v1/spaces/' + event.spaceId + '/content', {
        headers: { Authorization: 'Bearer ' + environment.apiTokens.installation },
      });
      console.log('content read with the installation token: ' + content.status);
      const self = await fetch(environment.apiEndpoint + '/v1/integrations/' + environment.integration.name + '/events/' + event.eventId, {
        headers: { Authorization: 'Bearer ' + environment.apiTokens.integration },
      });
      const own = (await self.json()).event;
      console.log('own event read with the integration token: ' + self.status + ' ' + own.status + (own.pending ? ' (pending)' : ''));
    }
    return new Response('OK');
  },
};
`;

interface Fixture {
  publisher: TestOrg;
  customer: TestOrg;
  integration: SeededIntegration;
  installationId: string;
  signingSecret: string;
  spaceId: string;
}

async function fixture(options: { script?: string; tunnel?: string; devAll?: boolean; csp?: string; installedBy?: 'publisher' | 'customer' } = {}): Promise<Fixture> {
  const publisher = await seedOrg();
  const customer = await seedOrg();
  const integration = await seedIntegration(publisher.id, { script: options.script, scopes: ['space:content:read'], secrets: { API_KEY: SECRET_VALUE } });
  if (options.tunnel || options.csp) {
    await env.DB.prepare('update integrations set dev_tunnel_url = ?, dev_all = ?, content_security_policy = ? where id = ?')
      .bind(options.tunnel ?? null, options.devAll ? 1 : 0, options.csp ?? null, integration.id)
      .run();
  }
  const org = options.installedBy === 'publisher' ? publisher : customer;
  const space = await createSpace(org.id, org.owner.token);
  const installation = await seedInstallation(integration, org.id, { spaces: [space.id] });
  return { publisher, customer, integration, installationId: installation.id, signingSecret: installation.signingSecret, spaceId: space.id };
}

async function addEvent(f: Fixture, payload: StoredEventPayload, orgId = f.customer.id): Promise<string> {
  const db = createDb(env.DB);
  const { id, statement } = insertEvent(db, { integrationId: f.integration.id, installationId: f.installationId, orgId, payload }, new Date().toISOString());
  await statement;
  return id;
}

const installationSetup = (f: Fixture): StoredEventPayload => ({ type: 'installation_setup', installationId: f.installationId, status: 'active' });

/** One delivery of the event's queue message, as the queue makes it (`attempts`: this delivery's number). */
async function deliver(eventId: string, attempts = 1, messageId = `m-${eventId}`) {
  const batch = createMessageBatch<unknown>('docs-platform-jobs', [
    { id: messageId, timestamp: new Date(), attempts, body: { id: eventId, type: INTEGRATION_EVENT_JOB, payload: { eventId } } },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  const result = await getQueueResult(batch, ctx);
  return { acked: result.explicitAcks.includes(messageId), retried: result.retryMessages.some((m) => m.msgId === messageId) };
}

async function eventRow(id: string) {
  return env.DB.prepare('select status, attempts, lease_until as leaseUntil from integration_events where id = ?').bind(id).first<{ status: string; attempts: number; leaseUntil: string | null }>();
}

async function trace(id: string) {
  const rows = await env.DB.prepare('select level, message, timestamp from integration_event_logs where event_id = ? order by id').bind(id).all<{ level: string; message: string; timestamp: string }>();
  return rows.results;
}

afterEach(() => {
  setOutboundFetch();
});

describe('integration event delivery to the script', () => {
  it('runs the script on installation_setup: the script reads its environment and secrets, and its console output is the trace', async () => {
    const f = await fixture({ script: SCRIPT, csp: "script-src 'self'" });
    const eventId = await addEvent(f, installationSetup(f));

    expect(await deliver(eventId)).toEqual({ acked: true, retried: false });
    expect(await eventRow(eventId)).toEqual({ status: 'success', attempts: 1, leaseUntil: null });
    const lines = await trace(eventId);
    expect(lines.map(({ level, message }) => ({ level, message }))).toEqual([
      { level: 'info', message: `received installation_setup ${eventId} for installation ${f.installationId}` },
      { level: 'info', message: "csp: script-src 'self'" },
      { level: 'warn', message: 'secret matches: true' },
      { level: 'info', message: `Attempt 1 of ${MAX_DELIVERY_ATTEMPTS}: the script answered 200` },
    ]);
    for (const line of lines) expect(Number.isNaN(Date.parse(line.timestamp))).toBe(false);
  });

  it('runs the script on space_content_updated: it reads the space with its installation token and its own event with its integration token', async () => {
    const f = await fixture({ script: SCRIPT });
    const other = await createSpace(f.customer.id, f.customer.owner.token);
    const { revisionId } = (await env.DB.prepare('select revision_id as revisionId from spaces where id = ?').bind(f.spaceId).first<{ revisionId: string }>())!;
    const db = createDb(env.DB);
    const [eventId] = eventIdsOf(await contentUpdatedEvents(db, f.spaceId, revisionId, f.customer.owner.id, new Date().toISOString()));
    // The installation covers one space: nothing for the other.
    expect(eventIdsOf(await contentUpdatedEvents(db, other.id, revisionId, f.customer.owner.id, new Date().toISOString()))).toEqual([]);

    expect(await deliver(eventId)).toEqual({ acked: true, retried: false });
    expect(await eventRow(eventId)).toMatchObject({ status: 'success', attempts: 1 });
    expect((await trace(eventId)).map(({ level, message }) => ({ level, message }))).toEqual([
      { level: 'info', message: `received space_content_updated ${eventId} for installation ${f.installationId}` },
      { level: 'info', message: 'csp: null' },
      { level: 'warn', message: 'secret matches: true' },
      { level: 'debug', message: `space installation: ${f.spaceId}, updated by https://api.invalid/v1/users/${f.customer.owner.id}` },
      { level: 'info', message: 'content read with the installation token: 200' },
      // While the script runs, the event is still being delivered: not delivered yet, an attempt under way.
      { level: 'info', message: 'own event read with the integration token: 200 failed (pending)' },
      { level: 'info', message: `Attempt 1 of ${MAX_DELIVERY_ATTEMPTS}: the script answered 200` },
    ]);
  });
});

/** An integration without a script, in development mode: what its tunnel received, through the mocked outbound fetch. */
function tunnelReceiver(answer: (n: number) => Response = () => new Response('ok')) {
  const received: { url: string; headers: Headers; body: string }[] = [];
  setOutboundFetch(async (request) => {
    received.push({ url: request.url, headers: request.headers, body: await request.text() });
    return answer(received.length);
  });
  return received;
}

const TUNNEL = 'https://tunnel.example.com/hooks/dev';

describe('the runtime', () => {
  it('keeps the lines of events handled at once by one isolate apart', async () => {
    const script = `export default {
      async fetch(request) {
        const event = JSON.parse((await request.formData()).get('event'));
        console.log('start ' + event.eventId);
        await new Promise((resolve) => setTimeout(resolve, 30));
        console.log('end ' + event.eventId);
        return new Response('OK');
      },
    };`;
    const f = await fixture({ script });
    const events = [await addEvent(f, installationSetup(f)), await addEvent(f, installationSetup(f)), await addEvent(f, installationSetup(f))];
    expect(await Promise.all(events.map((id) => deliverIntegrationEvent(env, id, 1)))).toEqual(['delivered', 'delivered', 'delivered']);
    for (const id of events) {
      expect((await trace(id)).map((l) => l.message)).toEqual([`start ${id}`, `end ${id}`, `Attempt 1 of ${MAX_DELIVERY_ATTEMPTS}: the script answered 200`]);
    }
  });

  it('fails the attempt of a script that cannot load, keeping what it logged while loading', async () => {
    const f = await fixture({ script: `console.log('loading'); throw new Error('broken at load');` });
    const eventId = await addEvent(f, installationSetup(f));
    await expect(deliverIntegrationEvent(env, eventId, 1)).rejects.toBeInstanceOf(DeliveryRetry);
    const lines = await trace(eventId);
    expect(lines[0]).toMatchObject({ level: 'info', message: 'loading' });
    expect(lines[1].message).toMatch(/^Attempt 1 of 6: the script threw Error: broken at load/);
  });

  it('caps what one event may log', async () => {
    const f = await fixture({ script: `export default { fetch() { for (let i = 0; i < 150; i++) console.log('line ' + i + ' ' + 'x'.repeat(3000)); return new Response('OK'); } };` });
    const eventId = await addEvent(f, installationSetup(f));
    expect(await deliverIntegrationEvent(env, eventId, 1)).toBe('delivered');
    const lines = await trace(eventId);
    expect(lines).toHaveLength(MAX_LOG_LINES + 2);
    expect(lines[0].message.length).toBeLessThanOrEqual(MAX_LOG_CHARS + 1);
    expect(lines[MAX_LOG_LINES]).toMatchObject({ level: 'warn', message: `50 more line(s) logged by the script were not kept (at most ${MAX_LOG_LINES} per event)` });
  });

  it('lets a script reach other hosts only through the outbound guard', async () => {
    const fetched: string[] = [];
    setOutboundFetch(async (request) => {
      fetched.push(request.url);
      return new Response('hello from outside');
    });
    const script = `export default {
      async fetch() {
        console.log('public: ' + (await (await fetch('https://example.com/data')).text()));
        try {
          await fetch('http://169.254.169.254/latest/meta-data');
          console.log('metadata reached');
        } catch (error) {
          console.log('metadata refused: ' + error.message);
        }
        return new Response('OK');
      },
    };`;
    const f = await fixture({ script });
    const eventId = await addEvent(f, installationSetup(f));
    expect(await deliverIntegrationEvent(env, eventId, 1)).toBe('delivered');
    const messages = (await trace(eventId)).map((l) => l.message);
    expect(messages[0]).toBe('public: hello from outside');
    // The script's fetch rejects with the guard's reason, as a network error would.
    expect(messages[1]).toMatch(/^metadata refused: .*169\.254\.169\.254 is a link-local address/);
    expect(fetched).toEqual(['https://example.com/data']);
  });
});

describe('integration event delivery to the development tunnel', () => {
  it('POSTs the event signed the Standard Webhooks way, which the standardwebhooks library verifies', async () => {
    const received = tunnelReceiver();
    const f = await fixture({ tunnel: TUNNEL, installedBy: 'publisher' });
    const eventId = await addEvent(f, installationSetup(f), f.publisher.id);

    expect(await deliver(eventId)).toEqual({ acked: true, retried: false });
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request.url).toBe(TUNNEL);
    expect(request.headers.get('content-type')).toBe('application/json');
    expect(request.headers.get('webhook-id')).toBe(eventId);
    const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, request.headers.get(name)!]));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const verified = new Webhook(f.signingSecret).verify(request.body, headers);
    expect(verified).toEqual({ type: 'installation_setup', installationId: f.installationId, status: 'active', eventId });
    // A signature made with another secret, or over another body, is refused.
    expect(() => new Webhook(`whsec_${btoa('another secret of 24 bytes')}`).verify(request.body, headers)).toThrow();
    expect(() => new Webhook(f.signingSecret).verify(request.body.replace('active', 'paused'), headers)).toThrow();

    expect(await eventRow(eventId)).toMatchObject({ status: 'success', attempts: 1 });
    expect((await trace(eventId)).map(({ level, message }) => ({ level, message }))).toEqual([
      { level: 'info', message: `Attempt 1 of ${MAX_DELIVERY_ATTEMPTS}: the development tunnel ${TUNNEL} answered 200` },
    ]);
  });

  it("sends only the owning organization's events, unless development mode covers all", async () => {
    const received = tunnelReceiver();
    const f = await fixture({ tunnel: TUNNEL });
    const customerEvent = await addEvent(f, installationSetup(f));
    expect(await deliver(customerEvent)).toEqual({ acked: true, retried: false });
    expect(received).toHaveLength(0);
    expect(await eventRow(customerEvent)).toMatchObject({ status: 'success' });
    expect((await trace(customerEvent)).map((l) => l.message)).toEqual([
      `Attempt 1 of ${MAX_DELIVERY_ATTEMPTS}: nothing to deliver to: the integration has no script and its development mode is off`,
    ]);

    await env.DB.prepare('update integrations set dev_all = 1 where id = ?').bind(f.integration.id).run();
    const next = await addEvent(f, installationSetup(f));
    expect(await deliver(next)).toEqual({ acked: true, retried: false });
    expect(received.map((r) => r.headers.get('webhook-id'))).toEqual([next]);
  });

  it('signs with the webhook helpers the same way as the library', async () => {
    const secret = `whsec_${btoa('0123456789abcdef01234567')}`;
    const body = JSON.stringify({ hello: 'world' });
    const headers = await webhookHeaders(secret, 'evt_1', body);
    expect(new Webhook(secret).verify(body, headers)).toEqual({ hello: 'world' });
    expect(new Webhook(secret).sign('evt_1', new Date(Number(headers['webhook-timestamp']) * 1000), body)).toBe(headers['webhook-signature']);
  });
});

describe('failures, retries and idempotency', () => {
  it('retries a failing tunnel with one trace line per attempt, then marks the event failed and lets the message go to the dead-letter queue', async () => {
    const received = tunnelReceiver(() => new Response('tunnel is down', { status: 500 }));
    const f = await fixture({ tunnel: TUNNEL, installedBy: 'publisher' });
    const eventId = await addEvent(f, installationSetup(f), f.publisher.id);

    for (let attempt = 1; attempt <= MAX_DELIVERY_ATTEMPTS; attempt++) {
      // Every failed attempt asks the queue for a retry (with backoff); the last one too, which sends the message to the dead-letter queue.
      expect(await deliver(eventId, attempt)).toEqual({ acked: false, retried: true });
      expect(await eventRow(eventId)).toEqual({ status: attempt < MAX_DELIVERY_ATTEMPTS ? 'pending' : 'failed', attempts: attempt, leaseUntil: null });
    }
    expect(received).toHaveLength(MAX_DELIVERY_ATTEMPTS);
    const lines = await trace(eventId);
    expect(lines.map(({ level, message }) => ({ level, message }))).toEqual(
      Array.from({ length: MAX_DELIVERY_ATTEMPTS }, (_, i) => ({
        level: 'error',
        message: `Attempt ${i + 1} of ${MAX_DELIVERY_ATTEMPTS}: the development tunnel ${TUNNEL} answered 500: tunnel is down${i + 1 === MAX_DELIVERY_ATTEMPTS ? ': no attempts left, the event failed' : ''}`,
      })),
    );

    // A copy of the message arriving after that changes nothing.
    expect(await deliver(eventId, 1, 'another-copy')).toEqual({ acked: true, retried: false });
    expect(received).toHaveLength(MAX_DELIVERY_ATTEMPTS);
    expect(await trace(eventId)).toHaveLength(MAX_DELIVERY_ATTEMPTS);
  });

  it('records what a throwing script threw, and a script answering an error status', async () => {
    const throwing = await fixture({ script: `export default { async fetch() { console.error('about to fail'); throw new Error('boom in the script'); } };` });
    const eventId = await addEvent(throwing, installationSetup(throwing));
    expect(await deliver(eventId)).toEqual({ acked: false, retried: true });
    expect(await eventRow(eventId)).toEqual({ status: 'pending', attempts: 1, leaseUntil: null });
    const [logged, failure] = await trace(eventId);
    expect(logged).toMatchObject({ level: 'error', message: 'about to fail' });
    expect(failure.level).toBe('error');
    expect(failure.message).toMatch(new RegExp(`^Attempt 1 of ${MAX_DELIVERY_ATTEMPTS}: the script threw Error: boom in the script`));

    const refusing = await fixture({ script: `export default { fetch: () => new Response('not configured', { status: 422 }) };` });
    const refused = await addEvent(refusing, installationSetup(refusing));
    // The queue's last delivery of the message is the event's last attempt.
    expect(await deliver(refused, MAX_DELIVERY_ATTEMPTS)).toEqual({ acked: false, retried: true });
    expect(await eventRow(refused)).toMatchObject({ status: 'failed', attempts: 1 });
    expect((await trace(refused)).map((l) => l.message)).toEqual([
      `Attempt 1 of ${MAX_DELIVERY_ATTEMPTS}: the script answered 422: not configured: no attempts left, the event failed`,
    ]);
  });

  it('delivers a message that arrives twice once, and leaves an event another consumer holds to it', async () => {
    const received = tunnelReceiver();
    const f = await fixture({ tunnel: TUNNEL, installedBy: 'publisher' });
    const eventId = await addEvent(f, installationSetup(f), f.publisher.id);

    // Two copies in one batch, then the same message again later.
    const batch = createMessageBatch<unknown>('docs-platform-jobs', [
      { id: 'copy-1', timestamp: new Date(), attempts: 1, body: { id: eventId, type: INTEGRATION_EVENT_JOB, payload: { eventId } } },
      { id: 'copy-2', timestamp: new Date(), attempts: 1, body: { id: eventId, type: INTEGRATION_EVENT_JOB, payload: { eventId } } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(['copy-1', 'copy-2']);
    expect(await deliver(eventId, 2, 'copy-1')).toEqual({ acked: true, retried: false });
    expect(received).toHaveLength(1);
    expect(await eventRow(eventId)).toMatchObject({ status: 'success', attempts: 1 });
    expect(await trace(eventId)).toHaveLength(1);

    // Held by another consumer (a live lease): retried later, without delivering or counting an attempt.
    const held = await addEvent(f, installationSetup(f), f.publisher.id);
    const leaseUntil = new Date(Date.now() + DELIVERY_LEASE_MS).toISOString();
    await env.DB.prepare('update integration_events set lease_until = ?, attempts = 1 where id = ?').bind(leaseUntil, held).run();
    expect(await deliver(held)).toEqual({ acked: false, retried: true });
    expect(await eventRow(held)).toEqual({ status: 'pending', attempts: 1, leaseUntil });
    expect(received).toHaveLength(1);
    // Once the lease has expired (its holder died), the next copy delivers it.
    await env.DB.prepare('update integration_events set lease_until = ? where id = ?').bind(new Date(Date.now() - 1000).toISOString(), held).run();
    expect(await deliver(held, 2)).toEqual({ acked: true, retried: false });
    expect(await eventRow(held)).toEqual({ status: 'success', attempts: 2, leaseUntil: null });
    expect(received).toHaveLength(2);
  });

  it('fails an attempt with a clear trace line when the deployment has no Worker Loader', async () => {
    const f = await fixture({ script: SCRIPT });
    const eventId = await addEvent(f, installationSetup(f));
    await expect(deliverIntegrationEvent({ ...env, LOADER: undefined }, eventId, 1)).rejects.toBeInstanceOf(DeliveryRetry);
    const [only] = await trace(eventId);
    expect(only.level).toBe('error');
    expect(only.message).toContain('no Worker Loader binding');
    expect(await eventRow(eventId)).toMatchObject({ status: 'pending', attempts: 1 });
    // No tokens were issued for a script that could not run.
    expect((await env.DB.prepare('select count(*) as n from integration_tokens where integration_id = ?').bind(f.integration.id).first<{ n: number }>())!.n).toBe(0);
  });
});

describe('secrets', () => {
  it('reach the script but no API response', async () => {
    const f = await fixture({ script: SCRIPT, installedBy: 'publisher' });
    const eventId = await addEvent(f, installationSetup(f), f.publisher.id);
    expect(await deliver(eventId)).toEqual({ acked: true, retried: false });
    expect((await trace(eventId)).map((l) => l.message)).toContain('secret matches: true');
    const token = f.publisher.owner.token;
    const responses = [
      await api('GET', `/v1/integrations/${f.integration.name}/events`, { token }),
      await api('GET', `/v1/integrations/${f.integration.name}/events/${eventId}`, { token }),
      await api('GET', `/v1/integrations/${f.integration.name}`, { token }),
    ];
    for (const response of responses) {
      expectStatus(response, 200);
      const text = JSON.stringify(response.body);
      expect(text).not.toContain(SECRET_VALUE);
      expect(text).not.toContain(f.signingSecret);
      expect(text).not.toContain('dpi_');
    }
  });
});

describe('cron: integration upkeep', () => {
  function fakeQueue() {
    const sent: unknown[] = [];
    const queue = { send: async (body: unknown) => void sent.push(body), sendBatch: async (messages: { body: unknown }[]) => void sent.push(...messages.map((m) => m.body)) };
    return { sent, env: { ...env, JOBS: queue as unknown as Queue<unknown> } };
  }

  it('sends again the pending events whose message was lost, once', async () => {
    const f = await fixture();
    const now = Date.now();
    const ago = (ms: number) => new Date(now - ms).toISOString();
    const stale = await addEvent(f, installationSetup(f));
    const recent = await addEvent(f, installationSetup(f));
    const leased = await addEvent(f, installationSetup(f));
    const expiredLease = await addEvent(f, installationSetup(f));
    const done = await addEvent(f, installationSetup(f));
    const set = (id: string, updatedAt: string, extra = '') => env.DB.prepare(`update integration_events set updated_at = ?${extra} where id = ?`).bind(updatedAt, id).run();
    await set(stale, ago(STALE_EVENT_MS + 60_000));
    await set(recent, ago(60_000));
    await set(leased, ago(STALE_EVENT_MS + 60_000), `, lease_until = '${new Date(now + 60_000).toISOString()}'`);
    await set(expiredLease, ago(STALE_EVENT_MS + 60_000), `, lease_until = '${ago(STALE_EVENT_MS)}', attempts = 2`);
    await set(done, ago(STALE_EVENT_MS + 60_000), `, status = 'success'`);

    const queue = fakeQueue();
    await runScheduled(queue.env, now);
    const ids = (queue.sent as { id: string; type: string; payload: { eventId: string } }[]).filter((m) => [stale, recent, leased, expiredLease, done].includes(m.id));
    expect(ids.map((m) => m.id).sort()).toEqual([stale, expiredLease].sort());
    expect(ids[0]).toEqual({ id: ids[0].id, type: INTEGRATION_EVENT_JOB, payload: { eventId: ids[0].id } });

    // The next run sends nothing twice.
    const again = fakeQueue();
    await runScheduled(again.env, now + 60_000);
    expect((again.sent as { id: string }[]).filter((m) => [stale, expiredLease].includes(m.id))).toEqual([]);
    // And the re-sent message delivers the event.
    expect(await deliver(stale)).toEqual({ acked: true, retried: false });
    expect(await eventRow(stale)).toMatchObject({ status: 'success' });
  });

  it('removes expired integration tokens and integrations unpublished more than 7 days ago, with their files', async () => {
    const org = await seedOrg();
    const now = Date.now();
    const old = await seedIntegration(org.id, { script: 'export default {}' });
    const recent = await seedIntegration(org.id, { script: 'export default {}' });
    await env.FILES.put(`integrations/${old.id}/v2/script.js`, 'export default {}');
    await env.DB.prepare('update integrations set deleted_at = ? where id = ?').bind(new Date(now - 8 * 24 * 3600_000).toISOString(), old.id).run();
    await env.DB.prepare('update integrations set deleted_at = ? where id = ?').bind(new Date(now - 6 * 24 * 3600_000).toISOString(), recent.id).run();
    const db = createDb(env.DB);
    const expired = await newIntegrationToken(db, recent.id, null, now - 2 * 3600_000);
    const live = await newIntegrationToken(db, recent.id, null, now);
    await db.batch([expired.insert, live.insert]);

    await runScheduled(env, now);
    const count = async (sql: string, ...args: string[]) => (await env.DB.prepare(sql).bind(...args).first<{ n: number }>())!.n;
    expect(await count('select count(*) as n from integrations where id = ?', old.id)).toBe(0);
    expect((await env.FILES.list({ prefix: `integrations/${old.id}/` })).objects).toEqual([]);
    expect(await count('select count(*) as n from integrations where id = ?', recent.id)).toBe(1);
    expect((await env.FILES.list({ prefix: `integrations/${recent.id}/` })).objects).toHaveLength(1);
    expect(await count('select count(*) as n from integration_tokens where integration_id = ?', recent.id)).toBe(1);

    // Idempotent.
    await runScheduled(env, now);
    expect(await count('select count(*) as n from integrations where id = ?', recent.id)).toBe(1);
    expect(await count('select count(*) as n from integration_tokens where integration_id = ?', recent.id)).toBe(1);
  });
});

