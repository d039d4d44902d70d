import { z } from '@hono/zod-openapi';
import { and, count, eq, isNotNull, or, type SQL } from 'drizzle-orm';
import { orgMembers, users } from '../../db/schema';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ApiError, badRequest } from '../../lib/errors';
import { ListQuerySchema, afterCursor, keysetOrder, listCount, pageParams, toPage } from '../../lib/pagination';
import { RANK, roleToRank } from '../../lib/roles';
import { containsText, textFilterQuery } from '../../lib/text-filter';
import { requireUser } from '../../middleware/auth';
import { IdSchema, listOf, urlContext } from '../../schemas/common';
import { RoleOrGuestSchema, RoleSchema } from '../../schemas/roles';
import { MemberSchema, toMember } from '../../schemas/member';
import { keepsAnAdminSql, memberQuery, memberSelection, removeMembershipStatements } from '../../services/organizations/members';
import { checkOrganizationRole, organizationQuery, requireOrgRole } from '../../services/organizations/organizations';

const tags = ['Organization members'];
const OrgParams = z.object({ organizationId: IdSchema('organizationId') });
const MemberParams = OrgParams.extend({ userId: IdSchema('userId') });

const ListMembersQuery = ListQuerySchema.extend({
  role: z.union([RoleSchema, z.literal('guest')]).optional().openapi({ description: 'Only members with this role' }),
  search: textFilterQuery('Only members whose display name or email contains this (case-insensitive)'),
  sort: z.enum(['joinedAt', 'lastSeenAt']).optional().openapi({ description: 'joinedAt (default) or lastSeenAt (active members only)' }),
});

const listMembersRoute = defineRoute('get', '/orgs/{organizationId}/members', () => ({
  operationId: 'listMembersInOrganizationById',
  tags,
  summary: 'List the members of an organization',
  request: { params: OrgParams, query: ListMembersQuery },
  responses: { 200: jsonResponse(listOf(MemberSchema, 'OrganizationMembers'), 'The members') },
}));

const getMemberRoute = defineRoute('get', '/orgs/{organizationId}/members/{userId}', () => ({
  operationId: 'getMemberInOrganizationById',
  tags,
  summary: 'Get a member of an organization',
  request: { params: MemberParams },
  responses: { 200: jsonResponse(MemberSchema, 'The member') },
}));

const updateMemberRoute = defineRoute('patch', '/orgs/{organizationId}/members/{userId}', () => ({
  operationId: 'updateMemberInOrganizationById',
  tags,
  summary: "Change a member's role (admins); the last admin cannot be demoted",
  request: { params: MemberParams, ...jsonBody(z.object({ role: RoleOrGuestSchema })) },
  responses: { 200: jsonResponse(MemberSchema, 'The member has been updated') },
}));

const removeMemberRoute = defineRoute('delete', '/orgs/{organizationId}/members/{userId}', () => ({
  operationId: 'removeMemberFromOrganizationById',
  tags,
  summary: 'Remove a member (admins), or leave (yourself); the last admin cannot be removed',
  request: { params: MemberParams },
  responses: { 204: noContent('Removed, or was not a member') },
}));

export const membersRouter = createRouter()
  .openapi(listMembersRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const query = c.req.valid('query');
    const { cursor, limit } = pageParams(query);
    const db = c.get('db');
    const sortColumn = query.sort === 'lastSeenAt' ? orgMembers.lastSeenAt : orgMembers.joinedAt;
    const filters: (SQL | undefined)[] = [
      eq(orgMembers.orgId, organizationId),
      query.role ? eq(orgMembers.role, RANK[query.role]) : undefined,
      query.sort === 'lastSeenAt' ? isNotNull(orgMembers.lastSeenAt) : undefined,
    ];
    if (query.search) {
      filters.push(or(containsText(users.displayName, query.search), containsText(users.email, query.search)));
    }
    const where = and(...filters);
    // Membership and the page in one round trip; nothing of the page is used before the check.
    const [orgRows, rows] = await db.batch([
      organizationQuery(db, organizationId, userId),
      memberSelection(db)
        .where(and(where, afterCursor(cursor, sortColumn, orgMembers.userId)))
        .orderBy(...keysetOrder(sortColumn, orgMembers.userId))
        .limit(limit + 1),
    ]);
    const { org } = checkOrganizationRole(orgRows, RANK.read);
    // Unfiltered, the members are the organization's: its member counter (kept by triggers) is their count.
    const unfiltered = !query.role && !query.search && query.sort !== 'lastSeenAt';
    const total = await listCount(rows, limit, cursor, unfiltered ? org.memberCount : undefined, async () =>
      (await db.select({ total: count() }).from(orgMembers).innerJoin(users, eq(users.id, orgMembers.userId)).where(where))[0].total,
    );
    const urls = urlContext(c.req.url, c.env.APP_URL);
    const key = (r: (typeof rows)[number]) => [(query.sort === 'lastSeenAt' ? r.lastSeenAt : r.joinedAt) ?? '', r.user.id] as [string, string];
    return c.json(toPage(rows, limit, total, key, (r) => toMember(r, urls)), 200);
  })
  .openapi(getMemberRoute, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, userId } = c.req.valid('param');
    const db = c.get('db');
    const [orgRows, memberRows] = await db.batch([organizationQuery(db, organizationId, callerId), memberQuery(db, organizationId, userId)]);
    const { rank } = checkOrganizationRole(orgRows, RANK.guest);
    // Guests may see themselves, not the member directory.
    if (rank < RANK.read && userId !== callerId) throw new ApiError(403, 'Guests cannot view other members');
    const member = memberRows[0];
    if (!member) throw new ApiError(404, 'Member not found');
    return c.json(toMember(member, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(updateMemberRoute, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, userId } = c.req.valid('param');
    const { role } = c.req.valid('json');
    const db = c.get('db');
    const [orgRows, memberRows] = await db.batch([organizationQuery(db, organizationId, callerId), memberQuery(db, organizationId, userId)]);
    checkOrganizationRole(orgRows, RANK.admin);
    const member = memberRows[0];
    if (!member) throw new ApiError(404, 'Member not found');
    const rank = roleToRank(role);
    // The last-admin guard is part of the UPDATE itself, so concurrent demotions cannot both pass it.
    const updated = await db
      .update(orgMembers)
      .set({ role: rank })
      .where(
        and(
          eq(orgMembers.orgId, organizationId),
          eq(orgMembers.userId, userId),
          rank === RANK.admin ? undefined : keepsAnAdminSql(organizationId, userId),
        ),
      )
      .returning({ userId: orgMembers.userId })
      .get();
    if (!updated) {
      if (member.role === RANK.admin) throw badRequest('Cannot demote the last admin of the organization');
      throw new ApiError(404, 'Member not found');
    }
    return c.json(toMember({ ...member, role: rank }, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(removeMemberRoute, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, userId } = c.req.valid('param');
    const db = c.get('db');
    const { rank } = await requireOrgRole(db, organizationId, callerId, RANK.guest);
    if (userId !== callerId && rank < RANK.admin) throw new ApiError(403, 'Only admins can remove other members');
    // One transaction: the removal is guarded against leaving no admin, then the membership is read back.
    const [, , , remaining] = await db.batch(removeMembershipStatements(db, organizationId, userId, { keepAnAdmin: true }));
    if (remaining.length > 0) throw badRequest('Cannot remove the last admin of the organization');
    return c.body(null, 204);
  });
