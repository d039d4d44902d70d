import { describe, expect, it } from 'vitest';
import { api, seedOrg } from '../helpers/harness';
import { env } from 'cloudflare:workers';
import { measureRoundTrips, requestWithBindings } from '../helpers/round-trips';
import { createCollection, createSpace, expectStatus, orgSpacesPath, spacePath } from './support';

/**
 * Organization-wide lists count without counting the whole organization on every page (issue 42, item 5): a
 * first page holding every row counts itself, an admin's space count and an unfiltered member count come from
 * the organization's counters, and only other callers of lists longer than a page pay a count query (one round
 * trip more). The counts stay exact in every case.
 */
/** A D1 binding that keeps the SQL of every statement prepared on it or on its sessions. */
function recordingD1(real: D1Database) {
  const statements: string[] = [];
  const wrap = <T extends D1Database | D1DatabaseSession>(client: T): T =>
    new Proxy(client, {
      get(target, prop) {
        if (prop === 'prepare') return (query: string) => (statements.push(query), target.prepare(query));
        if (prop === 'withSession') return (start?: string) => wrap((target as D1Database).withSession(start));
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return { db: wrap(real), statements };
}

type ListPage = { items: { id: string; role?: string }[]; count: number; next?: { page: string } };
const listOf = (response: { body: unknown }) => response.body as ListPage;

const countsSpaces = (statement: string) => /count\(\*\)/i.test(statement) && /from "spaces"/i.test(statement);

describe('counts of organization-wide lists', () => {
  async function fixture() {
    const org = await seedOrg();
    const visible: string[] = [];
    for (let i = 0; i < 4; i++) visible.push((await createSpace(org, { title: `S${i}` })).id);
    const hiddenCollection = await createCollection(org, { defaultLevel: null });
    const hidden = await createSpace(org, { title: 'Hidden', parent: hiddenCollection.id });
    const gone = await createSpace(org, { title: 'Gone' });
    expectStatus(await api('DELETE', spacePath(gone.id), { token: org.owner.token }), 204);
    // The tokens' hourly last-used write happens now, not inside a measurement.
    for (const t of [org.owner.token, org.members.read.token]) await api('GET', '/v1/user', { token: t });
    return { org, visible, hidden: hidden.id };
  }

  it("an admin's pages take the organization's space counter: no count over the organization, the same round trips as a page holding everything", async () => {
    const { org } = await fixture();
    const whole = await measureRoundTrips('GET', orgSpacesPath(org.id), org.owner.token);
    expect(whole.status).toBe(200);
    expect(listOf(whole).count).toBe(5);
    expect(listOf(whole).next).toBeUndefined();

    const first = await measureRoundTrips('GET', `${orgSpacesPath(org.id)}?limit=2`, org.owner.token);
    expect(first.status).toBe(200);
    expect(listOf(first).items).toHaveLength(2);
    expect(listOf(first).count).toBe(5);
    expect(first.roundTrips).toBe(whole.roundTrips);
    const recorder = recordingD1(env.DB);
    const recorded = await requestWithBindings('GET', `${orgSpacesPath(org.id)}?limit=2`, org.owner.token, undefined, { DB: recorder.db });
    expect(listOf(recorded).count).toBe(5);
    expect(recorder.statements.length).toBeGreaterThan(0);
    expect(recorder.statements.filter(countsSpaces)).toEqual([]);

    const second = await measureRoundTrips('GET', `${orgSpacesPath(org.id)}?limit=2&page=${encodeURIComponent(listOf(first).next!.page)}`, org.owner.token);
    expect(listOf(second).count).toBe(5);
    expect(second.roundTrips).toBe(whole.roundTrips);
  });

  it("a reader's count is theirs (hidden and deleted spaces left out), counted when the list is longer than a page", async () => {
    const { org, visible } = await fixture();
    const whole = await measureRoundTrips('GET', orgSpacesPath(org.id), org.members.read.token);
    expect(listOf(whole).items.map((s) => s.id)).toEqual(visible);
    expect(listOf(whole).count).toBe(4);

    const first = await measureRoundTrips('GET', `${orgSpacesPath(org.id)}?limit=3`, org.members.read.token);
    expect(listOf(first).items).toHaveLength(3);
    expect(listOf(first).count).toBe(4);
    expect(first.roundTrips).toBe(whole.roundTrips + 1);
    const recorder = recordingD1(env.DB);
    await requestWithBindings('GET', `${orgSpacesPath(org.id)}?limit=3`, org.members.read.token, undefined, { DB: recorder.db });
    expect(recorder.statements.filter(countsSpaces)).toHaveLength(1);
    // A last page that is not the first is counted too: its length alone is not the list's.
    const last = await api('GET', `${orgSpacesPath(org.id)}?limit=3&page=${encodeURIComponent(listOf(first).next!.page)}`, { token: org.members.read.token });
    expect(last.body.items).toHaveLength(1);
    expect(last.body.count).toBe(4);
  });

  it("members: the organization's member counter when unfiltered, a count of the filtered ones otherwise", async () => {
    const { org } = await fixture();
    const all = (await api('GET', `/v1/orgs/${org.id}/members`, { token: org.owner.token })).body;
    expect(all.next).toBeUndefined();
    const first = await measureRoundTrips('GET', `/v1/orgs/${org.id}/members?limit=1`, org.owner.token);
    expect(listOf(first).items).toHaveLength(1);
    expect(listOf(first).count).toBe(all.items.length);
    const readers = all.items.filter((m: { role: string }) => m.role === 'read').length;
    const filtered = (await api('GET', `/v1/orgs/${org.id}/members?role=read&limit=1`, { token: org.owner.token })).body;
    expect(filtered.count).toBe(readers);
  });

  it("change requests and sites: exact counts on a first page shorter than the list", async () => {
    const { org, visible, hidden } = await fixture();
    for (const spaceId of [...visible.slice(0, 2), hidden, visible[3]]) {
      expectStatus(await api('POST', `/v1/spaces/${spaceId}/change-requests`, { token: org.owner.token, body: { subject: 'Draft' } }), 201);
    }
    // A deleted space's change request is in no list and no count (an admin's count checks no role, but this).
    expectStatus(await api('DELETE', spacePath(visible[3]), { token: org.owner.token }), 204);
    const asAdmin = (await api('GET', `/v1/orgs/${org.id}/change-requests?limit=1`, { token: org.owner.token })).body;
    expect(asAdmin.items).toHaveLength(1);
    expect(asAdmin.count).toBe(3);
    // The reader does not see the hidden space's change request, in the page or in the count.
    const asReader = (await api('GET', `/v1/orgs/${org.id}/change-requests?limit=1`, { token: org.members.read.token })).body;
    expect(asReader.count).toBe(2);

    for (let i = 0; i < 3; i++) expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token: org.owner.token, body: { title: `Site ${i}` } }), 201);
    const sites = (await api('GET', `/v1/orgs/${org.id}/sites?limit=2`, { token: org.owner.token })).body;
    expect(sites.items).toHaveLength(2);
    expect(sites.count).toBe(3);
  });

  it("a space's change requests move with it to another organization's list (kept by migration 0070's triggers)", async () => {
    const { org, visible } = await fixture();
    const cr = expectStatus(await api('POST', `/v1/spaces/${visible[0]}/change-requests`, { token: org.owner.token, body: { subject: 'Moves' } }), 201).body;
    const target = expectStatus(await api('POST', '/v1/orgs', { token: org.owner.token, body: { title: 'Target' } }), 201).body.id as string;
    const listed = async (orgId: string) =>
      (listOf(await api('GET', `/v1/orgs/${orgId}/change-requests`, { token: org.owner.token })).items as { id: string }[]).map((c) => c.id);
    expect(await listed(org.id)).toContain(cr.id);
    expect(await listed(target)).toEqual([]);
    expectStatus(await api('POST', `${spacePath(visible[0])}/transfer`, { token: org.owner.token, body: { organization: target } }), 200);
    expect(await listed(org.id)).not.toContain(cr.id);
    expect(await listed(target)).toEqual([cr.id]);
  });
});
