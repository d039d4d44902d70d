import { z } from '@hono/zod-openapi';
import type { Db } from '../../db/client';
import { and, count, eq, sql } from 'drizzle-orm';
import { orgMembers, organizations, sites } from '../../db/schema';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ApiError, badRequest } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { ListQuerySchema, afterCursor, keysetOrder, pageParams, toPage } from '../../lib/pagination';
import { RANK, roleToRank } from '../../lib/roles';
import { nowIso } from '../../lib/time';
import { requireUser } from '../../middleware/auth';
import { IdSchema, RoleOrGuestSchema, StandaloneMergeRulesSchema, listOf, urlContext } from '../../schemas/common';
import {
  DefaultContentSchema,
  OrganizationCommunityTypeSchema,
  OrganizationSchema,
  OrganizationTypeSchema,
  OrganizationUseCaseSchema,
  toOrganization,
} from '../../schemas/organization';
import { orgRoleSql } from '../../services/access';
import { checkMergeRuleMembers, mergeRuleNonMembersQuery } from '../../services/merge-rules';
import { joinWithinMembersCap } from '../../services/members';
import { checkOrganizationRole, isEmailDomain, isUniqueViolation, loadOrganization, organizationQuery, requireOrgRole } from '../../services/organizations';
import { emailDomain } from '../../services/users';
import { activeProviderQuery } from '../../services/sso/providers';

const OrgParams = z.object({ organizationId: IdSchema('organizationId') });
const tags = ['Organizations'];

const EmailDomainsSchema = z
  .array(
    z
      .string()
      .trim()
      .toLowerCase()
      .refine(isEmailDomain, { message: 'must be a domain name such as example.com' }),
  )
  .max(20);
const HostnameSchema = z
  .string()
  .min(3)
  .max(32)
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, 'must be lowercase letters, digits and inner hyphens');

const listOrganizationsRoute = defineRoute({
  method: 'get',
  path: '/orgs',
  operationId: 'listOrganizationsForAuthenticatedUser',
  tags,
  summary: 'List the organizations the caller belongs to',
  request: { query: ListQuerySchema },
  responses: { 200: jsonResponse(listOf(OrganizationSchema, 'Organizations'), 'The organizations') },
});

const CreateOrganizationBody = z.object({
  title: z.string().trim().min(2).max(255),
  type: OrganizationTypeSchema.optional(),
  useCase: OrganizationUseCaseSchema.optional(),
  communityType: OrganizationCommunityTypeSchema.optional(),
  emailDomains: EmailDomainsSchema.optional(),
  hostname: HostnameSchema.optional(),
});

const createOrganizationRoute = defineRoute({
  method: 'post',
  path: '/orgs',
  operationId: 'createOrganization',
  tags,
  summary: 'Create an organization; the caller becomes its admin',
  request: jsonBody(CreateOrganizationBody),
  responses: { 201: jsonResponse(OrganizationSchema, 'The organization'), 409: jsonResponse(z.any(), 'Hostname taken') },
});

const getOrganizationRoute = defineRoute({
  method: 'get',
  path: '/orgs/{organizationId}',
  operationId: 'getOrganizationById',
  tags,
  summary: 'Get an organization',
  request: { params: OrgParams },
  responses: { 200: jsonResponse(OrganizationSchema, 'The organization') },
});

const UpdateOrganizationBody = z
  .object({
    title: z.string().trim().min(2).max(255),
    emailDomains: EmailDomainsSchema,
    hostname: HostnameSchema.nullable(),
    defaultRole: RoleOrGuestSchema,
    defaultContent: DefaultContentSchema.nullable(),
    logo: z.httpUrl().max(2048).nullable(),
    sso: z.boolean(),
    ai: z.boolean(),
    inviteLinks: z.boolean(),
    mergeRules: StandaloneMergeRulesSchema,
  })
  .partial()
  .refine((b) => Object.keys(b).length > 0, { message: 'give at least one field to update' });

const updateOrganizationRoute = defineRoute({
  method: 'patch',
  path: '/orgs/{organizationId}',
  operationId: 'updateOrganizationById',
  tags,
  summary: 'Update an organization (admins)',
  request: { params: OrgParams, ...jsonBody(UpdateOrganizationBody) },
  responses: { 200: jsonResponse(OrganizationSchema, 'The updated organization'), 409: jsonResponse(z.any(), 'Hostname taken') },
});

const joinOrganizationRoute = defineRoute({
  method: 'post',
  path: '/orgs/{organizationId}/join',
  operationId: 'joinOrganization',
  tags,
  summary: "Join an organization that allows the caller's verified email domain",
  request: { params: OrgParams },
  responses: { 204: noContent('Joined (or already a member)') },
});

const getOrganizationsForEmailDomainRoute = defineRoute({
  method: 'get',
  path: '/email-domains/{emailDomain}/orgs',
  operationId: 'getOrganizationsForEmailDomain',
  tags,
  summary: "Organizations that members of the caller's verified email domain can join",
  request: { params: z.object({ emailDomain: IdSchema('emailDomain') }) },
  responses: {
    200: jsonResponse(z.object({ organizations: z.array(OrganizationSchema) }), 'The organizations'),
  },
});

async function assertHostnameFree(db: Db, hostname: string, exceptOrgId?: string) {
  const taken = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.hostname, hostname)).get();
  if (taken && taken.id !== exceptOrgId) throw hostnameTaken(hostname);
}

const hostnameTaken = (hostname: string) => new ApiError(409, `Hostname "${hostname}" is already used by another organization`);

/** Runs a write that sets a hostname: a concurrent request that took it first makes the unique index answer, which is a 409. */
async function withHostname<T>(hostname: string | null | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (hostname && isUniqueViolation(error, 'hostname')) throw hostnameTaken(hostname);
    throw error;
  }
}

export const organizationsRouter = createRouter()
  .openapi(listOrganizationsRoute, async (c) => {
    const userId = requireUser(c);
    const { cursor, limit } = pageParams(c.req.valid('query'));
    const db = c.get('db');
    const mine = sql`${organizations.id} in (select org_id from org_members where user_id = ${userId} and disabled = 0)`;
    const [rows, [{ total }]] = await db.batch([
      db
        .select({ org: organizations, rank: orgRoleSql(organizations.id, userId) })
        .from(organizations)
        .where(and(mine, afterCursor(cursor, organizations.createdAt, organizations.id)))
        .orderBy(...keysetOrder(organizations.createdAt, organizations.id))
        .limit(limit + 1),
      db.select({ total: count() }).from(organizations).where(mine),
    ]);
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json(toPage(rows, limit, total, (r) => [r.org.createdAt, r.org.id], (r) => toOrganization(r.org, r.rank, urls)), 200);
  })
  .openapi(createOrganizationRoute, async (c) => {
    const userId = requireUser(c);
    const body = c.req.valid('json');
    const db = c.get('db');
    if (body.hostname) await assertHostnameFree(db, body.hostname);
    const now = nowIso();
    const row = {
      id: newId(),
      title: body.title,
      createdAt: now,
      emailDomains: [...new Set(body.emailDomains ?? [])],
      hostname: body.hostname ?? null,
      type: body.type ?? 'business',
      useCase: body.useCase ?? null,
      communityType: body.communityType ?? null,
      defaultRole: RANK.read,
      defaultContent: null,
      logo: null,
      sso: false,
      ai: false,
      inviteLinks: true,
      mergeRules: { type: 'none' },
    };
    await withHostname(row.hostname, () =>
      db.batch([
        db.insert(organizations).values(row),
        db.insert(orgMembers).values({ orgId: row.id, userId, role: RANK.admin, joinedAt: now }),
      ]),
    );
    return c.json(toOrganization(row, RANK.admin, urlContext(c.req.url, c.env.APP_URL)), 201);
  })
  .openapi(getOrganizationRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const { org, rank } = await requireOrgRole(c.get('db'), organizationId, userId, RANK.guest);
    return c.json(toOrganization(org, rank, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(updateOrganizationRoute, async (c) => {
    const userId = requireUser(c);
    const { organizationId } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    // Membership, the hostname's owner and the merge rules' non-members in one round trip;
    // a statement with nothing to check selects nothing.
    const [orgRows, hostnameOwners, missing, defaultSite, activeProviders] = await db.batch([
      organizationQuery(db, organizationId, userId),
      db
        .select({ id: organizations.id })
        .from(organizations)
        .where(body.hostname ? eq(organizations.hostname, body.hostname) : sql`0`)
        .limit(1),
      mergeRuleNonMembersQuery(db, organizationId, body.mergeRules),
      db
        .select({ id: sites.id })
        .from(sites)
        .where(and(eq(sites.id, body.defaultContent?.site ?? ''), eq(sites.orgId, organizationId))),
      activeProviderQuery(db, organizationId),
    ]);
    const { org, rank } = checkOrganizationRole(orgRows, RANK.admin);
    if (body.hostname && hostnameOwners.some((o) => o.id !== org.id)) throw hostnameTaken(body.hostname);
    checkMergeRuleMembers(missing);
    if (body.defaultContent && defaultSite.length === 0) {
      throw badRequest(`Invalid default content: site "${body.defaultContent.site}" does not exist in this organization`);
    }
    if (body.sso === true && activeProviders.length === 0) {
      throw badRequest('sso: cannot enforce SSO before an active SAML provider (entityID, certificate and ssoURL set) is configured for this organization');
    }
    const changes: Partial<typeof organizations.$inferInsert> = {
      ...(body.title !== undefined && { title: body.title }),
      ...(body.emailDomains !== undefined && { emailDomains: [...new Set(body.emailDomains)] }),
      ...(body.hostname !== undefined && { hostname: body.hostname }),
      ...(body.defaultRole !== undefined && { defaultRole: roleToRank(body.defaultRole) }),
      ...(body.defaultContent !== undefined && { defaultContent: body.defaultContent }),
      ...(body.logo !== undefined && { logo: body.logo }),
      ...(body.sso !== undefined && { sso: body.sso }),
      ...(body.ai !== undefined && { ai: body.ai }),
      ...(body.inviteLinks !== undefined && { inviteLinks: body.inviteLinks }),
      ...(body.mergeRules !== undefined && { mergeRules: body.mergeRules }),
    };
    const updated = await withHostname(body.hostname, () =>
      db.update(organizations).set(changes).where(eq(organizations.id, org.id)).returning().get(),
    );
    return c.json(toOrganization(updated, rank, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(joinOrganizationRoute, async (c) => {
    const userId = requireUser(c);
    const actor = c.get('actor') as { email: string; emailVerified: boolean };
    const { organizationId } = c.req.valid('param');
    const db = c.get('db');
    const row = await loadOrganization(db, organizationId, userId);
    if (!row) throw new ApiError(404, 'Organization not found');
    if (row.rank !== null) return c.body(null, 204);
    const { org } = row;
    const domain = emailDomain(actor.email);
    if (!actor.emailVerified || !org.emailDomains.includes(domain)) {
      throw badRequest(`Email domain not valid: this organization does not allow members from "${domain}" to join, or your email is not verified`);
    }
    await joinWithinMembersCap(c.env, db, { orgId: org.id, userId, role: org.defaultRole ?? RANK.guest, joinedAt: nowIso() });
    return c.body(null, 204);
  })
  .openapi(getOrganizationsForEmailDomainRoute, async (c) => {
    const userId = requireUser(c);
    const actor = c.get('actor') as { email: string; emailVerified: boolean };
    const domain = c.req.valid('param').emailDomain.toLowerCase();
    if (!actor.emailVerified || emailDomain(actor.email) !== domain) {
      throw new ApiError(403, 'You can only look up organizations for the domain of your own verified email');
    }
    const rows = await c
      .get('db')
      .select({ org: organizations, rank: orgRoleSql(organizations.id, userId) })
      .from(organizations)
      .where(sql`exists (select 1 from json_each(${organizations.emailDomains}) where value = ${domain})`)
      .orderBy(organizations.createdAt)
      .limit(100)
      .all();
    const urls = urlContext(c.req.url, c.env.APP_URL);
    return c.json({ organizations: rows.map((r) => toOrganization(r.org, r.rank, urls)) }, 200);
  });
