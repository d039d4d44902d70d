import { z } from '@hono/zod-openapi';
import { and, count, eq, sql, type SQL } from 'drizzle-orm';
import { teamMembers, teams } from '../../db/schema';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ApiError, badRequest } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { ListQuerySchema, afterCursor, keysetOrder, listCount, pageParams, toPage } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { containsText, textFilterQuery } from '../../lib/text-filter';
import { nowIso } from '../../lib/time';
import { requireUser } from '../../middleware/auth';
import { IdSchema, listOf, urlContext } from '../../schemas/common';
import { TeamSchema, TeamTitleSchema, toTeam } from '../../schemas/team';
import { checkOrganizationRole, organizationQuery } from '../../services/organizations/organizations';
import {
  checkTeam,
  orgMembersAmong,
  requireTeam,
  teamQuery,
  teamSelection,
  type TeamSelectionRow,
} from '../../services/teams/teams';

const tags = ['Teams'];
const OrgParams = z.object({ organizationId: IdSchema('organizationId') });
const TeamParams = OrgParams.extend({ teamId: IdSchema('teamId') });

const listTeamsRoute = defineRoute('get', '/orgs/{organizationId}/teams', () => ({
  operationId: 'listTeamsInOrganizationById',
  tags,
  summary: 'List the teams of an organization',
  request: {
    params: OrgParams,
    query: ListQuerySchema.extend({
      owner: z.string().optional().openapi({ description: 'A member id: only the teams that member can manage' }),
      title: textFilterQuery('Only teams whose title contains this (case-insensitive)'),
    }),
  },
  responses: { 200: jsonResponse(listOf(TeamSchema, 'OrganizationTeams'), 'The teams') },
}));

const createTeamRoute = defineRoute('put', '/orgs/{organizationId}/teams', () => ({
  operationId: 'createOrganizationTeam',
  tags,
  summary: 'Create a team (admins)',
  request: {
    params: OrgParams,
    ...jsonBody(z.object({ title: TeamTitleSchema, members: z.array(z.string().min(1)).max(500).optional().openapi({ description: 'Organization member ids' }) })),
  },
  responses: { 201: jsonResponse(TeamSchema, 'The team') },
}));

const getTeamRoute = defineRoute('get', '/orgs/{organizationId}/teams/{teamId}', () => ({
  operationId: 'getTeamInOrganizationById',
  tags,
  summary: 'Get a team',
  request: { params: TeamParams },
  responses: { 200: jsonResponse(TeamSchema, 'The team') },
}));

const updateTeamRoute = defineRoute('patch', '/orgs/{organizationId}/teams/{teamId}', () => ({
  operationId: 'updateTeamInOrganizationById',
  tags,
  summary: 'Rename a team (admins and team owners)',
  request: { params: TeamParams, ...jsonBody(z.object({ title: TeamTitleSchema })) },
  responses: { 200: jsonResponse(TeamSchema, 'The team') },
}));

const deleteTeamRoute = defineRoute('delete', '/orgs/{organizationId}/teams/{teamId}', () => ({
  operationId: 'removeTeamFromOrganizationById',
  tags,
  summary: 'Delete a team and the access it granted (admins and team owners)',
  request: { params: TeamParams },
  responses: { 204: noContent('Deleted, or did not exist') },
}));

export const teamsRouter = createRouter()
  .openapi(listTeamsRoute, async (c) => {
    const callerId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const query = c.req.valid('query');
    const { cursor, limit } = pageParams(query);
    const db = c.get('db');
    const filters: (SQL | undefined)[] = [eq(teams.orgId, organizationId)];
    if (query.title) filters.push(containsText(teams.title, query.title));
    if (query.owner) {
      // An org admin can manage every team; anyone else only the teams they own.
      // A disabled member manages nothing (requireTeam treats them as outside the organization).
      filters.push(sql`exists (select 1 from org_members m where m.org_id = ${teams.orgId} and m.user_id = ${query.owner} and m.disabled = 0
        and (m.role = ${RANK.admin}
          or exists (select 1 from team_members tm where tm.team_id = ${teams.id} and tm.user_id = m.user_id and tm.is_owner = 1)))`);
    }
    const where = and(...filters);
    // The caller's role and the page in one round trip; the role is checked before answering.
    const [role, rows] = await db.batch([
      organizationQuery(db, organizationId, callerId),
      teamSelection(db, callerId)
        .where(and(where, afterCursor(cursor, teams.createdAt, teams.id)))
        .orderBy(...keysetOrder(teams.createdAt, teams.id))
        .limit(limit + 1),
    ]);
    const { org } = checkOrganizationRole(role, RANK.read);
    // Unfiltered, the teams are the organization's: its team counter (kept by triggers) is their count.
    const unfiltered = !query.title && !query.owner;
    const total = await listCount(rows, limit, cursor, unfiltered ? org.teamCount : undefined, async () => (await db.select({ total: count() }).from(teams).where(where))[0].total);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(toPage(rows, limit, total, (r) => [r.team.createdAt, r.team.id], (r) => toTeam(r, urls)), 200);
  })
  .openapi(createTeamRoute, async (c) => {
    const callerId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    const memberIds = [...new Set(body.members ?? [])];
    // The caller's role and the members' lookup in one round trip, the writes and the read-back in another.
    const [role, found] = await db.batch([organizationQuery(db, organizationId, callerId), orgMembersAmong(db, organizationId, { ids: memberIds })]);
    checkOrganizationRole(role, RANK.admin);
    const known = new Set(found.map((f) => f.id));
    const missing = memberIds.filter((id) => !known.has(id));
    if (missing.length) throw badRequest(`members: ${missing.join(', ')} are not members of this organization`);
    const now = nowIso();
    const team = { id: newId(), orgId: organizationId, title: body.title, createdAt: now };
    const written = await db.batch([
      db.insert(teams).values(team),
      ...memberIds.map((userId) => db.insert(teamMembers).values({ teamId: team.id, userId, addedAt: now })),
      teamSelection(db, callerId).where(eq(teams.id, team.id)),
    ]);
    const [row] = written[written.length - 1] as TeamSelectionRow[];
    return c.json(toTeam(row, urlContext(c.req.url, c.env.APP_URL)), 201);
  })
  .openapi(getTeamRoute, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, teamId } = c.req.valid('param');
    const row = await requireTeam(c.get('db'), organizationId, teamId, callerId, false);
    return c.json(toTeam(row, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(updateTeamRoute, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, teamId } = c.req.valid('param');
    const { title } = c.req.valid('json');
    const db = c.get('db');
    const row = await requireTeam(db, organizationId, teamId, callerId, true);
    await db.update(teams).set({ title }).where(eq(teams.id, teamId)).run();
    return c.json(toTeam({ ...row, team: { ...row.team, title } }, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(deleteTeamRoute, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, teamId } = c.req.valid('param');
    const db = c.get('db');
    const [role, team] = await db.batch([organizationQuery(db, organizationId, callerId), teamQuery(db, organizationId, teamId, callerId)]);
    // Outside the organization: 404. A team that is absent, or that the caller cannot see, is answered alike.
    checkOrganizationRole(role, RANK.guest);
    try {
      checkTeam(team, true);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return c.body(null, 204);
      throw error;
    }
    // Memberships and space grants go with the team (foreign keys cascade).
    await db.delete(teams).where(eq(teams.id, teamId)).run();
    return c.body(null, 204);
  });
