import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { OPENAPI_PROCESS_JOB } from '../../src/services/openapi/jobs';
import { SlugTaken, createSpec, putSpec, specBySlugQuery, updateSpecSource } from '../../src/services/openapi/records';
import { sourceTextKey, versionFilesystemKey, versionRawKey } from '../../src/services/openapi/storage';
import { MAX_SPEC_SOURCE_BYTES } from '../../src/lib/openapi-specs';
import type { SpecOutline } from '../../src/services/openapi/types';
import { GITBOOK_0202, gitbookErrors, gitbookValidator } from '../helpers/gitbook-schema';
import { ADMIN_TOKEN, BASE, CALLERS, api, byCaller, callerUser, expectError, expectStatus, seedOrg, type ApiResponse, type Caller, type TestOrg } from '../helpers/harness';
import { apiCapturingQueue, seedInstallation, seedIntegration, seedToken } from '../helpers/integrations';
import { seedSpec, seedSpecVersion, specSlug } from '../helpers/openapi';
import { measureRoundTrips } from '../helpers/round-trips';

const GITBOOK_SPEC = gitbookValidator('OpenAPISpec', GITBOOK_0202.components);
/** The specification's own schema (@gitbook/api 0.146.0). */
const SPEC_0146 = gitbookValidator('OpenAPISpec');

function expectSpec(body: unknown) {
  expect(gitbookErrors(GITBOOK_SPEC, body), JSON.stringify(body)).toBe('valid');
  expect(gitbookErrors(SPEC_0146, body), JSON.stringify(body)).toBe('valid');
}

const OUTLINE: SpecOutline = { title: 'Pets', version: '1.0.0', tags: [], schemas: [] };
const SOURCE_URL = 'https://specs.example.com/petstore.json';
const TEXT = '{"openapi":"3.1.0","info":{"title":"Pets","version":"1"},"paths":{}}';

const specsPath = (orgId: string) => `/v1/orgs/${orgId}/openapi`;
const specPath = (orgId: string, slug: string) => `${specsPath(orgId)}/${slug}`;

interface SpecDbRow {
  id: string;
  org_id: string;
  slug: string;
  source_url: string | null;
  source_text_key: string | null;
  visibility: string;
  processing_state: string;
  processing_job: string | null;
  queued_at: string | null;
  processing_attempts: number;
  created_by: string | null;
}

/** A request with the JOBS messages it sent (apiCapturingQueue), its body typed loosely like `api`'s. */
async function capture(method: string, path: string, token: string, body?: unknown) {
  return (await apiCapturingQueue(method, path, token, body)) as { status: number; body: any; sent: { id: string; type: string; payload: unknown }[] };
}

async function specRow(orgId: string, slug: string): Promise<SpecDbRow | null> {
  return env.DB.prepare('select * from openapi_specs where org_id = ? and slug = ?').bind(orgId, slug).first<SpecDbRow>();
}

async function r2Keys(prefix: string): Promise<string[]> {
  const listing = await env.FILES.list({ prefix });
  return listing.objects.map((o) => o.key).sort();
}

/** A create or update answered, with the one processing message it sent for the spec as the row names it. */
async function expectOneJob(res: { sent: { id: string; type: string; payload: unknown }[] }, orgId: string, slug: string) {
  const row = (await specRow(orgId, slug))!;
  expect(row.processing_state).toBe('pending');
  expect(row.processing_job).toEqual(expect.any(String));
  expect(row.queued_at).toEqual(expect.any(String));
  expect(res.sent).toEqual([{ id: row.processing_job, type: OPENAPI_PROCESS_JOB, payload: { specId: row.id } }]);
  return row;
}

describe('createOpenAPISpec', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await seedOrg();
  });

  it('creates a spec from a URL: pending, one processing message, valid against GitBook 0.202', async () => {
    const slug = specSlug('pets');
    const res = await capture('POST', specsPath(org.id), org.owner.token, { slug, source: { url: SOURCE_URL } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const spec = res.body;
    expectSpec(spec);
    expect(spec).toMatchObject({
      object: 'openapi-spec',
      slug,
      sourceURL: SOURCE_URL,
      processingState: 'pending',
      visibility: 'private',
      lastProcessedErrorCount: 0,
      permissions: { view: true, edit: true },
      urls: { location: `${BASE}/v1/orgs/${org.id}/openapi/${slug}`, app: `${BASE}/o/${org.id}/openapi/${slug}` },
    });
    expect(spec.urls.published).toBeUndefined();
    expect(spec.lastVersion).toBeUndefined();
    expect(spec.createdAt).toBe(spec.updatedAt);
    const row = await expectOneJob(res, org.id, slug);
    expect(row).toMatchObject({ id: spec.id, source_url: SOURCE_URL, source_text_key: null, created_by: org.owner.id });
    // What it answered is what a read answers.
    const read = expectStatus(await api('GET', specPath(org.id, slug), { token: org.owner.token }), 200).body;
    expect(read).toEqual(spec);
  });

  it('creates a spec from a text: the text is in R2 under its job before the message is sent', async () => {
    const slug = specSlug('text');
    const text = 'openapi: 3.1.0\ninfo:\n  title: Pets ünïcode\n  version: "1"\npaths: {}\n';
    const res = await capture('POST', specsPath(org.id), org.owner.token, { slug, source: { text } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expectSpec(res.body);
    expect(res.body.sourceURL).toBeUndefined();
    const row = await expectOneJob(res, org.id, slug);
    expect(row.source_url).toBeNull();
    expect(row.source_text_key).toBe(sourceTextKey(row.id, row.processing_job!));
    const stored = await env.FILES.get(row.source_text_key!);
    expect(await stored!.text()).toBe(text);
  });

  it('accepts a text of up to MAX_SPEC_SOURCE_BYTES bytes of UTF-8, and refuses one byte more (counted in bytes, not characters)', async () => {
    const fits = specSlug('big');
    const big = `${'é'.repeat(MAX_SPEC_SOURCE_BYTES / 2 - 1)}xx`;
    expect(new TextEncoder().encode(big).byteLength).toBe(MAX_SPEC_SOURCE_BYTES);
    expectStatus(await api('POST', specsPath(org.id), { token: org.owner.token, body: { slug: fits, source: { text: big } } }), 201);
    const tooBig = `${big}x`;
    const refused = specSlug('too-big');
    expectError(await api('POST', specsPath(org.id), { token: org.owner.token, body: { slug: refused, source: { text: tooBig } } }), 400, 'source.text');
    // Fewer characters than the limit, more bytes.
    const wide = 'é'.repeat(MAX_SPEC_SOURCE_BYTES / 2 + 1);
    expect(wide.length).toBeLessThan(MAX_SPEC_SOURCE_BYTES);
    expectError(await api('POST', specsPath(org.id), { token: org.owner.token, body: { slug: refused, source: { text: wide } } }), 400, 'bytes');
    expect(await specRow(org.id, refused)).toBeNull();
  });

  it.each([
    ['no body', undefined, 'body'],
    ['no slug', { source: { url: SOURCE_URL } }, 'slug'],
    ['no source', { slug: 'ok' }, 'source'],
    ['a slug with a double hyphen', { slug: 'a--b', source: { url: SOURCE_URL } }, 'slug'],
    ['a slug ending with a hyphen', { slug: 'ab-', source: { url: SOURCE_URL } }, 'slug'],
    ['a slug with a space', { slug: 'a b', source: { url: SOURCE_URL } }, 'slug'],
    ['a slug with a slash', { slug: 'a/b', source: { url: SOURCE_URL } }, 'slug'],
    ['a slug of 101 characters', { slug: 'x'.repeat(101), source: { url: SOURCE_URL } }, 'slug'],
    ['a numeric slug', { slug: 12, source: { url: SOURCE_URL } }, 'slug'],
    ['an empty source', { slug: 'ok', source: {} }, 'source'],
    ['both a url and a text', { slug: 'ok', source: { url: SOURCE_URL, text: TEXT } }, 'either'],
    ['a source that is a string', { slug: 'ok', source: SOURCE_URL }, 'source'],
    ['an empty text', { slug: 'ok', source: { text: '' } }, 'source.text'],
    ['a text that is an object', { slug: 'ok', source: { text: { openapi: '3.1.0' } } }, 'source.text'],
    ['a url that is not a URL', { slug: 'ok', source: { url: 'not a url' } }, 'source.url'],
    ['a ftp url', { slug: 'ok', source: { url: 'ftp://example.com/spec.json' } }, 'not http or https'],
    ['a loopback url', { slug: 'ok', source: { url: 'http://127.0.0.1/spec.json' } }, 'refused'],
    ['a localhost url', { slug: 'ok', source: { url: 'http://localhost:8787/spec.json' } }, 'refused'],
    ['a cloud metadata url', { slug: 'ok', source: { url: 'http://169.254.169.254/latest/meta-data' } }, 'refused'],
    ['a url with credentials', { slug: 'ok', source: { url: 'https://user:pass@example.com/spec.json' } }, 'credentials'],
    ['a url of 2049 characters', { slug: 'ok', source: { url: `https://example.com/${'x'.repeat(2049 - 20)}` } }, 'source.url'],
  ])('refuses %s with a 400 naming the problem, creating nothing', async (_name, body, mention) => {
    const res = await capture('POST', specsPath(org.id), org.owner.token, body);
    expectError({ ...res, headers: new Headers() } as ApiResponse, 400, mention);
    expect(res.sent).toEqual([]);
    expect(await specRow(org.id, 'ok')).toBeNull();
  });

  it('refuses malformed JSON with a 400', async () => {
    expectError(await api('POST', specsPath(org.id), { token: org.owner.token, rawBody: '{"slug":' }), 400);
  });

  it('answers 409 for a slug the organization already has, sending nothing and leaving no text behind', async () => {
    const slug = specSlug('dup');
    expectStatus(await api('POST', specsPath(org.id), { token: org.owner.token, body: { slug, source: { url: SOURCE_URL } } }), 201);
    const before = await r2Keys('openapi/');
    const again = await capture('POST', specsPath(org.id), org.owner.token, { slug, source: { text: TEXT } });
    expectError({ ...again, headers: new Headers() } as ApiResponse, 409, slug);
    expect(again.sent).toEqual([]);
    expect(await r2Keys('openapi/')).toEqual(before);
    // Slugs are the organization's: another organization may use the same one.
    const other = await seedOrg();
    expectStatus(await api('POST', specsPath(other.id), { token: other.owner.token, body: { slug, source: { url: SOURCE_URL } } }), 201);
  });

  it('a create that loses the race for its slug (the unique index refuses it) removes its text and sends nothing', async () => {
    const winner = await seedSpec(org.id, { url: SOURCE_URL });
    const before = await r2Keys('openapi/');
    const sent: unknown[] = [];
    const jobs = { send: async (message: unknown) => void sent.push(message) } as unknown as Queue<unknown>;
    // As a POST that read no spec of this slug before the winner's insert.
    const losing = createSpec({ ...env, JOBS: jobs } as never, createDb(env.DB), { orgId: org.id, slug: winner.slug, source: { text: TEXT }, userId: org.owner.id });
    await expect(losing).rejects.toBeInstanceOf(SlugTaken);
    await expect(losing).rejects.toMatchObject({ status: 409 });
    expect(sent).toEqual([]);
    expect(await r2Keys('openapi/')).toEqual(before);
  });

  it('of two creates racing for one slug, one wins and the other answers 409', async () => {
    const slug = specSlug('race');
    const results = await Promise.all([
      api('POST', specsPath(org.id), { token: org.owner.token, body: { slug, source: { url: SOURCE_URL } } }),
      api('POST', specsPath(org.id), { token: org.members.create.token, body: { slug, source: { text: TEXT } } }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    const count = await env.DB.prepare('select count(*) as n from openapi_specs where org_id = ? and slug = ?').bind(org.id, slug).first<{ n: number }>();
    expect(count!.n).toBe(1);
  });
});

describe('createOrUpdateOpenAPISpecBySlug', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await seedOrg();
  });

  it('creates (201) then updates (200) the same spec, a new processing job each time', async () => {
    const slug = specSlug('put');
    const created = await capture('PUT', specPath(org.id, slug), org.owner.token, { source: { url: SOURCE_URL } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expectSpec(created.body);
    const first = await expectOneJob(created, org.id, slug);

    const updated = await capture('PUT', specPath(org.id, slug), org.owner.token, { source: { url: `${SOURCE_URL}?v=2` } });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expectSpec(updated.body);
    expect(updated.body).toMatchObject({ id: created.body.id, slug, sourceURL: `${SOURCE_URL}?v=2`, processingState: 'pending', createdAt: created.body.createdAt });
    const second = await expectOneJob(updated, org.id, slug);
    expect(second.id).toBe(first.id);
    expect(second.processing_job).not.toBe(first.processing_job);
    expect(updated.body.updatedAt >= created.body.updatedAt).toBe(true);
  });

  it('switches sources: a text is stored, a URL clears it, and a replaced text object is removed', async () => {
    const slug = specSlug('switch');
    const withText = await capture('PUT', specPath(org.id, slug), org.owner.token, { source: { text: TEXT } });
    expect(withText.status).toBe(201);
    const first = await expectOneJob(withText, org.id, slug);
    expect(await (await env.FILES.get(first.source_text_key!))!.text()).toBe(TEXT);

    const newText = `${TEXT}\n`;
    const replaced = await capture('PUT', specPath(org.id, slug), org.owner.token, { source: { text: newText } });
    expect(replaced.status).toBe(200);
    const second = await expectOneJob(replaced, org.id, slug);
    expect(second.source_text_key).toBe(sourceTextKey(second.id, second.processing_job!));
    expect(await (await env.FILES.get(second.source_text_key!))!.text()).toBe(newText);
    expect(await env.FILES.head(first.source_text_key!)).toBeNull();

    const toUrl = await capture('PUT', specPath(org.id, slug), org.owner.token, { source: { url: SOURCE_URL } });
    expect(toUrl.status).toBe(200);
    expect(toUrl.body.sourceURL).toBe(SOURCE_URL);
    const third = await expectOneJob(toUrl, org.id, slug);
    expect(third).toMatchObject({ source_url: SOURCE_URL, source_text_key: null });
    expect(await r2Keys(`openapi/${third.id}/sources/`)).toEqual([]);
  });

  it('removes the text it replaced, even when another update replaced the one it read (no object left behind)', async () => {
    const slug = specSlug('race-text');
    expect((await capture('PUT', specPath(org.id, slug), org.owner.token, { source: { text: TEXT } })).status).toBe(201);
    const db = createDb(env.DB);
    // An update that read the spec before another one replaced its text.
    const [stale] = await specBySlugQuery(db, org.id, slug);
    expect((await capture('PUT', specPath(org.id, slug), org.owner.token, { source: { text: `${TEXT}\n` } })).status).toBe(200);
    const between = (await specRow(org.id, slug))!;
    expect(await r2Keys(`openapi/${stale.id}/sources/`)).toEqual([between.source_text_key]);

    const jobs = { send: async () => undefined } as unknown as Queue<unknown>;
    const row = await updateSpecSource({ ...env, JOBS: jobs } as never, db, stale, { text: `${TEXT}\n\n` });
    expect(row!.sourceTextKey).not.toBe(between.source_text_key);
    // Only the text the spec names is left: the one this update replaced (not the one it read) was removed.
    expect(await r2Keys(`openapi/${stale.id}/sources/`)).toEqual([row!.sourceTextKey]);
    expect(await (await env.FILES.get(row!.sourceTextKey!))!.text()).toBe(`${TEXT}\n\n`);
  });

  it('names a new job with no claim of it counted', async () => {
    const seeded = await seedSpec(org.id, { url: SOURCE_URL, job: null, state: 'complete', attempts: 3 });
    expect((await capture('PUT', specPath(org.id, seeded.slug), org.owner.token, { source: { url: `${SOURCE_URL}?v=3` } })).status).toBe(200);
    expect(await specRow(org.id, seeded.slug)).toMatchObject({ processing_state: 'pending', processing_attempts: 0 });
  });

  it('keeps the last version, visibility and processing record while the new source waits', async () => {
    const seeded = await seedSpec(org.id, { url: SOURCE_URL, visibility: 'public' });
    const versionId = await seedSpecVersion(seeded.id, OUTLINE);
    const res = expectStatus(await api('PUT', specPath(org.id, seeded.slug), { token: org.owner.token, body: { source: { text: TEXT } } }), 200).body;
    expectSpec(res);
    expect(res).toMatchObject({ id: seeded.id, lastVersion: versionId, visibility: 'public', processingState: 'pending', lastProcessedAt: expect.any(String) });
    expect(res.sourceURL).toBeUndefined();
    expect(res.urls.published).toBe(`${BASE}/public/openapi/${org.id}/${seeded.slug}`);
  });

  it('refuses a slug that is not one when it would create, and a bad source, with 400', async () => {
    expectError(await api('PUT', specPath(org.id, 'a--b'), { token: org.owner.token, body: { source: { url: SOURCE_URL } } }), 400, 'specSlug');
    expectError(await api('PUT', specPath(org.id, 'x'.repeat(101)), { token: org.owner.token, body: { source: { url: SOURCE_URL } } }), 400, 'specSlug');
    const slug = specSlug('bad');
    for (const source of [{}, { url: 'file:///etc/passwd' }, { url: SOURCE_URL, text: TEXT }, { text: '' }, null]) {
      const res = await capture('PUT', specPath(org.id, slug), org.owner.token, { source });
      expectError({ ...res, headers: new Headers() } as ApiResponse, 400);
      expect(res.sent).toEqual([]);
    }
    expectError(await api('PUT', specPath(org.id, slug), { token: org.owner.token, body: { slug } }), 400, 'source');
    expect(await specRow(org.id, slug)).toBeNull();
  });

  it('a PUT whose create loses the race for its slug updates the winner instead (the fallback, run directly)', async () => {
    const winner = await seedSpec(org.id, { url: SOURCE_URL });
    const before = await r2Keys('openapi/');
    const sent: unknown[] = [];
    const jobs = { send: async (message: unknown) => void sent.push(message) } as unknown as Queue<unknown>;
    // As a PUT that read no spec of this slug before the winner's insert.
    const { row, created } = await putSpec({ ...env, JOBS: jobs } as never, createDb(env.DB), undefined, { orgId: org.id, slug: winner.slug, source: { text: TEXT }, userId: org.owner.id });
    expect(created).toBe(false);
    expect(row.id).toBe(winner.id);
    const stored = (await specRow(org.id, winner.slug))!;
    expect(stored.source_text_key).toBe(sourceTextKey(winner.id, stored.processing_job!));
    expect(sent).toEqual([{ id: stored.processing_job, type: OPENAPI_PROCESS_JOB, payload: { specId: winner.id } }]);
    // Only the winner's row, and no text of the losing create left behind.
    const count = await env.DB.prepare('select count(*) as n from openapi_specs where org_id = ? and slug = ?').bind(org.id, winner.slug).first<{ n: number }>();
    expect(count!.n).toBe(1);
    expect(await r2Keys('openapi/')).toEqual([...before, stored.source_text_key].sort());
  });

  it('of two PUTs racing to create one slug, one creates (201) and the other updates it (200)', async () => {
    const slug = specSlug('put-race');
    const results = await Promise.all([
      api('PUT', specPath(org.id, slug), { token: org.owner.token, body: { source: { url: SOURCE_URL } } }),
      api('PUT', specPath(org.id, slug), { token: org.members.create.token, body: { source: { text: TEXT } } }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 201]);
    expect(results[0].body.id).toBe(results[1].body.id);
    const count = await env.DB.prepare('select count(*) as n from openapi_specs where org_id = ? and slug = ?').bind(org.id, slug).first<{ n: number }>();
    expect(count!.n).toBe(1);
  });
});

describe('getOpenAPISpecBySlug and listOpenAPISpecs', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await seedOrg();
  });

  it('reads a processed spec with its last version and processing record', async () => {
    const seeded = await seedSpec(org.id, { url: SOURCE_URL });
    const versionId = await seedSpecVersion(seeded.id, OUTLINE);
    const errors = [{ message: 'Unused schema Foo', code: 'unused' }, { message: 'No servers' }];
    await env.DB.prepare(`update openapi_specs set last_process_error_code = 'PARSE_ERROR', last_processed_errors = ?, last_processed_error_count = 7 where id = ?`)
      .bind(JSON.stringify(errors), seeded.id)
      .run();
    const res = expectStatus(await api('GET', specPath(org.id, seeded.slug), { token: org.members.read.token }), 200).body;
    expectSpec(res);
    expect(res).toMatchObject({
      id: seeded.id,
      processingState: 'complete',
      lastVersion: versionId,
      lastProcessedAt: expect.any(String),
      lastProcessErrorCode: 'PARSE_ERROR',
      lastProcessedErrors: errors,
      lastProcessedErrorCount: 7,
      // A reader sees it, and may not change it.
      permissions: { view: true, edit: false },
    });
  });

  it('answers 404 for an unknown slug and for a slug of another organization', async () => {
    expectError(await api('GET', specPath(org.id, 'no-such-spec'), { token: org.owner.token }), 404, 'OpenAPI spec');
    const other = await seedOrg();
    const theirs = await seedSpec(other.id);
    expectError(await api('GET', specPath(org.id, theirs.slug), { token: org.owner.token }), 404);
    // Their organization's path, by someone who is not a member: the organization is not found.
    expectError(await api('GET', specPath(other.id, theirs.slug), { token: org.owner.token }), 404, 'Organization');
    // A slug of any shape is looked up, not refused.
    expectError(await api('GET', specPath(org.id, 'a--b'), { token: org.owner.token }), 404);
    expectError(await api('GET', specPath(org.id, 'x'.repeat(101)), { token: org.owner.token }), 400);
  });

  it('lists the specs of the organization only, oldest first, a page at a time', async () => {
    const listOrg = await seedOrg();
    const slugs: string[] = [];
    for (let i = 0; i < 5; i++) {
      const slug = `list-${i}`;
      slugs.push(slug);
      expectStatus(await api('POST', specsPath(listOrg.id), { token: listOrg.owner.token, body: { slug, source: { url: `${SOURCE_URL}?${i}` } } }), 201);
    }
    await seedSpec(org.id);
    const seen: string[] = [];
    let page: string | undefined;
    for (let round = 0; round < 5; round++) {
      const res = expectStatus(await api('GET', `${specsPath(listOrg.id)}?limit=2${page ? `&page=${page}` : ''}`, { token: listOrg.members.read.token }), 200).body;
      expect(res.count).toBe(5);
      for (const item of res.items) expectSpec(item);
      seen.push(...res.items.map((s: any) => s.slug));
      page = res.next?.page;
      if (!page) break;
    }
    expect(seen).toEqual(slugs);
    const all = expectStatus(await api('GET', specsPath(listOrg.id), { token: listOrg.owner.token }), 200).body;
    expect(all.items.map((s: any) => s.slug)).toEqual(slugs);
    expect(all.next).toBeUndefined();
    expect(all.items.every((s: any) => s.permissions.edit)).toBe(true);
  });

  it('refuses bad list parameters with 400', async () => {
    expectError(await api('GET', `${specsPath(org.id)}?limit=0`, { token: org.owner.token }), 400, 'limit');
    expectError(await api('GET', `${specsPath(org.id)}?limit=1001`, { token: org.owner.token }), 400, 'limit');
    expectError(await api('GET', `${specsPath(org.id)}?limit=ten`, { token: org.owner.token }), 400, 'limit');
    expectError(await api('GET', `${specsPath(org.id)}?page=garbage`, { token: org.owner.token }), 400, 'page');
  });
});

describe('updateOpenAPISpecBySlug', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await seedOrg();
  });

  it('makes a spec public (with its published URL) and private again, without processing it', async () => {
    const seeded = await seedSpec(org.id, { url: SOURCE_URL, job: null, state: 'complete' });
    const made = await capture('PATCH', specPath(org.id, seeded.slug), org.owner.token, { visibility: 'public' });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expectSpec(made.body);
    expect(made.body).toMatchObject({ visibility: 'public', processingState: 'complete', urls: { published: `${BASE}/public/openapi/${org.id}/${seeded.slug}` } });
    expect(made.sent).toEqual([]);
    const read = expectStatus(await api('GET', specPath(org.id, seeded.slug), { token: org.members.read.token }), 200).body;
    expect(read.visibility).toBe('public');

    const back = expectStatus(await api('PATCH', specPath(org.id, seeded.slug), { token: org.members.create.token, body: { visibility: 'private' } }), 200).body;
    expectSpec(back);
    expect(back.visibility).toBe('private');
    expect(back.urls.published).toBeUndefined();
    expect((await specRow(org.id, seeded.slug))!.visibility).toBe('private');
  });

  it('refuses a bad visibility (400) and answers 404 for an unknown spec', async () => {
    const seeded = await seedSpec(org.id);
    for (const body of [{}, { visibility: 'published' }, { visibility: 'PUBLIC' }, { visibility: null }, { visibility: 1 }]) {
      expectError(await api('PATCH', specPath(org.id, seeded.slug), { token: org.owner.token, body }), 400, 'visibility');
    }
    expectError(await api('PATCH', specPath(org.id, 'no-such-spec'), { token: org.owner.token, body: { visibility: 'public' } }), 404, 'OpenAPI spec');
    const other = await seedOrg();
    const theirs = await seedSpec(other.id);
    expectError(await api('PATCH', specPath(org.id, theirs.slug), { token: org.owner.token, body: { visibility: 'public' } }), 404);
    expectError(await api('PATCH', specPath(other.id, theirs.slug), { token: org.owner.token, body: { visibility: 'public' } }), 404);
    expect((await specRow(other.id, theirs.slug))!.visibility).toBe('private');
  });
});

describe('deleteOpenAPISpecBySlug', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await seedOrg();
  });

  it('deletes the spec, its versions and every R2 object of it; 204 again when it is gone', async () => {
    const seeded = await seedSpec(org.id, { text: TEXT });
    const versions = [await seedSpecVersion(seeded.id, OUTLINE), await seedSpecVersion(seeded.id, OUTLINE)];
    const keep = await seedSpec(org.id, { text: TEXT });
    const kept = await seedSpecVersion(keep.id, OUTLINE);
    expect((await r2Keys(`openapi/${seeded.id}/`)).length).toBe(7); // its source text, and each version's bundle, list and raw text

    const res = await api('DELETE', specPath(org.id, seeded.slug), { token: org.members.create.token });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect(await specRow(org.id, seeded.slug)).toBeNull();
    const left = await env.DB.prepare('select count(*) as n from openapi_spec_versions where spec_id = ?').bind(seeded.id).first<{ n: number }>();
    expect(left!.n).toBe(0);
    expect(await r2Keys(`openapi/${seeded.id}/`)).toEqual([]);
    for (const id of versions) expect(await env.FILES.head(versionRawKey(seeded.id, id))).toBeNull();
    expectError(await api('GET', specPath(org.id, seeded.slug), { token: org.owner.token }), 404);
    // The other spec of the organization is untouched.
    expect(await env.FILES.head(versionFilesystemKey(keep.id, kept))).not.toBeNull();
    expectStatus(await api('GET', `${specPath(org.id, keep.slug)}/versions/latest`, { token: org.owner.token }), 200);

    expectStatus(await api('DELETE', specPath(org.id, seeded.slug), { token: org.owner.token }), 204);
    expectStatus(await api('DELETE', specPath(org.id, 'never-existed'), { token: org.owner.token }), 204);
  });

  it("never deletes another organization's spec", async () => {
    const other = await seedOrg();
    const theirs = await seedSpec(other.id);
    // Through our organization's path, the slug names nothing there.
    expectStatus(await api('DELETE', specPath(org.id, theirs.slug), { token: org.owner.token }), 204);
    // Through theirs, we are not members.
    expectError(await api('DELETE', specPath(other.id, theirs.slug), { token: org.owner.token }), 404);
    expect(await specRow(other.id, theirs.slug)).not.toBeNull();
  });

  it('a slug deleted can be created again', async () => {
    const slug = specSlug('again');
    expectStatus(await api('POST', specsPath(org.id), { token: org.owner.token, body: { slug, source: { url: SOURCE_URL } } }), 201);
    expectStatus(await api('DELETE', specPath(org.id, slug), { token: org.owner.token }), 204);
    expectStatus(await api('POST', specsPath(org.id), { token: org.owner.token, body: { slug, source: { url: SOURCE_URL } } }), 201);
  });
});

describe('authorization', () => {
  const S = byCaller;
  const READS = S(200, 200, 200, 200, 200, 200, 404, 404);
  const writes = (status: number) => S(status, status, 403, 403, 403, 403, 404, 404);
  let org: TestOrg;
  let existing: { slug: string };
  beforeAll(async () => {
    org = await seedOrg();
    existing = await seedSpec(org.id, { url: SOURCE_URL });
  });

  const OPERATIONS: Array<[string, Record<Caller, number>, (caller: Caller, token: string | undefined) => Promise<ApiResponse>]> = [
    ['listOpenAPISpecs', READS, (_c, token) => api('GET', specsPath(org.id), { token })],
    ['getOpenAPISpecBySlug', READS, (_c, token) => api('GET', specPath(org.id, existing.slug), { token })],
    ['createOpenAPISpec', writes(201), (caller, token) => api('POST', specsPath(org.id), { token, body: { slug: `by-${caller}`, source: { url: SOURCE_URL } } })],
    ['createOrUpdateOpenAPISpecBySlug (create)', writes(201), (caller, token) => api('PUT', specPath(org.id, `put-${caller}`), { token, body: { source: { text: TEXT } } })],
    ['createOrUpdateOpenAPISpecBySlug (update)', writes(200), (_c, token) => api('PUT', specPath(org.id, existing.slug), { token, body: { source: { url: SOURCE_URL } } })],
    ['updateOpenAPISpecBySlug', writes(200), (_c, token) => api('PATCH', specPath(org.id, existing.slug), { token, body: { visibility: 'private' } })],
    [
      'deleteOpenAPISpecBySlug',
      writes(204),
      async (caller, token) => {
        const doomed = await seedSpec(org.id);
        const res = await api('DELETE', specPath(org.id, doomed.slug), { token });
        const row = await specRow(org.id, doomed.slug);
        // Deleted exactly when the answer says so.
        expect(row === null, `${caller}: ${res.status}`).toBe(res.status === 204);
        return res;
      },
    ],
  ];

  it.each(OPERATIONS)('%s answers each caller as its role allows', async (_name, expected, call) => {
    const actual: Record<string, number> = {};
    for (const caller of CALLERS) {
      const res = await call(caller, callerUser(org, caller).token);
      actual[caller] = res.status;
      if (res.status >= 400) expectError(res, res.status);
      const specs = res.status === 200 && Array.isArray(res.body.items) ? res.body.items : res.status < 300 && res.body ? [res.body] : [];
      for (const spec of specs) expect(spec.permissions, caller).toEqual({ view: true, edit: ['admin', 'create'].includes(caller) });
    }
    expect(actual).toEqual(expected);
  });

  it.each(OPERATIONS)('%s answers 401 without a token, and 401 with an unknown one', async (_name, _expected, call) => {
    expectError(await call('admin', undefined), 401);
    expectError(await call('admin', 'not-a-token'), 401);
  });

  it('refuses the operator token (403): it is not a user', async () => {
    expectError(await api('GET', specsPath(org.id), { token: ADMIN_TOKEN }), 403);
  });
});

describe('installation tokens', () => {
  async function setup(scopes: string[]) {
    const publisher = await seedOrg();
    const org = await seedOrg();
    const integration = await seedIntegration(publisher.id, { scopes });
    const installation = await seedInstallation(integration, org.id);
    const token = await seedToken(integration.id, installation.id);
    return { org, publisher, installation, token };
  }

  it('with openapi:read read the specs of their organization, and write nothing', async () => {
    const { org, publisher, token } = await setup(['openapi:read']);
    const spec = await seedSpec(org.id);
    const read = expectStatus(await api('GET', specPath(org.id, spec.slug), { token }), 200).body;
    expect(read.permissions).toEqual({ view: true, edit: false });
    expectStatus(await api('GET', specsPath(org.id), { token }), 200);
    expectStatus(await api('GET', `${specPath(org.id, spec.slug)}/versions`, { token }), 200);
    expectError(await api('POST', specsPath(org.id), { token, body: { slug: 'x', source: { url: SOURCE_URL } } }), 403, 'openapi:write');
    expectError(await api('PATCH', specPath(org.id, spec.slug), { token, body: { visibility: 'public' } }), 403, 'openapi:write');
    expectError(await api('DELETE', specPath(org.id, spec.slug), { token }), 403, 'openapi:write');
    // Another organization's specs: not found.
    const theirs = await seedSpec(publisher.id);
    expectError(await api('GET', specPath(publisher.id, theirs.slug), { token }), 404);
  });

  it('with openapi:write create, update and delete the specs of their organization, as their bot user', async () => {
    const { org, installation, token } = await setup(['openapi:read', 'openapi:write']);
    const slug = specSlug('bot');
    const created = await capture('POST', specsPath(org.id), token, { slug, source: { url: SOURCE_URL } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.permissions).toEqual({ view: true, edit: true });
    const row = await expectOneJob(created, org.id, slug);
    expect(row.created_by).toBe(installation.botUserId);
    expectStatus(await api('PUT', specPath(org.id, slug), { token, body: { source: { text: TEXT } } }), 200);
    expectStatus(await api('PATCH', specPath(org.id, slug), { token, body: { visibility: 'public' } }), 200);
    expectStatus(await api('DELETE', specPath(org.id, slug), { token }), 204);
    expect(await specRow(org.id, slug)).toBeNull();
  });

  it('without an openapi scope are refused (403)', async () => {
    const { org, token } = await setup(['space:content:read']);
    expectError(await api('GET', specsPath(org.id), { token }), 403, 'openapi:read');
  });

  it('of an installation that is no longer active reach nothing', async () => {
    const publisher = await seedOrg();
    const org = await seedOrg();
    const integration = await seedIntegration(publisher.id, { scopes: ['openapi:read', 'openapi:write'] });
    // Paused: a pending installation (waiting for consent to more scopes) keeps working with what it approved.
    const installation = await seedInstallation(integration, org.id, { status: 'paused' });
    const token = await seedToken(integration.id, installation.id);
    const res = await api('POST', specsPath(org.id), { token, body: { slug: 'x', source: { url: SOURCE_URL } } });
    expect([401, 403, 404]).toContain(res.status);
    expectError(res, res.status);
  });
});

describe('D1 round trips', () => {
  it('reads answer in at most 2, writes in at most 3', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const seeded = await seedSpec(org.id, { text: TEXT });
    await seedSpecVersion(seeded.id, OUTLINE);
    for (let i = 0; i < 3; i++) await seedSpec(org.id);
    await api('GET', '/v1/user', { token });
    for (const path of [specsPath(org.id), specPath(org.id, seeded.slug)]) {
      const r = await measureRoundTrips('GET', path, token);
      expect(r.status, path).toBe(200);
      expect(r.roundTrips, path).toBeLessThanOrEqual(2);
    }
    const slug = specSlug('rt');
    const writes: Array<[string, string, unknown, number]> = [
      ['POST', specsPath(org.id), { slug, source: { text: TEXT } }, 201],
      ['PUT', specPath(org.id, slug), { source: { url: SOURCE_URL } }, 200],
      ['PUT', specPath(org.id, specSlug('rt-new')), { source: { url: SOURCE_URL } }, 201],
      ['PATCH', specPath(org.id, slug), { visibility: 'public' }, 200],
      ['DELETE', specPath(org.id, seeded.slug), undefined, 204],
    ];
    for (const [method, path, body, status] of writes) {
      const r = await measureRoundTrips(method, path, token, body);
      expect(r.status, `${method} ${path} ${JSON.stringify(r.body)}`).toBe(status);
      expect(r.roundTrips, `${method} ${path}`).toBeLessThanOrEqual(3);
    }
  });
});
