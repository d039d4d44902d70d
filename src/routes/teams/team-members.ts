import { z } from '@hono/zod-openapi';
import { and, count, eq } from 'drizzle-orm';
import { orgMembers, teamMembers } from '../../db/schema';
import { runBatch } from '../../db/client';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { badRequest } from '../../lib/errors';
import { ListQuerySchema, afterCursor, keysetOrder, pageParams, toPage } from '../../lib/pagination';
import { nowIso } from '../../lib/time';
import { requireUser } from '../../middleware/auth';
import { IdSchema, listOf, urlContext } from '../../schemas/common';
import { toMember } from '../../schemas/member';
import { TeamMemberRoleSchema, TeamMemberSchema } from '../../schemas/team';
import { memberSelection } from '../../services/organizations/members';
import { checkTeam, orgMembersAmong, requireTeam, requireTeamToLeave, teamMembershipKey, teamQuery } from '../../services/teams/teams';
import { normalizeEmail } from '../../services/identity/users';

const tags = ['Teams'];
const TeamParams = z.object({ organizationId: IdSchema('organizationId'), teamId: IdSchema('teamId') });
const TeamMemberParams = TeamParams.extend({ userId: IdSchema('userId') });
const MAX_CHANGES = 500;

const listTeamMembersRoute = defineRoute('get', '/orgs/{organizationId}/teams/{teamId}/members', () => ({
  operationId: 'listTeamMembersInOrganizationById',
  tags,
  summary: 'List the members of a team',
  request: { params: TeamParams, query: ListQuerySchema },
  responses: { 200: jsonResponse(listOf(TeamMemberSchema, 'OrganizationTeamMembers'), 'The team members') },
}));

const UpdateMembersBody = z
  .object({
    add: z.array(z.string().min(1)).max(MAX_CHANGES).optional().openapi({ description: 'Users to add, by id or email' }),
    remove: z.array(z.string().min(1)).max(MAX_CHANGES).optional().openapi({ description: 'Users to remove, by id or email' }),
    memberships: z
      .record(z.string().min(1), z.object({ role: TeamMemberRoleSchema }))
      .refine((m) => Object.keys(m).length <= MAX_CHANGES, { message: `at most ${MAX_CHANGES} memberships` })
      .optional()
      .openapi({ description: 'Team roles to set, by user id (added when not yet in the team)' }),
  })
  .refine((b) => b.add || b.remove || b.memberships, { message: 'give add, remove or memberships' });

const updateTeamMembersRoute = defineRoute('put', '/orgs/{organizationId}/teams/{teamId}/members', () => ({
  operationId: 'updateMembersInOrganizationTeam',
  tags,
  summary: 'Add, remove and set roles of team members in one change (admins and team owners)',
  request: { params: TeamParams, ...jsonBody(UpdateMembersBody) },
  responses: { 204: noContent('Members have been updated') },
}));

const addTeamMemberRoute = defineRoute('put', '/orgs/{organizationId}/teams/{teamId}/members/{userId}', () => ({
  operationId: 'addMemberToOrganizationTeamById',
  tags,
  summary: 'Add a member to a team, or change their team role',
  request: { params: TeamMemberParams, body: { required: false, content: { 'application/json': { schema: z.object({ role: TeamMemberRoleSchema.optional() }) } } } },
  responses: { 204: noContent('The member is in the team') },
}));

const removeTeamMemberRoute = defineRoute('delete', '/orgs/{organizationId}/teams/{teamId}/members/{userId}', () => ({
  operationId: 'deleteMemberFromOrganizationTeamById',
  tags,
  summary: 'Remove a member from a team',
  request: { params: TeamMemberParams },
  responses: { 204: noContent('Removed, or was not in the team') },
}));

type DbOf = Parameters<typeof requireTeam>[0];

/**
 * Loads the team for a caller who manages it and resolves ids or emails, per field, to organization
 * members' user ids, in one round trip; anything that is not a member is a 400 naming the field and the value
 * (after the caller was found allowed: someone who cannot see the team learns nothing about its organization).
 */
async function manageTeamWithMembers(
  db: DbOf,
  orgId: string,
  teamId: string,
  callerId: string,
  fields: Record<string, string[]>,
): Promise<Record<string, Map<string, string>>> {
  const refs = Object.values(fields).flat();
  const [team, found] = await db.batch([
    teamQuery(db, orgId, teamId, callerId),
    orgMembersAmong(db, orgId, { ids: refs.filter((r) => !r.includes('@')), emails: refs.filter((r) => r.includes('@')) }),
  ]);
  checkTeam(team, true);
  const byId = new Map(found.map((f) => [f.id, f.id]));
  const byEmail = new Map(found.map((f) => [f.email, f.id]));
  const resolved: Record<string, Map<string, string>> = {};
  for (const [field, list] of Object.entries(fields)) {
    resolved[field] = new Map();
    for (const ref of list) {
      const id = ref.includes('@') ? byEmail.get(normalizeEmail(ref)) : byId.get(ref);
      if (!id) throw badRequest(`${field}: "${ref}" is not a member of this organization`);
      resolved[field].set(ref, id);
    }
  }
  return resolved;
}

export const teamMembersRouter = createRouter()
  .openapi(listTeamMembersRoute, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, teamId } = c.req.valid('param');
    const { cursor, limit } = pageParams(c.req.valid('query'));
    const db = c.get('db');
    const inTeam = and(eq(teamMembers.teamId, teamId), eq(orgMembers.orgId, organizationId));
    // The team (for the caller's standing), the page and the total in one round trip, checked before answering.
    const [team, rows, [{ total }]] = await db.batch([
      teamQuery(db, organizationId, teamId, callerId),
      memberSelection(db, { isOwner: teamMembers.isOwner, addedAt: teamMembers.addedAt })
        .innerJoin(teamMembers, eq(teamMembers.userId, orgMembers.userId))
        .where(and(inTeam, afterCursor(cursor, teamMembers.addedAt, teamMembers.userId)))
        .orderBy(...keysetOrder(teamMembers.addedAt, teamMembers.userId))
        .limit(limit + 1),
      db.select({ total: count() }).from(teamMembers).innerJoin(orgMembers, eq(orgMembers.userId, teamMembers.userId)).where(inTeam),
    ]);
    checkTeam(team, false);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(
      toPage(
        rows,
        limit,
        total,
        (r) => [r.addedAt, r.user.id],
        (r) => ({
          organization: toMember(r, urls),
          team: { role: r.isOwner ? ('owner' as const) : ('member' as const) },
          permissions: { view: true },
        }),
      ),
      200,
    );
  })
  .openapi(updateTeamMembersRoute, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, teamId } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    const { add, remove, memberships: roles } = await manageTeamWithMembers(db, organizationId, teamId, callerId, {
      add: body.add ?? [],
      remove: body.remove ?? [],
      memberships: Object.keys(body.memberships ?? {}),
    });
    const now = nowIso();
    const statements = [
      ...[...add.values()].map((userId) => db.insert(teamMembers).values({ teamId, userId, addedAt: now }).onConflictDoNothing()),
      ...[...roles.entries()].map(([ref, userId]) => {
        const isOwner = body.memberships![ref].role === 'owner';
        return db
          .insert(teamMembers)
          .values({ teamId, userId, isOwner, addedAt: now })
          .onConflictDoUpdate({ target: [teamMembers.teamId, teamMembers.userId], set: { isOwner } });
      }),
      ...[...remove.values()].map((userId) => db.delete(teamMembers).where(teamMembershipKey(teamId, userId))),
    ];
    if (statements.length) await runBatch(db, statements);
    return c.body(null, 204);
  })
  .openapi(addTeamMemberRoute, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, teamId, userId } = c.req.valid('param');
    const role = (c.req.valid('json') as { role?: 'owner' | 'member' } | undefined)?.role ?? 'member';
    const db = c.get('db');
    // The path may name the user by email too: store their id.
    const memberId = (await manageTeamWithMembers(db, organizationId, teamId, callerId, { userId: [userId] })).userId.get(userId)!;
    const isOwner = role === 'owner';
    await db
      .insert(teamMembers)
      .values({ teamId, userId: memberId, isOwner, addedAt: nowIso() })
      .onConflictDoUpdate({ target: [teamMembers.teamId, teamMembers.userId], set: { isOwner } })
      .run();
    return c.body(null, 204);
  })
  .openapi(removeTeamMemberRoute, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, teamId, userId } = c.req.valid('param');
    const db = c.get('db');
    // Members may leave a team themselves (a guest member too); anyone else needs to manage it.
    if (userId === callerId) await requireTeamToLeave(db, organizationId, teamId, callerId);
    else await requireTeam(db, organizationId, teamId, callerId, true);
    await db.delete(teamMembers).where(teamMembershipKey(teamId, userId)).run();
    return c.body(null, 204);
  });
