import { z } from '@hono/zod-openapi';
import { and, count, eq } from 'drizzle-orm';
import { teamMembers, teams } from '../../db/schema';
import { createRouter, defineRoute, jsonResponse } from '../../lib/create-router';
import { ApiError } from '../../lib/errors';
import { ListQuerySchema, afterCursor, keysetOrder, pageParams, toPage } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { containsText, textFilterQuery } from '../../lib/text-filter';
import { requireUser } from '../../middleware/auth';
import { IdSchema, listOf, urlContext } from '../../schemas/common';
import { TeamMemberRoleSchema, TeamSchema, toTeam } from '../../schemas/team';
import { checkOrganizationRole, organizationQuery } from '../../services/organizations/organizations';
import { teamSelection } from '../../services/teams/teams';

const tags = ['Organization members'];
const MemberParams = z.object({ organizationId: IdSchema('organizationId'), userId: IdSchema('userId') });

const MemberTeamSchema = z
  .object({ team: TeamSchema, member: z.object({ role: TeamMemberRoleSchema }).openapi('TeamMember') })
  .openapi('OrganizationMemberTeam');

const listTeamsForMemberRoute = defineRoute({
  method: 'get',
  path: '/orgs/{organizationId}/members/{userId}/teams',
  operationId: 'listTeamsForOrganizationMember',
  tags,
  summary: "List a member's teams, with their role in each (admins, or the member themself)",
  request: {
    params: MemberParams,
    query: ListQuerySchema.extend({ title: textFilterQuery('Only teams whose name contains this (case-insensitive)') }),
  },
  responses: { 200: jsonResponse(listOf(MemberTeamSchema, 'OrganizationMemberTeams'), 'The teams of the member') },
});

/**
 * What a member is in (teams, spaces) tells what they can read: an admin may look at anyone's, a member
 * at their own; anyone else of the organization gets 403, a non-member 404 (as for the organization).
 */
function checkMayViewMember(orgRows: Parameters<typeof checkOrganizationRole>[0], callerId: string, userId: string) {
  const { rank } = checkOrganizationRole(orgRows, RANK.guest);
  if (rank < RANK.admin && callerId !== userId) throw new ApiError(403, "Only admins can view another member's teams and spaces");
}

export const memberViewsRouter = createRouter().openapi(listTeamsForMemberRoute, async (c) => {
  const callerId = requireUser(c);
  const { organizationId, userId } = c.req.valid('param');
  const query = c.req.valid('query');
  const { cursor, limit } = pageParams(query);
  const db = c.get('db');
  const where = and(
    eq(teams.orgId, organizationId),
    eq(teamMembers.userId, userId),
    query.title ? containsText(teams.title, query.title) : undefined,
  );
  // The caller's standing, the page and its total in one round trip; nothing is answered before the check.
  const [orgRows, rows, [{ total }]] = await db.batch([
    organizationQuery(db, organizationId, callerId),
    teamSelection(db, callerId, { isOwner: teamMembers.isOwner, addedAt: teamMembers.addedAt })
      .innerJoin(teamMembers, eq(teamMembers.teamId, teams.id))
      .where(and(where, afterCursor(cursor, teamMembers.addedAt, teams.id)))
      .orderBy(...keysetOrder(teamMembers.addedAt, teams.id))
      .limit(limit + 1),
    db.select({ total: count() }).from(teams).innerJoin(teamMembers, eq(teamMembers.teamId, teams.id)).where(where),
  ]);
  checkMayViewMember(orgRows, callerId, userId);
  const urls = urlContext(c.req.url, c.env.APP_URL);
  return c.json(
    toPage(
      rows,
      limit,
      total,
      (r) => [r.addedAt, r.team.id],
      (r) => ({ team: toTeam(r, urls), member: { role: r.isOwner ? ('owner' as const) : ('member' as const) } }),
    ),
    200,
  );
});
