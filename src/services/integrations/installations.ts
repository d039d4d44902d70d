import { and, count, eq, getTableColumns, isNull, sql, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Context } from 'hono';
import type { Db } from '../../db/client';
import { integrationInstallations, integrations, integrationSiteInstallations, integrationSpaceInstallations, sites, spaces } from '../../db/schema';
import type { Actor, AppBindings } from '../../env';
import { ApiError } from '../../lib/errors';
import { afterCursor, encodeCursor, type Cursor, type Page } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import type { InstallationRow, SiteInstallationRow, SpaceInstallationRow } from '../../schemas/integration-installation';
import { orgRoleSql, spaceRoleSql } from '../access';
import type { SiteRow } from '../sites/model';
import type { SpaceRow } from '../spaces';
import { actorUserId, integrationAccess, type IntegrationAccess, type IntegrationRow } from './access';
import { insertEvent } from './events';

/**
 * Installations of integrations: loading one with what the caller may do with it, what it covers, the
 * lists of the spaces and sites it covers, and the events its changes emit.
 *
 * Who may do what with an installation:
 * - see it: the admins of its organization, the integration's admins (admins of the organization that
 *   publishes it, and its integration token) and the installation's own tokens;
 * - change it (configuration, external ids, selections, the spaces and sites it is installed on): the
 *   admins of its organization, the integration token and the installation's own tokens (and, for one
 *   space, that space's admins);
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
// One space or site of an installation

/** A space with the caller's role on it and the installation's own row for it, if any (for the caller's batch). */
export function spaceTargetQuery(db: Db, installationId: string, spaceId: string, actor: InstallationCaller) {
  return db
    .select({ space: prefixedColumns(spaces, 's'), rank: spaceRoleSql(actorUserId(actor)!).as('space_rank'), own: integrationSpaceInstallations })
    .from(spaces)
    .leftJoin(
      integrationSpaceInstallations,
      and(eq(integrationSpaceInstallations.installationId, installationId), eq(integrationSpaceInstallations.spaceId, spaces.id)),
    )
    .where(eq(spaces.id, spaceId));
}

export type SpaceTargetRow = { space: SpaceRow; rank: number; own: SpaceInstallationRow | null };

/** A site with its site space count and the installation's own row for it, if any (for the caller's batch). */
export function siteTargetQuery(db: Db, installationId: string, siteId: string) {
  return db
    .select({ site: prefixedColumns(sites, 's'), siteSpaces: siteSpaceCountSql.as('site_spaces'), own: integrationSiteInstallations })
    .from(sites)
    .leftJoin(
      integrationSiteInstallations,
      and(eq(integrationSiteInstallations.installationId, installationId), eq(integrationSiteInstallations.siteId, sites.id)),
    )
    .where(eq(sites.id, siteId));
}

export type SiteTargetRow = { site: SiteRow; siteSpaces: number; own: SiteInstallationRow | null };

const siteSpaceCountSql = sql<number>`(select count(*) from site_spaces ss where ss.site_id = ${col('sites', 'id')})`;

export interface SpaceTarget {
  space: SpaceRow;
  /** The caller's role on the space. */
  rank: number;
  own: SpaceInstallationRow | null;
  /** The installation covers the space: installed on it, or on all of its organization's spaces. */
  covered: boolean;
  /** The caller may change the installation on this space: its admins, and whoever may change the installation. */
  change: boolean;
}

/**
 * The space of a space installation route: 404 unless the caller may see the installation or administers
 * the space, and unless it is a live space of the installing organization.
 */
export function requireSpaceTarget(actor: InstallationCaller, loaded: LoadedInstallation, rows: SpaceTargetRow[]): SpaceTarget {
  const row = rows[0];
  const inOrg = !!row && row.space.orgId === loaded.installation.orgId && !row.space.deletedAt;
  const rank = inOrg ? row.rank : 0;
  const change = loaded.rights.self || (actor.kind === 'user' && rank >= RANK.admin);
  if (!change && !loaded.rights.view) throw installationNotFound();
  if (!inOrg) throw new ApiError(404, 'Space not found');
  const covered = row.own !== null || loaded.installation.spaceSelection === 'all';
  return { space: row.space, rank, own: row.own, covered, change };
}

export interface SiteTarget {
  site: SiteRow;
  siteSpaces: number;
  own: SiteInstallationRow | null;
  covered: boolean;
  /** Sites are administered by their organization's admins: whoever may change the installation. */
  change: boolean;
}

export function requireSiteTarget(loaded: LoadedInstallation, rows: SiteTargetRow[]): SiteTarget {
  if (!loaded.rights.view) throw installationNotFound();
  const row = rows[0];
  if (!row || row.site.orgId !== loaded.installation.orgId) throw new ApiError(404, 'Site not found');
  const covered = row.own !== null || loaded.installation.siteSelection === 'all';
  return { site: row.site, siteSpaces: row.siteSpaces, own: row.own, covered, change: loaded.rights.change };
}

// ---------------------------------------------------------------------------------------------
// Lists of the spaces and sites installations cover

export interface CoverageListOptions {
  /** The integration's name. */
  name: string;
  /** Only this installation's (its visibility is checked by the route). */
  installationId?: string;
  externalId?: string;
  cursor: Cursor | null;
  limit: number;
}

const externalIdSql = (column: SQL, externalId: string) => sql`exists (select 1 from json_each(${column}) where json_each.value = ${externalId})`;

function installationFilters(actor: InstallationCaller, options: CoverageListOptions): SQL[] {
  const filters = [sql`${II.integrationId} = ${integrationIdByNameSql(options.name)}`, visibleInstallationsSql(actor)];
  if (options.installationId !== undefined) filters.push(sql`${II.id} = ${options.installationId}`);
  return filters;
}

/**
 * The space installations visible to the caller, in (installation, space) order: the spaces installations
 * were installed on, and every live space of the organizations of those that select all of them. Two
 * branches, each walking its own index, merged by `coveragePage`: 4 statements for the caller's batch
 * (`extended` adds the caller's role on each space, for its `permissions`).
 */
export function spaceCoverageQueries(db: Db, actor: InstallationCaller, options: CoverageListOptions, extended: boolean) {
  const own = integrationSpaceInstallations;
  const selection = {
    installationId: sql<string>`${integrationInstallations.id}`.as('ii_id'),
    installationStatus: sql<string>`${integrationInstallations.status}`.as('ii_status'),
    space: prefixedColumns(spaces, 's'),
    rank: (extended ? spaceRoleSql(actorUserId(actor)!) : sql<number>`0`).as('space_rank'),
    own,
  };
  const filters = installationFilters(actor, options);
  const externalId = options.externalId === undefined ? undefined : externalIdSql(col('integration_space_installations', 'external_ids'), options.externalId);
  const selected = and(...filters, eq(integrationInstallations.spaceSelection, 'selected'), isNull(spaces.deletedAt), externalId);
  const all = and(...filters, eq(integrationInstallations.spaceSelection, 'all'), isNull(spaces.deletedAt), externalId);
  const after = afterCursor(options.cursor, integrationInstallations.id, spaces.id);
  return [
    db
      .select(selection)
      .from(own)
      .innerJoin(integrationInstallations, eq(integrationInstallations.id, own.installationId))
      .innerJoin(spaces, eq(spaces.id, own.spaceId))
      .where(and(selected, after))
      .orderBy(integrationInstallations.id, spaces.id)
      .limit(options.limit + 1),
    db
      .select(selection)
      .from(integrationInstallations)
      .innerJoin(spaces, eq(spaces.orgId, integrationInstallations.orgId))
      .leftJoin(own, and(eq(own.installationId, integrationInstallations.id), eq(own.spaceId, spaces.id)))
      .where(and(all, after))
      .orderBy(integrationInstallations.id, spaces.id)
      .limit(options.limit + 1),
    db
      .select({ total: count() })
      .from(own)
      .innerJoin(integrationInstallations, eq(integrationInstallations.id, own.installationId))
      .innerJoin(spaces, eq(spaces.id, own.spaceId))
      .where(selected),
    db
      .select({ total: count() })
      .from(integrationInstallations)
      .innerJoin(spaces, eq(spaces.orgId, integrationInstallations.orgId))
      .leftJoin(own, and(eq(own.installationId, integrationInstallations.id), eq(own.spaceId, spaces.id)))
      .where(all),
  ] as const;
}

export type SpaceCoverageRow = { installationId: string; installationStatus: string; space: SpaceRow; rank: number; own: SpaceInstallationRow | null };

/** The site installations visible to the caller, as `spaceCoverageQueries` (`extended` adds what a Site shows). */
export function siteCoverageQueries(db: Db, actor: InstallationCaller, options: CoverageListOptions, extended: boolean) {
  const own = integrationSiteInstallations;
  const selection = {
    installationId: sql<string>`${integrationInstallations.id}`.as('ii_id'),
    installationStatus: sql<string>`${integrationInstallations.status}`.as('ii_status'),
    site: prefixedColumns(sites, 's'),
    rank: (extended ? orgRoleSql(sites.orgId, actorUserId(actor)!) : sql<number | null>`0`).as('org_rank'),
    siteSpaces: (extended ? siteSpaceCountSql : sql<number>`0`).as('site_spaces'),
    own,
  };
  const filters = installationFilters(actor, options);
  const externalId = options.externalId === undefined ? undefined : externalIdSql(col('integration_site_installations', 'external_ids'), options.externalId);
  const selected = and(...filters, eq(integrationInstallations.siteSelection, 'selected'), externalId);
  const all = and(...filters, eq(integrationInstallations.siteSelection, 'all'), externalId);
  const after = afterCursor(options.cursor, integrationInstallations.id, sites.id);
  return [
    db
      .select(selection)
      .from(own)
      .innerJoin(integrationInstallations, eq(integrationInstallations.id, own.installationId))
      .innerJoin(sites, eq(sites.id, own.siteId))
      .where(and(selected, after))
      .orderBy(integrationInstallations.id, sites.id)
      .limit(options.limit + 1),
    db
      .select(selection)
      .from(integrationInstallations)
      .innerJoin(sites, eq(sites.orgId, integrationInstallations.orgId))
      .leftJoin(own, and(eq(own.installationId, integrationInstallations.id), eq(own.siteId, sites.id)))
      .where(and(all, after))
      .orderBy(integrationInstallations.id, sites.id)
      .limit(options.limit + 1),
    db
      .select({ total: count() })
      .from(own)
      .innerJoin(integrationInstallations, eq(integrationInstallations.id, own.installationId))
      .innerJoin(sites, eq(sites.id, own.siteId))
      .where(selected),
    db
      .select({ total: count() })
      .from(integrationInstallations)
      .innerJoin(sites, eq(sites.orgId, integrationInstallations.orgId))
      .leftJoin(own, and(eq(own.installationId, integrationInstallations.id), eq(own.siteId, sites.id)))
      .where(all),
  ] as const;
}

export type SiteCoverageRow = { installationId: string; installationStatus: string; site: SiteRow; rank: number | null; siteSpaces: number; own: SiteInstallationRow | null };

/**
 * One page of the two branches of a coverage list (each fetched with `limit + 1` after the cursor, in
 * the same order): merged in (installation, target) order; the cursor is the last item's pair.
 */
export function coveragePage<R extends { installationId: string }, T>(
  branches: [R[], R[]],
  totals: [{ total: number }[], { total: number }[]],
  limit: number,
  targetIdOf: (row: R) => string,
  map: (row: R) => T,
): Page<T> {
  const key = (row: R) => `${row.installationId}\u0000${targetIdOf(row)}`;
  const rows = [...branches[0], ...branches[1]].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)).slice(0, limit + 1);
  const pageRows = rows.slice(0, limit);
  const page: Page<T> = { items: pageRows.map(map), count: (totals[0][0]?.total ?? 0) + (totals[1][0]?.total ?? 0) };
  const last = pageRows[pageRows.length - 1];
  if (rows.length > limit && last) page.next = { page: encodeCursor([last.installationId, targetIdOf(last)]) };
  return page;
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
 * An installation token reaches what its installation covers, so it may not widen that itself (GitBook
 * admits it; here an admin of the organization, space or site, or the integration itself, decides).
 */
export function refuseWidening(actor: Actor, what: string): void {
  if (actor.kind === 'installation') throw new ApiError(403, `An installation token cannot ${what}: it reaches only what its installation covers`);
}

/** `previous` of a setup event: the state before the change. */
export const previousState = (status: string, configuration: Record<string, unknown>) => ({ status, configuration });
