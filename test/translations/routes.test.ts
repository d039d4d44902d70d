import { beforeAll, describe, expect, it } from 'vitest';
import { TranslationSchema } from '../../src/schemas/translation';
import { GITBOOK_0202, gitbookErrors, gitbookValidator } from '../helpers/gitbook-schema';
import { createSpace } from '../helpers/content';
import { api, byCaller, CALLERS, callerUser, expectError, expectSchema, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';

const TRANSLATION = gitbookValidator('Translation', GITBOOK_0202.components);

/** Checks a Translation against our schema and GitBook's (a `failure` is our extension: GitBook's object is open). */
function checkTranslation(body: unknown) {
  expectSchema(TranslationSchema, body);
  expect(gitbookErrors(TRANSLATION, body)).toBe('valid');
}

async function createTranslation(org: TestOrg, body: Record<string, unknown>, token = org.owner.token) {
  return api('POST', `/v1/orgs/${org.id}/translations`, { token, body });
}

describe('translations: routes', () => {
  let org: TestOrg;
  let other: TestOrg;
  let source: any;
  let translation: any;

  beforeAll(async () => {
    [org, other] = await Promise.all([seedOrg(), seedOrg()]);
    source = await createSpace(org.id, org.owner.token, 'Handbook');
    translation = expectStatus(await createTranslation(org, { language: 'fr', source: { space: source.id, language: 'en' } }), 201).body;
  });

  it('creates a translation, with its result space beside the source', async () => {
    checkTranslation(translation);
    expect(translation).toMatchObject({
      object: 'translation',
      status: 'pending',
      language: 'fr',
      source: { space: source.id, language: 'en' },
      instructions: { object: 'document', nodes: [] },
      stats: { runs: 0, totalWords: 0, totalPages: 0, totalDuration: 0, latestRunDuration: 0, latestPages: 0, latestWords: 0 },
      permissions: { view: true, edit: true },
      urls: { location: `http://api.test/v1/orgs/${org.id}/translations/${translation.id}` },
    });
    expect(translation.result).toBeUndefined();
    const spaces = expectStatus(await api('GET', `/v1/orgs/${org.id}/spaces`, { token: org.owner.token }), 200).body.items;
    expect(spaces.filter((s: any) => s.title === 'Handbook (fr)')).toEqual([expect.objectContaining({ language: 'fr' })]);
  });

  it('takes instructions as a rich-text document', async () => {
    const instructions = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Formal tone.', marks: [] }] }] }] };
    const res = expectStatus(await createTranslation(org, { language: 'de', source: { space: source.id, language: 'en' }, instructions }), 201);
    checkTranslation(res.body);
    expect(res.body.instructions).toMatchObject({ nodes: [{ type: 'paragraph' }] });
    const next = { object: 'document', data: {}, nodes: [] };
    const put = expectStatus(await api('PUT', `/v1/orgs/${org.id}/translations/${res.body.id}`, { token: org.owner.token, body: { instructions: next } }), 200);
    checkTranslation(put.body);
    expect(put.body.instructions).toEqual(next);
    expect(expectStatus(await api('GET', `/v1/orgs/${org.id}/translations/${res.body.id}`, { token: org.owner.token }), 200).body.instructions).toEqual(next);
  });

  it("takes every language of GitBook's TranslationLanguage, zh-tw included", async () => {
    const res = expectStatus(await createTranslation(org, { language: 'zh-tw', source: { space: source.id, language: 'en' } }), 201);
    checkTranslation(res.body);
    const spaces = expectStatus(await api('GET', `/v1/orgs/${org.id}/spaces?limit=1000`, { token: org.owner.token }), 200).body.items;
    expect(spaces.find((s: any) => s.title === 'Handbook (zh-tw)')).toMatchObject({ language: 'zh-tw' });
  });

  it('refuses bad input with 400s that say what is wrong', async () => {
    const space = source.id;
    const cases: Array<[unknown, RegExp]> = [
      [{ source: { space, language: 'en' } }, /language/],
      [{ language: 'xx', source: { space, language: 'en' } }, /language/],
      [{ language: 'fr' }, /source/],
      [{ language: 'fr', source: { space } }, /source\.language/],
      [{ language: 'fr', source: { space: '', language: 'en' } }, /source\.space/],
      [{ language: 'en', source: { space, language: 'en' } }, /language.*another language/],
      [{ language: 'es', source: { space: 'nope', language: 'en' } }, /source\.space/],
      [{ language: 'es', source: { space, language: 'en' }, instructions: { object: 'document', data: {}, nodes: [{ object: 'block', type: 'bogus' }] } }, /instructions/],
      [{ language: 'es', source: { space, language: 'en' }, instructions: 'text' }, /instructions/],
      [{ language: 'es', source: { space, language: 'en' }, instructions: JSON.parse('{"__proto__": {"x": 1}}') }, /__proto__/],
    ];
    for (const [body, message] of cases) expectError(await createTranslation(org, body as Record<string, unknown>), 400, message);
    expectError(await api('POST', `/v1/orgs/${org.id}/translations`, { token: org.owner.token, rawBody: '{', headers: { 'Content-Type': 'application/json' } }), 400);
    const put = (body: unknown) => api('PUT', `/v1/orgs/${org.id}/translations/${translation.id}`, { token: org.owner.token, body });
    expectError(await put({}), 400, /instructions/);
    expectError(await put({ instructions: { object: 'paragraph' } }), 400, /instructions/);
    expectError(await api('GET', `/v1/orgs/${org.id}/translations?limit=0`, { token: org.owner.token }), 400, /limit/);
    expectError(await api('GET', `/v1/orgs/${org.id}/translations?limit=1001`, { token: org.owner.token }), 400, /limit/);
    expectError(await api('GET', `/v1/orgs/${org.id}/translations?page=garbage`, { token: org.owner.token }), 400, /page/);
  });

  it('allows one translation per source and language: a second is a 400 naming the first', async () => {
    const message = expectError(await createTranslation(org, { language: 'fr', source: { space: source.id, language: 'en' } }), 400);
    expect(message).toContain(translation.id);
    // Another source language claimed for the same space and target is still the same translation.
    expectError(await createTranslation(org, { language: 'fr', source: { space: source.id, language: 'de' } }), 400, translation.id);
  });

  it('refuses sources the caller cannot read, in the trash, or of another organization', async () => {
    const foreign = await createSpace(other.id, other.owner.token, 'Theirs');
    expectError(await createTranslation(org, { language: 'es', source: { space: foreign.id, language: 'en' } }), 400, /source\.space/);
    const trashed = await createSpace(org.id, org.owner.token, 'Trashed');
    expectStatus(await api('DELETE', `/v1/spaces/${trashed.id}`, { token: org.owner.token }), 204);
    expectError(await createTranslation(org, { language: 'es', source: { space: trashed.id, language: 'en' } }), 400, /deleted/);
    const restricted = await createSpace(org.id, org.owner.token, 'Restricted');
    expectStatus(await api('PATCH', `/v1/spaces/${restricted.id}`, { token: org.owner.token, body: { defaultLevel: null } }), 200);
    expectError(await createTranslation(org, { language: 'es', source: { space: restricted.id, language: 'en' } }, org.members.create.token), 400, /source\.space/);
  });

  it('answers 401 without a token on every operation', async () => {
    const base = `/v1/orgs/${org.id}/translations`;
    for (const [method, path] of [
      ['GET', base],
      ['POST', base],
      ['GET', `${base}/${translation.id}`],
      ['PUT', `${base}/${translation.id}`],
      ['DELETE', `${base}/${translation.id}`],
      ['POST', `${base}/${translation.id}/run`],
    ] as const) {
      expectError(await api(method, path, { body: method === 'GET' || method === 'DELETE' ? undefined : {} }), 401);
    }
  });

  it('follows the role table', async () => {
    const expected = {
      get: byCaller(200, 200, 200, 200, 200, 200, 404, 404),
      put: byCaller(200, 200, 403, 403, 403, 403, 404, 404),
      run: byCaller(204, 204, 403, 403, 403, 403, 404, 404),
      create: byCaller(201, 201, 403, 403, 403, 403, 403, 404),
      list: byCaller(1, 1, 1, 1, 1, 1, 0, -1),
    };
    const languages = ['ru', 'ja'];
    for (const caller of CALLERS) {
      const token = callerUser(org, caller).token;
      const path = `/v1/orgs/${org.id}/translations/${translation.id}`;
      const got = await api('GET', path, { token });
      expect(got.status, `${caller} get`).toBe(expected.get[caller]);
      if (got.status === 200) {
        checkTranslation(got.body);
        expect(got.body.permissions, caller).toEqual({ view: true, edit: expected.put[caller] === 200 });
      }
      expect((await api('PUT', path, { token, body: { instructions: { object: 'document', data: {}, nodes: [] } } })).status, `${caller} put`).toBe(expected.put[caller]);
      expect((await api('POST', `${path}/run`, { token })).status, `${caller} run`).toBe(expected.run[caller]);
      const language = expected.create[caller] === 201 ? languages.shift()! : 'it';
      const created = await createTranslation(org, { language, source: { space: source.id, language: 'en' } }, token);
      expect(created.status, `${caller} create ${JSON.stringify(created.body)}`).toBe(expected.create[caller]);
      const list = await api('GET', `/v1/orgs/${org.id}/translations`, { token });
      if (expected.list[caller] < 0) expectError(list, 404);
      else expect(list.body.items.filter((t: any) => t.id === translation.id), `${caller} list`).toHaveLength(expected.list[caller]);
    }
  });

  it('shows members, creators included, a translation only when they may read its source; admins always', async () => {
    const restricted = await createSpace(org.id, org.owner.token, 'Private');
    const t = expectStatus(await createTranslation(org, { language: 'fr', source: { space: restricted.id, language: 'en' } }), 201).body;
    expectStatus(await api('PATCH', `/v1/spaces/${restricted.id}`, { token: org.owner.token, body: { defaultLevel: null } }), 200);
    const path = `/v1/orgs/${org.id}/translations/${t.id}`;
    expectStatus(await api('GET', path, { token: org.owner.token }), 200);
    for (const role of ['create', 'read'] as const) {
      const token = org.members[role].token;
      expectError(await api('GET', path, { token }), 404);
      const listed = expectStatus(await api('GET', `/v1/orgs/${org.id}/translations?limit=1000`, { token }), 200).body;
      expect(listed.items.map((i: any) => i.id)).not.toContain(t.id);
      expect(listed.count).toBe(listed.items.length);
      // Invisible reads as absent: a delete is a 204 that deletes nothing.
      expectStatus(await api('DELETE', path, { token }), 204);
      expectStatus(await api('GET', path, { token: org.owner.token }), 200);
    }
  });

  it("answers 404 for another organization's translations", async () => {
    const theirSource = await createSpace(other.id, other.owner.token, 'Theirs');
    const theirs = expectStatus(await createTranslation(other, { language: 'fr', source: { space: theirSource.id, language: 'en' } }, other.owner.token), 201).body;
    const token = org.owner.token;
    const path = `/v1/orgs/${org.id}/translations/${theirs.id}`;
    expectError(await api('GET', path, { token }), 404);
    expectError(await api('PUT', path, { token, body: { instructions: { object: 'document', data: {}, nodes: [] } } }), 404);
    expectError(await api('POST', `${path}/run`, { token }), 404);
    expectStatus(await api('DELETE', path, { token }), 204);
    expectStatus(await api('GET', `/v1/orgs/${other.id}/translations/${theirs.id}`, { token: other.owner.token }), 200);
    // Their organization's path with our token: not a member.
    expectError(await api('GET', `/v1/orgs/${other.id}/translations/${theirs.id}`, { token }), 404);
    expectError(await api('GET', `/v1/orgs/${other.id}/translations`, { token }), 404);
    expectError(await createTranslation(other, { language: 'de', source: { space: theirSource.id, language: 'en' } }, token), 404);
  });

  it('lists page by page with a stable cursor and a true count', async () => {
    const fresh = await seedOrg();
    const space = await createSpace(fresh.id, fresh.owner.token, 'Src');
    const ids: string[] = [];
    for (const language of ['fr', 'de', 'es']) ids.push(expectStatus(await createTranslation(fresh, { language, source: { space: space.id, language: 'en' } }), 201).body.id);
    const seen: string[] = [];
    let page: string | undefined;
    do {
      const res = expectStatus(await api('GET', `/v1/orgs/${fresh.id}/translations?limit=2${page ? `&page=${page}` : ''}`, { token: fresh.owner.token }), 200);
      expect(res.body.count).toBe(3);
      res.body.items.forEach(checkTranslation);
      seen.push(...res.body.items.map((t: any) => t.id));
      page = res.body.next?.page;
    } while (page);
    expect(seen).toEqual(ids);
  });

  it('deletes a translation (204 also when absent); its result space stays', async () => {
    const space = await createSpace(org.id, org.owner.token, 'To delete');
    const t = expectStatus(await createTranslation(org, { language: 'fr', source: { space: space.id, language: 'en' } }), 201).body;
    const result = (await api('GET', `/v1/orgs/${org.id}/spaces`, { token: org.owner.token })).body.items.find((s: any) => s.title === 'To delete (fr)');
    const path = `/v1/orgs/${org.id}/translations/${t.id}`;
    expectError(await api('DELETE', path, { token: org.members.read.token }), 403);
    expectStatus(await api('DELETE', path, { token: org.members.create.token }), 204);
    expectError(await api('GET', path, { token: org.owner.token }), 404);
    expectStatus(await api('DELETE', path, { token: org.owner.token }), 204);
    expectError(await api('POST', `${path}/run`, { token: org.owner.token }), 404);
    expectStatus(await api('GET', `/v1/spaces/${result.id}`, { token: org.owner.token }), 200);
    // The source may be translated into that language again.
    expectStatus(await createTranslation(org, { language: 'fr', source: { space: space.id, language: 'en' } }), 201);
  });

  it('reads in at most 2 D1 round trips and writes in at most 3', async () => {
    const token = org.owner.token;
    const space = await createSpace(org.id, token, 'Measured');
    const created = await measureRoundTrips('POST', `/v1/orgs/${org.id}/translations`, token, { language: 'fr', source: { space: space.id, language: 'en' } });
    expect(created.status).toBe(201);
    // One read batch (membership, source, duplicate), one write batch; the token is checked besides.
    expect(created.roundTrips).toBe(2);
    const path = `/v1/orgs/${org.id}/translations/${(created.body as any).id}`;
    const got = await measureRoundTrips('GET', path, token);
    expect(got.status).toBe(200);
    expect(got.roundTrips).toBe(1);
    const listed = await measureRoundTrips('GET', `/v1/orgs/${org.id}/translations?limit=1000`, token);
    expect(listed.status).toBe(200);
    expect((listed.body as any).items.length).toBeGreaterThan(3);
    expect(listed.roundTrips).toBe(1);
    const put = await measureRoundTrips('PUT', path, token, { instructions: { object: 'document', data: {}, nodes: [] } });
    expect(put.status).toBe(200);
    expect(put.roundTrips).toBe(2);
    const deleted = await measureRoundTrips('DELETE', path, token);
    expect(deleted.status).toBe(204);
    expect(deleted.roundTrips).toBe(2);
  });
});
