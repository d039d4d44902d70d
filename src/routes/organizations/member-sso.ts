import { z } from '@hono/zod-openapi';
import { and, eq, sql } from 'drizzle-orm';
import { orgMembers } from '../../db/schema';
import { createRouter, defineRoute, jsonResponse } from '../../lib/create-router';
import { ApiError, badRequest } from '../../lib/errors';
import { RANK } from '../../lib/roles';
import { requireUser } from '../../middleware/auth';
import { IdSchema, urlContext } from '../../schemas/common';
import { MemberSchema, toMember } from '../../schemas/member';
import { orgRoleSql } from '../../services/access/access';
import { memberQuery } from '../../services/organizations/members';
import { checkOrganizationRole, organizationQuery } from '../../services/organizations/organizations';
import { activeProviderQuery } from '../../services/sso/providers';

const setSsoMemberRoute = defineRoute('post', '/orgs/{organizationId}/members/{userId}/sso', () => ({
  operationId: 'setUserAsSSOMemberForOrganization',
  tags: ['Organization members'],
  summary: 'Mark a member as an SSO member of the organization (admins)',
  description:
    "Sets the member's `sso` (whether they sign in with the organization's SSO), as an invitation with `sso: true` does. " +
    'Needs an active SAML provider (entityID, certificate and ssoURL set): without one nobody can sign in with SSO (400). ' +
    'Marking a member who already is one changes nothing.',
  request: { params: z.object({ organizationId: IdSchema('organizationId'), userId: IdSchema('userId') }) },
  responses: { 200: jsonResponse(MemberSchema, 'The member, with `sso: true`') },
}));

export const memberSsoRouter = createRouter().openapi(setSsoMemberRoute, async (c) => {
  const callerId = requireUser(c);
  const { organizationId, userId } = c.req.valid('param');
  const db = c.get('db');
  // One round trip: the caller's standing, the provider check, the write and the member read back. The write is
  // guarded by both checks in its own WHERE, so a refusal found after the batch has changed nothing.
  const [orgRows, providers, , members] = await db.batch([
    organizationQuery(db, organizationId, callerId),
    activeProviderQuery(db, organizationId),
    db
      .update(orgMembers)
      .set({ sso: true })
      .where(
        and(
          eq(orgMembers.orgId, organizationId),
          eq(orgMembers.userId, userId),
          sql`${orgRoleSql(sql`${organizationId}`, callerId)} >= ${RANK.admin}`,
          sql`exists ${activeProviderQuery(db, organizationId)}`,
        ),
      ),
    memberQuery(db, organizationId, userId),
  ]);
  checkOrganizationRole(orgRows, RANK.admin);
  if (!members[0]) throw new ApiError(404, 'Member not found');
  if (providers.length === 0) {
    throw badRequest('This organization has no active SAML provider (entityID, certificate and ssoURL set): nobody can sign in with SSO yet');
  }
  return c.json(toMember(members[0], urlContext(c.req.url, c.env.APP_URL)), 200);
});
