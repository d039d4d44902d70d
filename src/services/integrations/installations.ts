import { and, count, eq, getTableColumns, isNull, sql, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Context } from 'hono';
import type { Db } from '../../db/client';
import { integrationInstallations, integrations } from '../../db/schema';
import type { Actor, AppBindings } from '../../env';
import { ApiError } from '../../lib/errors';
import { RANK } from '../../lib/roles';
import type { InstallationRow } from '../../schemas/integration-installation';
import { orgRoleSql } from '../access/access';
import { actorUserId, integrationAccess, type IntegrationAccess, type IntegrationRow } from './access';
import { insertEvent } from './events';
import { spaceRoleForScopes } from './scopes';
import { cspGrants } from './site-scripts';
import { SITE_TOKEN_REFUSED } from '../sites/site-token';

/**
 * Installations of integrations: loading one with what the caller may do with it, what it covers, and the
 * events its changes emit (its spaces and sites, and the lists of them: content-installations.ts).
 *
 * Who may do what with an installation:
 * - see it: the admins of its organization, the integration's admins (admins of the organization that
 *   publishes it, and its integration token) and the installation's own tokens;
 * - change it (configuration, external ids, selections, the spaces and sites it is installed on): the
 *   admins of its organization, the integration token and the installation's own tokens (and, for one
 *   space, that space's admins); only those admins widen what it reaches (`refuseWidening`), the tokens
 *   only narrow it;
 * - approve the scopes and the Content-Security-Policy sources (for site scripts) a new version of its
 *   integration asks for (`pending` until then): the admins of its organization, by installing it again
 *   (`approveScopes`);
 * - uninstall it: the admins of its organization;
 * - issue installation tokens: the integration's admins.
 * Everyone else reads it as not found.
 */

/** The caller of an installation route: a user, or an integration's token (the operator and visitors are no callers). */
export type InstallationCaller = Extract<Actor, { kind: 'user' | 'integration' | 'installation' }>;

export function installationCaller(c: Context<AppBindings>): InstallationCaller {
  const actor = c.get('actor');
  if (actor.kind === 'visitor') throw new ApiError(401, 'Missing API token: send "Authorization: Bearer <token>"');
  if (actor.kind === 'operator') throw new ApiError(403, 'This operation needs a user API token, not the operator token');
  if (actor.kind === 'site') throw new ApiError(403, SITE_TOKEN_REFUSED);
  return actor;
}

const col = (table: string, column: string) => sql.raw(`"${table}"."${column}"`);

/**
 * Every column of `table`, selected as `<prefix>_<column>` (and decoded as the column is). Tables joined
 * in one select share column names (id, status, created_at), and a batch answers each row as an object
 * keyed by column name, where the second of two equal names would overwrite the first. Only for tables
 * that are not outer-joined: a left-joined table keeps its own columns, so a missing row reads as null.
 */
export function prefixedColumns<T extends SQLiteTable>(table: T, prefix: string): T['_']['columns'] {
  return Object.fromEntries(
    Object.entries(getTableColumns(table)).map(([key, column]) => [key, sql`${column}`.mapWith(column).as(`${prefix}_${column.name}`)]),
  ) as unknown as T['_']['columns'];
}

const II = {
  id: col('integration_installations', 'id'),
  integrationId: col('integration_installations', 'integration_id'),
  orgId: col('integration_installations', 'org_id'),
  spaceSelection: col('integration_installations', 'space_selection'),
};

/** True where `userId` is an (enabled) admin of the organization `orgId` (a column or a value). */
function isOrgAdminSql(orgId: SQL | string, userId: string): SQL {
  return sql`exists (select 1 from org_members m where m.org_id = ${orgId} and m.user_id = ${userId} and m.role = ${RANK.admin} and m.disabled = 0)`;
}

/** The (published) integration of this name, as a subquery of its id. */
export const integrationIdByNameSql = (name: string) => sql`(select i.id from integrations i where i.name = ${name} and i.deleted_at is null)`;

/** The installations (rows of `integration_installations` in the query) the caller may see, as a filter. */
export function visibleInstallationsSql(actor: InstallationCaller): SQL {
  if (actor.kind === 'integration') return sql`${II.integrationId} = ${actor.integrationId}`;
  if (actor.kind === 'installation') return sql`${II.id} = ${actor.grant.installationId}`;
  return sql`(${isOrgAdminSql(II.orgId, actor.userId)} or exists (select 1 from integrations oi
      join org_members om on om.org_id = oi.owner_org_id and om.user_id = ${actor.userId} and om.role = ${RANK.admin} and om.disabled = 0
    where oi.id = ${II.integrationId}))`;
}

/**
 * The installations of the integration `options.name` the caller may see (only `options.installationId`
 * if given: its visibility is checked by the caller), as filters on `integration_installations`.
 */
export function installationFilters(actor: InstallationCaller, options: { name: string; installationId?: string }): SQL[] {
  const filters = [sql`${II.integrationId} = ${integrationIdByNameSql(options.name)}`, visibleInstallationsSql(actor)];
  if (options.installationId !== undefined) filters.push(sql`${II.id} = ${options.installationId}`);
  return filters;
}

/**
 * How many spaces an installation (a row of `integration_installations` in the query) covers: every live
 * space of its organization, or the live ones it was installed on.
 */
export const coveredSpacesSql = sql<number>`case when ${II.spaceSelection} = 'all'
    then (select count(*) from spaces cs where cs.org_id = ${II.orgId} and cs.deleted_at is null)
    else (select count(*) from integration_space_installations csi join spaces cs on cs.id = csi.space_id
      where csi.installation_id = ${II.id} and cs.deleted_at is null) end`;

/**
 * The published integration of this name with the caller's role in its owner organization, and its
 * installation `installationId` (if any) with the caller's role in the installing organization and the
 * number of spaces it covers: one statement, for the caller's batch.
 */
export function installationQuery(db: Db, name: string, installationId: string, actor: InstallationCaller) {
  const userId = actorUserId(actor)!;
  return db
    .select({
      integration: prefixedColumns(integrations, 'i'),
      ownerRank: orgRoleSql(integrations.ownerOrgId, userId).as('owner_rank'),
      installation: integrationInstallations,
      orgRank: orgRoleSql(integrationInstallations.orgId, userId).as('org_rank'),
      spaces: coveredSpacesSql.as('covered_spaces'),
    })
    .from(integrations)
    .leftJoin(integrationInstallations, and(eq(integrationInstallations.integrationId, integrations.id), eq(integrationInstallations.id, installationId)))
    .where(and(eq(integrations.name, name), isNull(integrations.deletedAt)));
}

export type InstallationQueryRow = {
  integration: IntegrationRow;
  ownerRank: number | null;
  installation: InstallationRow | null;
  orgRank: number | null;
  spaces: number | null;
};

export interface InstallationRights {
  /** May see the installation. */
  view: boolean;
  /** May change it: configuration, external ids, selections, the spaces and sites it is installed on. */
  change: boolean;
  /** A user who administers the installing organization (may uninstall). */
  orgAdmin: boolean;
  /** The integration's own token, or this installation's token. */
  self: boolean;
}

export interface LoadedInstallation {
  integration: IntegrationRow;
  access: IntegrationAccess;
  installation: InstallationRow;
  /** The caller's role rank in the installing organization (null: not a member). */
  orgRank: number | null;
  spaces: number;
  rights: InstallationRights;
}

export function installationRights(actor: InstallationCaller, integration: IntegrationRow, access: IntegrationAccess, installation: InstallationRow, orgRank: number | null): InstallationRights {
  const self =
    (actor.kind === 'integration' && actor.integrationId === integration.id) ||
    (actor.kind === 'installation' && actor.grant.installationId === installation.id);
  const orgAdmin = actor.kind === 'user' && orgRank === RANK.admin;
  const change = orgAdmin || self;
  return { view: change || access.admin, change, orgAdmin, self };
}

export const installationNotFound = () => new ApiError(404, 'Installation not found');

/**
 * The installation of `installationQuery`'s rows with the caller's rights; 404 when the integration or the
 * installation does not exist (whether the caller may see it is for the route to say: `requireVisible`).
 */
export function installationFrom(actor: InstallationCaller, rows: InstallationQueryRow[]): LoadedInstallation {
  const row = rows[0];
  if (!row) throw new ApiError(404, 'No matching integration');
  const access = integrationAccess(actor, row.integration, row.ownerRank);
  if (!row.installation) throw installationNotFound();
  const rights = installationRights(actor, row.integration, access, row.installation, row.orgRank);
  return { integration: row.integration, access, installation: row.installation, orgRank: row.orgRank, spaces: row.spaces ?? 0, rights };
}

/** `installationFrom`, 404 unless the caller may see the installation. */
export function requireVisible(actor: InstallationCaller, rows: InstallationQueryRow[]): LoadedInstallation {
  const loaded = installationFrom(actor, rows);
  if (!loaded.rights.view) throw installationNotFound();
  return loaded;
}

/** 403 unless the caller may change the installation (it can see it). */
export function requireChange(rights: { change: boolean }): void {
  if (!rights.change) throw new ApiError(403, "Only the installing organization's admins and the integration itself may change this installation");
}

/** Which installation targets an integration's `target` admits. */
export function assertTarget(integration: IntegrationRow, kind: 'space' | 'site'): void {
  if (integration.target !== 'all' && integration.target !== kind) {
    throw new ApiError(400, `This integration cannot be installed on ${kind}s (its target is ${integration.target})`);
  }
}

// ---------------------------------------------------------------------------------------------
// Events

type InstallationRef = Pick<InstallationRow, 'id' | 'integrationId' | 'orgId'>;

/** One event of an installation, for the batch that makes the change it reports. */
export function installationEvent(db: Db, installation: InstallationRef, payload: { type: string } & Record<string, unknown>, now: string, when?: SQL) {
  return insertEvent(
    db,
    { integrationId: installation.integrationId, installationId: installation.id, orgId: installation.orgId, payload: { ...payload, installationId: installation.id } },
    now,
    when,
  );
}

/**
 * Widening what an installation reaches (selecting all spaces or sites, installing it on one more) is the
 * installing organization's consent: only its admins (and, for one space, that space's admins) give it.
 * The integration's own token is no such consent: the runtime hands it to the integration's script on
 * every event and public request, so its publisher holds it. It and the installation's tokens may only
 * narrow (remove a space or site, select fewer).
 */
export function refuseWidening(actor: Actor, what: string): void {
  if (actor.kind !== 'integration' && actor.kind !== 'installation') return;
  const who = actor.kind === 'integration' ? "The integration's own token" : 'An installation token';
  throw new ApiError(403, `${who} cannot ${what}: only the admins of the installing organization widen what an installation reaches`);
}

/** A selection change widens when it selects all where the installation had selected some. */
export const widensSelection = (before: string, after: string | undefined) => after === 'all' && before !== 'all';

/**
 * An admin's consent to what the integration asks for now (`installIntegration` on an organization where
 * it is installed and `pending`): the installation approves exactly the scopes that admin was shown (the
 * integration at `version`) and becomes active again, with its `installation_setup` event. Both apply only
 * while it is still pending and the integration still at that version: a publish in between, or a
 * concurrent approval, leaves the rows untouched (the route answers 409). Statements for one batch: the
 * event first, guarded by the same condition as the update after it.
 */
export function approveScopes(db: Db, integration: Pick<IntegrationRow, 'id' | 'version' | 'scopes' | 'contentSecurityPolicy'>, installation: InstallationRow, now: string) {
  const guard = and(
    eq(integrationInstallations.id, installation.id),
    eq(integrationInstallations.status, 'pending'),
    sql`exists (select 1 from integrations i where i.id = ${integration.id} and i.version = ${integration.version} and i.deleted_at is null)`,
  );
  const approved: Partial<InstallationRow> = {
    approvedScopes: integration.scopes,
    approvedCsp: cspGrants(integration.contentSecurityPolicy),
    spaceRole: spaceRoleForScopes(integration.scopes),
    status: 'active',
    updatedAt: now,
  };
  const event = installationEvent(
    db,
    installation,
    { type: 'installation_setup', status: 'active', previous: previousState(installation.status, installation.configuration) },
    now,
    sql`exists (select 1 from integration_installations where ${guard})`,
  );
  const update = db.update(integrationInstallations).set(approved).where(guard).returning({ id: integrationInstallations.id });
  return { event, update, approved };
}

/** `previous` of a setup event: the state before the change. */
export const previousState = (status: string, configuration: Record<string, unknown>) => ({ status, configuration });

/**
 * The `count` of listOrganizationInstallations without a search, at a cost independent of the organization's size
 * (issue 42, item 5): the organization's installation counter (migration 0011, `installationCount`) less this
 * query's answer, its installations of unpublished integrations (a tombstone's are not listed). Unpublishing
 * deletes an integration's installations in its own transaction, so this is 0 unless a row escaped it; it reads
 * the partial index of unpublished integrations (migration 0130) and each one's installation in this organization
 * (`+org_id`: through the organization's index SQLite would read every installation of the organization).
 */
export function unpublishedInstallationsQuery(db: Db, orgId: string) {
  return db
    .select({ total: count() })
    .from(integrations)
    .innerJoin(integrationInstallations, and(eq(integrationInstallations.integrationId, integrations.id), sql`+${integrationInstallations.orgId} = ${orgId}`))
    .where(sql`${integrations.deletedAt} is not null`);
}
