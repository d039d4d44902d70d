import { z } from '@hono/zod-openapi';
import { and, asc, count, desc, eq, isNull, sql } from 'drizzle-orm';
import { orgMembers, spaces, teamMembers, teams } from '../../db/schema';
import { createRouter, defineRoute, jsonResponse } from '../../lib/create-router';
import { ApiError } from '../../lib/errors';
import { ListQuerySchema, afterCursor, beforeCursor, keysetOrder, pageParams, textCursor, toPage } from '../../lib/pagination';
import { RANK, rankToRole } from '../../lib/roles';
import { containsText, textFilterQuery } from '../../lib/text-filter';
import { nowIso } from '../../lib/time';
import { requireUser } from '../../middleware/auth';
import { IdSchema, listOf, urlContext } from '../../schemas/common';
import { RoleSchema } from '../../schemas/roles';
import { SpaceSchema, toSpace } from '../../schemas/space';
import { spaceRoleSql } from '../../services/access/access';
import { TeamMemberRoleSchema, TeamSchema, toTeam } from '../../schemas/team';
import { checkOrganizationRole, organizationQuery } from '../../services/organizations/organizations';
import { teamSelection } from '../../services/teams/teams';

const tags = ['Organization members'];
const MemberParams = z.object({ organizationId: IdSchema('organizationId'), userId: IdSchema('userId') });

const MemberTeamSchema = z
  .object({ team: TeamSchema, member: z.object({ role: TeamMemberRoleSchema }).openapi('TeamMember') })
  .openapi('OrganizationMemberTeam');

const listTeamsForMemberRoute = defineRoute('get', '/orgs/{organizationId}/members/{userId}/teams', () => ({
  operationId: 'listTeamsForOrganizationMember',
  tags,
  summary: "List a member's teams, with their role in each (admins, or the member themself)",
  request: {
    params: MemberParams,
    query: ListQuerySchema.extend({ title: textFilterQuery('Only teams whose name contains this (case-insensitive)') }),
  },
  responses: { 200: jsonResponse(listOf(MemberTeamSchema, 'OrganizationMemberTeams'), 'The teams of the member') },
}));

const MemberSpaceSchema = z
  .object({ permission: RoleSchema, space: SpaceSchema })
  .openapi('MemberContentPermission', { description: 'Permission of a member in a content.' });

const listSpacesForMemberRoute = defineRoute('get', '/orgs/{organizationId}/members/{userId}/spaces', () => ({
  operationId: 'listSpacesForOrganizationMember',
  tags,
  summary: 'List the spaces a member can access, with their role in each (admins, or the member themself)',
  request: {
    params: MemberParams,
    query: ListQuerySchema.extend({
      order: z.enum(['asc', 'desc']).default('desc').openapi({ description: 'Newest spaces first (desc, the default) or oldest first' }),
    }),
  },
  responses: { 200: jsonResponse(listOf(MemberSpaceSchema, 'MemberContentPermissions'), 'The spaces the member can access') },
}));

const pingRoute = defineRoute('post', '/orgs/{organizationId}/ping', () => ({
  operationId: 'updateOrganizationMemberLastSeenAt',
  tags,
  summary: "Mark the caller as active in the organization now (their member's lastSeenAt)",
  request: { params: z.object({ organizationId: IdSchema('organizationId') }) },
  responses: {
    200: jsonResponse(
      z.object({ gitbookVisitorClaims: z.string().optional() }).openapi('OrganizationMemberPing'),
      'Updated. No visitor claims are issued by this deployment, so the object is empty.',
    ),
  },
}));

/**
 * What a member is in (teams, spaces) tells what they can read: an admin may look at anyone's, a member
 * at their own; anyone else of the organization gets 403, a non-member 404 (as for the organization).
 */
function checkMayViewMember(orgRows: Parameters<typeof checkOrganizationRole>[0], callerId: string, userId: string) {
  const { rank } = checkOrganizationRole(orgRows, RANK.guest);
  if (rank < RANK.admin && callerId !== userId) throw new ApiError(403, "Only admins can view another member's teams and spaces");
}

export const memberViewsRouter = createRouter()
  .openapi(listTeamsForMemberRoute, async (c) => {
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
})
  .openapi(listSpacesForMemberRoute, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, userId } = c.req.valid('param');
    const query = c.req.valid('query');
    const { cursor, limit } = pageParams(query);
    const db = c.get('db');
    // The member's role decides which spaces are listed and their `permission`; the caller's (an admin, or
    // the member themself) the `permissions` each space shows, as everywhere else a space is answered.
    const memberRole = spaceRoleSql(userId);
    const where = and(eq(spaces.orgId, organizationId), isNull(spaces.deletedAt), sql`${memberRole} >= ${RANK.read}`);
    const newestFirst = query.order === 'desc';
    const after = (newestFirst ? beforeCursor : afterCursor)(textCursor(cursor), spaces.createdAt, spaces.id);
    const order = newestFirst ? [desc(spaces.createdAt), desc(spaces.id)] : [asc(spaces.createdAt), asc(spaces.id)];
    // Standing, page and total in one round trip; nothing is answered before the check. The two roles are
    // aliased: unnamed, both would be keyed by the same SQL text (values are bound) and one would hide the other.
    const [orgRows, rows, [{ total }]] = await db.batch([
      organizationQuery(db, organizationId, callerId),
      db
        .select({ space: spaces, memberRank: sql<number>`${memberRole}`.as('member_rank'), callerRank: sql<number>`${spaceRoleSql(callerId)}`.as('caller_rank') })
        .from(spaces)
        .where(and(where, after))
        .orderBy(...order)
        .limit(limit + 1),
      db.select({ total: count() }).from(spaces).where(where),
    ]);
    checkMayViewMember(orgRows, callerId, userId);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(
      toPage(
        rows,
        limit,
        total,
        (r) => [r.space.createdAt, r.space.id],
        (r) => ({ permission: rankToRole(r.memberRank)!, space: toSpace(r.space, r.callerRank, urls) }),
      ),
      200,
    );
  })
  .openapi(pingRoute, async (c) => {
    const callerId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    // One statement: only the caller's own membership is touched, and no row means not a member (404, as for
    // the organization). Unlike the hourly tracking of the auth middleware, an explicit ping is exact.
    const updated = await c
      .get('db')
      .update(orgMembers)
      .set({ lastSeenAt: nowIso() })
      .where(and(eq(orgMembers.orgId, organizationId), eq(orgMembers.userId, callerId)))
      .returning({ userId: orgMembers.userId })
      .get();
    if (!updated) throw new ApiError(404, 'Organization not found');
    return c.json({}, 200);
  });
