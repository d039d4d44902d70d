import { env } from 'cloudflare:workers';
import { expect } from 'vitest';
import { listOf } from '../../src/schemas/common';
import { TeamMemberSchema, TeamSchema } from '../../src/schemas/team';
import { api, type TestOrg } from '../helpers/harness';

/** The list envelopes the two list routes answer with. */
export const TeamListSchema = listOf(TeamSchema, 'OrganizationTeams').strict();
export const TeamMemberListSchema = listOf(TeamMemberSchema, 'OrganizationTeamMembers').strict();

export const teamsPath = (orgId: string) => `/v1/orgs/${orgId}/teams`;
export const teamPath = (orgId: string, teamId: string) => `/v1/orgs/${orgId}/teams/${teamId}`;
export const membersPath = (orgId: string, teamId: string) => `/v1/orgs/${orgId}/teams/${teamId}/members`;
export const memberPath = (orgId: string, teamId: string, userId: string) => `/v1/orgs/${orgId}/teams/${teamId}/members/${userId}`;

export type Team = ReturnType<typeof TeamSchema.parse>;
export type TeamMember = ReturnType<typeof TeamMemberSchema.parse>;

/** A team created through the API by the organization's creator (an admin). */
export async function createTeam(org: TestOrg, title: string, members?: string[]): Promise<Team> {
  const res = await api('PUT', teamsPath(org.id), { token: org.owner.token, body: { title, ...(members ? { members } : {}) } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return TeamSchema.parse(res.body);
}

/** Sets team roles through the API, as the organization's creator. */
export async function setTeamRoles(org: TestOrg, teamId: string, roles: Record<string, 'owner' | 'member'>) {
  const memberships = Object.fromEntries(Object.entries(roles).map(([id, role]) => [id, { role }]));
  const res = await api('PUT', membersPath(org.id, teamId), { token: org.owner.token, body: { memberships } });
  expect(res.status, JSON.stringify(res.body)).toBe(204);
}

/** All members of a team (as the organization's creator), following pages. */
export async function teamMembers(org: TestOrg, teamId: string): Promise<TeamMember[]> {
  const res = await api('GET', `${membersPath(org.id, teamId)}?limit=1000`, { token: org.owner.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const page = TeamMemberListSchema.parse(res.body);
  expect(page.next).toBeUndefined();
  return page.items;
}

/** user id -> team role, as the API lists them. */
export async function teamRoles(org: TestOrg, teamId: string): Promise<Record<string, 'owner' | 'member'>> {
  return Object.fromEntries((await teamMembers(org, teamId)).map((m) => [m.organization.user.id, m.team.role]));
}

/** The stored team_members rows of a team (what the API cannot show once the team is gone). */
export async function storedMemberships(teamId: string) {
  const rows = await env.DB.prepare('select user_id, is_owner from team_members where team_id = ?').bind(teamId).all();
  return rows.results;
}

let spaceCounter = 0;

/** A space of the organization granted to the team, written directly in D1 (the spaces routes are not under test). */
export async function grantSpaceToTeam(orgId: string, teamId: string, options: { deleted?: boolean } = {}): Promise<string> {
  const id = `sp${Date.now().toString(36)}${(spaceCounter++).toString(36)}`.padEnd(20, 'x');
  const now = new Date().toISOString();
  await env.DB.batch([
    env.DB.prepare(
      'insert into spaces (id, org_id, title, position, revision_id, created_at, updated_at, deleted_at) values (?, ?, ?, ?, ?, ?, ?, ?)',
    ).bind(id, orgId, `Space ${id}`, spaceCounter, `rev-${id}`, now, now, options.deleted ? now : null),
    env.DB.prepare('insert into space_team_grants (space_id, team_id, role, created_at) values (?, ?, ?, ?)').bind(id, teamId, 3, now),
  ]);
  return id;
}

/** `n` users who are `read` members of the organization, written directly in D1 (no tokens). */
export async function bulkOrgMembers(orgId: string, n: number): Promise<string[]> {
  const now = new Date().toISOString();
  const prefix = `bk${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const ids = Array.from({ length: n }, (_, i) => `${prefix}${i.toString().padStart(4, '0')}`);
  const statements = ids.flatMap((id) => [
    env.DB.prepare('insert into users (id, display_name, email, email_verified, created_at) values (?, ?, ?, 1, ?)').bind(id, `Bulk ${id}`, `${id}@bulk.test`, now),
    env.DB.prepare('insert into org_members (org_id, user_id, role, joined_at) values (?, ?, 1, ?)').bind(orgId, id, now),
  ]);
  await env.DB.batch(statements);
  return ids;
}

/** The id of the outsider's own organization. */
export async function outsiderOrgId(org: TestOrg): Promise<string> {
  const res = await api('GET', '/v1/orgs', { token: org.outsider.token });
  expect(res.status).toBe(200);
  expect(res.body.items).toHaveLength(1);
  return res.body.items[0].id;
}
