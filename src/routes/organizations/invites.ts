import { z } from '@hono/zod-openapi';
import { and, count, eq, inArray, isNull, sql } from 'drizzle-orm';
import { rowWhere, type BatchItem } from '../../db/client';
import { orgEmailInvites, orgLinkInvites, orgMembers, organizations, users } from '../../db/schema';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ApiError, badRequest } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { valuesOf } from '../../lib/sql-lists';
import { ListQuerySchema, afterCursor, keysetOrder, pageParams, toPage } from '../../lib/pagination';
import { RANK, roleToRank } from '../../lib/roles';
import { nowIso } from '../../lib/time';
import { requireUser } from '../../middleware/auth';
import { IdSchema, listOf, urlContext } from '../../schemas/common';
import { RoleOrGuestSchema } from '../../schemas/roles';
import { InviteLinkSchema, toInviteLink } from '../../schemas/invite';
import { joinWithinMembersCap, membersCapGuard, runWithinMembersCap } from '../../services/organizations/members';
import { checkOrganizationRole, organizationQuery, requireOrgRole } from '../../services/organizations/organizations';
import { normalizeEmail } from '../../services/identity/users';
import { orgRoleSql } from '../../services/access/access';

const tags = ['Organization invites'];
const OrgParams = z.object({ organizationId: IdSchema('organizationId') });
const InviteParams = OrgParams.extend({ inviteId: IdSchema('inviteId') });
const MAX_EMAILS = 100;

const InviteUsersBody = z.object({
  emails: z
    .array(z.union([z.email().max(254), z.object({ email: z.email().max(254), role: RoleOrGuestSchema })]))
    .min(1)
    .max(MAX_EMAILS),
  role: RoleOrGuestSchema.optional().openapi({ description: "Role for emails given without one (default: the organization's defaultRole)" }),
  sso: z.boolean().optional(),
});

const inviteUsersRoute = defineRoute('post', '/orgs/{organizationId}/invites', () => ({
  operationId: 'inviteUsersToOrganization',
  tags,
  summary: 'Invite people by email (admins)',
  description:
    'A user who already has an account with that (verified) email becomes a member at once (listed in `users`); other emails are held (listed in `pending`) and become memberships when a user with that verified email is created.',
  request: { params: OrgParams, ...jsonBody(InviteUsersBody) },
  responses: {
    200: jsonResponse(
      z.object({
        users: z.array(z.string()).openapi({ description: 'Ids of the users added to the organization now' }),
        invited: z.number().openapi({ description: 'Number of emails invited (added now or held)' }),
        pending: z.array(z.string()).openapi({ description: 'Emails held until a user with that email exists' }),
      }),
      'The outcome',
    ),
  },
}));

const createLinkInviteRoute = defineRoute('post', '/orgs/{organizationId}/link-invites', () => ({
  operationId: 'createOrganizationInvite',
  tags,
  summary: 'Create an invite link with a role (admins)',
  request: { params: OrgParams, ...jsonBody(z.object({ role: RoleOrGuestSchema })) },
  responses: { 201: jsonResponse(InviteLinkSchema, 'The invite link') },
}));

const listLinkInvitesRoute = defineRoute('get', '/orgs/{organizationId}/link-invites', () => ({
  operationId: 'listOrganizationInviteLinks',
  tags,
  summary: 'List the invite links of an organization (admins)',
  request: { params: OrgParams, query: ListQuerySchema },
  responses: { 200: jsonResponse(listOf(InviteLinkSchema, 'InviteLinks'), 'The invite links') },
}));

const getLinkInviteRoute = defineRoute('get', '/orgs/{organizationId}/link-invites/{inviteId}', () => ({
  operationId: 'getOrganizationInviteLink',
  tags,
  summary: 'Get an invite link (admins)',
  request: { params: InviteParams },
  responses: { 200: jsonResponse(InviteLinkSchema, 'The invite link') },
}));

const deleteLinkInviteRoute = defineRoute('delete', '/orgs/{organizationId}/link-invites/{inviteId}', () => ({
  operationId: 'deleteOrganizationInviteById',
  tags,
  summary: 'Delete an invite link (admins)',
  request: { params: InviteParams },
  responses: { 204: noContent('Deleted, or did not exist') },
}));

const UpdateInviteBody = z.union([
  z.object({ role: RoleOrGuestSchema }).openapi({ description: 'Update the role of an invite to the organization' }),
  z
    .object({ level: RoleOrGuestSchema })
    .openapi({ description: 'Update the level of an invite to a space or collection (refused: this deployment issues invites to the organization only)' }),
]);

const updateLinkInviteRoute = defineRoute('patch', '/orgs/{organizationId}/link-invites/{inviteId}', () => ({
  operationId: 'updateOrganizationInviteById',
  tags,
  summary: 'Change the role an invite link gives (admins)',
  description: 'Members who already joined with the link keep their role; whoever joins afterwards gets the new one.',
  request: { params: InviteParams, ...jsonBody(UpdateInviteBody) },
  responses: { 200: jsonResponse(InviteLinkSchema, 'The updated invite link') },
}));

const joinWithInviteRoute = defineRoute('post', '/orgs/{organizationId}/invites/{inviteId}', () => ({
  operationId: 'joinOrganizationWithInvite',
  tags,
  summary: 'Join an organization with an invite link',
  request: { params: InviteParams },
  responses: { 200: jsonResponse(z.object({}), 'Joined (an existing membership keeps its higher role)') },
}));

export const invitesRouter = createRouter()
  .openapi(inviteUsersRoute, async (c) => {
    const callerId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    // Emails given without a role get the fallback role, known once the organization is loaded.
    const explicit = new Map<string, number | undefined>();
    for (const entry of body.emails) {
      const email = normalizeEmail(typeof entry === 'string' ? entry : entry.email);
      explicit.set(email, typeof entry === 'string' ? undefined : roleToRank(entry.role));
    }
    const emails = [...explicit.keys()];
    // Membership and the accounts of these emails in one round trip.
    const [orgRows, existing] = await db.batch([
      organizationQuery(db, organizationId, callerId),
      db
        .select({ id: users.id, email: users.email, emailVerified: users.emailVerified })
        .from(users)
        // Normal accounts only: an SSO user is its provider's identity, joined through that provider's login.
        .where(and(inArray(users.email, valuesOf(emails)), isNull(users.ssoProviderId))),
    ]);
    const { org } = checkOrganizationRole(orgRows, RANK.admin);
    const fallbackRank = body.role !== undefined ? roleToRank(body.role) : (org.defaultRole ?? RANK.guest);
    const wanted = new Map(emails.map((email) => [email, explicit.get(email) ?? fallbackRank]));
    const now = nowIso();
    // Only an account whose email is verified is the owner of that email: the invitation of an
    // account with an unverified email is held like one for an unknown email.
    const joining = existing.filter((u) => u.emailVerified);
    const known = new Set(joining.map((u) => u.email));
    const pending = emails.filter((e) => !known.has(e));
    const sso = body.sso ?? false;
    // The members cap: the invitation is refused, whole, when the members and everyone it names who is not one
    // yet (an account, or an email without one, held) would pass it. Its writes are guarded by that check.
    const withAccount = new Set(existing.map((u) => u.email));
    const guard = membersCapGuard(db, c.env, org.id, existing.map((u) => u.id), pending.filter((e) => !withAccount.has(e)));
    const statements: BatchItem[] = [
      ...joining.map((u) => guard.insert({ orgId: org.id, userId: u.id, role: wanted.get(u.email)!, joinedAt: now, sso })),
      ...pending.map((email) =>
        db
          .insert(orgEmailInvites)
          .select(rowWhere(orgEmailInvites, { orgId: org.id, email, role: wanted.get(email)!, sso, invitedBy: callerId, createdAt: now }, guard.when))
          .onConflictDoUpdate({ target: [orgEmailInvites.orgId, orgEmailInvites.email], set: { role: wanted.get(email)!, sso } }),
      ),
      // An invitation held earlier for an account that joins now (its email was not verified, or the
      // organization was full when it was created) has done its work.
      ...(joining.length
        ? [db.delete(orgEmailInvites).where(and(eq(orgEmailInvites.orgId, org.id), inArray(orgEmailInvites.email, valuesOf([...known])), guard.when))]
        : []),
    ];
    if (statements.length) await runWithinMembersCap(c.env, db, guard, statements);
    return c.json({ users: joining.map((u) => u.id), invited: emails.length, pending }, 200);
  })
  .openapi(createLinkInviteRoute, async (c) => {
    const callerId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const { role } = c.req.valid('json');
    const db = c.get('db');
    const { org, rank } = await requireOrgRole(db, organizationId, callerId, RANK.admin);
    if (!org.inviteLinks) throw badRequest('Invite links are disabled for this organization (inviteLinks is false)');
    const row = { id: newId(), orgId: org.id, role: roleToRank(role), createdBy: callerId, createdAt: nowIso() };
    await db.insert(orgLinkInvites).values(row).run();
    return c.json(toInviteLink(row, rank, urlContext(c.req.url, c.env.APP_URL)), 201);
  })
  .openapi(listLinkInvitesRoute, async (c) => {
    const callerId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const { cursor, limit } = pageParams(c.req.valid('query'));
    const db = c.get('db');
    const inOrg = eq(orgLinkInvites.orgId, organizationId);
    const [orgRows, rows, [{ total }]] = await db.batch([
      organizationQuery(db, organizationId, callerId),
      db
        .select()
        .from(orgLinkInvites)
        .where(and(inOrg, afterCursor(cursor, orgLinkInvites.createdAt, orgLinkInvites.id)))
        .orderBy(...keysetOrder(orgLinkInvites.createdAt, orgLinkInvites.id))
        .limit(limit + 1),
      db.select({ total: count() }).from(orgLinkInvites).where(inOrg),
    ]);
    const { rank } = checkOrganizationRole(orgRows, RANK.admin);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(toPage(rows, limit, total, (r) => [r.createdAt, r.id], (r) => toInviteLink(r, rank, urls)), 200);
  })
  .openapi(getLinkInviteRoute, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, inviteId } = c.req.valid('param');
    const db = c.get('db');
    const [orgRows, rows] = await db.batch([
      organizationQuery(db, organizationId, callerId),
      db
        .select()
        .from(orgLinkInvites)
        .where(and(eq(orgLinkInvites.orgId, organizationId), eq(orgLinkInvites.id, inviteId))),
    ]);
    const { rank } = checkOrganizationRole(orgRows, RANK.admin);
    if (!rows[0]) throw new ApiError(404, 'Invite not found');
    return c.json(toInviteLink(rows[0], rank, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(deleteLinkInviteRoute, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, inviteId } = c.req.valid('param');
    const db = c.get('db');
    await requireOrgRole(db, organizationId, callerId, RANK.admin);
    await db
      .delete(orgLinkInvites)
      .where(and(eq(orgLinkInvites.orgId, organizationId), eq(orgLinkInvites.id, inviteId)))
      .run();
    return c.body(null, 204);
  })
  .openapi(updateLinkInviteRoute, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, inviteId } = c.req.valid('param');
    const body = c.req.valid('json');
    // Every invite link here is an invite to the organization, which has a role; a content invite's level names
    // an invite that cannot exist, and that is the body's fault whoever sends it (nothing of the ids is read).
    if (!('role' in body)) throw badRequest('This invite is an invite to the organization: set its `role` (`level` is for invites to a space or collection)');
    const db = c.get('db');
    // The caller's standing and the guarded write in one round trip: the update applies only for an active admin
    // of the invite's organization, so a refusal found after the batch has changed nothing.
    const [orgRows, updated] = await db.batch([
      organizationQuery(db, organizationId, callerId),
      db
        .update(orgLinkInvites)
        .set({ role: roleToRank(body.role) })
        .where(
          and(
            eq(orgLinkInvites.orgId, organizationId),
            eq(orgLinkInvites.id, inviteId),
            sql`${orgRoleSql(sql`${organizationId}`, callerId)} >= ${RANK.admin}`,
          ),
        )
        .returning(),
    ]);
    const { rank } = checkOrganizationRole(orgRows, RANK.admin);
    if (!updated[0]) throw new ApiError(404, 'Invite not found');
    return c.json(toInviteLink(updated[0], rank, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(joinWithInviteRoute, async (c) => {
    const callerId = requireUser(c);
    const { organizationId, inviteId } = c.req.valid('param');
    const db = c.get('db');
    const [invite, membership] = await db.batch([
      db
        .select({ role: orgLinkInvites.role, enabled: organizations.inviteLinks })
        .from(orgLinkInvites)
        .innerJoin(organizations, eq(organizations.id, orgLinkInvites.orgId))
        .where(and(eq(orgLinkInvites.orgId, organizationId), eq(orgLinkInvites.id, inviteId)))
        .limit(1),
      db
        .select({ role: orgMembers.role })
        .from(orgMembers)
        .where(and(eq(orgMembers.orgId, organizationId), eq(orgMembers.userId, callerId))),
    ]);
    if (!invite[0]) throw new ApiError(404, 'Invite not found');
    if (!invite[0].enabled) throw new ApiError(403, 'Invite links are disabled for this organization');
    const inviteRank = invite[0].role;
    if (!membership[0]) {
      await joinWithinMembersCap(c.env, db, { orgId: organizationId, userId: callerId, role: inviteRank, joinedAt: nowIso() });
    } else if (membership[0].role < inviteRank) {
      await db
        .update(orgMembers)
        .set({ role: inviteRank })
        .where(and(eq(orgMembers.orgId, organizationId), eq(orgMembers.userId, callerId)))
        .run();
    }
    return c.json({}, 200);
  });
