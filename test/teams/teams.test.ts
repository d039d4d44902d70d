import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { TeamSchema } from '../../src/schemas/team';
import { addMember, api, createUser, expectError, seedOrg } from '../helpers/harness';
import { expectHostileTextFilter } from '../helpers/text-filter';
import {
  TeamListSchema,
  bulkOrgMembers,
  createTeam,
  grantSpaceToTeam,
  membersPath,
  outsiderOrgId,
  setTeamRoles,
  storedMemberships,
  teamPath,
  teamsPath,
  type Team,
} from './fixtures';

const StrictTeam = TeamSchema.strict();
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** Every team of a list, following `next.page`; checks each page's envelope. */
async function listAll(path: string, token: string, limit: number) {
  const seen: Team[] = [];
  const counts: number[] = [];
  let page: string | undefined;
  for (let i = 0; i < 50; i++) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await api('GET', `${path}${sep}limit=${limit}${page ? `&page=${encodeURIComponent(page)}` : ''}`, { token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const body = TeamListSchema.parse(res.body);
    expect(body.items.length).toBeLessThanOrEqual(limit);
    seen.push(...body.items);
    counts.push(body.count);
    if (!body.next) return { items: seen, counts };
    expect(body.items).toHaveLength(limit);
    page = body.next.page;
  }
  throw new Error('pagination did not end');
}

describe('createOrganizationTeam (PUT /v1/orgs/{organizationId}/teams)', () => {
  it('creates a team for an org admin: 201, the Team object with counts, urls and admin permissions', async () => {
    const org = await seedOrg();
    const res = await api('PUT', teamsPath(org.id), {
      token: org.owner.token,
      body: { title: 'Platform', members: [org.members.read.id, org.members.edit.id] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const team = StrictTeam.parse(res.body);
    expect(team).toEqual({
      object: 'team',
      id: expect.stringMatching(/^[0-9A-Za-z]{20}$/),
      title: 'Platform',
      members: 2,
      spaces: 0,
      createdAt: expect.stringMatching(ISO),
      urls: { location: `http://api.test/v1/orgs/${org.id}/teams/${team.id}` },
      permissions: { admin: true, view: true },
    });
    expect(Math.abs(Date.parse(team.createdAt) - Date.now())).toBeLessThan(60_000);

    // It is stored: GET answers the same object, and the members are those given.
    const got = await api('GET', teamPath(org.id, team.id), { token: org.owner.token });
    expect(got.status).toBe(200);
    expect(StrictTeam.parse(got.body)).toEqual(team);
    const stored = await storedMemberships(team.id);
    expect(stored.map((r) => r.user_id).sort()).toEqual([org.members.read.id, org.members.edit.id].sort());
    expect(stored.every((r) => r.is_owner === 0)).toBe(true);
  });

  it('creates a team without members, trims the title and accepts 64 characters', async () => {
    const org = await seedOrg();
    const res = await api('PUT', teamsPath(org.id), { token: org.owner.token, body: { title: '  Docs  ' } });
    expect(res.status).toBe(201);
    expect(StrictTeam.parse(res.body)).toMatchObject({ title: 'Docs', members: 0, spaces: 0 });

    const long = 'é'.repeat(64);
    const res64 = await api('PUT', teamsPath(org.id), { token: org.owner.token, body: { title: long } });
    expect(res64.status, JSON.stringify(res64.body)).toBe(201);
    expect(res64.body.title).toBe(long);
  });

  it('counts each member once when ids repeat', async () => {
    const org = await seedOrg();
    const id = org.members.comment.id;
    const team = await createTeam(org, 'Dupes', [id, id, id]);
    expect(team.members).toBe(1);
    expect(await storedMemberships(team.id)).toHaveLength(1);
  });

  it('accepts more members than one D1 statement has bound parameters', async () => {
    const org = await seedOrg();
    const ids = await bulkOrgMembers(org.id, 150);
    const team = await createTeam(org, 'Everyone', ids);
    expect(team.members).toBe(150);
  });

  it('rejects a bad title with 400 naming the field, and creates nothing', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    expectError(await api('PUT', teamsPath(org.id), { token, body: { title: '' } }), 400, 'title');
    expectError(await api('PUT', teamsPath(org.id), { token, body: { title: '   ' } }), 400, 'title');
    expectError(await api('PUT', teamsPath(org.id), { token, body: { title: 'x'.repeat(65) } }), 400, 'title');
    expectError(await api('PUT', teamsPath(org.id), { token, body: {} }), 400, 'title');
    expectError(await api('PUT', teamsPath(org.id), { token, body: { title: 42 } }), 400, 'title');
    const list = await api('GET', teamsPath(org.id), { token });
    expect(list.body.count).toBe(0);
  });

  it('rejects members that are not members of the organization with 400 naming the field and the id', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const res = await api('PUT', teamsPath(org.id), { token, body: { title: 'T', members: [org.members.read.id, org.outsider.id] } });
    const message = expectError(res, 400, 'members');
    expect(message).toContain(org.outsider.id);
    expect(message).not.toContain(org.members.read.id);
    expectError(await api('PUT', teamsPath(org.id), { token, body: { title: 'T', members: ['no-such-user'] } }), 400, 'members');
    // members are ids, not emails
    expectError(await api('PUT', teamsPath(org.id), { token, body: { title: 'T', members: [org.members.read.email] } }), 400, 'members');
    expectError(await api('PUT', teamsPath(org.id), { token, body: { title: 'T', members: 'x' } }), 400, 'members');
    expectError(await api('PUT', teamsPath(org.id), { token, body: { title: 'T', members: [''] } }), 400, 'members');
    // Nothing was created by the refused requests.
    const list = await api('GET', teamsPath(org.id), { token });
    expect(list.body).toEqual({ items: [], count: 0 });
  });

  it('rejects malformed JSON with 400', async () => {
    const org = await seedOrg();
    expectError(await api('PUT', teamsPath(org.id), { token: org.owner.token, rawBody: '{"title":' }), 400, 'malformed json');
  });

  it('answers 401 without a token or with an unknown token', async () => {
    const org = await seedOrg();
    expectError(await api('PUT', teamsPath(org.id), { body: { title: 'T' } }), 401);
    expectError(await api('PUT', teamsPath(org.id), { token: 'not-a-token', body: { title: 'T' } }), 401);
  });

  it('answers 403 to members below admin (an edit member, a create member) and 404 to the outsider', async () => {
    const org = await seedOrg();
    expectError(await api('PUT', teamsPath(org.id), { token: org.members.edit.token, body: { title: 'T' } }), 403);
    expectError(await api('PUT', teamsPath(org.id), { token: org.members.create.token, body: { title: 'T' } }), 403);
    expectError(await api('PUT', teamsPath(org.id), { token: org.outsider.token, body: { title: 'T' } }), 404);
    expectError(await api('PUT', teamsPath('noSuchOrganization01'), { token: org.owner.token, body: { title: 'T' } }), 404);
    const list = await api('GET', teamsPath(org.id), { token: org.owner.token });
    expect(list.body.count).toBe(0);
  });
});

describe('getTeamInOrganizationById (GET /v1/orgs/{organizationId}/teams/{teamId})', () => {
  it('answers the team with its members and live spaces counts', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, 'Writers', [org.members.read.id, org.members.comment.id, org.members.edit.id]);
    const other = await createTeam(org, 'Others');
    await grantSpaceToTeam(org.id, team.id);
    await grantSpaceToTeam(org.id, team.id);
    await grantSpaceToTeam(org.id, team.id, { deleted: true }); // a deleted space does not count
    await grantSpaceToTeam(org.id, other.id); // another team's grant does not count

    const res = await api('GET', teamPath(org.id, team.id), { token: org.members.read.token });
    expect(res.status).toBe(200);
    expect(StrictTeam.parse(res.body)).toEqual({ ...team, members: 3, spaces: 2, permissions: { admin: false, view: true } });

    const otherRes = await api('GET', teamPath(org.id, other.id), { token: org.owner.token });
    expect(otherRes.body).toMatchObject({ members: 0, spaces: 1, permissions: { admin: true, view: true } });
  });

  it('shows permissions.admin to org admins and team owners only', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, 'Perms', [org.members.read.id, org.members.create.id]);
    await setTeamRoles(org, team.id, { [org.members.read.id]: 'owner' });
    const expected = {
      admin: { admin: true, view: true },
      create: { admin: false, view: true }, // a plain member of the team
      review: { admin: false, view: true },
      read: { admin: true, view: true }, // the team owner
    } as const;
    for (const [role, permissions] of Object.entries(expected)) {
      const res = await api('GET', teamPath(org.id, team.id), { token: org.members[role as keyof typeof expected].token });
      expect(res.status, role).toBe(200);
      expect(TeamSchema.parse(res.body).permissions, role).toEqual(permissions);
    }
  });

  it('answers 401 without a token', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, 'T');
    expectError(await api('GET', teamPath(org.id, team.id)), 401);
  });

  it('answers 404 for an unknown team, for the outsider, and for a guest who is not an owner', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, 'T', [org.members.guest.id]);
    expectError(await api('GET', teamPath(org.id, 'noSuchTeam000000000'), { token: org.owner.token }), 404, 'team');
    expectError(await api('GET', teamPath(org.id, team.id), { token: org.outsider.token }), 404);
    // a guest cannot see teams, even one they are a plain member of
    expectError(await api('GET', teamPath(org.id, team.id), { token: org.members.guest.token }), 404);
  });

  it("answers 404 for a team id under another organization's path, even to an admin of both", async () => {
    const org = await seedOrg();
    const team = await createTeam(org, 'Mine');
    const otherOrg = await outsiderOrgId(org);
    expectError(await api('GET', teamPath(otherOrg, team.id), { token: org.outsider.token }), 404);
    await addMember(otherOrg, org.owner.id, 'admin');
    expectError(await api('GET', teamPath(otherOrg, team.id), { token: org.owner.token }), 404);
    expectError(await api('PATCH', teamPath(otherOrg, team.id), { token: org.owner.token, body: { title: 'Stolen' } }), 404);
    expectError(await api('GET', membersPath(otherOrg, team.id), { token: org.owner.token }), 404);
    // deleting it through the wrong organization is a no-op
    expect((await api('DELETE', teamPath(otherOrg, team.id), { token: org.owner.token })).status).toBe(204);
    const still = await api('GET', teamPath(org.id, team.id), { token: org.owner.token });
    expect(still.status).toBe(200);
    expect(still.body.title).toBe('Mine');
  });

  it('answers 400 for an over-long path id', async () => {
    const org = await seedOrg();
    expectError(await api('GET', teamPath(org.id, 'x'.repeat(129)), { token: org.owner.token }), 400, 'teamId');
  });
});

describe('listTeamsInOrganizationById (GET /v1/orgs/{organizationId}/teams)', () => {
  it('lists the teams in creation order, with counts, to any member from read up', async () => {
    const org = await seedOrg();
    const a = await createTeam(org, 'Alpha', [org.members.read.id]);
    const b = await createTeam(org, 'Beta');
    await grantSpaceToTeam(org.id, b.id);
    const res = await api('GET', teamsPath(org.id), { token: org.members.read.token });
    expect(res.status).toBe(200);
    const body = TeamListSchema.parse(res.body);
    expect(body.count).toBe(2);
    expect(body.next).toBeUndefined();
    expect(body.items.map((t) => t.id)).toEqual([a.id, b.id]);
    expect(body.items[0]).toMatchObject({ title: 'Alpha', members: 1, spaces: 0, permissions: { admin: false, view: true } });
    expect(body.items[1]).toMatchObject({ title: 'Beta', members: 0, spaces: 1, permissions: { admin: false, view: true } });
    // an org admin sees admin permissions on every team
    const asAdmin = TeamListSchema.parse((await api('GET', teamsPath(org.id), { token: org.owner.token })).body);
    expect(asAdmin.items.every((t) => t.permissions.admin)).toBe(true);
  });

  it('does not list teams of another organization', async () => {
    const org = await seedOrg();
    const mine = await createTeam(org, 'Mine');
    const otherOrg = await outsiderOrgId(org);
    const theirs = await api('PUT', teamsPath(otherOrg), { token: org.outsider.token, body: { title: 'Theirs' } });
    expect(theirs.status).toBe(201);
    const res = await api('GET', teamsPath(org.id), { token: org.owner.token });
    expect(res.body.items.map((t: Team) => t.id)).toEqual([mine.id]);
    const other = await api('GET', teamsPath(otherOrg), { token: org.outsider.token });
    expect(other.body.items.map((t: Team) => t.id)).toEqual([theirs.body.id]);
  });

  it('pages with limit and next.page, counting the total on every page', async () => {
    const org = await seedOrg();
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push((await createTeam(org, `Team ${i}`)).id);
    const { items, counts } = await listAll(teamsPath(org.id), org.owner.token, 2);
    expect(counts).toEqual([5, 5, 5]);
    expect(items.map((t) => t.id)).toEqual(created);

    const one = await api('GET', `${teamsPath(org.id)}?limit=5`, { token: org.owner.token });
    expect(one.body.items).toHaveLength(5);
    expect(one.body.next).toBeUndefined();
  });

  it('keeps pages stable while teams are created between them', async () => {
    const org = await seedOrg();
    const first: string[] = [];
    for (let i = 0; i < 4; i++) first.push((await createTeam(org, `Team ${i}`)).id);
    const p1 = await api('GET', `${teamsPath(org.id)}?limit=2`, { token: org.owner.token });
    expect(p1.body.items.map((t: Team) => t.id)).toEqual(first.slice(0, 2));
    const later = await createTeam(org, 'Later');
    const p2 = await api('GET', `${teamsPath(org.id)}?limit=2&page=${encodeURIComponent(p1.body.next.page)}`, { token: org.owner.token });
    expect(p2.status).toBe(200);
    expect(p2.body.items.map((t: Team) => t.id)).toEqual(first.slice(2, 4));
    expect(p2.body.count).toBe(5);
    const p3 = await api('GET', `${teamsPath(org.id)}?limit=2&page=${encodeURIComponent(p2.body.next.page)}`, { token: org.owner.token });
    expect(p3.body.items.map((t: Team) => t.id)).toEqual([later.id]);
    expect(p3.body.next).toBeUndefined();
  });

  it('rejects limit 0, limit 1001, a non-numeric limit and a malformed page with 400 naming the parameter', async () => {
    const org = await seedOrg();
    await createTeam(org, 'T');
    const token = org.owner.token;
    expectError(await api('GET', `${teamsPath(org.id)}?limit=0`, { token }), 400, 'limit');
    expectError(await api('GET', `${teamsPath(org.id)}?limit=1001`, { token }), 400, 'limit');
    expectError(await api('GET', `${teamsPath(org.id)}?limit=ten`, { token }), 400, 'limit');
    expectError(await api('GET', `${teamsPath(org.id)}?limit=1.5`, { token }), 400, 'limit');
    expectError(await api('GET', `${teamsPath(org.id)}?page=not-a-cursor`, { token }), 400, 'page');
    expectError(await api('GET', `${teamsPath(org.id)}?page=`, { token }), 400, 'page');
    expectError(await api('GET', `${teamsPath(org.id)}?title=${'x'.repeat(65)}`, { token }), 400, 'title');
    expect((await api('GET', `${teamsPath(org.id)}?limit=1000`, { token })).status).toBe(200);
  });

  it('filters by title, a case-insensitive contains, with count and paging matching the filter', async () => {
    const org = await seedOrg();
    const design = await createTeam(org, 'Design Team');
    await createTeam(org, 'Backend');
    const system = await createTeam(org, 'DESIGN system');
    await createTeam(org, 'Growth 100%');
    const token = org.members.read.token;

    const ids = async (query: string) => {
      const res = await api('GET', `${teamsPath(org.id)}?${query}`, { token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const body = TeamListSchema.parse(res.body);
      expect(body.count).toBe(body.items.length);
      return body.items.map((t) => t.id);
    };
    expect(await ids('title=design')).toEqual([design.id, system.id]);
    expect(await ids('title=DeSiGn')).toEqual([design.id, system.id]);
    expect(await ids('title=sign%20sys')).toEqual([system.id]);
    expect(await ids('title=team')).toEqual([design.id]);
    expect(await ids('title=nothing')).toEqual([]);
    // LIKE wildcards are plain characters
    expect(await ids('title=%25')).toHaveLength(1);
    expect(await ids('title=_')).toEqual([]);

    const paged = await listAll(`${teamsPath(org.id)}?title=design`, token, 1);
    expect(paged.items.map((t) => t.id)).toEqual([design.id, system.id]);
    expect(paged.counts).toEqual([2, 2]);
  });

  it('takes any title filter as it is: hostile lengths and characters never answer 5xx, too long is a 400', async () => {
    const org = await seedOrg();
    await expectHostileTextFilter({
      param: 'title',
      create: async (title) => (await createTeam(org, title)).id,
      list: (value) => api('GET', `${teamsPath(org.id)}${value === undefined ? '' : `?title=${encodeURIComponent(value)}`}`, { token: org.owner.token }),
    });
  });

  it('filters by title ignoring the case of non-ASCII letters too', async () => {
    const org = await seedOrg();
    const produit = await createTeam(org, 'Équipe Produit');
    const shout = await createTeam(org, 'ÉQUIPE ÉDITORIALE');
    const lower = await createTeam(org, 'équipe données');
    await createTeam(org, 'Equipe sans accent');
    const greek = await createTeam(org, 'ΟΜΆΔΑ');
    const ids = async (title: string) => {
      const res = await api('GET', `${teamsPath(org.id)}?title=${encodeURIComponent(title)}`, { token: org.owner.token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.count).toBe(res.body.items.length);
      return res.body.items.map((t: Team) => t.id);
    };
    expect(await ids('équipe')).toEqual([produit.id, shout.id, lower.id]);
    expect(await ids('ÉQUIPE')).toEqual([produit.id, shout.id, lower.id]);
    expect(await ids('éDiToRiAlE')).toEqual([shout.id]);
    expect(await ids('DONNÉES')).toEqual([lower.id]);
    expect(await ids('ομάδα')).toEqual([greek.id]);
    expect(await ids("é'")).toEqual([]);
  });

  it('filters by owner: all teams for an org admin, only the owned teams for anyone else', async () => {
    const org = await seedOrg();
    const { read, edit, guest } = org.members;
    const owned = await createTeam(org, 'Owned by read', [read.id, edit.id]);
    const memberOnly = await createTeam(org, 'Read is a member', [read.id]);
    const guestOwned = await createTeam(org, 'Owned by guest', [guest.id]);
    const empty = await createTeam(org, 'Nobody');
    await setTeamRoles(org, owned.id, { [read.id]: 'owner' });
    await setTeamRoles(org, guestOwned.id, { [guest.id]: 'owner' });

    const ids = async (owner: string, extra = '') => {
      const res = await api('GET', `${teamsPath(org.id)}?owner=${encodeURIComponent(owner)}${extra}`, { token: org.members.comment.token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const body = TeamListSchema.parse(res.body);
      expect(body.count).toBe(body.items.length);
      return body.items.map((t) => t.id);
    };
    expect(await ids(org.owner.id)).toEqual([owned.id, memberOnly.id, guestOwned.id, empty.id]);
    expect(await ids(read.id)).toEqual([owned.id]);
    expect(await ids(guest.id)).toEqual([guestOwned.id]);
    expect(await ids(edit.id)).toEqual([]); // a plain member manages nothing
    expect(await ids(org.members.create.id)).toEqual([]);
    expect(await ids(org.outsider.id)).toEqual([]); // an admin, but of another organization
    expect(await ids('no-such-user')).toEqual([]);
    // combined with the title filter
    expect(await ids(org.owner.id, '&title=OWNED')).toEqual([owned.id, guestOwned.id]);
    expect(await ids(read.id, '&title=guest')).toEqual([]);
  });

  it('filters by owner: a disabled member manages nothing', async () => {
    const org = await seedOrg();
    const admin2 = await createUser();
    await addMember(org.id, admin2.id, 'admin');
    const team = await createTeam(org, 'Owned', [org.members.read.id]);
    await setTeamRoles(org, team.id, { [org.members.read.id]: 'owner' });
    const count = async (owner: string) =>
      (await api('GET', `${teamsPath(org.id)}?owner=${owner}`, { token: org.owner.token })).body.count as number;
    expect(await count(admin2.id)).toBe(1);
    expect(await count(org.members.read.id)).toBe(1);
    await env.DB.prepare('update org_members set disabled = 1 where org_id = ? and user_id in (?, ?)')
      .bind(org.id, admin2.id, org.members.read.id)
      .run();
    // they can no longer manage the team ...
    expectError(await api('PATCH', teamPath(org.id, team.id), { token: org.members.read.token, body: { title: 'X' } }), 404);
    // ... so the owner filter does not list it for them
    expect(await count(admin2.id)).toBe(0);
    expect(await count(org.members.read.id)).toBe(0);
  });

  it('answers 401 without a token, 403 to a guest and 404 to the outsider and for an unknown organization', async () => {
    const org = await seedOrg();
    await createTeam(org, 'T');
    expectError(await api('GET', teamsPath(org.id)), 401);
    expectError(await api('GET', teamsPath(org.id), { token: org.members.guest.token }), 403);
    expectError(await api('GET', teamsPath(org.id), { token: org.outsider.token }), 404);
    expectError(await api('GET', teamsPath('noSuchOrganization01'), { token: org.owner.token }), 404);
  });
});

describe('updateTeamInOrganizationById (PATCH /v1/orgs/{organizationId}/teams/{teamId})', () => {
  it('renames the team for an org admin: 200 with the new title, stored', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, 'Old', [org.members.read.id]);
    await grantSpaceToTeam(org.id, team.id);
    const res = await api('PATCH', teamPath(org.id, team.id), { token: org.owner.token, body: { title: '  New name ' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(StrictTeam.parse(res.body)).toEqual({ ...team, title: 'New name', members: 1, spaces: 1 });
    const got = await api('GET', teamPath(org.id, team.id), { token: org.owner.token });
    expect(got.body.title).toBe('New name');
  });

  it('lets a team owner rename it, not a plain team member nor another non-admin', async () => {
    const org = await seedOrg();
    const { read, comment, create } = org.members;
    const team = await createTeam(org, 'Team', [read.id, comment.id]);
    await setTeamRoles(org, team.id, { [read.id]: 'owner' });
    expectError(await api('PATCH', teamPath(org.id, team.id), { token: comment.token, body: { title: 'By member' } }), 403);
    expectError(await api('PATCH', teamPath(org.id, team.id), { token: create.token, body: { title: 'By create' } }), 403);
    expect((await api('GET', teamPath(org.id, team.id), { token: org.owner.token })).body.title).toBe('Team');

    const res = await api('PATCH', teamPath(org.id, team.id), { token: read.token, body: { title: 'By owner' } });
    expect(res.status).toBe(200);
    expect(TeamSchema.parse(res.body)).toMatchObject({ title: 'By owner', permissions: { admin: true, view: true } });
  });

  it('lets a guest who owns the team see and rename it', async () => {
    const org = await seedOrg();
    const { guest } = org.members;
    const team = await createTeam(org, 'Guests', [guest.id]);
    await setTeamRoles(org, team.id, { [guest.id]: 'owner' });
    const got = await api('GET', teamPath(org.id, team.id), { token: guest.token });
    expect(got.status).toBe(200);
    expect(TeamSchema.parse(got.body).permissions).toEqual({ admin: true, view: true });
    const res = await api('PATCH', teamPath(org.id, team.id), { token: guest.token, body: { title: 'Renamed by guest' } });
    expect(res.status).toBe(200);
    expect(res.body.title).toBe('Renamed by guest');
  });

  it('rejects a bad title and malformed JSON with 400, leaving the title', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, 'Keep');
    const token = org.owner.token;
    expectError(await api('PATCH', teamPath(org.id, team.id), { token, body: { title: '' } }), 400, 'title');
    expectError(await api('PATCH', teamPath(org.id, team.id), { token, body: { title: 'y'.repeat(65) } }), 400, 'title');
    expectError(await api('PATCH', teamPath(org.id, team.id), { token, body: {} }), 400, 'title');
    expectError(await api('PATCH', teamPath(org.id, team.id), { token, body: { title: null } }), 400, 'title');
    expectError(await api('PATCH', teamPath(org.id, team.id), { token, rawBody: '{"title": "x"' }), 400, 'malformed json');
    expect((await api('GET', teamPath(org.id, team.id), { token })).body.title).toBe('Keep');
  });

  it('answers 401 without a token, 404 for an unknown team and for the outsider', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, 'T');
    expectError(await api('PATCH', teamPath(org.id, team.id), { body: { title: 'X' } }), 401);
    expectError(await api('PATCH', teamPath(org.id, 'noSuchTeam000000000'), { token: org.owner.token, body: { title: 'X' } }), 404);
    expectError(await api('PATCH', teamPath(org.id, team.id), { token: org.outsider.token, body: { title: 'X' } }), 404);
    expect((await api('GET', teamPath(org.id, team.id), { token: org.owner.token })).body.title).toBe('T');
  });
});

describe('removeTeamFromOrganizationById (DELETE /v1/orgs/{organizationId}/teams/{teamId})', () => {
  it('deletes the team with its memberships and space grants: 204, then 404', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, 'Doomed', [org.members.read.id, org.members.edit.id]);
    const keep = await createTeam(org, 'Kept', [org.members.read.id]);
    const space = await grantSpaceToTeam(org.id, team.id);
    const res = await api('DELETE', teamPath(org.id, team.id), { token: org.owner.token });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();

    expectError(await api('GET', teamPath(org.id, team.id), { token: org.owner.token }), 404);
    expectError(await api('GET', membersPath(org.id, team.id), { token: org.owner.token }), 404);
    expect(await storedMemberships(team.id)).toEqual([]);
    const grants = await env.DB.prepare('select * from space_team_grants where team_id = ?').bind(team.id).all();
    expect(grants.results).toEqual([]);
    // the space itself stays
    expect(await env.DB.prepare('select id from spaces where id = ?').bind(space).first()).toEqual({ id: space });
    // other teams are untouched
    const list = TeamListSchema.parse((await api('GET', teamsPath(org.id), { token: org.owner.token })).body);
    expect(list.items.map((t) => t.id)).toEqual([keep.id]);
    expect(list.items[0].members).toBe(1);
    // and the member's team count follows
    const member = await api('GET', `/v1/orgs/${org.id}/members/${org.members.read.id}`, { token: org.owner.token });
    expect(member.status).toBe(200);
    expect(member.body.teams).toBe(1);
  });

  it('answers 204 again for a deleted or unknown team', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, 'Once');
    expect((await api('DELETE', teamPath(org.id, team.id), { token: org.owner.token })).status).toBe(204);
    expect((await api('DELETE', teamPath(org.id, team.id), { token: org.owner.token })).status).toBe(204);
    expect((await api('DELETE', teamPath(org.id, 'noSuchTeam000000000'), { token: org.members.read.token })).status).toBe(204);
  });

  it('lets a team owner delete it; a plain member or another non-admin gets 403', async () => {
    const org = await seedOrg();
    const { read, comment } = org.members;
    const team = await createTeam(org, 'Team', [read.id, comment.id]);
    await setTeamRoles(org, team.id, { [read.id]: 'owner' });
    expectError(await api('DELETE', teamPath(org.id, team.id), { token: comment.token }), 403);
    expectError(await api('DELETE', teamPath(org.id, team.id), { token: org.members.create.token }), 403);
    expect((await api('GET', teamPath(org.id, team.id), { token: org.owner.token })).status).toBe(200);
    expect((await api('DELETE', teamPath(org.id, team.id), { token: read.token })).status).toBe(204);
    expectError(await api('GET', teamPath(org.id, team.id), { token: org.owner.token }), 404);
  });

  it('answers 401 without a token and 404 to the outsider, deleting nothing', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, 'T');
    expectError(await api('DELETE', teamPath(org.id, team.id)), 401);
    expectError(await api('DELETE', teamPath(org.id, team.id), { token: org.outsider.token }), 404);
    expect((await api('GET', teamPath(org.id, team.id), { token: org.owner.token })).status).toBe(200);
  });

  it('answers a guest who cannot see the team as if it were absent (204), deleting nothing', async () => {
    const org = await seedOrg();
    const team = await createTeam(org, 'Hidden', [org.members.guest.id]);
    expect((await api('DELETE', teamPath(org.id, team.id), { token: org.members.guest.token })).status).toBe(204);
    expect((await api('GET', teamPath(org.id, team.id), { token: org.owner.token })).status).toBe(200);
  });
});
