import { and, count, eq, getTableName, isNull, sql, type SQL } from 'drizzle-orm';
import type { SelectedFields, SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Context } from 'hono';
import { runBatch, type BatchItem, type Db } from '../../db/client';
import { integrationInstallations, integrationSiteInstallations, integrationSpaceInstallations, sites, spaces } from '../../db/schema';
import type { AppBindings, Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { afterCursor, encodeCursor, type Cursor, type Page } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { nowIso } from '../../lib/time';
import {
  contentInstallationState,
  type ContentInstallationState,
  type InstallationRow,
  type SiteInstallationRow,
  type SpaceInstallationRow,
} from '../../schemas/integration-installation';
import { orgRoleSql, spaceRoleSql } from '../access/access';
import { isUniqueViolation } from '../organizations/organizations';
import type { SiteRow } from '../sites/model';
import type { SpaceRow } from '../spaces/spaces';
import { actorUserId, integrationByNameQuery, requireIntegration, type IntegrationRow } from './access';
import { defaultConfiguration, validateConfiguration } from './configuration';
import { enqueueEvents, installationExists, siteInstallationExists, spaceInstallationExists } from './events';
import {
  installationCaller,
  installationEvent,
  installationFilters,
  installationFrom,
  installationNotFound,
  installationQuery,
  prefixedColumns,
  previousState,
  requireVisible,
  type InstallationCaller,
  type InstallationQueryRow,
  type LoadedInstallation,
} from './installations';

/**
 * An installation extended to one space or site (GitBook's space and site installations): the space or
 * site a route names with what the caller may do with the installation there, the lists of those that
 * the installations of an integration cover, and the changes (install, update, uninstall) with the events
 * they record. One implementation for both kinds of content: `SPACE_INSTALLATIONS` and
 * `SITE_INSTALLATIONS` say what differs (routes/integrations/content-installations.ts builds their routes).
 */

export type ContentKind = 'space' | 'site';

/** The installation's own row for one space or site: its state and settings there. */
export type ContentInstallationRow = SpaceInstallationRow | SiteInstallationRow;

/** What an `extended` answer shows of a space: the space and the caller's role on it. */
export type SpaceContent = { space: SpaceRow; rank: number };
/** What an `extended` answer shows of a site: the site, its number of site spaces and the caller's role in its organization. */
export type SiteContent = { site: SiteRow; siteSpaces: number; rank: number };

/** The space or site an installation route names, and what the caller may do with the installation there. */
export interface ContentTarget<C> {
  content: C;
  own: ContentInstallationRow | null;
  /** The installation covers it: installed on it, or on all the spaces (sites) of its organization. */
  covered: boolean;
  /** The caller may change the installation on it. */
  change: boolean;
}

/** One space or site an installation covers, as a coverage list or a route's target has it. */
export interface CoveredContent<C> {
  installationId: string;
  installationStatus: string;
  /** The space's or site's id. */
  id: string;
  own: ContentInstallationRow | null;
  content: C;
}

export interface CoverageListOptions {
  /** The integration's name. */
  name: string;
  /** Only this installation's (its visibility is checked by the caller). */
  installationId?: string;
  externalId?: string;
  cursor: Cursor | null;
  limit: number;
}

/** An own row without the column naming its space or site. */
type OwnFields = Omit<SpaceInstallationRow, 'spaceId'>;

/** What differs between space and site installations (`C`: what an `extended` answer shows of one). */
export interface ContentInstallations<C> {
  kind: ContentKind;
  /** The field naming the space or site in its events. */
  idField: 'spaceId' | 'siteId';
  events: { setup: string; deleted: string };
  /** The installations' own rows, and its column of the space or site. */
  table: typeof integrationSpaceInstallations | typeof integrationSiteInstallations;
  idColumn: SQLiteColumn;
  ownRow(fields: OwnFields, id: string): ContentInstallationRow;
  /** The installation's selection of them: all, or selected. */
  selection(installation: InstallationRow): string;
  /** When the installation's own row for that space or site is still there (an event's `when`). */
  ownRowExists(installationId: string, id: string): SQL;
  /** The spaces or sites table, with its id and organization columns; `live`: those that count. */
  contents: typeof spaces | typeof sites;
  contentsId: SQLiteColumn;
  contentsOrgId: SQLiteColumn;
  live: SQL | undefined;
  /** `integration_installations.space_selection` or `site_selection`. */
  selectionColumn: SQLiteColumn;
  /** The space or site `id` with the caller's view of it, for the batch that loads the installation (its id, or SQL that selects it). */
  targetQuery(db: Db, installationId: string | SQL, id: string, actor: InstallationCaller): BatchItem;
  /** The target of that query's rows: 404 unless the caller may see it (and it is one of the installing organization's). */
  target(actor: InstallationCaller, loaded: LoadedInstallation, rows: unknown): ContentTarget<C>;
  /** What a coverage list selects beside the installation and its own row (`extended`: what the answer shows of each). */
  coverageFields(actor: InstallationCaller, extended: boolean): SelectedFields;
  /** One row of a coverage list's statements. */
  coveredContent(row: unknown): CoveredContent<C>;
}

// ---------------------------------------------------------------------------------------------
// Spaces

/** A space with the caller's role on it and the installation's own row for it, if any (for the caller's batch). */
function spaceTargetQuery(db: Db, installationId: string | SQL, spaceId: string, actor: InstallationCaller) {
  return db
    .select({ space: prefixedColumns(spaces, 's'), rank: spaceRoleSql(actorUserId(actor)!).as('space_rank'), own: integrationSpaceInstallations })
    .from(spaces)
    .leftJoin(
      integrationSpaceInstallations,
      and(eq(integrationSpaceInstallations.installationId, installationId), eq(integrationSpaceInstallations.spaceId, spaces.id)),
    )
    .where(eq(spaces.id, spaceId));
}

type SpaceTargetRow = { space: SpaceRow; rank: number; own: SpaceInstallationRow | null };

/**
 * The space of a space installation route: 404 unless the caller may see the installation or administers
 * the space, and unless it is a live space of the installing organization. The caller may change the
 * installation there if it may change the installation, or administers the space.
 */
function requireSpaceTarget(actor: InstallationCaller, loaded: LoadedInstallation, rows: SpaceTargetRow[]): ContentTarget<SpaceContent> {
  const row = rows[0];
  const inOrg = !!row && row.space.orgId === loaded.installation.orgId && !row.space.deletedAt;
  const rank = inOrg ? row.rank : 0;
  const change = loaded.rights.self || (actor.kind === 'user' && rank >= RANK.admin);
  if (!change && !loaded.rights.view) throw installationNotFound();
  if (!inOrg) throw new ApiError(404, 'Space not found');
  const covered = row.own !== null || loaded.installation.spaceSelection === 'all';
  return { content: { space: row.space, rank }, own: row.own, covered, change };
}

type SpaceCoverageRow = { installationId: string; installationStatus: string; space: SpaceRow; rank: number; own: SpaceInstallationRow | null };

export const SPACE_INSTALLATIONS: ContentInstallations<SpaceContent> = {
  kind: 'space',
  idField: 'spaceId',
  events: { setup: 'space_installation_setup', deleted: 'space_installation_deleted' },
  table: integrationSpaceInstallations,
  idColumn: integrationSpaceInstallations.spaceId,
  ownRow: (fields, spaceId): SpaceInstallationRow => ({ ...fields, spaceId }),
  selection: (installation) => installation.spaceSelection,
  ownRowExists: spaceInstallationExists,
  contents: spaces,
  contentsId: spaces.id,
  contentsOrgId: spaces.orgId,
  live: isNull(spaces.deletedAt),
  selectionColumn: integrationInstallations.spaceSelection,
  targetQuery: spaceTargetQuery,
  target: (actor, loaded, rows) => requireSpaceTarget(actor, loaded, rows as SpaceTargetRow[]),
  // `extended` adds the caller's role on each space, for its `permissions`.
  coverageFields: (actor, extended) => ({
    space: prefixedColumns(spaces, 's'),
    rank: (extended ? spaceRoleSql(actorUserId(actor)!) : sql<number>`0`).as('space_rank'),
  }),
  coveredContent: (row) => {
    const r = row as SpaceCoverageRow;
    return { installationId: r.installationId, installationStatus: r.installationStatus, id: r.space.id, own: r.own, content: { space: r.space, rank: r.rank } };
  },
};

// ---------------------------------------------------------------------------------------------
// Sites

const siteSpaceCountSql = sql<number>`(select count(*) from site_spaces ss where ss.site_id = ${sql.raw('"sites"."id"')})`;

/** A site with its site space count and the installation's own row for it, if any (for the caller's batch). */
function siteTargetQuery(db: Db, installationId: string | SQL, siteId: string) {
  return db
    .select({ site: prefixedColumns(sites, 's'), siteSpaces: siteSpaceCountSql.as('site_spaces'), own: integrationSiteInstallations })
    .from(sites)
    .leftJoin(
      integrationSiteInstallations,
      and(eq(integrationSiteInstallations.installationId, installationId), eq(integrationSiteInstallations.siteId, sites.id)),
    )
    .where(eq(sites.id, siteId));
}

type SiteTargetRow = { site: SiteRow; siteSpaces: number; own: SiteInstallationRow | null };

/**
 * The site of a site installation route: 404 unless the caller may see the installation, and unless it is
 * a site of the installing organization. Sites are administered by their organization's admins: the
 * caller may change the installation there if it may change the installation.
 */
function requireSiteTarget(loaded: LoadedInstallation, rows: SiteTargetRow[]): ContentTarget<SiteContent> {
  if (!loaded.rights.view) throw installationNotFound();
  const row = rows[0];
  if (!row || row.site.orgId !== loaded.installation.orgId) throw new ApiError(404, 'Site not found');
  const covered = row.own !== null || loaded.installation.siteSelection === 'all';
  return { content: { site: row.site, siteSpaces: row.siteSpaces, rank: loaded.orgRank ?? 0 }, own: row.own, covered, change: loaded.rights.change };
}

type SiteCoverageRow = { installationId: string; installationStatus: string; site: SiteRow; rank: number | null; siteSpaces: number; own: SiteInstallationRow | null };

export const SITE_INSTALLATIONS: ContentInstallations<SiteContent> = {
  kind: 'site',
  idField: 'siteId',
  events: { setup: 'site_installation_setup', deleted: 'site_installation_deleted' },
  table: integrationSiteInstallations,
  idColumn: integrationSiteInstallations.siteId,
  ownRow: (fields, siteId): SiteInstallationRow => ({ ...fields, siteId }),
  selection: (installation) => installation.siteSelection,
  ownRowExists: siteInstallationExists,
  contents: sites,
  contentsId: sites.id,
  contentsOrgId: sites.orgId,
  live: undefined,
  selectionColumn: integrationInstallations.siteSelection,
  targetQuery: siteTargetQuery,
  target: (_actor, loaded, rows) => requireSiteTarget(loaded, rows as SiteTargetRow[]),
  // `extended` adds what a Site shows: the caller's role in its organization and its number of site spaces.
  coverageFields: (actor, extended) => ({
    site: prefixedColumns(sites, 's'),
    rank: (extended ? orgRoleSql(sites.orgId, actorUserId(actor)!) : sql<number | null>`0`).as('org_rank'),
    siteSpaces: (extended ? siteSpaceCountSql : sql<number>`0`).as('site_spaces'),
  }),
  coveredContent: (row) => {
    const r = row as SiteCoverageRow;
    return {
      installationId: r.installationId,
      installationStatus: r.installationStatus,
      id: r.site.id,
      own: r.own,
      content: { site: r.site, siteSpaces: r.siteSpaces, rank: r.rank ?? 0 },
    };
  },
};

// ---------------------------------------------------------------------------------------------
// One space or site of an installation

/** The installation and the space or site of a route, in one batch, with what the caller may do there. */
export async function loadContentInstallation<C>(c: Context<AppBindings>, kind: ContentInstallations<C>, name: string, installationId: string, id: string) {
  const actor = installationCaller(c);
  const db = c.get('db');
  const [installationRows, targetRows] = (await runBatch(db, [
    installationQuery(db, name, installationId, actor),
    kind.targetQuery(db, installationId, id, actor),
  ] as BatchItem[])) as [InstallationQueryRow[], unknown];
  const loaded = installationFrom(actor, installationRows);
  const target = kind.target(actor, loaded, targetRows);
  return { actor, db, loaded, target };
}

/** What the answer about the installation on a route's space or site shows: `own` its (new) own row. */
export function targetContent<C>(loaded: LoadedInstallation, id: string, own: ContentInstallationRow | null, target: ContentTarget<C>): CoveredContent<C> {
  return { installationId: loaded.installation.id, installationStatus: loaded.installation.status, id, own, content: target.content };
}

/**
 * The state a space or site installation shows: its own row, or the installation's status and the
 * defaults of the integration's configuration schema for that kind of content.
 */
export function coveredState(kind: ContentKind, integration: IntegrationRow, covered: Pick<CoveredContent<unknown>, 'installationStatus' | 'own'>): ContentInstallationState {
  return contentInstallationState({ status: covered.installationStatus }, covered.own, defaultConfiguration(integration.configurations, kind));
}

const ownRowWhere = (kind: ContentInstallations<unknown>, installationId: string, id: string) => and(eq(kind.table.installationId, installationId), eq(kind.idColumn, id));

/** Installs the installation on the space or site `id` (409 when it covers it already), with its setup event: the new own row. */
export async function installOn<C>(env: Env, db: Db, kind: ContentInstallations<C>, loaded: LoadedInstallation, target: ContentTarget<C>, id: string): Promise<ContentInstallationRow> {
  if (target.covered) {
    const why = target.own ? '' : ` (the installation covers all the ${kind.kind}s of its organization)`;
    throw new ApiError(409, `This integration is already installed on this ${kind.kind}${why}`);
  }
  const now = nowIso();
  const configuration = defaultConfiguration(loaded.integration.configurations, kind.kind);
  const row = kind.ownRow({ installationId: loaded.installation.id, status: 'active', configuration, externalIds: [], createdAt: now, updatedAt: now }, id);
  const event = installationEvent(db, loaded.installation, { type: kind.events.setup, [kind.idField]: id, status: row.status }, now);
  try {
    await db.batch([db.insert(kind.table).values(row), event.statement]);
  } catch (error) {
    // Installed by a concurrent request since the read.
    if (isUniqueViolation(error, getTableName(kind.table))) throw new ApiError(409, `This integration is already installed on this ${kind.kind}`);
    throw error;
  }
  await enqueueEvents(env, [event.id]);
  return row;
}

/**
 * Changes the configuration (checked against the integration's schema for that kind of content: strictly
 * for users) or the external ids of the installation on a space or site it covers; a change of the
 * configuration records a setup event with the previous state. The new own row.
 */
export async function updateOn<C>(
  env: Env,
  db: Db,
  kind: ContentInstallations<C>,
  actor: InstallationCaller,
  loaded: LoadedInstallation,
  target: ContentTarget<C>,
  id: string,
  body: { configuration?: Record<string, unknown>; externalIds?: string[] },
): Promise<ContentInstallationRow> {
  const installationId = loaded.installation.id;
  const before = contentInstallationState(loaded.installation, target.own, defaultConfiguration(loaded.integration.configurations, kind.kind));
  const now = nowIso();
  const configuration =
    body.configuration === undefined
      ? before.configuration
      : validateConfiguration(loaded.integration.configurations, kind.kind, body.configuration, { strict: actor.kind === 'user' });
  const row = kind.ownRow(
    { installationId, status: before.status, configuration, externalIds: body.externalIds ?? before.externalIds, createdAt: target.own?.createdAt ?? now, updatedAt: now },
    id,
  );
  const set = { configuration: row.configuration, externalIds: row.externalIds, updatedAt: now };
  // Covered through `space_selection: all` (`site_selection`) without settings of its own yet: the row is created.
  const write = target.own
    ? db.update(kind.table).set(set).where(ownRowWhere(kind, installationId, id))
    : db.insert(kind.table).values(row).onConflictDoUpdate({ target: [kind.table.installationId, kind.idColumn], set });
  const event =
    body.configuration === undefined
      ? null
      : installationEvent(
          db,
          loaded.installation,
          { type: kind.events.setup, [kind.idField]: id, status: row.status, previous: previousState(before.status, before.configuration) },
          now,
          installationExists(installationId),
        );
  await db.batch([write, ...(event ? [event.statement] : [])]);
  if (event) await enqueueEvents(env, [event.id]);
  return row;
}

/**
 * Uninstalls the installation from a space or site, with its deleted event (nothing when it was not
 * installed there); 400 when the installation covers all of them.
 */
export async function uninstallFrom<C>(env: Env, db: Db, kind: ContentInstallations<C>, loaded: LoadedInstallation, target: ContentTarget<C>, id: string): Promise<void> {
  if (kind.selection(loaded.installation) === 'all') {
    throw new ApiError(400, `This installation covers all the ${kind.kind}s of its organization: set its ${kind.kind}_selection to selected first`);
  }
  if (!target.own) return;
  const installationId = loaded.installation.id;
  const event = installationEvent(
    db,
    loaded.installation,
    { type: kind.events.deleted, [kind.idField]: id, previous: { configuration: target.own.configuration } },
    nowIso(),
    kind.ownRowExists(installationId, id),
  );
  // Recorded first, and only if the own row is still there: a concurrent uninstall records one event.
  const [, deleted] = await db.batch([event.statement, db.delete(kind.table).where(ownRowWhere(kind, installationId, id)).returning({ id: kind.idColumn })]);
  if (deleted.length > 0) await enqueueEvents(env, [event.id]);
}

// ---------------------------------------------------------------------------------------------
// Lists of the spaces and sites installations cover

const externalIdSql = (column: SQL, externalId: string) => sql`exists (select 1 from json_each(${column}) where json_each.value = ${externalId})`;

/**
 * The space (site) installations visible to the caller, in (installation, space) order: the spaces
 * installations were installed on, and every live space of the organizations of those that select all of
 * them. Two branches, each walking its own index, merged by `coveragePage`, and their counts: 4 statements
 * for the caller's batch.
 */
function coverageQueries<C>(db: Db, kind: ContentInstallations<C>, actor: InstallationCaller, options: CoverageListOptions, extended: boolean): BatchItem[] {
  const own = kind.table;
  const { contents, contentsId } = kind;
  const filters = installationFilters(actor, options);
  const externalIds = sql.raw(`"${getTableName(own)}"."external_ids"`);
  const externalId = options.externalId === undefined ? undefined : externalIdSql(externalIds, options.externalId);
  const where = (selection: 'selected' | 'all') => and(...filters, eq(kind.selectionColumn, selection), kind.live, externalId);
  const after = afterCursor(options.cursor, integrationInstallations.id, contentsId);
  const fields = {
    installationId: sql<string>`${integrationInstallations.id}`.as('ii_id'),
    installationStatus: sql<string>`${integrationInstallations.status}`.as('ii_status'),
    ...kind.coverageFields(actor, extended),
    own,
  };
  // Installed on them one by one: from the own rows.
  const installedOn = (selected: SelectedFields) =>
    db
      .select(selected)
      .from(own)
      .innerJoin(integrationInstallations, eq(integrationInstallations.id, own.installationId))
      .innerJoin(contents, eq(contentsId, kind.idColumn));
  // Installed on all of them: every one of the organization, with its own row if it has one.
  const onAll = (selected: SelectedFields) =>
    db
      .select(selected)
      .from(integrationInstallations)
      .innerJoin(contents, eq(kind.contentsOrgId, integrationInstallations.orgId))
      .leftJoin(own, and(eq(own.installationId, integrationInstallations.id), eq(kind.idColumn, contentsId)));
  return [
    installedOn(fields).where(and(where('selected'), after)).orderBy(integrationInstallations.id, contentsId).limit(options.limit + 1),
    onAll(fields).where(and(where('all'), after)).orderBy(integrationInstallations.id, contentsId).limit(options.limit + 1),
    installedOn({ total: count() }).where(where('selected')),
    onAll({ total: count() }).where(where('all')),
  ];
}

type CoverageResults = [unknown[], unknown[], { total: number }[], { total: number }[]];

/**
 * One page of the two branches of a coverage list (each fetched with `limit + 1` after the cursor, in
 * the same order): merged in (installation, space or site) order; the cursor is the last item's pair.
 */
function coveragePage<C>(kind: ContentInstallations<C>, [selected, all, selectedTotal, allTotal]: CoverageResults, limit: number): Page<CoveredContent<C>> {
  const key = (item: CoveredContent<C>) => `${item.installationId}\u0000${item.id}`;
  const rows = [...selected, ...all]
    .map(kind.coveredContent)
    .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
    .slice(0, limit + 1);
  const items = rows.slice(0, limit);
  const page: Page<CoveredContent<C>> = { items, count: (selectedTotal[0]?.total ?? 0) + (allTotal[0]?.total ?? 0) };
  const last = items[items.length - 1];
  if (rows.length > limit && last) page.next = { page: encodeCursor([last.installationId, last.id]) };
  return page;
}

/**
 * The spaces (sites) the installations of the integration `options.name` that the caller may see cover,
 * one page, in one round trip: 404 when there is no such integration, or when the caller may not see it
 * and none of its installations.
 */
export async function integrationCoverage<C>(db: Db, kind: ContentInstallations<C>, actor: InstallationCaller, options: CoverageListOptions, extended: boolean) {
  const [integrationRows, ...coverage] = (await runBatch(db, [
    integrationByNameQuery(db, options.name, actor),
    ...coverageQueries(db, kind, actor, options, extended),
  ])) as [{ integration: IntegrationRow; ownerRank: number | null }[], ...CoverageResults];
  const found = integrationRows[0];
  if (!found) throw new ApiError(404, 'No matching integration');
  const page = coveragePage(kind, coverage, options.limit);
  if (page.count === 0) requireIntegration(actor, found);
  return { integration: found.integration, page };
}

/** The spaces (sites) one installation covers, one page, in one round trip: 404 unless the caller may see the installation. */
export async function installationCoverage<C>(
  db: Db,
  kind: ContentInstallations<C>,
  actor: InstallationCaller,
  options: CoverageListOptions & { installationId: string },
  extended: boolean,
) {
  const [installationRows, ...coverage] = (await runBatch(db, [
    installationQuery(db, options.name, options.installationId, actor),
    ...coverageQueries(db, kind, actor, options, extended),
  ])) as [InstallationQueryRow[], ...CoverageResults];
  const loaded = requireVisible(actor, installationRows);
  return { loaded, page: coveragePage(kind, coverage, options.limit) };
}
