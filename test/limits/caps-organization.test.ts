import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { purgeDeletedIntegrations } from '../../src/jobs/cron';
import { DAY_MS } from '../../src/lib/time';
import { integrationName, seedIntegration } from '../helpers/integrations';
import { ADMIN_TOKEN, addMember, api, createUser, expectError, expectStatus, type TestUser } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';

// The caps of this project: TEST_CAPS in test/limits/vitest.config.ts (a Node file, not importable here).
const SPACES = 3;
const MEMBERS = 4;
const INTEGRATIONS = 2;
const INSTALLATIONS = 2;

const spacesCap = (res: Parameters<typeof expectError>[0]) => expectError(res, 403, `at most ${SPACES} spaces in an organization (the trash not counted) (MAX_SPACES_PER_ORGANIZATION)`);
const membersCap = (res: Parameters<typeof expectError>[0]) => expectError(res, 403, `at most ${MEMBERS} members of an organization (MAX_MEMBERS_PER_ORGANIZATION)`);
const integrationsCap = (res: Parameters<typeof expectError>[0]) => expectError(res, 403, `at most ${INTEGRATIONS} integrations an organization publishes (MAX_INTEGRATIONS_PER_ORGANIZATION)`);
const installationsCap = (res: Parameters<typeof expectError>[0]) =>
  expectError(res, 403, `at most ${INSTALLATIONS} integrations installed in an organization (MAX_INSTALLATIONS_PER_ORGANIZATION)`);

let counter = 0;
const uniq = () => `${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** An organization created by `owner` through the API (its only member). */
async function newOrg(owner: TestUser, body: Record<string, unknown> = {}): Promise<string> {
  return expectStatus(await api('POST', '/v1/orgs', { token: owner.token, body: { title: `Caps ${uniq()}`, ...body } }), 201).body.id;
}

const createSpace = (token: string, orgId: string, parent?: string) =>
  api('POST', `/v1/orgs/${orgId}/spaces`, { token, body: { title: `Space ${uniq()}`, ...(parent && { parent }) } });
const newSpace = async (token: string, orgId: string, parent?: string): Promise<string> => expectStatus(await createSpace(token, orgId, parent), 201).body.id;
const newCollection = async (token: string, orgId: string): Promise<string> =>
  expectStatus(await api('POST', `/v1/orgs/${orgId}/collections`, { token, body: { title: `Collection ${uniq()}` } }), 201).body.id;
const deleteSpace = async (token: string, spaceId: string) => expectStatus(await api('DELETE', `/v1/spaces/${spaceId}`, { token }), 204);

type Counts = { spaces: number; members: number; integrations: number; installations: number };

/** The usage counters of an organization (kept by the triggers of migration 0011). */
async function counters(orgId: string): Promise<Counts> {
  return (await env.DB.prepare(
    'select space_count as spaces, member_count as members, integration_count as integrations, installation_count as installations from organizations where id = ?',
  )
    .bind(orgId)
    .first<Counts>())!;
}

/** What the counters count, counted. */
async function reality(orgId: string): Promise<Counts> {
  return (await env.DB.prepare(
    `select (select count(*) from spaces where org_id = ?1 and deleted_at is null) as spaces,
      (select count(*) from org_members where org_id = ?1) as members,
      (select count(*) from integrations where owner_org_id = ?1) as integrations,
      (select count(*) from integration_installations where org_id = ?1) as installations`,
  )
    .bind(orgId)
    .first<Counts>())!;
}

async function expectCountersTrue(...orgIds: string[]) {
  for (const orgId of orgIds) expect(await counters(orgId), orgId).toEqual(await reality(orgId));
}

const isMember = async (orgId: string, userId: string) =>
  !!(await env.DB.prepare('select 1 from org_members where org_id = ? and user_id = ?').bind(orgId, userId).first());
const heldInvites = async (orgId: string) =>
  (await env.DB.prepare('select email from org_email_invites where org_id = ? order by email').bind(orgId).all<{ email: string }>()).results.map((r) => r.email);

/** Members added straight to D1 (the triggers count them as any insert) until the organization holds `total`. */
async function fillMembers(orgId: string, total: number): Promise<TestUser[]> {
  const added: TestUser[] = [];
  for (let n = (await counters(orgId)).members; n < total; n++) {
    const user = await createUser();
    await addMember(orgId, user.id, 'read');
    added.push(user);
  }
  return added;
}

describe('spaces per organization (MAX_SPACES_PER_ORGANIZATION, the trash not counted)', () => {
  it('creates at the root, in a collection and by duplication up to the cap; one more is refused; the trash frees a slot; restoring into a full organization is refused', async () => {
    const owner = await createUser();
    const orgId = await newOrg(owner);
    const t = owner.token;
    const collection = await newCollection(t, orgId);
    const first = await newSpace(t, orgId);
    await newSpace(t, orgId, collection);
    // The third, exactly at the cap, by duplication.
    expectStatus(await api('POST', `/v1/spaces/${first}/duplicate`, { token: t }), 201);
    expect((await counters(orgId)).spaces).toBe(SPACES);

    spacesCap(await createSpace(t, orgId));
    spacesCap(await createSpace(t, orgId, collection));
    spacesCap(await api('POST', `/v1/spaces/${first}/duplicate`, { token: t }));
    // Edits and collections are not spaces: they go on.
    expectStatus(await api('PATCH', `/v1/spaces/${first}`, { token: t, body: { title: 'Renamed' } }), 200);
    await newCollection(t, orgId);

    await deleteSpace(t, first);
    expect((await counters(orgId)).spaces).toBe(SPACES - 1);
    const replacement = await newSpace(t, orgId);
    spacesCap(await api('POST', `/v1/spaces/${first}/restore`, { token: t }));
    expect((await api('GET', `/v1/spaces/${first}`, { token: t })).body.deletedAt).toBeTruthy();

    await deleteSpace(t, replacement);
    expectStatus(await api('POST', `/v1/spaces/${first}/restore`, { token: t }), 200);
    expect((await counters(orgId)).spaces).toBe(SPACES);
    await expectCountersTrue(orgId);
  });

  it('refuses a transfer that would take the target past the cap, counting only the spaces outside the trash; a move inside one organization adds nothing', async () => {
    const owner = await createUser();
    const t = owner.token;
    const [source, target] = [await newOrg(owner), await newOrg(owner)];
    const targetSpaces = [await newSpace(t, target), await newSpace(t, target), await newSpace(t, target)];
    const moving = await newSpace(t, source);
    const collection = await newCollection(t, source);
    await newSpace(t, source, collection);
    await newSpace(t, source, collection);
    // The source is full: a space created and trashed in the collection goes with it, uncounted.
    await deleteSpace(t, moving);
    await deleteSpace(t, await newSpace(t, source, collection));
    expectStatus(await api('POST', `/v1/spaces/${moving}/restore`, { token: t }), 200);
    expect((await counters(source)).spaces).toBe(SPACES);

    // Moves inside the full source: nothing added, nothing refused.
    expectStatus(await api('POST', `/v1/spaces/${moving}/move`, { token: t, body: { parent: collection } }), 200);
    expectStatus(await api('POST', `/v1/spaces/${moving}/move`, { token: t, body: { parent: null } }), 200);

    spacesCap(await api('POST', `/v1/spaces/${moving}/transfer`, { token: t, body: { organization: target } }));
    spacesCap(await api('POST', `/v1/collections/${collection}/transfer`, { token: t, body: { organization: target } }));
    // Two spaces outside the trash move with the collection: 1 + 2 is exactly the cap.
    await deleteSpace(t, targetSpaces[0]);
    await deleteSpace(t, targetSpaces[1]);
    expectStatus(await api('POST', `/v1/collections/${collection}/transfer`, { token: t, body: { organization: target } }), 200);
    expect(await reality(target)).toMatchObject({ spaces: SPACES });
  });

  it('answers within the round trips its routes already take', async () => {
    const owner = await createUser();
    const t = owner.token;
    const orgId = await newOrg(owner);
    const collection = await newCollection(t, orgId);
    await api('GET', '/v1/user', { token: t });
    const cases: Array<[string, string, unknown, number, number]> = [
      ['POST', `/v1/orgs/${orgId}/spaces`, { title: 'Root' }, 201, 3],
      ['POST', `/v1/orgs/${orgId}/spaces`, { title: 'Nested', parent: collection }, 201, 3],
      ['POST', `/v1/orgs/${orgId}/spaces`, { title: 'Full' }, 201, 3],
      ['POST', `/v1/orgs/${orgId}/spaces`, { title: 'Refused' }, 403, 3],
      ['POST', `/v1/orgs/${orgId}/spaces`, { title: 'Refused', parent: collection }, 403, 3],
    ];
    for (const [method, path, body, status, most] of cases) {
      const r = await measureRoundTrips(method, path, t, body);
      expect(r.status, `${path} ${JSON.stringify(r.body)}`).toBe(status);
      expect(r.roundTrips, path).toBeLessThanOrEqual(most);
    }
    const space = (await env.DB.prepare('select id from spaces where org_id = ? limit 1').bind(orgId).first<{ id: string }>())!.id;
    await deleteSpace(t, space);
    await newSpace(t, orgId);
    const restore = await measureRoundTrips('POST', `/v1/spaces/${space}/restore`, t);
    expect(restore.status).toBe(403);
    expect(restore.roundTrips).toBeLessThanOrEqual(3);
  });
});

describe('members per organization (MAX_MEMBERS_PER_ORGANIZATION, guests included)', () => {
  const invite = (token: string, orgId: string, emails: unknown[], role?: string | null) =>
    api('POST', `/v1/orgs/${orgId}/invites`, { token, body: { emails, ...(role !== undefined && { role }) } });
  const remove = async (token: string, orgId: string, userId: string) => expectStatus(await api('DELETE', `/v1/orgs/${orgId}/members/${userId}`, { token }), 204);

  it('invites existing users up to the cap; an invitation that would pass it is refused whole; removing a member frees a slot', async () => {
    const owner = await createUser();
    const orgId = await newOrg(owner);
    const t = owner.token;
    const [a, b, c, d] = [await createUser(), await createUser(), await createUser(), await createUser()];
    expectStatus(await invite(t, orgId, [a.email, b.email]), 200);
    // Two more would make five: neither joins, nothing is held.
    membersCap(await invite(t, orgId, [c.email, { email: d.email, role: null }]));
    expect([await isMember(orgId, c.id), await isMember(orgId, d.id)]).toEqual([false, false]);
    // A guest counts like anyone: the fourth, exactly at the cap.
    expect((await expectStatus(await invite(t, orgId, [c.email], null), 200)).body.users).toEqual([c.id]);
    expect((await counters(orgId)).members).toBe(MEMBERS);
    // Naming members only adds nobody: fine at the cap. An email without an account would be one more.
    expectStatus(await invite(t, orgId, [a.email, c.email]), 200);
    membersCap(await invite(t, orgId, [`nobody-${uniq()}@example.test`]));
    expect(await heldInvites(orgId)).toEqual([]);

    await remove(t, orgId, a.id);
    expectStatus(await invite(t, orgId, [d.email]), 200);
    expect(await isMember(orgId, d.id)).toBe(true);
    await expectCountersTrue(orgId);
  });

  it('holds invitations for emails without an account within the cap; one that would pass it when its account is created stays held, and the account is created', async () => {
    const owner = await createUser();
    const orgId = await newOrg(owner);
    const t = owner.token;
    const emails = [0, 1, 2, 3].map((i) => `held-${i}-${uniq()}@example.test`);
    // One member and four held would be five: refused whole.
    membersCap(await invite(t, orgId, emails));
    expect(await heldInvites(orgId)).toEqual([]);
    // Three held (with the owner, exactly the cap), then one more in a request of its own: each fits when sent.
    expect((await expectStatus(await invite(t, orgId, emails.slice(0, 3)), 200)).body.pending).toHaveLength(3);
    expectStatus(await invite(t, orgId, [emails[3]]), 200);
    expect(await heldInvites(orgId)).toHaveLength(4);
    // Inviting a held email again (another role) holds nobody more: it passes with the invitations at the cap.
    // A fifth email would be one held invitation too many: held invitations cannot pile up.
    expectStatus(await invite(t, orgId, [emails[0]], 'edit'), 200);
    membersCap(await invite(t, orgId, [`fifth-${uniq()}@example.test`]));
    expect(await heldInvites(orgId)).toHaveLength(4);

    const joined: TestUser[] = [];
    for (const email of emails.slice(0, 3)) joined.push(await createUser({ email }));
    for (const user of joined) expect(await isMember(orgId, user.id)).toBe(true);
    expect((await counters(orgId)).members).toBe(MEMBERS);
    // The fourth account: created all the same, not a member, its invitation still held.
    const late = await createUser({ email: emails[3] });
    expect(await isMember(orgId, late.id)).toBe(false);
    expect(await heldInvites(orgId)).toEqual([emails[3]]);

    // A slot freed, inviting the account again lets it in and clears what was held for it.
    await remove(t, orgId, joined[0].id);
    expect((await expectStatus(await invite(t, orgId, [late.email]), 200)).body.users).toEqual([late.id]);
    expect(await isMember(orgId, late.id)).toBe(true);
    expect(await heldInvites(orgId)).toEqual([]);
    await expectCountersTrue(orgId);
  });

  it('refuses joining by an invite link at the cap (a member using it is not refused) until a member leaves', async () => {
    const owner = await createUser();
    const orgId = await newOrg(owner);
    const link = expectStatus(await api('POST', `/v1/orgs/${orgId}/link-invites`, { token: owner.token, body: { role: 'edit' } }), 201).body.id;
    const [member] = await fillMembers(orgId, MEMBERS);
    const joiner = await createUser();
    membersCap(await api('POST', `/v1/orgs/${orgId}/invites/${link}`, { token: joiner.token }));
    expect(await isMember(orgId, joiner.id)).toBe(false);
    // A member raises their role through the link: nobody is added.
    expectStatus(await api('POST', `/v1/orgs/${orgId}/invites/${link}`, { token: member.token }), 200);

    await remove(member.token, orgId, member.id);
    const joined = await measureRoundTrips('POST', `/v1/orgs/${orgId}/invites/${link}`, joiner.token);
    expect(joined.status).toBe(200);
    expect(joined.roundTrips).toBeLessThanOrEqual(3);
    expect(await isMember(orgId, joiner.id)).toBe(true);
    await expectCountersTrue(orgId);
  });

  it('lets exactly one of two users in when both join for the last slot at the same time (the check is in the write)', async () => {
    const owner = await createUser();
    const orgId = await newOrg(owner);
    const link = expectStatus(await api('POST', `/v1/orgs/${orgId}/link-invites`, { token: owner.token, body: { role: 'read' } }), 201).body.id;
    await fillMembers(orgId, MEMBERS - 1);
    const joiners = [await createUser(), await createUser()];
    const answers = await Promise.all(joiners.map((j) => api('POST', `/v1/orgs/${orgId}/invites/${link}`, { token: j.token })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 403]);
    membersCap(answers.find((a) => a.status === 403)!);
    expect((await counters(orgId)).members).toBe(MEMBERS);
    await expectCountersTrue(orgId);
  });

  it('refuses joining by email domain at the cap until a member leaves', async () => {
    const owner = await createUser();
    const domain = `caps-${uniq()}.example`;
    const orgId = await newOrg(owner, { emailDomains: [domain] });
    const [member] = await fillMembers(orgId, MEMBERS);
    const joiner = await createUser({ email: `someone@${domain}` });
    membersCap(await api('POST', `/v1/orgs/${orgId}/join`, { token: joiner.token }));
    expect(await isMember(orgId, joiner.id)).toBe(false);
    await remove(owner.token, orgId, member.id);
    const joined = await measureRoundTrips('POST', `/v1/orgs/${orgId}/join`, joiner.token);
    expect(joined.status).toBe(204);
    expect(joined.roundTrips).toBeLessThanOrEqual(3);
    expect(await isMember(orgId, joiner.id)).toBe(true);
    await expectCountersTrue(orgId);
  });

  it('takes an invitation and an account creation within the round trips of their routes', async () => {
    const owner = await createUser();
    const orgId = await newOrg(owner);
    await api('GET', '/v1/user', { token: owner.token });
    const existing = await createUser();
    const email = `rt-${uniq()}@example.test`;
    const invited = await measureRoundTrips('POST', `/v1/orgs/${orgId}/invites`, owner.token, { emails: [existing.email, email] });
    expect(invited.status).toBe(200);
    expect(invited.roundTrips).toBeLessThanOrEqual(3);
    const created = await measureRoundTrips('POST', '/v1/users', ADMIN_TOKEN, { displayName: 'RT', email });
    expect(created.status).toBe(201);
    expect(created.roundTrips).toBeLessThanOrEqual(3);
    expect(await isMember(orgId, (created.body as { id: string }).id)).toBe(true);
    await fillMembers(orgId, MEMBERS);
    const refused = await measureRoundTrips('POST', `/v1/orgs/${orgId}/invites`, owner.token, { emails: [`rt-${uniq()}@example.test`] });
    expect(refused.status).toBe(403);
    expect(refused.roundTrips).toBeLessThanOrEqual(3);
  });
});

describe('integrations per organization (MAX_INTEGRATIONS_PER_ORGANIZATION)', () => {
  const SCRIPT = 'export default { fetch: () => new Response("ok") };';
  const publish = (token: string, orgId: string, name: string) =>
    api('POST', `/v1/integrations/${name}`, { token, body: { organization: orgId, title: 'Capped', description: 'Counts', scopes: ['space:content:read'], script: SCRIPT } });

  it('publishes new integrations up to the cap; one more is refused, a new version is not; deleting one frees a slot', async () => {
    const owner = await createUser();
    const orgId = await newOrg(owner);
    const t = owner.token;
    const [first, second, third] = [integrationName('cap'), integrationName('cap'), integrationName('cap')];
    expectStatus(await publish(t, orgId, first), 200);
    expectStatus(await publish(t, orgId, second), 200);
    expect((await counters(orgId)).integrations).toBe(INTEGRATIONS);
    integrationsCap(await publish(t, orgId, third));
    // The next version of a published one adds nothing.
    expect(expectStatus(await publish(t, orgId, first), 200).body.version).toBe(2);

    // Unpublished, then purged by the cron once its retention has passed: the slot is free.
    expectStatus(await api('DELETE', `/v1/integrations/${second}`, { token: t }), 204);
    await purgeDeletedIntegrations(env as never, createDb(env.DB), Date.now() + 8 * DAY_MS);
    expect((await counters(orgId)).integrations).toBe(INTEGRATIONS - 1);
    const published = await measureRoundTrips('POST', `/v1/integrations/${third}`, t, {
      organization: orgId, title: 'Capped', description: 'Counts', scopes: ['space:content:read'], script: SCRIPT,
    });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect(published.roundTrips).toBeLessThanOrEqual(3);
    await expectCountersTrue(orgId);
  });
});

describe('installations per organization (MAX_INSTALLATIONS_PER_ORGANIZATION)', () => {
  it('installs up to the cap; one more is refused; uninstalling frees a slot', async () => {
    const publisher = await createUser();
    const publisherOrg = await newOrg(publisher);
    const integrations = [await seedIntegration(publisherOrg), await seedIntegration(publisherOrg), await seedIntegration(publisherOrg)];
    const owner = await createUser();
    const orgId = await newOrg(owner);
    const t = owner.token;
    const install = (name: string) => api('POST', `/v1/integrations/${name}/installations`, { token: t, body: { organization: orgId } });
    const first = expectStatus(await install(integrations[0].name), 201).body.id;
    expectStatus(await install(integrations[1].name), 201);
    expect((await counters(orgId)).installations).toBe(INSTALLATIONS);
    installationsCap(await install(integrations[2].name));
    // Installing one again adds nothing: it answers what it always did.
    expectError(await install(integrations[0].name), 409, 'already installed');

    expectStatus(await api('DELETE', `/v1/integrations/${integrations[0].name}/installations/${first}`, { token: t }), 204);
    await api('GET', '/v1/user', { token: t });
    const installed = await measureRoundTrips('POST', `/v1/integrations/${integrations[2].name}/installations`, t, { organization: orgId });
    expect(installed.status, JSON.stringify(installed.body)).toBe(201);
    expect(installed.roundTrips).toBeLessThanOrEqual(3);
    await expectCountersTrue(orgId, publisherOrg);
  });
});

describe('counters across transfers, unpublishing and space invitations', () => {
  it('keeps the space counters of both organizations true across a transfer (the trigger on spaces.org_id)', async () => {
    const owner = await createUser();
    const t = owner.token;
    const [source, target] = [await newOrg(owner), await newOrg(owner)];
    const space = await newSpace(t, source);
    const collection = await newCollection(t, source);
    await newSpace(t, source, collection);
    expectStatus(await api('POST', `/v1/spaces/${space}/transfer`, { token: t, body: { organization: target } }), 200);
    expectStatus(await api('POST', `/v1/collections/${collection}/transfer`, { token: t, body: { organization: target } }), 200);
    await expectCountersTrue(source, target);
  });

  it('frees the slot of an unpublished integration at once (integration_count leaves tombstones out)', async () => {
    const owner = await createUser();
    const orgId = await newOrg(owner);
    const body = { organization: orgId, title: 'Capped', description: 'Counts', scopes: ['space:content:read'], script: 'export default {};' };
    const [first, second, third] = [integrationName('gap'), integrationName('gap'), integrationName('gap')];
    for (const name of [first, second]) expectStatus(await api('POST', `/v1/integrations/${name}`, { token: owner.token, body }), 200);
    expectStatus(await api('DELETE', `/v1/integrations/${second}`, { token: owner.token }), 204);
    expectStatus(await api('POST', `/v1/integrations/${third}`, { token: owner.token, body }), 200);
  });

  it('refuses inviting an outsider to a space of a full organization, where they would become a guest', async () => {
    const owner = await createUser();
    const orgId = await newOrg(owner);
    const space = await newSpace(owner.token, orgId);
    await fillMembers(orgId, MEMBERS);
    const outsider = await createUser();
    membersCap(await api('POST', `/v1/spaces/${space}/permissions`, { token: owner.token, body: { role: 'read', users: [outsider.id] } }));
    expect(await isMember(orgId, outsider.id)).toBe(false);
  });
});
