import { z } from '@hono/zod-openapi';
import type { Db } from '../../db/client';
import type { Env } from '../../env';
import { and, count, eq, isNotNull, sql } from 'drizzle-orm';
import { orgMembers, organizations, sites } from '../../db/schema';
import { createRouter, defineRoute, jsonBody, jsonResponse, noContent } from '../../lib/create-router';
import { ApiError, badRequest } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { ListQuerySchema, afterCursor, keysetOrder, pageParams, toPage } from '../../lib/pagination';
import { RANK, roleToRank } from '../../lib/roles';
import { nowIso } from '../../lib/time';
import { describeAuditEvent } from '../../services/audit/context';
import { requireUser } from '../../middleware/auth';
import { IdSchema, listOf, urlContext } from '../../schemas/common';
import { RoleOrGuestSchema } from '../../schemas/roles';
import { StandaloneMergeRulesSchema } from '../../schemas/merge-rules';
import {
  CustomHostnameSchema,
  DefaultContentSchema,
  OrganizationCommunityTypeSchema,
  OrganizationSchema,
  OrganizationTypeSchema,
  OrganizationUseCaseSchema,
  toCustomHostname,
  toOrganization,
} from '../../schemas/organization';
import { orgRoleSql } from '../../services/access/access';
import { checkMergeRuleMembers, mergeRuleNonMembersQuery } from '../../services/content/merge-rules';
import { joinWithinMembersCap } from '../../services/organizations/members';
import { checkOrganizationRole, isEmailDomain, isUniqueViolation, loadOrganization, organizationQuery, requireOrgRole } from '../../services/organizations/organizations';
import { emailDomain } from '../../services/identity/users';
import { activeProviderQuery } from '../../services/sso/providers';
import { authorizeOrg } from '../../services/access/permissions';
import { challengeAnswered, challengeName, claimStands, customHostnameRefusal, labelRefusal, newChallenge, takeCustomHostname } from '../../services/organizations/hostnames';

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
/** A label under SITES_DOMAIN (GitBook's `OrganizationHostname`); reserved labels are refused by the handler. */
const HostnameSchema = z
  .string()
  .min(3)
  .max(32)
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, 'must be lowercase letters, digits and inner hyphens')
  .openapi({ description: 'Label of the organization\'s site under SITES_DOMAIN: `acme` serves `acme.<SITES_DOMAIN>`' });
/** A domain of the organization's own, checked by the handler (never the deployment's hosts) and proved by DNS. */
const CustomHostnameInput = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .transform((h) => h.replace(/\.$/, ''))
  .openapi({ description: 'A domain of the organization (docs.example.com): served once its DNS TXT challenge is answered (getCustomHostname)' });

const listOrganizationsRoute = defineRoute('get', '/orgs', () => ({
  operationId: 'listOrganizationsForAuthenticatedUser',
  tags,
  summary: 'List the organizations the caller belongs to',
  request: { query: ListQuerySchema },
  responses: { 200: jsonResponse(listOf(OrganizationSchema, 'Organizations'), 'The organizations') },
}));

const CreateOrganizationBody = z.object({
  title: z.string().trim().min(2).max(255),
  type: OrganizationTypeSchema.optional(),
  useCase: OrganizationUseCaseSchema.optional(),
  communityType: OrganizationCommunityTypeSchema.optional(),
  emailDomains: EmailDomainsSchema.optional(),
  hostname: HostnameSchema.optional(),
});

const createOrganizationRoute = defineRoute('post', '/orgs', () => ({
  operationId: 'createOrganization',
  tags,
  summary: 'Create an organization; the caller becomes its admin',
  request: jsonBody(CreateOrganizationBody),
  responses: { 201: jsonResponse(OrganizationSchema, 'The organization'), 409: jsonResponse(z.any(), 'Hostname taken') },
}));

const getOrganizationRoute = defineRoute('get', '/orgs/{organizationId}', () => ({
  operationId: 'getOrganizationById',
  tags,
  summary: 'Get an organization',
  request: { params: OrgParams },
  responses: { 200: jsonResponse(OrganizationSchema, 'The organization') },
}));

const UpdateOrganizationBody = z
  .object({
    title: z.string().trim().min(2).max(255),
    emailDomains: EmailDomainsSchema,
    hostname: HostnameSchema.nullable(),
    customHostname: CustomHostnameInput.nullable(),
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

const updateOrganizationRoute = defineRoute('patch', '/orgs/{organizationId}', () => ({
  operationId: 'updateOrganizationById',
  tags,
  summary: 'Update an organization (admins)',
  request: { params: OrgParams, ...jsonBody(UpdateOrganizationBody) },
  responses: { 200: jsonResponse(OrganizationSchema, 'The updated organization'), 409: jsonResponse(z.any(), 'Hostname taken') },
}));

const joinOrganizationRoute = defineRoute('post', '/orgs/{organizationId}/join', () => ({
  operationId: 'joinOrganization',
  tags,
  summary: "Join an organization that allows the caller's verified email domain",
  request: { params: OrgParams },
  responses: { 204: noContent('Joined (or already a member)') },
}));

const getOrganizationsForEmailDomainRoute = defineRoute('get', '/email-domains/{emailDomain}/orgs', () => ({
  operationId: 'getOrganizationsForEmailDomain',
  tags,
  summary: "Organizations that members of the caller's verified email domain can join",
  request: { params: z.object({ emailDomain: IdSchema('emailDomain') }) },
  responses: {
    200: jsonResponse(z.object({ organizations: z.array(OrganizationSchema) }), 'The organizations'),
  },
}));

const customHostnameTags = ['Custom hostnames'];
const CustomHostnameParams = z.object({
  hostname: z.string().min(1).max(254).openapi({ param: { name: 'hostname', in: 'path' }, description: 'The custom hostname, for example "docs.example.com"' }),
});

const getCustomHostnameRoute = defineRoute('get', '/custom-hostnames/{hostname}', () => ({
  operationId: 'getCustomHostname',
  tags: customHostnameTags,
  summary: "Get an organization's custom hostname, with the DNS TXT record that proves it (members)",
  request: { params: CustomHostnameParams },
  responses: { 200: jsonResponse(CustomHostnameSchema, 'The custom hostname') },
}));

const dnsRevalidateCustomHostnameRoute = defineRoute('patch', '/custom-hostnames/{hostname}', () => ({
  operationId: 'dnsRevalidateCustomHostname',
  tags: customHostnameTags,
  summary: 'Check the custom hostname\'s DNS TXT record now; once it holds the challenge, the hostname serves the site (admins)',
  request: { params: CustomHostnameParams },
  responses: {
    204: noContent('The TXT record holds the challenge: the custom hostname is active'),
    409: jsonResponse(z.any(), 'The TXT record does not hold the challenge (yet): the hostname stays pending'),
    502: jsonResponse(z.any(), 'The DNS resolver could not be queried'),
  },
}));

const removeCustomHostnameRoute = defineRoute('delete', '/custom-hostnames/{hostname}', () => ({
  operationId: 'removeCustomHostname',
  tags: customHostnameTags,
  summary: "Remove an organization's custom hostname (admins)",
  request: { params: CustomHostnameParams },
  responses: { 204: noContent('No organization of the caller has this custom hostname'), 205: noContent('The custom hostname has been removed') },
}));

/**
 * The caller's organization claiming `hostname` as its custom hostname, with the caller's rank there. Several
 * organizations may hold one name pending: only the caller's own claim is read (a verified one first), so nothing
 * tells a caller of other tenants' claims. An expired pending claim reads as none.
 */
async function customHostnameQuery(db: Db, hostname: string, userId: string) {
  const rank = orgRoleSql(organizations.id, userId);
  const row = await db
    .select({ org: organizations, rank })
    .from(organizations)
    .where(and(eq(organizations.customHostname, hostname.toLowerCase()), sql`${rank} is not null`))
    .orderBy(sql`${organizations.customHostnameVerifiedAt} is null`, organizations.id)
    .get();
  return row && claimStands(row.org) ? row : undefined;
}

/** The caller's organization claiming `hostname`, for a caller of at least `needed` there (404 otherwise). */
async function customHostnameOwner(db: Db, hostname: string, userId: string, needed: number) {
  const row = await customHostnameQuery(db, hostname, userId);
  if (!row || row.rank === null) throw new ApiError(404, 'Custom hostname not found');
  authorizeOrg(row.rank, needed);
  return row.org;
}

async function assertHostnameFree(db: Db, hostname: string, exceptOrgId?: string) {
  const taken = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.hostname, hostname)).get();
  if (taken && taken.id !== exceptOrgId) throw hostnameTaken(hostname);
}

const hostnameTaken = (hostname: string) => new ApiError(409, `Hostname "${hostname}" is already used by another organization`);

/**
 * Runs a write that sets a hostname or a custom hostname: a concurrent request that took it first makes the
 * unique index answer, which is a 409.
 */
async function withHostname<T>(hosts: { hostname?: string | null; customHostname?: string | null }, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (hosts.customHostname && isUniqueViolation(error, 'organizations.custom_hostname')) throw hostnameTaken(hosts.customHostname);
    if (hosts.hostname && isUniqueViolation(error, 'organizations.hostname')) throw hostnameTaken(hosts.hostname);
    throw error;
  }
}

/** The request's own host: never claimable, like the deployment's configured ones. */
const requestHost = (url: string) => new URL(url).hostname;

function checkLabel(env: Env, url: string, label: string | null | undefined) {
  const why = label ? labelRefusal(label, env, requestHost(url)) : null;
  if (why) throw badRequest(why);
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
    checkLabel(c.env, c.req.url, body.hostname);
    if (body.hostname) await assertHostnameFree(db, body.hostname);
    const now = nowIso();
    const row = {
      id: newId(),
      title: body.title,
      createdAt: now,
      emailDomains: [...new Set(body.emailDomains ?? [])],
      hostname: body.hostname ?? null,
      customHostname: null,
      customHostnameChallenge: null,
      customHostnameVerifiedAt: null,
      customHostnameClaimedAt: null,
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
    describeAuditEvent(c, { organizationId: row.id, target: { id: row.id, label: row.title } });
    await withHostname({ hostname: row.hostname }, () =>
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
    checkLabel(c.env, c.req.url, body.hostname);
    const customWhy = body.customHostname ? customHostnameRefusal(body.customHostname, c.env, requestHost(c.req.url)) : null;
    if (customWhy) throw badRequest(customWhy);
    // Membership, the hostnames' owners and the merge rules' non-members in one round trip;
    // a statement with nothing to check selects nothing.
    const [orgRows, hostnameOwners, customHostnameOwners, missing, defaultSite, activeProviders] = await db.batch([
      organizationQuery(db, organizationId, userId),
      db
        .select({ id: organizations.id })
        .from(organizations)
        .where(body.hostname ? eq(organizations.hostname, body.hostname) : sql`0`)
        .limit(1),
      db
        .select({ id: organizations.id })
        .from(organizations)
        // Only a verified claim holds a name: a pending one, however many, blocks nobody and is never told.
        .where(body.customHostname ? and(eq(organizations.customHostname, body.customHostname), isNotNull(organizations.customHostnameVerifiedAt)) : sql`0`)
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
    if (body.customHostname && customHostnameOwners.some((o) => o.id !== org.id)) throw hostnameTaken(body.customHostname);
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
      // A new custom hostname starts pending, with a new challenge; the same one again keeps its state while its
      // claim stands (an expired pending claim starts again, with a new challenge and period).
      ...(body.customHostname !== undefined &&
        (body.customHostname !== org.customHostname || (body.customHostname !== null && !claimStands(org))) && {
          customHostname: body.customHostname,
          customHostnameChallenge: body.customHostname ? newChallenge() : null,
          customHostnameVerifiedAt: null,
          customHostnameClaimedAt: body.customHostname ? nowIso() : null,
        }),
      ...(body.defaultRole !== undefined && { defaultRole: roleToRank(body.defaultRole) }),
      ...(body.defaultContent !== undefined && { defaultContent: body.defaultContent }),
      ...(body.logo !== undefined && { logo: body.logo }),
      ...(body.sso !== undefined && { sso: body.sso }),
      ...(body.ai !== undefined && { ai: body.ai }),
      ...(body.inviteLinks !== undefined && { inviteLinks: body.inviteLinks }),
      ...(body.mergeRules !== undefined && { mergeRules: body.mergeRules }),
    };
    // The same custom hostname again changes nothing.
    const updated =
      Object.keys(changes).length === 0
        ? org
        : await withHostname(body, () => db.update(organizations).set(changes).where(eq(organizations.id, org.id)).returning().get());
    return c.json(toOrganization(updated, rank, urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(joinOrganizationRoute, async (c) => {
    const userId = requireUser(c);
    const actor = c.get('actor') as { email: string; emailVerified: boolean };
    const { organizationId } = c.req.valid('param');
    const db = c.get('db');
    const row = await loadOrganization(db, organizationId, userId);
    // One answer for an unknown organization and one the caller may not join: a non-member learns nothing of it.
    const notJoinable = () =>
      new ApiError(404, `Organization not found, or it does not let members of your verified email's domain ("${emailDomain(actor.email)}") join`);
    if (!row) throw notJoinable();
    if (row.rank !== null) return c.body(null, 204);
    const { org } = row;
    if (!actor.emailVerified || !org.emailDomains.includes(emailDomain(actor.email))) throw notJoinable();
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
  })
  .openapi(getCustomHostnameRoute, async (c) => {
    const org = await customHostnameOwner(c.get('db'), c.req.valid('param').hostname, requireUser(c), RANK.guest);
    return c.json(toCustomHostname(org, challengeName(org.customHostname!), urlContext(c.req.url, c.env.APP_URL)), 200);
  })
  .openapi(dnsRevalidateCustomHostnameRoute, async (c) => {
    const db = c.get('db');
    const org = await customHostnameOwner(db, c.req.valid('param').hostname, requireUser(c), RANK.admin);
    const { customHostname: host, customHostnameChallenge: challenge } = org as { customHostname: string; customHostnameChallenge: string };
    if (org.customHostnameVerifiedAt) return c.body(null, 204);
    if (!(await challengeAnswered(c.env, host, challenge))) {
      throw new ApiError(409, `customHostname: the DNS TXT record ${challengeName(host)} does not hold "${challenge}" yet; "${host}" stays pending`);
    }
    describeAuditEvent(c, { organizationId: org.id, target: { id: host } });
    if (!(await takeCustomHostname(db, org.id, host, challenge))) throw hostnameTaken(host);
    return c.body(null, 204);
  })
  .openapi(removeCustomHostnameRoute, async (c) => {
    const db = c.get('db');
    const hostname = c.req.valid('param').hostname.toLowerCase();
    const row = await customHostnameQuery(db, hostname, requireUser(c));
    // Another organization's hostname reads as one that does not exist.
    if (!row || row.rank === null) return c.body(null, 204);
    authorizeOrg(row.rank, RANK.admin);
    describeAuditEvent(c, { organizationId: row.org.id, target: { id: hostname } });
    await db
      .update(organizations)
      .set({ customHostname: null, customHostnameChallenge: null, customHostnameVerifiedAt: null, customHostnameClaimedAt: null })
      .where(and(eq(organizations.id, row.org.id), eq(organizations.customHostname, hostname)));
    return c.body(null, 205);
  });
