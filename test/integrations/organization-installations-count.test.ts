/**
 * listOrganizationInstallations counts an organization's installations from its installation counter less those of
 * unpublished integrations (services/integrations/installations.ts, unpublishedInstallationsQuery), instead of
 * joining every installation to its integration. The count must be the definition's: the organization's
 * installations whose integration is published, matching the search when one is given; on a page shorter than the
 * list, after an unpublish through the API, and with an installation of an unpublished integration left behind
 * (a state unpublishing never leaves, written here by hand).
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { unpublishedInstallationsQuery } from '../../src/services/integrations/installations';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { seedIntegration } from '../helpers/integrations';
import { measureRoundTrips } from '../helpers/round-trips';

/** The definition: the organization's installations of published integrations, matching `search` when given. */
async function expectedCount(orgId: string, search?: string): Promise<number> {
  const like = search ? `%${search.toLowerCase()}%` : null;
  return (await env.DB.prepare(
    `select count(*) as n from integration_installations ii join integrations i on i.id = ii.integration_id
     where ii.org_id = ?1 and i.deleted_at is null and (?2 is null or lower(i.name) like ?2 or lower(i.title) like ?2)`,
  )
    .bind(orgId, like)
    .first<number>('n'))!;
}

describe('listOrganizationInstallations: the count from the counter answers the definition', () => {
  it('counts as the definition does on a page shorter than the list, after an unpublish, with a tombstone installation left behind, and with a search', async () => {
    const [publisher, customer, bystander] = await Promise.all([seedOrg(), seedOrg(), seedOrg()]);
    const token = customer.owner.token;
    const url = `/v1/orgs/${customer.id}/installations`;
    const made = [];
    for (let i = 0; i < 4; i++) made.push(await seedIntegration(publisher.id, { scopes: ['space:metadata:read'] }));
    for (const integration of made) {
      expectStatus(await api('POST', `/v1/integrations/${integration.name}/installations`, { token, body: { organization: customer.id } }), 201);
    }
    // Installations of another organization count for it, not here.
    expectStatus(await api('POST', `/v1/integrations/${made[0].name}/installations`, { token: bystander.owner.token, body: { organization: bystander.id } }), 201);
    const countNow = async (query = '') => (expectStatus(await api('GET', `${url}?limit=1${query}`, { token }), 200).body as { count: number; next?: unknown });

    expect(await expectedCount(customer.id)).toBe(4);
    expect(await countNow()).toMatchObject({ count: 4, next: expect.anything() });

    // Unpublished through the API: its installations go with it.
    expectStatus(await api('DELETE', `/v1/integrations/${made[1].name}`, { token: publisher.owner.token }), 204);
    expect(await expectedCount(customer.id)).toBe(3);
    expect((await countNow()).count).toBe(3);

    // An installation of an unpublished integration left behind: the counter still counts it, the list does not.
    await env.DB.prepare('update integrations set deleted_at = ? where id = ?').bind(new Date().toISOString(), made[2].id).run();
    expect(await expectedCount(customer.id)).toBe(2);
    expect((await countNow()).count).toBe(2);
    const listed = expectStatus(await api('GET', url, { token }), 200).body as { items: { integration: { name: string } }[]; count: number };
    expect(listed.items.map((item) => item.integration.name).sort()).toEqual([made[0].name, made[3].name].sort());
    expect(listed.count).toBe(2);

    // A search counts the rows it matches.
    const search = made[3].name.slice(3).toUpperCase();
    expect(await expectedCount(customer.id, search)).toBe(1);
    expect((await countNow(`&search=${search}`)).count).toBe(1);
  });

  it("reads the unpublished integrations' partial index, not the organization's installations, and keeps the page in its round trips", async () => {
    const { sql: text, params } = unpublishedInstallationsQuery(createDb(env.DB), 'org').toSQL();
    const plan = (await env.DB.prepare(`explain query plan ${text}`).bind(...params).all<{ detail: string }>()).results.map((r) => r.detail).join('\n');
    expect(plan).toMatch(/integrations_unpublished/);
    expect(plan).not.toMatch(/integration_installations_org/);

    const org = await seedOrg();
    await api('GET', '/v1/user', { token: org.owner.token });
    const measured = await measureRoundTrips('GET', `/v1/orgs/${org.id}/installations`, org.owner.token);
    expect(measured.status).toBe(200);
    expect(measured.roundTrips).toBeLessThanOrEqual(2);
  });
});
