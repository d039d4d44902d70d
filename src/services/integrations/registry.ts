import { and, count, eq, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import { runBatch, type BatchItem, type Db } from '../../db/client';
import { integrationInstallations, integrations, organizations, users } from '../../db/schema';
import type { Actor, Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { assertWithinCap } from '../limits/caps';
import { newId } from '../../lib/ids';
import { afterCursor, keysetOrder, type Cursor } from '../../lib/pagination';
import { RANK } from '../../lib/roles';
import { containsText } from '../../lib/text-filter';
import { cspGrants } from './site-scripts';
import { contentSecurityPolicyText, toIntegration, type Integration, type PublishIntegrationBody } from '../../schemas/integration';
import type { UrlContext } from '../../schemas/common';
import { orgRoleSql, qualify } from '../access/access';
import { decodeBase64 } from '../../lib/base64';
import { isUniqueViolation, type OrganizationRow } from '../organizations/organizations';
import { actorUserId, botUserValues, integrationAccess, type IntegrationRow } from './access';
import { assetKeysOf, assetSigner, deleteIntegrationAssets, integrationAssetUrls, storeIntegrationAssets } from './assets';
import { encryptSecret, newSigningSecret } from './crypto';
import { eventIdsOf, insertEventsPerInstallation } from './events';
import { asksBeyondSql, grantedScopesSql, spaceRoleForScopesSql } from './scopes';

/**
 * The integration registry: publishing (a new version of the manifest and its assets), unpublishing
 * (a tombstone that still delivers `installation_deleted` to its script), and the marketplace list.
 */

/** An integration as shown: its row, its owner organization and the caller's role in it. */
export interface IntegrationView {
  integration: IntegrationRow;
  owner: OrganizationRow;
  ownerRank: number | null;
}

const ownerRankOf = (actor: Actor) => {
  const userId = actorUserId(actor);
  return userId ? orgRoleSql(integrations.ownerOrgId, userId) : sql<number | null>`null`;
};

/** The published integration of this name with its owner and the caller's role there, for the caller's batch. */
export function integrationViewQuery(db: Db, name: string, actor: Actor) {
  return db
    .select({ integration: integrations, owner: organizations, ownerRank: ownerRankOf(actor) })
    .from(integrations)
    .innerJoin(organizations, eq(organizations.id, integrations.ownerOrgId))
    .where(and(eq(integrations.name, name), isNull(integrations.deletedAt)))
    .limit(1);
}

/** API objects of integrations; one signer for all the asset URLs of the response. */
export async function presentIntegrations(env: Env, origin: string, urls: UrlContext, actor: Actor, views: IntegrationView[]): Promise<Integration[]> {
  const sign = assetSigner(env);
  const now = Date.now();
  return Promise.all(
    views.map(async (view) =>
      toIntegration(view.integration, {
        owner: view.owner,
        ownerRank: view.ownerRank,
        admin: integrationAccess(actor, view.integration, view.ownerRank).admin,
        urls,
        assets: await integrationAssetUrls(origin, view.integration, sign, now),
      }),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// The list

export interface IntegrationFilters {
  search?: string;
  category?: string;
  blockDomain?: string;
  blocks?: boolean;
  contentSources?: boolean;
  owner?: string;
  scope?: string;
  target?: string;
}

/**
 * What a caller may list: public integrations, and every integration (private and unlisted too) of the
 * organizations the calling user is a member of (guests included, as for reads). Others see only public ones.
 */
function listedFor(actor: Actor): SQL {
  const isPublic = eq(integrations.visibility, 'public');
  if (actor.kind !== 'user') return isPublic;
  return or(
    isPublic,
    sql`exists (select 1 from org_members m where m.org_id = ${qualify(integrations.ownerOrgId)} and m.user_id = ${actor.userId} and m.disabled = 0)`,
  )!;
}

/** Listed inside an organization (listOrganizationIntegrations): public ones, and every one it publishes (its membership is checked by the route). */
export function publicOrOwnedBy(orgId: string): SQL {
  return or(eq(integrations.visibility, 'public'), eq(integrations.ownerOrgId, orgId))!;
}

/**
 * Enabled on one space or site (listSpaceIntegrations, listSiteIntegrations): an installation of the content's
 * organization covers it (selects all of them, or has its own row for it) and is not paused there. Whatever
 * the integration's visibility: the organization installed it.
 */
export function enabledOn(kind: 'space' | 'site', contentId: string): SQL {
  const contents = sql.raw(kind === 'space' ? 'spaces' : 'sites');
  const own = sql.raw(kind === 'space' ? 'integration_space_installations' : 'integration_site_installations');
  const ownId = sql.raw(kind === 'space' ? 'space_id' : 'site_id');
  const selection = sql.raw(kind === 'space' ? 'space_selection' : 'site_selection');
  return sql`exists (select 1 from integration_installations ii
    join ${contents} c on c.id = ${contentId} and c.org_id = ii.org_id
    left join ${own} o on o.installation_id = ii.id and o.${ownId} = ${contentId}
    where ii.integration_id = ${qualify(integrations.id)}
      and (o.installation_id is not null or ii.${selection} = 'all')
      and coalesce(o.status, ii.status) <> 'paused')`;
}

function filterConditions(f: IntegrationFilters): (SQL | undefined)[] {
  const hasItems = (column: typeof integrations.blocks | typeof integrations.contentSources, yes: boolean | undefined) =>
    yes === undefined ? undefined : yes ? sql`json_array_length(${column}) > 0` : sql`json_array_length(${column}) = 0`;
  return [
    f.search ? or(containsText(integrations.title, f.search), containsText(integrations.name, f.search)) : undefined,
    f.category ? sql`exists (select 1 from json_each(${integrations.categories}) where value = ${f.category})` : undefined,
    f.scope ? sql`exists (select 1 from json_each(${integrations.scopes}) where value = ${f.scope})` : undefined,
    // Domains are case-insensitive; a block's urlUnfurl patterns are URLs (`https://www.figma.com/file/*`).
    f.blockDomain
      ? sql`exists (select 1 from json_each(${integrations.blocks}) b, json_each(b.value, '$.urlUnfurl') u
          where instr(lower(u.value), ${f.blockDomain.toLowerCase()}) > 0)`
      : undefined,
    hasItems(integrations.blocks, f.blocks),
    hasItems(integrations.contentSources, f.contentSources),
    f.owner ? eq(integrations.ownerOrgId, f.owner) : undefined,
    // An integration of target `all` installs on every target, so it answers every target filter.
    f.target ? (f.target === 'all' ? eq(integrations.target, 'all') : or(eq(integrations.target, f.target), eq(integrations.target, 'all'))) : undefined,
  ];
}

/**
 * The page (by name, then id), the owner organizations of its rows and the total count, as three statements
 * for one batch (a joined select cannot stand in a D1 batch: drizzle maps batched rows by column name, and
 * both tables have `id`, `title`...). Join them with `joinOwners`.
 */
export function listIntegrationsQueries(
  db: Db,
  actor: Actor,
  filters: IntegrationFilters,
  cursor: Cursor | null,
  limit: number,
  listed: SQL = listedFor(actor),
) {
  const where = and(isNull(integrations.deletedAt), listed, ...filterConditions(filters));
  const pageWhere = and(where, afterCursor(cursor, integrations.name, integrations.id));
  const order = keysetOrder(integrations.name, integrations.id);
  return [
    db
      .select({ integration: integrations, ownerRank: ownerRankOf(actor) })
      .from(integrations)
      .where(pageWhere)
      .orderBy(...order)
      .limit(limit + 1),
    db
      .select()
      .from(organizations)
      .where(
        inArray(
          organizations.id,
          db
            .select({ id: integrations.ownerOrgId })
            .from(integrations)
            .where(pageWhere)
            .orderBy(...order)
            .limit(limit + 1),
        ),
      ),
    db.select({ total: count() }).from(integrations).where(where),
  ] as const;
}

/** The rows of a list page with their owners (read by the same batch). */
export function joinOwners(rows: { integration: IntegrationRow; ownerRank: number | null }[], owners: OrganizationRow[]): IntegrationView[] {
  const byId = new Map(owners.map((owner) => [owner.id, owner]));
  return rows.flatMap((row) => {
    const owner = byId.get(row.integration.ownerOrgId);
    return owner ? [{ ...row, owner }] : [];
  });
}

// ---------------------------------------------------------------------------------------------
// Publishing

const orgNotFound = () => new ApiError(404, 'The organization could not be found');
const nameTaken = (name: string) => new ApiError(409, `The integration name "${name}" is already taken by another organization's integration`);
const publishedConcurrently = (name: string) => new ApiError(409, `The integration "${name}" was published by another request at the same time: publish again`);
const unique = <T>(items: readonly T[]) => [...new Set(items)];

export interface PublishResult extends IntegrationView {
  /** R2 objects of the version this publish replaced: delete them once the response is on its way. */
  staleAssets: string[];
}

/**
 * Publishes version 1 of a new integration, or the next version of an existing one.
 *
 * - `organization` is an organization id or hostname; unknown, or the caller not a member: 404; a member
 *   who is not an admin: 403.
 * - The name of a published integration: only an admin of its owner may publish it again (403 for
 *   callers who can see it, 409 "name taken" for those who cannot), and only under the same owner (409).
 * - A tombstone of that name (unpublished, waiting for its last events) is replaced: deleted (its events
 *   and tokens go with it) and a fresh integration created, reusing its bot user.
 *
 * Round trips: one read batch (organization, existing row), one write batch. R2 writes happen between
 * them; a concurrent republish of the same version loses the compare-and-set on `version` (409).
 */
export async function publishIntegration(env: Env, db: Db, actor: Actor & { kind: 'user' }, name: string, body: PublishIntegrationBody): Promise<PublishResult> {
  const ref = body.organization;
  const [orgRows, existingRows] = await db.batch([
    db
      .select({ org: organizations, rank: orgRoleSql(organizations.id, actor.userId) })
      .from(organizations)
      .where(or(eq(organizations.id, ref), eq(organizations.hostname, ref.toLowerCase())))
      .orderBy(sql`${organizations.id} = ${ref} desc`)
      .limit(1),
    db
      .select({ integration: integrations, ownerRank: orgRoleSql(integrations.ownerOrgId, actor.userId) })
      .from(integrations)
      .where(eq(integrations.name, name))
      .limit(1),
  ]);
  const target = orgRows[0];
  if (!target || target.rank === null) throw orgNotFound();
  if (target.rank !== RANK.admin) throw new ApiError(403, 'Only the admins of an organization may publish integrations under it');

  const found = existingRows[0];
  const live = found && found.integration.deletedAt === null ? found.integration : undefined;
  const tombstone = found && found.integration.deletedAt !== null ? found.integration : undefined;
  if (live) {
    const access = integrationAccess(actor, live, found!.ownerRank);
    if (!access.admin) {
      if (!access.view) throw nameTaken(name);
      throw new ApiError(403, `Only the admins of the organization that publishes "${name}" may publish it again`);
    }
    if (live.ownerOrgId !== target.org.id) {
      throw new ApiError(409, `"${name}" is published by another organization: publish it again under that organization (an integration cannot move)`);
    }
  }

  // A new version adds nothing; a new integration (a tombstone of the name replaced too) is one more for its owner.
  if (!live) assertWithinCap(env, 'integrationsPerOrganization', target.org.integrationCount);

  const id = live?.id ?? newId();
  const version = live ? live.version + 1 : 1;
  const now = new Date().toISOString();
  const scopes = unique(body.scopes);
  const assets = await storeIntegrationAssets(env.FILES, id, version, {
    icon: body.icon === undefined ? undefined : decodeBase64(body.icon)!,
    previews: (body.previewImages ?? []).map((image) => decodeBase64(image)!),
    script: body.script,
  });
  const manifest = {
    runtime: body.runtime ?? 'v1',
    title: body.title,
    description: body.description,
    summary: body.summary ?? null,
    visibility: body.visibility ?? 'private',
    target: body.target ?? 'all',
    scopes,
    categories: unique(body.categories ?? []),
    blocks: body.blocks ?? [],
    contentSources: body.contentSources ?? [],
    externalLinks: body.externalLinks ?? [],
    configurations: body.configurations ?? {},
    contentSecurityPolicy: contentSecurityPolicyText(body.contentSecurityPolicy),
    ...assets,
    // Omitted secrets keep the stored ones; `{}` clears them.
    ...(body.secrets !== undefined && { secrets: Object.keys(body.secrets).length > 0 ? await encryptSecret(env, JSON.stringify(body.secrets)) : null }),
    // The integration's own signing secret (`signingSecrets.integration` of its scripts' environment): made at its
    // first publish and kept by every later one (one published before it existed gets it now).
    ...(!live?.signingSecret && { signingSecret: await encryptSecret(env, newSigningSecret()) }),
    updatedAt: now,
  };

  let row: IntegrationRow | undefined;
  try {
    if (live) {
      // Statements after the compare-and-set only apply when it succeeded (this request's `updatedAt` is there).
      const applied = sql`exists (select 1 from integrations i where i.id = ${id} and i.version = ${version} and i.updated_at = ${now})`;
      const [updated] = await db.batch([
        db
          .update(integrations)
          .set({ ...manifest, version })
          .where(and(eq(integrations.id, id), eq(integrations.version, live.version), isNull(integrations.deletedAt)))
          .returning(),
        db.update(users).set({ displayName: body.title }).where(and(eq(users.id, live.botUserId), applied)),
        // Installations made before policies were approved (migration 0023) approved the policy they ran with.
        db
          .update(integrationInstallations)
          .set({ approvedCsp: cspGrants(live.contentSecurityPolicy) })
          .where(and(eq(integrationInstallations.integrationId, id), isNull(integrationInstallations.approvedCsp), applied)),
        consentAfterPublish(db, scopes, cspGrants(manifest.contentSecurityPolicy), now).where(and(eq(integrationInstallations.integrationId, id), applied)),
      ]);
      row = updated[0];
    } else {
      // A new bot user each time: the tombstone's (and a purged integration's) stays the author of what it wrote.
      const botUserId = newId();
      const statements: BatchItem[] = [];
      if (tombstone) statements.push(db.delete(integrations).where(and(eq(integrations.id, tombstone.id), sql`${integrations.deletedAt} is not null`)));
      statements.push(
        db.insert(users).values(botUserValues(botUserId, body.title, now)),
        db
          .insert(integrations)
          .values({ ...manifest, id, name, ownerOrgId: target.org.id, botUserId, version, verified: false, createdAt: now })
          .returning(),
      );
      const results = await runBatch(db, statements);
      row = (results[results.length - 1] as IntegrationRow[])[0];
    }
  } catch (error) {
    // This publish's files are its own (a folder of their own): nothing else points at them.
    await deleteIntegrationAssets(env.FILES, assetKeysOf(assets));
    if (isUniqueViolation(error, 'integrations.name')) throw publishedConcurrently(name);
    throw error;
  }
  if (!row) {
    await deleteIntegrationAssets(env.FILES, assetKeysOf(assets));
    throw publishedConcurrently(name);
  }
  const replaced = live ?? tombstone;
  return { integration: row, owner: target.org, ownerRank: target.rank, staleAssets: replaced ? assetKeysOf(replaced) : [] };
}

/**
 * What a new version's `scopes` and Content-Security-Policy (`csp`, its `cspGrants`) do to the installations (one
 * statement, every installation at once): what each approved is kept only where still asked for, so a dropped
 * scope narrows its tokens at once, as does a policy within the approved one (asking for more again needs consent
 * again); one asked for beyond that leaves the installation `pending` with what it approved until an admin of its
 * organization installs it again: its tokens keep the approved scopes, its pages the approved policy.
 * SQLite evaluates every `set` against the row before the update, hence the repeated expression.
 */
function consentAfterPublish(db: Db, scopes: string[], csp: string[], now: string) {
  const asked = sql`${JSON.stringify(scopes)}`;
  const approved = sql.raw('"integration_installations"."approved_scopes"');
  const kept = grantedScopesSql(asked, approved);
  const askedCsp = sql`${JSON.stringify(csp)}`;
  const approvedCsp = sql.raw('"integration_installations"."approved_csp"');
  const widensCsp = asksBeyondSql(askedCsp, approvedCsp);
  const widens = sql`(${asksBeyondSql(asked, approved)} or ${widensCsp})`;
  return db.update(integrationInstallations).set({
    approvedScopes: sql`${kept}`,
    // A policy within the approved one is taken as it is (narrowed at once); a wider one leaves the approved policy
    // whole (what the pages allowed before), not cut to what both declare, until an admin approves the new one.
    approvedCsp: sql`case when ${widensCsp} then ${approvedCsp} else ${askedCsp} end`,
    spaceRole: spaceRoleForScopesSql(kept),
    status: sql`case when ${integrationInstallations.status} = 'paused' then 'paused' when ${widens} then 'pending' else 'active' end`,
    updatedAt: now,
  });
}

// ---------------------------------------------------------------------------------------------
// Unpublishing

/**
 * Unpublishes: the row becomes a tombstone (`deleted_at`, invisible to every read and token), its
 * installations are deleted, and each gets an `installation_deleted` event, all in one transaction.
 * The events are inserted by one `insert ... select` over the installations the same transaction
 * deletes, so an installation created concurrently can neither escape the delete nor miss its event.
 * Returns the new event ids (to enqueue once committed).
 */
export async function unpublishIntegrationRows(db: Db, integration: IntegrationRow): Promise<string[]> {
  const now = new Date().toISOString();
  const [events] = await db.batch([
    insertEventsPerInstallation(
      db,
      'installation_deleted',
      sql`json_object('type', 'installation_deleted', 'installationId', ii.id)`,
      sql`from integration_installations ii
        join integrations i on i.id = ii.integration_id and i.deleted_at is null
        where ii.integration_id = ${integration.id}`,
      now,
    ),
    db.delete(integrationInstallations).where(eq(integrationInstallations.integrationId, integration.id)),
    db
      .update(integrations)
      .set({ deletedAt: now, updatedAt: now })
      .where(and(eq(integrations.id, integration.id), isNull(integrations.deletedAt))),
  ]);
  return eventIdsOf(events);
}
