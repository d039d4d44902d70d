import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { PNG_1x1 } from '../helpers/content';
import { api, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { postRun, postTranslation, runToEnd, seedSpace, uppercaseAI } from '../helpers/translations';

/**
 * A translation's result space receives its source's content, so it takes the source's access (defaultLevel,
 * user and team grants), re-synced on each run; and a translation is only seen, changed, run or deleted by
 * members who may read its source.
 */

const EMPTY = { object: 'document', data: {}, nodes: [] };

/** Grants `role` (null removes) on a space to users and teams, as a space admin does. */
async function grant(spaceId: string, token: string, role: string | null, who: { users?: string[]; teams?: string[] }) {
  expectStatus(await api('POST', `/v1/spaces/${spaceId}/permissions`, { token, body: { role, ...who } }), 204);
}

async function setLevel(spaceId: string, token: string, defaultLevel: string | null) {
  expectStatus(await api('PATCH', `/v1/spaces/${spaceId}`, { token, body: { defaultLevel } }), 200);
}

/** What a caller gets reading a space: its metadata, its files, one file and one page. */
async function reads(spaceId: string, pageId: string, fileId: string, token: string) {
  return Promise.all([
    api('GET', `/v1/spaces/${spaceId}`, { token }),
    api('GET', `/v1/spaces/${spaceId}/content/files`, { token }),
    api('GET', `/v1/spaces/${spaceId}/content/files/${fileId}`, { token }),
    api('GET', `/v1/spaces/${spaceId}/content/page/${pageId}`, { token }),
  ]).then((all) => all.map((res) => res.status));
}

describe('translations: access follows the source space', () => {
  let org: TestOrg;
  let source: any;
  let page: string;
  let file: string;
  let team: any;
  let translation: any;
  let resultSpace: string;

  beforeAll(async () => {
    org = await seedOrg();
    const token = org.owner.token;
    const seeded = await seedSpace(org.id, token, 'Secret handbook', [
      { operation: 'insert_files', files: [{ ref: 'logo', name: 'logo.png', contentType: 'image/png', base64: PNG_1x1 }] },
      { operation: 'insert_page', ref: 'guide', title: 'Guide', document: { markdown: 'Internal plans.\n\n![Logo](./logo)\n' } },
    ]);
    source = seeded.space;
    page = seeded.pages.guide;
    // Restricted: no default access (the API's `defaultLevel: null`), a reader granted by name, a team granted.
    await setLevel(source.id, token, null);
    await grant(source.id, token, 'read', { users: [org.members.comment.id] });
    team = expectStatus(await api('PUT', `/v1/orgs/${org.id}/teams`, { token, body: { title: 'Reviewers', members: [org.members.review.id] } }), 201).body;
    await grant(source.id, token, 'read', { teams: [team.id] });
    const created = await postTranslation(org.id, token, { language: 'fr', source: { space: source.id, language: 'en' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    translation = created.body;
    await runToEnd(created.sent, uppercaseAI());
    const done = expectStatus(await api('GET', `/v1/orgs/${org.id}/translations/${translation.id}`, { token }), 200).body;
    expect(done.status).toBe('completed');
    resultSpace = done.result.space;
    const files = expectStatus(await api('GET', `/v1/spaces/${source.id}/content/files`, { token }), 200).body.items;
    file = files[0].id;
  });

  it("creates the result space with the source's default level and grants", async () => {
    const token = org.owner.token;
    const result = expectStatus(await api('GET', `/v1/spaces/${resultSpace}`, { token }), 200).body;
    expect(result.defaultLevel).toBeNull();
    const users = expectStatus(await api('GET', `/v1/spaces/${resultSpace}/permissions/users`, { token }), 200).body.items;
    expect(users.map((u: any) => [u.user.id, u.permission])).toEqual([[org.members.comment.id, 'read']]);
    const teams = expectStatus(await api('GET', `/v1/spaces/${resultSpace}/permissions/teams`, { token }), 200).body.items;
    expect(teams.map((t: any) => [t.team.id, t.permission])).toEqual([[team.id, 'read']]);
  });

  it('keeps the result (its pages and files) from members who cannot read the source; granted users and teams read it', async () => {
    for (const role of ['create', 'edit', 'read'] as const) {
      expect(await reads(resultSpace, page, file, org.members[role].token), role).toEqual([404, 404, 404, 404]);
    }
    expect(await reads(resultSpace, page, file, org.members.comment.token), 'granted user').toEqual([200, 200, 200, 200]);
    expect(await reads(resultSpace, page, file, org.members.review.token), 'granted team').toEqual([200, 200, 200, 200]);
    expect(await reads(resultSpace, page, file, org.owner.token), 'admin').toEqual([200, 200, 200, 200]);
  });

  it('answers 404 on the translation to a creator who cannot read the source, and leaves it out of their list and count', async () => {
    const token = org.members.create.token;
    const path = `/v1/orgs/${org.id}/translations/${translation.id}`;
    expectError(await api('GET', path, { token }), 404);
    expectError(await api('PUT', path, { token, body: { instructions: EMPTY } }), 404);
    const run = await postRun(org.id, translation.id, token);
    expect(run.status).toBe(404);
    expect(run.sent).toEqual([]);
    const listed = expectStatus(await api('GET', `/v1/orgs/${org.id}/translations?limit=1000`, { token }), 200).body;
    expect(listed.items.map((t: any) => t.id)).not.toContain(translation.id);
    expect(listed.count).toBe(listed.items.length);
    // A delete of what the caller cannot see reads as absent (204, like any delete) and deletes nothing.
    expectStatus(await api('DELETE', path, { token }), 204);
    expectStatus(await api('GET', path, { token: org.owner.token }), 200);
    // Readers of the source see it, but only the create role changes it.
    const seen = expectStatus(await api('GET', path, { token: org.members.comment.token }), 200).body;
    expect(seen.permissions).toEqual({ view: true, edit: false });
    expectError(await api('PUT', path, { token: org.members.comment.token, body: { instructions: EMPTY } }), 403);
  });

  it('lets a creator granted read on the source see, change and run it', async () => {
    const fresh = await seedOrg();
    const token = fresh.owner.token;
    const space = expectStatus(await api('POST', `/v1/orgs/${fresh.id}/spaces`, { token, body: { title: 'Closed' } }), 201).body;
    await setLevel(space.id, token, null);
    const created = expectStatus(await api('POST', `/v1/orgs/${fresh.id}/translations`, { token, body: { language: 'de', source: { space: space.id, language: 'en' } } }), 201).body;
    const path = `/v1/orgs/${fresh.id}/translations/${created.id}`;
    const creator = fresh.members.create.token;
    expectError(await api('GET', path, { token: creator }), 404);
    await grant(space.id, token, 'read', { users: [fresh.members.create.id] });
    expect(expectStatus(await api('GET', path, { token: creator }), 200).body.permissions).toEqual({ view: true, edit: true });
    expectStatus(await api('PUT', path, { token: creator, body: { instructions: EMPTY } }), 200);
    const listed = expectStatus(await api('GET', `/v1/orgs/${fresh.id}/translations`, { token: creator }), 200).body;
    expect([listed.count, listed.items.map((t: any) => t.id)]).toEqual([1, [created.id]]);
  });

  it("re-syncs the result's access from the source when a run starts and when it writes its result", async () => {
    const token = org.owner.token;
    const ai = uppercaseAI();
    // Between runs: the named reader loses the source, an editor gains it.
    await grant(source.id, token, null, { users: [org.members.comment.id] });
    await grant(source.id, token, 'edit', { users: [org.members.edit.id] });
    const rerun = await postRun(org.id, translation.id, token);
    expect(rerun.status).toBe(204);
    // At once, before the run has translated anything.
    expect((await reads(resultSpace, page, file, org.members.comment.token))[0]).toBe(404);
    expect((await reads(resultSpace, page, file, org.members.edit.token))[0]).toBe(200);
    // While it runs, the source opens to every member reading; the team loses its grant.
    await setLevel(source.id, token, 'read');
    await grant(source.id, token, null, { teams: [team.id] });
    await runToEnd(rerun.sent, ai);
    const done = expectStatus(await api('GET', `/v1/orgs/${org.id}/translations/${translation.id}`, { token }), 200).body;
    expect(done.status).toBe('completed');
    const result = expectStatus(await api('GET', `/v1/spaces/${resultSpace}`, { token }), 200).body;
    expect(result.defaultLevel).toBe('read');
    const users = expectStatus(await api('GET', `/v1/spaces/${resultSpace}/permissions/users`, { token }), 200).body.items;
    expect(users.map((u: any) => [u.user.id, u.permission])).toEqual([[org.members.edit.id, 'edit']]);
    const teams = expectStatus(await api('GET', `/v1/spaces/${resultSpace}/permissions/teams`, { token }), 200).body.items;
    expect(teams).toEqual([]);
    expect(await reads(resultSpace, page, file, org.members.read.token)).toEqual([200, 200, 200, 200]);
  });

  it("pins the source's resolved level on a result that no longer shares its collection", async () => {
    const token = org.owner.token;
    const closed = expectStatus(await api('POST', `/v1/orgs/${org.id}/collections`, { token, body: { title: 'Closed', defaultLevel: null } }), 201).body;
    const space = expectStatus(await api('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'Inside', parent: closed.id } }), 201).body;
    const created = await postTranslation(org.id, token, { language: 'es', source: { space: space.id, language: 'en' } });
    expect(created.status).toBe(201);
    await runToEnd(created.sent, uppercaseAI());
    const result = expectStatus(await api('GET', `/v1/orgs/${org.id}/translations/${created.body.id}`, { token }), 200).body.result.space;
    // Beside the source, it inherits the same closed collection.
    expect(expectStatus(await api('GET', `/v1/spaces/${result}`, { token }), 200).body.defaultLevel).toBe('inherit');
    expectError(await api('GET', `/v1/spaces/${result}`, { token: org.members.read.token }), 404);
    // Moved to the open root, the next run pins the source's level: still closed.
    expectStatus(await api('POST', `/v1/spaces/${result}/move`, { token, body: { parent: null } }), 200);
    const rerun = await postRun(org.id, created.body.id, token);
    expect(rerun.status).toBe(204);
    await runToEnd(rerun.sent, uppercaseAI());
    expect(expectStatus(await api('GET', `/v1/spaces/${result}`, { token }), 200).body.defaultLevel).toBeNull();
    expectError(await api('GET', `/v1/spaces/${result}`, { token: org.members.read.token }), 404);
  });

  it('shows the translation of a source that is gone to the organization admins only', async () => {
    const token = org.owner.token;
    const space = expectStatus(await api('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'Purged' } }), 201).body;
    const created = expectStatus(await api('POST', `/v1/orgs/${org.id}/translations`, { token, body: { language: 'it', source: { space: space.id, language: 'en' } } }), 201).body;
    // What the hourly purge does to a space deleted long ago.
    await env.DB.prepare('delete from spaces where id = ?').bind(space.id).run();
    const path = `/v1/orgs/${org.id}/translations/${created.id}`;
    expectError(await api('GET', path, { token: org.members.create.token }), 404);
    expect(expectStatus(await api('GET', path, { token }), 200).body.permissions).toEqual({ view: true, edit: true });
    expectStatus(await api('DELETE', path, { token }), 204);
    expectError(await api('GET', path, { token }), 404);
  });
});
