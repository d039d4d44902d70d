import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import worker from '../../src/index';
import type { Env } from '../../src/env';
import { ApiError } from '../../src/lib/errors';
import { sha256Hex } from '../../src/lib/ids';
import { downloadUrl, fileKey } from '../../src/services/content/files';
import { decryptSecret, encryptSecret } from '../../src/services/integrations/crypto';
import type { FileEntry } from '../../src/services/content/revisions';
import { ADMIN_TOKEN, BASE, seedOrg, type TestOrg } from '../helpers/harness';
import { integrationName } from '../helpers/integrations';

/**
 * The deployment's three secrets are distinct: FILES_SIGNING_KEY signs download URLs, INTEGRATIONS_KEY encrypts
 * integration secrets, ADMIN_TOKEN authorizes the operator. None stands in for another: a deployment missing
 * one answers 503 naming it where it is needed (never a 500), and a URL signed under ADMIN_TOKEN opens nothing.
 */

const testEnv = env as unknown as Env;
const without = (name: 'FILES_SIGNING_KEY' | 'INTEGRATIONS_KEY'): Env => ({ ...testEnv, [name]: undefined });

/** Through the Worker with another environment (a deployment that lacks a secret). */
async function fetchWith(environment: Env, path: string, init: RequestInit = {}) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${BASE}${path}`, init), environment as never, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: res.status, body };
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

const pathOf = (url: string) => url.slice(BASE.length);

let file: FileEntry;

beforeAll(async () => {
  const bytes = new TextEncoder().encode(`deployment secrets ${crypto.randomUUID()}`);
  const hash = await sha256Hex(bytes);
  await testEnv.FILES.put(fileKey(hash), bytes);
  file = { id: 'secretsFile000000000', name: 'notes.txt', contentType: 'text/plain', size: bytes.byteLength, hash };
});

describe('FILES_SIGNING_KEY', () => {
  it('signs the download URLs, which open the file', async () => {
    const url = await downloadUrl(testEnv, BASE, file);
    const res = await fetchWith(testEnv, pathOf(url));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('is needed to make a download URL: without it, 503 naming it', async () => {
    const error = await rejection(downloadUrl(without('FILES_SIGNING_KEY'), BASE, file));
    expect(error.status).toBe(503);
    expect(error.message).toContain('FILES_SIGNING_KEY');
  });

  it('is needed to open one: without it, 503 naming it, not ADMIN_TOKEN in its place', async () => {
    const signed = await downloadUrl(testEnv, BASE, file);
    // Signed under the operator token, as a deployment without FILES_SIGNING_KEY once did.
    const underAdmin = await downloadUrl({ ...testEnv, FILES_SIGNING_KEY: ADMIN_TOKEN }, BASE, file);
    for (const url of [signed, underAdmin]) {
      const res = await fetchWith(without('FILES_SIGNING_KEY'), pathOf(url));
      expect(res.status, url).toBe(503);
      expect(res.body).toEqual({ error: { code: 503, message: expect.stringContaining('FILES_SIGNING_KEY') } });
    }
  });

  it('never verifies a URL signed under ADMIN_TOKEN', async () => {
    const underAdmin = await downloadUrl({ ...testEnv, FILES_SIGNING_KEY: ADMIN_TOKEN }, BASE, file);
    const res = await fetchWith(testEnv, pathOf(underAdmin));
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain('signature');
  });
});

describe('INTEGRATIONS_KEY', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await seedOrg();
  });

  it('is needed to keep or read integration secrets: without it, 503 naming it', async () => {
    const sealed = await encryptSecret(testEnv, 'a secret');
    expect(await decryptSecret(testEnv, sealed)).toBe('a secret');
    for (const attempt of [encryptSecret(without('INTEGRATIONS_KEY'), 'a secret'), decryptSecret(without('INTEGRATIONS_KEY'), sealed)]) {
      const error = await rejection(attempt);
      expect(error.status).toBe(503);
      expect(error.message).toContain('INTEGRATIONS_KEY');
    }
  });

  it('is the only key that reads what it stored: ADMIN_TOKEN reads nothing, and a deployment that used it keeps it as INTEGRATIONS_KEY', async () => {
    const sealed = await encryptSecret(testEnv, 'a secret');
    await expect(decryptSecret({ ...testEnv, INTEGRATIONS_KEY: ADMIN_TOKEN }, sealed)).rejects.toThrow(/INTEGRATIONS_KEY/);
    // What the ADMIN_TOKEN fallback once stored reads with INTEGRATIONS_KEY set to the same value.
    const fromFallback = await encryptSecret({ ...testEnv, INTEGRATIONS_KEY: ADMIN_TOKEN }, 'stored before');
    expect(await decryptSecret({ ...testEnv, INTEGRATIONS_KEY: ADMIN_TOKEN }, fromFallback)).toBe('stored before');
    await expect(decryptSecret(testEnv, fromFallback)).rejects.toThrow(/not the key it was stored under/);
  });

  it('publishing an integration with secrets without it answers 503 naming it, not 500', async () => {
    const res = await fetchWith(without('INTEGRATIONS_KEY'), `/v1/integrations/${integrationName('nokey')}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        organization: org.id,
        title: 'No key',
        description: 'Has secrets',
        scopes: ['space:content:read'],
        script: 'export default { async fetch() { return new Response("ok"); } };',
        secrets: { API_KEY: 'sk-test' },
      }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body).toEqual({ error: { code: 503, message: expect.stringContaining('INTEGRATIONS_KEY') } });
  });
});
