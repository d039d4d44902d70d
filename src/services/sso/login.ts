import { and, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import { rowWhere, type BatchItem, type Db } from '../../db/client';
import { orgEmailInvites, orgMembers, organizations, samlProviders, samlRequests, teamMembers, users, type SamlProviderRow } from '../../db/schema';
import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { newId, randomBase62 } from '../../lib/ids';
import { RANK } from '../../lib/roles';
import { DAY_MS } from '../../lib/time';
import { providerStatus, samlServiceUrls } from '../../schemas/saml-provider';
import { membersCapGuard, runWithinMembersCap } from '../organizations/members';
import { issueToken } from '../identity/users';
import { isUniqueViolation } from '../organizations/organizations';
import { activeProvider } from './providers';
import { SamlRefusal, buildAuthnRequest, newRequestId, redirectUrl, verifySamlResponse, type ServiceProvider } from './saml';

/**
 * The SAML login (routes/sso/saml-login) around the protocol of services/sso/saml: the AuthnRequests sent (the
 * `saml_requests` table: a response must answer one of them, once), and the user, membership and token a verified
 * response gives.
 */

/** How long an AuthnRequest can be answered. */
export const SAML_REQUEST_TTL_MS = 10 * 60 * 1000;

export interface LoginProvider {
  provider: SamlProviderRow;
  organization: string;
}

/** This deployment as the service provider of one identity provider; `base` is `samlBaseUrl`'s. */
export function serviceProvider(base: string, providerId: string): ServiceProvider {
  const urls = samlServiceUrls(base, providerId);
  return { entityId: urls.entityID, acsUrl: urls.acsURL };
}

const providerWithOrganization = (db: Db, providerId: string) =>
  db
    .select({ provider: samlProviders, organization: organizations.title })
    .from(samlProviders)
    .innerJoin(organizations, eq(organizations.id, samlProviders.orgId))
    .where(eq(samlProviders.id, providerId))
    .limit(1);

/** A provider (active or pending) with its organization's title; none: null. */
export async function findProvider(db: Db, providerId: string): Promise<LoginProvider | null> {
  return (await providerWithOrganization(db, providerId).get()) ?? null;
}

const notFound = () => new SamlRefusal(404, 'This single sign-on login does not exist or is not configured yet');

/**
 * Records an AuthnRequest for an active provider and answers where to send the browser (the provider's ssoURL with
 * SAMLRequest and RelayState). One round trip: the request row is inserted only if the provider is active, in the
 * batch that reads it. An unknown or pending provider: a 404 refusal.
 */
export async function startLogin(db: Db, input: { providerId: string; base: string; now: Date }): Promise<string> {
  const { providerId, now } = input;
  const request = {
    id: newRequestId(),
    providerId,
    relayState: randomBase62(32),
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + SAML_REQUEST_TTL_MS).toISOString(),
    consumedAt: null,
  };
  const isActive = sql`exists (select 1 from saml_providers where ${samlProviders.id} = ${providerId} and ${activeProvider()})`;
  const [, rows] = await db.batch([db.insert(samlRequests).select(rowWhere(samlRequests, request, isActive)), providerWithOrganization(db, providerId)]);
  const found = rows[0];
  if (!found || providerStatus(found.provider) !== 'active') throw notFound();
  const authnRequest = buildAuthnRequest({ id: request.id, issueInstant: now, sp: serviceProvider(input.base, providerId), ssoUrl: found.provider.ssoUrl });
  return redirectUrl(found.provider.ssoUrl, authnRequest, request.relayState);
}

export interface LoginResult {
  token: string;
  email: string;
  organization: string;
  provider: string;
}

/**
 * The ACS: verifies the response (services/sso/saml), consumes the AuthnRequest it answers with its RelayState
 * (atomically: a replay or a second response finds it consumed; a wrong RelayState leaves it pending), finds or
 * creates this provider's user of the email (an SSO user is its provider's identity: a normal account or another
 * provider's user of the same email is another user, never looked at), makes them a member (under the members cap)
 * and a member of the default team, and issues a token. Four round trips: the provider; the request with the user and
 * their membership; the user, membership and team writes (one transaction); the token.
 */
export async function completeLogin(
  env: Env,
  db: Db,
  input: { providerId: string; base: string; samlResponse: string; relayState: string | null; now: Date },
): Promise<LoginResult> {
  const { providerId, now } = input;
  const found = await findProvider(db, providerId);
  if (!found || providerStatus(found.provider) !== 'active') throw notFound();
  const { provider } = found;
  const assertion = verifySamlResponse(input.samlResponse, {
    sp: serviceProvider(input.base, providerId),
    idp: { entityId: provider.entityId, certificate: provider.certificate },
    now,
  });
  const nowIso = now.toISOString();
  // The user is this provider's user of the email: an SSO user is an identity of its provider, never another
  // account with the same email (a normal account, or another provider's user), which is neither looked at nor named.
  const ownUser = and(eq(users.ssoProviderId, providerId), eq(users.email, assertion.email));
  const ofRequest = and(eq(samlRequests.id, assertion.inResponseTo), eq(samlRequests.providerId, providerId));
  const pending = and(ofRequest, isNull(samlRequests.consumedAt), gt(samlRequests.expiresAt, nowIso));
  const [consumed, requestRows, userRows, memberRows, inviteRows] = await db.batch([
    // The RelayState is part of the match: a response posted with another one leaves the request pending.
    db
      .update(samlRequests)
      .set({ consumedAt: nowIso })
      .where(and(pending, eq(samlRequests.relayState, input.relayState ?? '')))
      .returning({ id: samlRequests.id }),
    // Read after the update: whether the request is still pending (then the RelayState was not its own).
    db.select({ id: samlRequests.id }).from(samlRequests).where(pending).limit(1),
    db.select({ id: users.id }).from(users).where(ownUser).limit(1),
    db
      .select({ disabled: orgMembers.disabled })
      .from(orgMembers)
      .innerJoin(users, eq(users.id, orgMembers.userId))
      .where(and(eq(orgMembers.orgId, provider.orgId), ownUser))
      .limit(1),
    db
      .select({ role: orgEmailInvites.role })
      .from(orgEmailInvites)
      .where(and(eq(orgEmailInvites.orgId, provider.orgId), eq(orgEmailInvites.email, assertion.email)))
      .limit(1),
  ]);
  if (!consumed[0]) {
    if (requestRows[0]) throw new SamlRefusal(403, 'The RelayState does not match the login request');
    throw new SamlRefusal(403, 'This SAML response answers no pending login request of this provider: the request is unknown, expired, or was already used (a response is accepted once)');
  }

  if (memberRows[0]?.disabled) throw new SamlRefusal(403, `Your membership of ${found.organization} is disabled: ask an administrator`);
  const context = { env, db, provider, organization: found.organization, assertion, inviteRole: inviteRows[0]?.role ?? null, nowIso };
  let userId: string;
  try {
    userId = await joinAsUser(context, userRows[0]?.id ?? null);
  } catch (error) {
    // Two first logins of one new user at once: the other one created the user; join as that user.
    if (!isUniqueViolation(error, 'users.email')) throw error;
    const created = await db.select({ id: users.id }).from(users).where(ownUser).get();
    if (!created) throw error;
    userId = await joinAsUser(context, created.id);
  }
  const { token } = await issueToken(db, userId, `SAML login: ${provider.label}`);
  return { token, email: assertion.email, organization: found.organization, provider: provider.label };
}

interface JoinContext {
  env: Env;
  db: Db;
  provider: SamlProviderRow;
  organization: string;
  assertion: { email: string; displayName: string };
  inviteRole: number | null;
  nowIso: string;
}

/**
 * Creates this provider's user when new and makes them a member (and of the default team) under the members cap,
 * in one transaction. Answers the user's id.
 */
async function joinAsUser(context: JoinContext, existingId: string | null): Promise<string> {
  const { env, db, provider, assertion, nowIso } = context;
  const userId = existingId ?? newId();
  const guard = membersCapGuard(db, env, provider.orgId, [userId]);
  const statements: BatchItem[] = [];
  if (!existingId) {
    statements.push(
      db.insert(users).select(
        rowWhere(
          users,
          // Not verified: the deployment does not vouch for an email an organization's identity provider asserts, so
          // the user joins no other organization by it (email domains, email invitations).
          { id: userId, displayName: assertion.displayName, email: assertion.email, emailVerified: false, photoURL: null, createdAt: nowIso, ssoProviderId: provider.id },
          guard.when,
        ),
      ),
    );
  }
  // A member keeps their role; a newcomer gets the invitation's role if one is held for them, else the provider's.
  statements.push(guard.insert({ orgId: provider.orgId, userId, role: context.inviteRole ?? provider.defaultRole ?? RANK.guest, joinedAt: nowIso, sso: true }));
  statements.push(
    db
      .delete(orgEmailInvites)
      .where(
        and(
          eq(orgEmailInvites.orgId, provider.orgId),
          eq(orgEmailInvites.email, assertion.email),
          sql`exists (select 1 from org_members m where m.org_id = ${provider.orgId} and m.user_id = ${userId})`,
        ),
      ),
  );
  if (provider.defaultTeamId) {
    const teamExists = sql`exists (select 1 from teams t where t.id = ${provider.defaultTeamId} and t.org_id = ${provider.orgId})`;
    statements.push(
      db
        .insert(teamMembers)
        .select(rowWhere(teamMembers, { teamId: provider.defaultTeamId, userId, isOwner: false, addedAt: nowIso }, and(guard.when, teamExists)!))
        .onConflictDoNothing(),
    );
  }
  try {
    await runWithinMembersCap(env, db, guard, statements);
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) {
      throw new SamlRefusal(403, `${context.organization} cannot take more members: ${error.message}`);
    }
    throw error;
  }
  return userId;
}

/** Cron: deletes the AuthnRequests that expired more than a day ago (answered or not). Answers how many. */
export async function purgeExpiredSamlRequests(db: Db, now: Date = new Date()): Promise<number> {
  const before = new Date(now.getTime() - DAY_MS).toISOString();
  const result = await db.delete(samlRequests).where(lt(samlRequests.expiresAt, before)).run();
  return result.meta.changes ?? 0;
}
