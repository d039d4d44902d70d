import { X509Certificate } from 'node:crypto';
import { and, count, eq, sql, type SQL } from 'drizzle-orm';
import { runBatch, type BatchItem, type Db } from '../../db/client';
import { organizations, samlProviders, teams, type SamlProviderRow } from '../../db/schema';
import { ApiError, badRequest } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { afterCursor, keysetOrder, textCursor, type Cursor } from '../../lib/pagination';
import { RANK, roleToRank, type Role } from '../../lib/roles';
import { nowIso } from '../../lib/time';
import { NO_SSO_URL, type ProviderTeam } from '../../schemas/saml-provider';
import { orgRankQuery } from '../organizations/organizations';
import { authorizeOrg } from '../access/permissions';

/**
 * An organization's SAML identity providers (routes/sso/saml-providers): admins manage them; the login list
 * (active providers' start URLs) is public, as a login page shows it.
 */

export interface ProviderInput {
  label?: string;
  entityID?: string;
  certificate?: string;
  ssoURL?: string;
  defaultTeam?: string | null;
  defaultRole?: Role | null;
}

export type ProviderWithTeam = { provider: SamlProviderRow } & ProviderTeam;

const PEM_BODY = /^-----BEGIN CERTIFICATE-----\s*([A-Za-z0-9+/=\s]+?)\s*-----END CERTIFICATE-----\s*$/;

/**
 * The certificate as PEM, checked to be one parseable X.509 certificate (node:crypto's X509Certificate, which
 * workerd implements). An identity provider's metadata often gives only the base64 body: it is accepted and wrapped.
 */
export function normalizeCertificate(input: string): string {
  const text = input.trim();
  const body = (PEM_BODY.exec(text)?.[1] ?? text).replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) throw badRequest('certificate: must be an X.509 certificate in PEM form (-----BEGIN CERTIFICATE----- ...)');
  const pem = `-----BEGIN CERTIFICATE-----\n${body.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
  } catch {
    throw badRequest('certificate: is not a parseable X.509 certificate');
  }
  return pem;
}

/**
 * An https URL without credentials: where members' browsers are sent with an AuthnRequest. `NO_SSO_URL`, what a
 * provider without one reads, clears it (a client may send back what it read).
 */
export function checkSsoUrl(input: string): string {
  if (input === NO_SSO_URL) return '';
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw badRequest('ssoURL: must be an absolute https URL');
  }
  if (url.protocol !== 'https:') throw badRequest('ssoURL: must be an https URL');
  if (url.username || url.password) throw badRequest('ssoURL: must not contain credentials');
  return url.toString();
}

/** The columns a create or update writes, checked. */
function columnsOf(input: ProviderInput): Partial<typeof samlProviders.$inferInsert> {
  return {
    ...(input.label !== undefined && { label: input.label }),
    ...(input.entityID !== undefined && { entityId: input.entityID }),
    ...(input.certificate !== undefined && { certificate: normalizeCertificate(input.certificate) }),
    ...(input.ssoURL !== undefined && { ssoUrl: checkSsoUrl(input.ssoURL) }),
    ...(input.defaultTeam !== undefined && { defaultTeamId: input.defaultTeam }),
    ...(input.defaultRole !== undefined && { defaultRole: roleToRank(input.defaultRole) }),
  };
}

/** Providers with their default team and its counts, as one selection. */
function providerSelection(db: Db) {
  return db
    .select({
      provider: samlProviders,
      // Aliased: a batch keys a row's values by column name, and the provider has an id and dates too.
      team: {
        id: sql<string>`${teams.id}`.as('team_id'),
        orgId: sql<string>`${teams.orgId}`.as('team_org_id'),
        title: sql<string>`${teams.title}`.as('team_title'),
        createdAt: sql<string>`${teams.createdAt}`.as('team_created_at'),
      },
      teamMembers: sql<number>`(select count(*) from team_members tm where tm.team_id = ${samlProviders.defaultTeamId})`,
      teamSpaces: sql<number>`(select count(*) from space_team_grants g join spaces s on s.id = g.space_id
        where g.team_id = ${samlProviders.defaultTeamId} and s.deleted_at is null)`,
    })
    .from(samlProviders)
    .leftJoin(teams, eq(teams.id, samlProviders.defaultTeamId));
}

const providerOf = (db: Db, orgId: string, providerId: string) =>
  providerSelection(db).where(and(eq(samlProviders.orgId, orgId), eq(samlProviders.id, providerId))).limit(1);

/** A team of the organization, or nothing: the `defaultTeam` check, batched with the request's reads. */
const teamOfOrg = (db: Db, orgId: string, teamId: string | null | undefined) =>
  db
    .select({ id: teams.id })
    .from(teams)
    .where(teamId ? and(eq(teams.id, teamId), eq(teams.orgId, orgId)) : sql`0`)
    .limit(1);

function checkTeam(input: ProviderInput, found: { id: string }[]) {
  if (input.defaultTeam && found.length === 0) throw badRequest(`defaultTeam: no team "${input.defaultTeam}" in this organization`);
}

/**
 * An organization that enforces SSO keeps it only while it has an active provider: after a provider is deleted
 * or loses part of its configuration, `sso` is turned off rather than left claiming a login nobody can use.
 */
function dropSsoWithoutActiveProvider(db: Db, orgId: string) {
  return db
    .update(organizations)
    .set({ sso: false })
    .where(
      and(
        eq(organizations.id, orgId),
        eq(organizations.sso, true),
        sql`not exists (select 1 from saml_providers p where p.org_id = ${orgId}
          and p.entity_id <> '' and p.certificate <> '' and p.sso_url <> '')`,
      ),
    );
}

/** The admin check on `orgRankQuery`'s rows (non-members 404, others 403). */
function checkAdmin(rows: { rank: number | null }[]) {
  authorizeOrg(rows[0]?.rank, RANK.admin);
}

const notFound = () => new ApiError(404, 'SAML provider not found');

export async function listProviders(db: Db, orgId: string, userId: string, page: { cursor: Cursor | null; limit: number }) {
  const ofOrg = eq(samlProviders.orgId, orgId);
  const [rankRows, rows, [{ total }]] = await runBatch(db, [
    orgRankQuery(db, orgId, userId),
    providerSelection(db)
      .where(and(ofOrg, afterCursor(textCursor(page.cursor), samlProviders.createdAt, samlProviders.id)))
      .orderBy(...keysetOrder(samlProviders.createdAt, samlProviders.id))
      .limit(page.limit + 1),
    db.select({ total: count() }).from(samlProviders).where(ofOrg),
  ] as BatchItem[]) as [{ rank: number | null }[], ProviderWithTeam[], { total: number }[]];
  checkAdmin(rankRows);
  return { rows, total };
}

export async function getProvider(db: Db, orgId: string, userId: string, providerId: string): Promise<ProviderWithTeam> {
  const [rankRows, rows] = await db.batch([orgRankQuery(db, orgId, userId), providerOf(db, orgId, providerId)]);
  checkAdmin(rankRows);
  if (!rows[0]) throw notFound();
  return rows[0];
}

export async function createProvider(db: Db, orgId: string, userId: string, input: ProviderInput & { label: string }): Promise<ProviderWithTeam> {
  const columns = columnsOf(input);
  const [rankRows, team] = await db.batch([orgRankQuery(db, orgId, userId), teamOfOrg(db, orgId, input.defaultTeam)]);
  checkAdmin(rankRows);
  checkTeam(input, team);
  const id = newId();
  const now = nowIso();
  const [, rows] = await db.batch([
    db.insert(samlProviders).values({ defaultRole: RANK.read, ...columns, id, orgId, label: input.label, createdAt: now, updatedAt: now }),
    providerOf(db, orgId, id),
  ]);
  return rows[0];
}

export async function updateProvider(db: Db, orgId: string, userId: string, providerId: string, input: ProviderInput): Promise<ProviderWithTeam> {
  const columns = columnsOf(input);
  const [rankRows, team, existing] = await db.batch([
    orgRankQuery(db, orgId, userId),
    teamOfOrg(db, orgId, input.defaultTeam),
    db.select({ id: samlProviders.id }).from(samlProviders).where(and(eq(samlProviders.orgId, orgId), eq(samlProviders.id, providerId))),
  ]);
  checkAdmin(rankRows);
  if (existing.length === 0) throw notFound();
  checkTeam(input, team);
  const [, , rows] = await db.batch([
    db
      .update(samlProviders)
      .set({ ...columns, updatedAt: nowIso() })
      .where(and(eq(samlProviders.orgId, orgId), eq(samlProviders.id, providerId))),
    dropSsoWithoutActiveProvider(db, orgId),
    providerOf(db, orgId, providerId),
  ]);
  if (!rows[0]) throw notFound();
  return rows[0];
}

/** Deletes the provider (with its pending AuthnRequests); absent or not, the answer is the same. */
export async function deleteProvider(db: Db, orgId: string, userId: string, providerId: string): Promise<void> {
  checkAdmin(await orgRankQuery(db, orgId, userId).all());
  await db.batch([
    db.delete(samlProviders).where(and(eq(samlProviders.orgId, orgId), eq(samlProviders.id, providerId))),
    dropSsoWithoutActiveProvider(db, orgId),
  ]);
}

/** The organization's active providers, for its login page: `{id, label}` (no membership needed). */
export async function providerLogins(db: Db, orgId: string) {
  const [org, rows] = await db.batch([
    db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, orgId)).limit(1),
    db
      .select({ id: samlProviders.id, label: samlProviders.label })
      .from(samlProviders)
      .where(and(eq(samlProviders.orgId, orgId), activeProvider()))
      .orderBy(...keysetOrder(samlProviders.createdAt, samlProviders.id)),
  ]);
  if (org.length === 0) throw new ApiError(404, 'Organization not found');
  return rows;
}

/** A provider with everything a login needs. */
export function activeProvider(): SQL {
  return sql`${samlProviders.entityId} <> '' and ${samlProviders.certificate} <> '' and ${samlProviders.ssoUrl} <> ''`;
}

/** Whether the organization has an active provider: `sso: true` is accepted only then (routes/organizations). */
export function activeProviderQuery(db: Db, orgId: string) {
  return db.select({ id: samlProviders.id }).from(samlProviders).where(and(eq(samlProviders.orgId, orgId), activeProvider())).limit(1);
}
