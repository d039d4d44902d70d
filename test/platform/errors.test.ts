import { describe, expect, it } from 'vitest';
import { BASE, api, createUser, expectError } from '../helpers/harness';
import { fetchWorker } from '../helpers/worker';

describe('cross-cutting HTTP behaviour', () => {
  it('answers 401 with the error body for a missing, malformed or unknown token', async () => {
    expectError(await api('GET', '/v1/orgs'), 401, 'missing api token');
    expectError(await api('GET', '/v1/orgs', { headers: { Authorization: 'Basic abc' } }), 401);
    expectError(await api('GET', '/v1/orgs', { token: 'dpa_not-a-real-token' }), 401, 'invalid or revoked');
  });

  it('answers 404 for an unknown route and 405 with Allow for a wrong method', async () => {
    const user = await createUser();
    expectError(await api('GET', '/v1/definitely/not/here', { token: user.token }), 404);
    const wrong = await api('PUT', '/v1/user', { token: user.token, body: {} });
    expectError(wrong, 405);
    expect(wrong.headers.get('Allow')).toBe('GET');
  });

  it('answers 400 for malformed JSON and for a body that is not JSON', async () => {
    const user = await createUser();
    expectError(await api('POST', '/v1/orgs', { token: user.token, rawBody: '{"title": "x' }), 400, 'malformed json');
    const textBody = await api('POST', '/v1/orgs', { token: user.token, rawBody: 'title=x', headers: { 'Content-Type': 'text/plain' } });
    expect(textBody.status).toBeGreaterThanOrEqual(400);
    expect(textBody.status).toBeLessThan(500);
    expect(textBody.body.error.code).toBe(textBody.status);
  });

  it('answers 415 with the error body and what to send for a body that is not declared JSON, with or without a Content-Type', async () => {
    const user = await createUser();
    const bytes = new TextEncoder().encode('{"title":"x"}');
    // No Content-Type at all (a byte body gets none), as some clients send; and curl's -d default.
    const bare = await fetchWorker(`${BASE}/v1/orgs`, { method: 'POST', headers: { Authorization: `Bearer ${user.token}` }, body: bytes });
    expect(bare.headers.get('content-type')).toContain('application/json');
    const bareBody = (await bare.json()) as { error: { code: number; message: string } };
    expect(bare.status).toBe(415);
    expect(bareBody).toEqual({ error: { code: 415, message: expect.stringContaining('without a Content-Type header') } });
    expect(bareBody.error.message).toContain('Content-Type: application/json');
    const form = await api('POST', '/v1/orgs', { token: user.token, rawBody: 'title=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expectError(form, 415, 'of type application/x-www-form-urlencoded');
    expect((await api('GET', '/v1/orgs', { token: user.token })).body.count).toBe(0);
  });

  it('names the invalid field in validation errors', async () => {
    const user = await createUser();
    const message = expectError(await api('POST', '/v1/orgs', { token: user.token, body: { title: 42 } }), 400);
    expect(message).toContain('title');
  });

  it('answers 413 for a body over 1 MiB and creates nothing', async () => {
    const user = await createUser();
    const huge = JSON.stringify({ title: 'x'.repeat(1024 * 1024 + 10) });
    expectError(await api('POST', '/v1/orgs', { token: user.token, rawBody: huge }), 413);
    const list = await api('GET', '/v1/orgs', { token: user.token });
    expect(list.body.count).toBe(0);
  });

  it('echoes a request id on every response', async () => {
    const res = await api('GET', '/v1/orgs', { headers: { 'X-Request-Id': 'trace-123' } });
    expect(res.headers.get('X-Request-Id')).toBe('trace-123');
    const generated = await api('GET', '/v1/orgs');
    expect(generated.headers.get('X-Request-Id')).toMatch(/^[0-9A-Za-z]{16}$/);
  });
});
