import { sql } from 'drizzle-orm';
import { runBatch, type BatchItem, type Db } from '../db/client';
import { organizations, sites } from '../db/schema';
import { visitorAccess, type SiteReader, type VisitorCredentials } from '../services/sites/access';
import { modelFrom, MODEL_QUERY_COUNT, type SiteModel } from '../services/sites/model';
import { orgOfHostStatement, shareLinkStatement, targetExpressions, visitorModelStatements } from '../services/sites/visitor-model';
import { orgHostCondition, type OrgHost } from '../services/organizations/hostnames';

export { orgHostCondition };

/**
 * The first round trip of every site request: the site's whole model (row, groups, sections, site
 * spaces with their spaces) and whether the visitor's share key opens it, in one batch, found by the
 * site's id (`/s/<siteId>/...`) or by the Host of a request to an organization's own hostname (its label
 * under SITES_DOMAIN, or its custom hostname once verified), whose default content is the site. Then the visitor's access, exactly as the published view decides it
 * (services/sites/access `visitorAccess`).
 */

/** A site by its id, by its organization's host, or by its organization and basename (the `urls.published` form). */
export type SiteTarget = { siteId: string } | OrgHost | { orgId: string; basename: string };

export interface LoadedSite {
  model: SiteModel;
  /** The visitor's reader (their claims), or null when the site refuses them. */
  access: { reader: SiteReader & { kind: 'visitor' }; shareKey?: string } | null;
}

/** Whether an organization serves its site on this host (a verified custom hostname, or a label it has). */
export async function orgHostActive(db: Db, target: OrgHost): Promise<boolean> {
  const row = await db.select({ id: organizations.id }).from(organizations).where(orgHostCondition(target)).get();
  return row !== undefined;
}

/**
 * The site and the visitor's access to it: one round trip, plus `extra` statements in the same batch.
 * `hostKnown` says, for a hostname target, whether an organization has that hostname at all (a request
 * to any other host is none of the site's business).
 */
export async function loadSite<E extends unknown[] = []>(
  db: Db,
  target: SiteTarget,
  credentials: VisitorCredentials,
  extra: BatchItem[] = [],
): Promise<{ site: LoadedSite | null; hostKnown: boolean; extra: E }> {
  const { site, org } = targetExpressions(target);
  const byHost = !('siteId' in target) && !('basename' in target);
  // Constant SQL (services/sites/visitor-model): the same statements as siteModelQueries' and shareLinkQuery's,
  // which a cold isolate's first page no longer spends building.
  const statements: BatchItem[] = [
    ...visitorModelStatements(db, site, org),
    shareLinkStatement(db, site, credentials.shareKey),
    ...(byHost ? [orgOfHostStatement(db, target as OrgHost)] : []),
    ...extra,
  ];
  const results = (await runBatch(db, statements)) as unknown[];
  const model = modelFrom(results.slice(0, MODEL_QUERY_COUNT) as Parameters<typeof modelFrom>[0]);
  const shareLinkOpens = (results[MODEL_QUERY_COUNT] as unknown[]).length > 0;
  const hostKnown = byHost ? (results[MODEL_QUERY_COUNT + 1] as unknown[]).length > 0 : true;
  const extraResults = results.slice(MODEL_QUERY_COUNT + (byHost ? 2 : 1)) as E;
  if (!model) return { site: null, hostKnown, extra: extraResults };
  return { site: { model, access: await visitorAccess(model, shareLinkOpens, credentials) }, hostKnown, extra: extraResults };
}

/** The id of a published site by its organization and basename (the `/sites/<org>/<basename>` URLs of `urls.published`). */
export async function siteIdByBasename(db: Db, orgId: string, basename: string): Promise<string | null> {
  const row = await db
    .select({ id: sites.id })
    .from(sites)
    .where(sql`${sites.orgId} = ${orgId} and ${sites.basename} = ${basename} and ${sites.published} = 1`)
    .get();
  return row?.id ?? null;
}
