import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/lib/time';
import {
  MAX_ATTRIBUTES,
  MAX_CONVERSATIONS_PER_REQUEST,
  MAX_CONVERSATION_PARTS_BYTES,
  MAX_PARTS_PER_CONVERSATION,
  MAX_PART_BODY_LENGTH,
} from '../../src/schemas/conversation';
import { CONVERSATION_ANALYZE_JOB } from '../../src/services/conversations/types';
import { conversation, ingest, type QueuedJob } from '../helpers/conversations';
import { api, expectError, seedOrg, type ApiResponse, type TestOrg } from '../helpers/harness';
import { seedInstallation, seedIntegration, seedToken } from '../helpers/integrations';
import { measureRoundTrips, requestWithBindings } from '../helpers/round-trips';

interface ConversationDbRow {
  id: string;
  org_id: string;
  source: string;
  external_id: string;
  subject: string | null;
  url: string | null;
  attributes: string | null;
  started_at: string | null;
  parts: string;
  content_hash: string;
  analysis_state: string;
  analysis_job: string | null;
  queued_at: string | null;
  analysis_attempts: number;
  processed_at: string | null;
  created_at: string;
  updated_at: string;
}

const path = (orgId: string) => `/v1/orgs/${orgId}/conversations`;

async function rowOf(orgId: string, externalId: string, source = 'api'): Promise<ConversationDbRow | null> {
  return env.DB.prepare('select * from conversations where org_id = ? and source = ? and external_id = ?').bind(orgId, source, externalId).first<ConversationDbRow>();
}

async function countRows(orgId: string): Promise<number> {
  return (await env.DB.prepare('select count(*) as n from conversations where org_id = ?').bind(orgId).first<{ n: number }>())!.n;
}

/** The message the ingestion sent for a row: the job the row names, for its conversation. */
const messageFor = (row: ConversationDbRow): QueuedJob => ({ id: row.analysis_job!, type: CONVERSATION_ANALYZE_JOB, payload: { conversationId: row.id } });

const asResponse = (res: { status: number; body: unknown }) => ({ ...res, headers: new Headers() }) as ApiResponse;

let counter = 0;
const externalId = (prefix = 'c') => `${prefix}-${Date.now().toString(36)}-${counter++}`;

describe('ingestConversation', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await seedOrg();
  });

  it('stores one conversation given alone and sends one analysis message naming its job', async () => {
    const id = externalId();
    const input = {
      id,
      subject: 'Export fails',
      parts: [
        { type: 'message', role: 'user', body: 'The export button does nothing.' },
        { type: 'message', role: 'team-member', body: 'Which browser?' },
        { type: 'message', role: 'assistant', body: 'Try again later.' },
      ],
      metadata: { url: 'https://support.example.com/c/1', attributes: { plan: 'pro', locale: 'fr' }, createdAt: '2026-01-05T10:00:00+02:00' },
    };
    const res = await ingest(org.id, org.owner.token, input);
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(res.body).toBeNull();
    const row = (await rowOf(org.id, id))!;
    expect(row).toMatchObject({
      source: 'api',
      subject: 'Export fails',
      url: 'https://support.example.com/c/1',
      // Stored in UTC whatever offset it was given with.
      started_at: '2026-01-05T08:00:00.000Z',
      analysis_state: 'pending',
      analysis_attempts: 0,
      processed_at: null,
    });
    expect(JSON.parse(row.parts)).toEqual(input.parts);
    expect(JSON.parse(row.attributes!)).toEqual({ plan: 'pro', locale: 'fr' });
    expect(row.analysis_job).toEqual(expect.any(String));
    expect(row.queued_at).toBe(row.created_at);
    expect(res.sent).toEqual([messageFor(row)]);
  });

  it('stores an array of conversations and sends one message per conversation, in order', async () => {
    const ids = [externalId('a'), externalId('b'), externalId('c')];
    const res = await ingest(org.id, org.owner.token, ids.map((id) => conversation(id, `Problem ${id}: it fails`)));
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    const rows = await Promise.all(ids.map((id) => rowOf(org.id, id)));
    expect(res.sent).toEqual(rows.map((row) => messageFor(row!)));
    expect(new Set(rows.map((row) => row!.analysis_job)).size).toBe(3);
  });

  it(`accepts ${MAX_CONVERSATIONS_PER_REQUEST} conversations in one request, with unknown properties ignored`, async () => {
    const before = await countRows(org.id);
    const inputs = Array.from({ length: MAX_CONVERSATIONS_PER_REQUEST }, (_, i) => ({ ...conversation(externalId(`max${i}`), 'Where is the API key?'), extra: true }));
    const res = await ingest(org.id, org.owner.token, inputs);
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(res.sent).toHaveLength(MAX_CONVERSATIONS_PER_REQUEST);
    expect(new Set(res.sent.map((m) => (m.payload as { conversationId: string }).conversationId)).size).toBe(MAX_CONVERSATIONS_PER_REQUEST);
    expect(await countRows(org.id)).toBe(before + MAX_CONVERSATIONS_PER_REQUEST);
  });

  it('re-ingesting an unchanged conversation updates nothing: the same row, state and job (named again in the message)', async () => {
    const id = externalId('same');
    const input = conversation(id, 'The search is slow', { metadata: { attributes: { a: '1', b: '2' } } });
    const first = await ingest(org.id, org.owner.token, input);
    expect(first.status).toBe(204);
    const stored = (await rowOf(org.id, id))!;
    // As if analysed since.
    await env.DB.prepare(`update conversations set analysis_state = 'complete', processed_at = ?, impact = 'high' where id = ?`).bind('2026-01-01T00:00:00.000Z', stored.id).run();
    // The same content, its attributes in another order.
    const again = await ingest(org.id, org.owner.token, conversation(id, 'The search is slow', { metadata: { attributes: { b: '2', a: '1' } } }));
    expect(again.status).toBe(204);
    const row = (await rowOf(org.id, id))!;
    expect(row).toEqual({ ...stored, analysis_state: 'complete', processed_at: '2026-01-01T00:00:00.000Z', impact: 'high' });
    expect(again.sent).toEqual([messageFor(row)]);
    expect(again.sent[0].id).toBe(first.sent[0].id);
  });

  it('re-ingesting an unchanged conversation whose analysis completed (no job named) sends a message the consumer ignores', async () => {
    const id = externalId('done');
    expect((await ingest(org.id, org.owner.token, conversation(id, 'The search is slow'))).status).toBe(204);
    const stored = (await rowOf(org.id, id))!;
    await env.DB.prepare(`update conversations set analysis_state = 'complete', analysis_job = null, processed_at = ? where id = ?`).bind('2026-01-01T00:00:00.000Z', stored.id).run();
    const again = await ingest(org.id, org.owner.token, conversation(id, 'The search is slow'));
    expect(again.status).toBe(204);
    expect(await rowOf(org.id, id)).toEqual({ ...stored, analysis_state: 'complete', analysis_job: null, processed_at: '2026-01-01T00:00:00.000Z' });
    expect(again.sent).toEqual([{ id: expect.any(String), type: CONVERSATION_ANALYZE_JOB, payload: { conversationId: stored.id } }]);
    expect(again.sent[0].id).not.toBe(stored.analysis_job);
  });

  it.each([
    ['its parts', (id: string) => conversation(id, 'The search is slow, and now it crashes')],
    ['its subject', (id: string) => conversation(id, 'The search is slow', { subject: 'Another subject' })],
    ['a part role', (id: string) => ({ ...conversation(id, 'x'), parts: [{ type: 'message', role: 'team-member', body: 'The search is slow' }] })],
    ['its url', (id: string) => conversation(id, 'The search is slow', { metadata: { url: 'https://support.example.com/2' } })],
    ['an attribute', (id: string) => conversation(id, 'The search is slow', { metadata: { attributes: { a: '1' } } })],
    ['its createdAt', (id: string) => conversation(id, 'The search is slow', { metadata: { createdAt: '2026-01-02T00:00:00Z' } })],
  ])('re-ingesting a conversation with a change to %s names a new job, pending, keeping the row and its processedAt', async (_what, changed) => {
    const id = externalId('changed');
    expect((await ingest(org.id, org.owner.token, conversation(id, 'The search is slow'))).status).toBe(204);
    const stored = (await rowOf(org.id, id))!;
    const rows = await countRows(org.id);
    await env.DB.prepare(`update conversations set analysis_state = 'complete', processed_at = ?, analysis_attempts = 1 where id = ?`).bind('2026-01-01T00:00:00.000Z', stored.id).run();
    const again = await ingest(org.id, org.owner.token, changed(id));
    expect(again.status, JSON.stringify(again.body)).toBe(204);
    const row = (await rowOf(org.id, id))!;
    expect(row.id).toBe(stored.id);
    expect(row.analysis_job).not.toBe(stored.analysis_job);
    expect(row.content_hash).not.toBe(stored.content_hash);
    expect(row).toMatchObject({ analysis_state: 'pending', analysis_attempts: 0, processed_at: '2026-01-01T00:00:00.000Z', created_at: stored.created_at });
    expect(row.updated_at >= stored.updated_at).toBe(true);
    expect(again.sent).toEqual([messageFor(row)]);
    // Updated in place: no second row, for this conversation or in the organization.
    const [{ n }] = (await env.DB.prepare('select count(*) as n from conversations where org_id = ? and external_id = ?').bind(org.id, id).all<{ n: number }>()).results;
    expect(n).toBe(1);
    expect(await countRows(org.id)).toBe(rows);
  });

  it('the same id from another source is another conversation', async () => {
    const id = externalId('shared');
    const publisher = await seedOrg();
    const integration = await seedIntegration(publisher.id, { scopes: ['conversations:ingest'] });
    const installation = await seedInstallation(integration, org.id);
    const token = await seedToken(integration.id, installation.id);
    expect((await ingest(org.id, org.owner.token, conversation(id, 'From the API'))).status).toBe(204);
    const res = await ingest(org.id, token, conversation(id, 'From the integration'));
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    const source = `integration:${integration.name}:${installation.id}`;
    const fromApi = (await rowOf(org.id, id))!;
    const fromIntegration = (await rowOf(org.id, id, source))!;
    expect(fromIntegration.id).not.toBe(fromApi.id);
    expect(JSON.parse(fromIntegration.parts)[0].body).toBe('From the integration');
    expect(res.sent).toEqual([messageFor(fromIntegration)]);
  });

  it('accepts a createdAt up to a day ahead of the clock (sources drift), and refuses one further ahead', async () => {
    const soon = new Date(Date.now() + DAY_MS - 60_000).toISOString();
    const id = externalId('soon');
    expect((await ingest(org.id, org.owner.token, conversation(id, 'x', { metadata: { createdAt: soon } }))).status).toBe(204);
    expect((await rowOf(org.id, id))!.started_at).toBe(soon);
    const later = new Date(Date.now() + DAY_MS + 60_000).toISOString();
    const res = await ingest(org.id, org.owner.token, conversation(externalId('later'), 'x', { metadata: { createdAt: later } }));
    expectError(asResponse(res), 400, 'metadata.createdAt');
  });

  it('refuses a createdAt before 1970-01-01T00:00:00Z (year 0000 with an offset would be stored as year -000001), and accepts 1970-01-01T00:00:00Z', async () => {
    for (const createdAt of ['0000-01-01T00:00:00+01:00', '0000-01-01T00:00:00Z', '1969-12-31T23:59:59.999Z', '1970-01-01T00:59:59+01:00']) {
      const id = externalId('ancient');
      const res = await ingest(org.id, org.owner.token, [conversation(id, 'x', { metadata: { createdAt } })]);
      expect(expectError(asResponse(res), 400, '[0].metadata.createdAt'), createdAt).toContain('1970-01-01T00:00:00Z');
      expect(res.sent).toEqual([]);
      expect(await rowOf(org.id, id)).toBeNull();
    }
    // What is no date-time is not judged as a time too.
    const message = expectError(asResponse(await ingest(org.id, org.owner.token, conversation(externalId('nodate'), 'x', { metadata: { createdAt: 'yesterday' } }))), 400, 'metadata.createdAt');
    expect(message).not.toMatch(/1970|future/);
    for (const [createdAt, stored] of [
      ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000Z'],
      ['1970-01-01T01:00:00+01:00', '1970-01-01T00:00:00.000Z'],
    ]) {
      const id = externalId('epoch');
      const res = await ingest(org.id, org.owner.token, conversation(id, 'x', { metadata: { createdAt } }));
      expect(res.status, JSON.stringify(res.body)).toBe(204);
      expect((await rowOf(org.id, id))!.started_at).toBe(stored);
    }
  });

  it('refuses an attribute named __proto__ (which would be dropped) with a 400 naming it, and keeps constructor or prototype as plain names', async () => {
    // As a client sends it: JSON.parse makes `__proto__` an own property, as it does of the body.
    const raw = (id: string, attributes: string) =>
      `{"id":${JSON.stringify(id)},"parts":[{"type":"message","role":"user","body":"x"}],"metadata":{"attributes":${attributes}}}`;
    for (const [attributes, mention] of [
      ['{"plan":"pro","__proto__":"x"}', 'metadata.attributes.__proto__'],
      ['{"__proto__":{"plan":"pro"}}', 'metadata.attributes.__proto__'],
    ]) {
      const id = externalId('proto');
      const alone = await api('POST', path(org.id), { token: org.owner.token, rawBody: raw(id, attributes) });
      expect(expectError(alone, 400, mention)).not.toContain('[0]');
      const inArray = await api('POST', path(org.id), { token: org.owner.token, rawBody: `[${raw(id, attributes)}]` });
      expectError(inArray, 400, `[0].${mention}`);
      expect(await rowOf(org.id, id)).toBeNull();
    }
    const id = externalId('plain');
    const attributes = { constructor: 'c', prototype: 'p', toString: 't', hasOwnProperty: 'h', valueOf: 'v' };
    const res = await ingest(org.id, org.owner.token, conversation(id, 'x', { metadata: { attributes } }));
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(JSON.parse((await rowOf(org.id, id))!.attributes!)).toEqual(attributes);
    const detail = await api('GET', `${path(org.id)}/${(await rowOf(org.id, id))!.id}`, { token: org.owner.token });
    expect(detail.status, JSON.stringify(detail.body)).toBe(200);
    expect(detail.body.metadata.attributes).toEqual(attributes);
  });

  it(`accepts parts of up to ${MAX_CONVERSATION_PARTS_BYTES} bytes of JSON, and refuses more (counted in bytes)`, async () => {
    // 40 parts of 30,000 two-byte characters: within every per-part limit, 2.4 MB of JSON.
    const wide = Array.from({ length: 40 }, () => ({ type: 'message', role: 'user', body: 'é'.repeat(30_000) }));
    const res = await ingest(org.id, org.owner.token, [conversation(externalId('ok'), 'fine'), { id: externalId('wide'), parts: wide }]);
    expect(expectError(asResponse(res), 400, '[1].parts:')).toContain(`${MAX_CONVERSATION_PARTS_BYTES} bytes`);
    const fits = Array.from({ length: 17 }, () => ({ type: 'message', role: 'user', body: 'é'.repeat(30_000) }));
    expect(new TextEncoder().encode(JSON.stringify(fits)).byteLength).toBeLessThanOrEqual(MAX_CONVERSATION_PARTS_BYTES);
    expect((await ingest(org.id, org.owner.token, { id: externalId('fits'), parts: fits })).status).toBe(204);
  });

  const part = (extra: Record<string, unknown> = {}) => ({ type: 'message', role: 'user', body: 'Hello', ...extra });
  const valid = (extra: Record<string, unknown> = {}) => ({ id: 'bad-input', parts: [part()], ...extra });

  it.each([
    ['a string', 'x', 'conversation input'],
    ['null', null, 'conversation input'],
    ['a number', 1, 'conversation input'],
    ['an empty array', [], `1 to ${MAX_CONVERSATIONS_PER_REQUEST}`],
    ['an array too long', Array.from({ length: MAX_CONVERSATIONS_PER_REQUEST + 1 }, (_, i) => valid({ id: `x${i}` })), `at most ${MAX_CONVERSATIONS_PER_REQUEST}`],
    ['no id', { parts: [part()] }, 'id'],
    ['an empty id', valid({ id: '' }), 'id:'],
    ['an id of 256 characters', valid({ id: 'x'.repeat(256) }), 'id:'],
    ['a numeric id', valid({ id: 12 }), 'id:'],
    ['a subject of 513 characters', valid({ subject: 'x'.repeat(513) }), 'subject:'],
    ['a subject that is an object', valid({ subject: {} }), 'subject:'],
    ['no parts', { id: 'x' }, 'parts:'],
    ['no part', valid({ parts: [] }), 'parts:'],
    [`${MAX_PARTS_PER_CONVERSATION + 1} parts`, valid({ parts: Array.from({ length: MAX_PARTS_PER_CONVERSATION + 1 }, () => part()) }), 'parts:'],
    ['parts that are an object', valid({ parts: { 0: part() } }), 'parts:'],
    ['a part of another type', valid({ parts: [part({ type: 'note' })] }), 'parts[0].type'],
    ['a part without type', valid({ parts: [{ role: 'user', body: 'x' }] }), 'parts[0].type'],
    ['a part of an unknown role', valid({ parts: [part({ role: 'bot' })] }), 'parts[0].role'],
    ['an empty body', valid({ parts: [part(), part({ body: '' })] }), 'parts[1].body'],
    [`a body of ${MAX_PART_BODY_LENGTH + 1} characters`, valid({ parts: [part({ body: 'x'.repeat(MAX_PART_BODY_LENGTH + 1) })] }), 'parts[0].body'],
    ['a body that is a document', valid({ parts: [part({ body: { nodes: [] } })] }), 'parts[0].body'],
    ['metadata that is a string', valid({ metadata: 'x' }), 'metadata:'],
    ['a url that is not one', valid({ metadata: { url: 'not a url' } }), 'metadata.url'],
    ['an ftp url', valid({ metadata: { url: 'ftp://example.com/c/1' } }), 'metadata.url'],
    ['a javascript url', valid({ metadata: { url: 'javascript:alert(1)' } }), 'metadata.url'],
    ['a url of 2049 characters', valid({ metadata: { url: `https://example.com/${'x'.repeat(2049 - 20)}` } }), 'metadata.url'],
    ['attributes that are an array', valid({ metadata: { attributes: ['a'] } }), 'metadata.attributes'],
    ['an attribute that is a number', valid({ metadata: { attributes: { plan: 1 } } }), 'metadata.attributes.plan'],
    ['an attribute that is nested', valid({ metadata: { attributes: { plan: { a: { b: {} } } } } }), 'metadata.attributes.plan'],
    [`${MAX_ATTRIBUTES + 1} attributes`, valid({ metadata: { attributes: Object.fromEntries(Array.from({ length: MAX_ATTRIBUTES + 1 }, (_, i) => [`k${i}`, 'v'])) } }), 'metadata.attributes'],
    ['an attribute name of 101 characters', valid({ metadata: { attributes: { ['k'.repeat(101)]: 'v' } } }), 'metadata.attributes'],
    ['an attribute value of 1001 characters', valid({ metadata: { attributes: { k: 'v'.repeat(1001) } } }), 'metadata.attributes.k'],
    ['a createdAt that is not a date-time', valid({ metadata: { createdAt: 'yesterday' } }), 'metadata.createdAt'],
    ['a createdAt without a time', valid({ metadata: { createdAt: '2026-01-05' } }), 'metadata.createdAt'],
    ['a createdAt that is a number', valid({ metadata: { createdAt: 1767225600000 } }), 'metadata.createdAt'],
  ])('refuses %s with a 400 naming the field, storing and sending nothing', async (_name, body, mention) => {
    const before = await countRows(org.id);
    const res = await ingest(org.id, org.owner.token, body);
    expectError(asResponse(res), 400, mention);
    expect(res.sent).toEqual([]);
    expect(await countRows(org.id)).toBe(before);
  });

  it('names the index of the offending conversation in an array body', async () => {
    const body = [valid({ id: 'a' }), valid({ id: 'b' }), valid({ id: 'c' }), valid({ id: 'd', parts: [part(), part({ body: '' })] })];
    const res = await ingest(org.id, org.owner.token, body);
    expect(expectError(asResponse(res), 400)).toContain('[3].parts[1].body');
    // Alone, the same conversation's field has no index.
    const alone = await ingest(org.id, org.owner.token, body[3]);
    const message = expectError(asResponse(alone), 400);
    expect(message).toContain('parts[1].body');
    expect(message).not.toContain('[3]');
  });

  it('refuses two conversations with the same id in one request, naming both indexes', async () => {
    const res = await ingest(org.id, org.owner.token, [valid({ id: 'one' }), valid({ id: 'two' }), valid({ id: 'one' })]);
    const message = expectError(asResponse(res), 400, '[2].id');
    expect(message).toContain('[0]');
    expect(res.sent).toEqual([]);
    expect(await rowOf(org.id, 'one')).toBeNull();
  });

  it('refuses malformed JSON (400) and a body over the limit (413)', async () => {
    expectError(await api('POST', path(org.id), { token: org.owner.token, rawBody: '[{"id":' }), 400);
    const huge = JSON.stringify({ id: 'huge', parts: [{ type: 'message', role: 'user', body: 'x'.repeat(4 * 1024 * 1024) }] });
    expectError(await api('POST', path(org.id), { token: org.owner.token, rawBody: huge }), 413);
  });

  it('answers 204 when the queue refuses the messages: the conversations stay pending, for the cron to send again', async () => {
    const id = externalId('unsent');
    const failing = { send: async () => Promise.reject(new Error('queue down')), sendBatch: async () => Promise.reject(new Error('queue down')) };
    const res = await requestWithBindings('POST', path(org.id), org.owner.token, conversation(id, 'It fails'), { JOBS: failing as unknown as Queue<unknown> });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(await rowOf(org.id, id)).toMatchObject({ analysis_state: 'pending', analysis_job: expect.any(String) });
  });

  it(`stores ${MAX_CONVERSATIONS_PER_REQUEST} conversations in at most 3 D1 round trips`, async () => {
    await api('GET', '/v1/user', { token: org.owner.token });
    const inputs = Array.from({ length: MAX_CONVERSATIONS_PER_REQUEST }, (_, i) => conversation(externalId(`rt${i}`), `Problem ${i}`));
    const res = await measureRoundTrips('POST', path(org.id), org.owner.token, inputs);
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(res.roundTrips).toBeLessThanOrEqual(3);
    // Again: all unchanged now.
    const again = await measureRoundTrips('POST', path(org.id), org.owner.token, inputs);
    expect(again.status).toBe(204);
    expect(again.roundTrips).toBeLessThanOrEqual(3);
  });
});

describe('ingestConversation with installation tokens', () => {
  async function setup(scopes: string[], status?: string) {
    const publisher = await seedOrg();
    const org = await seedOrg();
    const integration = await seedIntegration(publisher.id, { scopes });
    const installation = await seedInstallation(integration, org.id, status ? { status } : {});
    const token = await seedToken(integration.id, installation.id);
    return { org, publisher, integration, installation, token };
  }

  it('with conversations:ingest store conversations whose source names the integration and the installation', async () => {
    const { org, integration, installation, token } = await setup(['conversations:ingest']);
    const id = externalId('bot');
    const res = await ingest(org.id, token, [conversation(id, 'The login page loops')]);
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    const source = `integration:${integration.name}:${installation.id}`;
    const row = (await rowOf(org.id, id, source))!;
    expect(row).not.toBeNull();
    expect(res.sent).toEqual([messageFor(row)]);
    // Reading is for users: GitBook documents the reads as user-only.
    expectError(await api('GET', path(org.id), { token }), 403);
    const listed = await api('GET', `${path(org.id)}?source=${encodeURIComponent(source)}`, { token: org.owner.token });
    expect(listed.body.items.map((c: { id: string }) => c.id)).toEqual([row.id]);
    expect(listed.body.items[0].source).toBe(source);
  });

  it('without the scope are refused (403), and another organization is not found (404)', async () => {
    const { org, publisher, token } = await setup(['space:content:read']);
    expectError(await ingest(org.id, token, conversation('x', 'y')).then(asResponse), 403, 'conversations:ingest');
    const other = await setup(['conversations:ingest']);
    expectError(await ingest(publisher.id, other.token, conversation('x', 'y')).then(asResponse), 404);
    expectError(await ingest(org.id, other.token, conversation('x', 'y')).then(asResponse), 404);
  });

  it('of an installation that is not active ingest nothing', async () => {
    const { org, token } = await setup(['conversations:ingest'], 'paused');
    const res = await ingest(org.id, token, conversation('paused', 'y'));
    expect([401, 403, 404]).toContain(res.status);
    expectError(asResponse(res), res.status);
    expect(res.sent).toEqual([]);
    expect(await countRows(org.id)).toBe(0);
  });
});
