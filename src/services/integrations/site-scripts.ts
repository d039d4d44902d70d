import { sql, type SQL } from 'drizzle-orm';
import { rawAll, rowsOf, type Db } from '../../db/client';
import { constantSelect } from '../../db/constant-select';
import { WORKING_STATUSES_LIST, WORKING_STATUSES_SQL } from './scopes';

/**
 * Site scripts (GitBook's `fetch_published_script`): an integration with the `site:script:inject` scope puts a
 * script of its own into the published pages of the sites it is installed on. The script is served by us at
 * `<origin>/_site/integrations/<installationId>/<siteId>/script.js` (routes/integrations/site-script.ts runs the
 * installation's `fetch_published_script` handler), listed by `listSiteIntegrationScripts` and the published
 * view's `scripts`, and loaded by the HTML reader (src/site) with the integration's declared policy merged into
 * the page's Content-Security-Policy (`mergePageCsp`).
 *
 * Which installations have a script on a site (`eligibleSql`), all in one condition so that every reader agrees:
 * - the integration is published (not a tombstone), has a script, targets sites, and asks for `site:script:inject`;
 * - its installation works (`active`, or `pending` with what it approved) and its organization approved
 *   `site:script:inject` (the tenant-trust consent: a publish that adds the scope adds no script until an admin
 *   approves it);
 * - the site is one of that organization's, is published, and the installation covers it (installed on it, or
 *   on all the organization's sites).
 * `cookies` is true when `site:script:cookies` is granted the same way (asked and approved). The policy a script adds
 * to the pages is what the installation's organization approved of the integration's declared one (`approvedPolicy`):
 * a publish that declares more leaves the installation pending on the approved policy, as it does for scopes.
 */

export const INJECT_SCOPE = 'site:script:inject';
export const COOKIES_SCOPE = 'site:script:cookies';

/** The path below an origin where a site installation's script is served. */
export const siteScriptPath = (installationId: string, siteId: string) =>
  `/_site/integrations/${encodeURIComponent(installationId)}/${encodeURIComponent(siteId)}/script.js`;

const hasScope = (column: SQL, scope: string) => sql`exists (select 1 from json_each(${column}) where json_each.value = ${scope})`;

/** True when the scope is granted: asked for by the integration (`i`) and approved by its installation (`ii`). */
const grantedSql = (scope: string) => sql`(${hasScope(sql.raw('i.scopes'), scope)} and ${hasScope(sql.raw('ii.approved_scopes'), scope)})`;

/** The condition over `ii` (installation), `i` (integration), `s` (site), `own` (site installation, left-joined). */
const eligibleSql = sql`i.deleted_at is null and i.script_key is not null and i.target in ('site', 'all')
  and ii.status in ${WORKING_STATUSES_SQL} and ${grantedSql(INJECT_SCOPE)}
  and s.published = 1
  and ((own.installation_id is not null and own.status in ${WORKING_STATUSES_SQL}) or (own.installation_id is null and ii.site_selection = 'all'))`;

const FROM = sql`from integration_installations ii
  join integrations i on i.id = ii.integration_id
  join sites s on s.org_id = ii.org_id
  left join integration_site_installations own on own.installation_id = ii.id and own.site_id = s.id`;

export interface SiteScriptRow {
  installationId: string;
  siteId: string;
  integrationName: string;
  version: number;
  /** The integration's declared policy (what its current version asks for). */
  contentSecurityPolicy: string | null;
  /** What the installation's organization approved of it (JSON `cspGrants`), null: the declared one (migration 0023). */
  approvedCsp: string | null;
  cookies: number;
  /** The latest change of the installation or of its settings on the site: part of the script URL's version. */
  changedAt: string;
}

/**
 * The scripts of a site, in one statement for the caller's batch, in integration-name order: `site` an SQL expression
 * with `?` for its values (services/sites/visitor-model `targetExpressions`: a value, or the site of a host). Constant
 * SQL (db/constant-select), the text `siteScriptsSql` builds with drizzle (test/platform/constant-select holds them
 * equal), so that the published site's first batch on an organization's host builds none.
 */
export function siteScriptsStatement(db: Db, site: { text: string; params: unknown[] }) {
  const granted = `(exists (select 1 from json_each(i.scopes) where json_each.value = ?) and exists (select 1 from json_each(ii.approved_scopes) where json_each.value = ?))`;
  return constantSelect(
    db,
    `select ii.id as installationId, s.id as siteId, i.name as integrationName, i.version as version,
        i.content_security_policy as contentSecurityPolicy, ii.approved_csp as approvedCsp, ${granted} as cookies,
        max(ii.updated_at, coalesce(own.updated_at, '')) as changedAt
      from integration_installations ii
  join integrations i on i.id = ii.integration_id
  join sites s on s.org_id = ii.org_id
  left join integration_site_installations own on own.installation_id = ii.id and own.site_id = s.id
      where s.id = ${site.text} and i.deleted_at is null and i.script_key is not null and i.target in ('site', 'all')
  and ii.status in ${WORKING_STATUSES_LIST} and ${granted}
  and s.published = 1
  and ((own.installation_id is not null and own.status in ${WORKING_STATUSES_LIST}) or (own.installation_id is null and ii.site_selection = 'all'))
      order by i.name, ii.id`,
    [COOKIES_SCOPE, COOKIES_SCOPE, ...site.params, INJECT_SCOPE, INJECT_SCOPE],
    (row) => row as unknown as SiteScriptRow,
  );
}

/** The scripts of the site `siteId`: `siteScriptsStatement` of a value. */
export const siteScriptsQuery = (db: Db, siteId: string) => siteScriptsStatement(db, { text: '?', params: [siteId] });

/** `siteScriptsStatement` as drizzle builds it from this module's conditions (`siteId` a value or an SQL expression). */
export function siteScriptsSql(siteId: string | SQL): SQL {
  return sql`select ii.id as installationId, s.id as siteId, i.name as integrationName, i.version as version,
        i.content_security_policy as contentSecurityPolicy, ii.approved_csp as approvedCsp, ${grantedSql(COOKIES_SCOPE)} as cookies,
        max(ii.updated_at, coalesce(own.updated_at, '')) as changedAt
      ${FROM}
      where s.id = ${siteId} and ${eligibleSql}
      order by i.name, ii.id`;
}

/**
 * One installation's script on one site, if it has one, with what running it needs (ids as raw column values).
 * `servedOn` limits the site's organization (services/organizations/hostnames `servedOnHostSql`): on an
 * organization's host, another organization's script is none.
 */
export function siteScriptTargetQuery(db: Db, installationId: string, siteId: string, servedOn: SQL = sql`1`) {
  return rawAll<SiteScriptRow & { integrationId: string; ownConfiguration: string | null }>(
    db,
    sql`select ii.id as installationId, s.id as siteId, i.id as integrationId, i.name as integrationName, i.version as version,
        i.content_security_policy as contentSecurityPolicy, ii.approved_csp as approvedCsp, ${grantedSql(COOKIES_SCOPE)} as cookies,
        max(ii.updated_at, coalesce(own.updated_at, '')) as changedAt, own.configuration as ownConfiguration
      ${FROM}
      where ii.id = ${installationId} and s.id = ${siteId} and ${eligibleSql} and ${servedOn}`,
  );
}

export const siteScriptRows = (result: unknown) => rowsOf<SiteScriptRow>(result);

/** GitBook's `SiteIntegrationScript`. */
export interface SiteIntegrationScript {
  script: string;
  contentSecurityPolicy?: string;
  cookies: boolean;
}

/**
 * The script's URL under `origin`. `v` changes with the integration's version and with any change of the
 * installation or its settings on the site, so a browser that cached the previous script for as long as the
 * handler allowed fetches the new one at once; the route ignores it.
 */
export function siteScriptUrl(origin: string, row: SiteScriptRow): string {
  const changed = Date.parse(row.changedAt);
  const v = `${row.version}-${Number.isNaN(changed) ? 0 : changed.toString(36)}`;
  return `${origin}${siteScriptPath(row.installationId, row.siteId)}?v=${v}`;
}

/**
 * The policy a site's pages take from an installation's script: what its organization approved, never more than the
 * integration now declares (a publish narrows the approval, services/integrations/registry.ts `consentAfterPublish`).
 */
export function approvedPolicy(row: Pick<SiteScriptRow, 'contentSecurityPolicy' | 'approvedCsp'>): CspDirectives {
  if (row.approvedCsp === null) return sanitizeIntegrationCsp(row.contentSecurityPolicy);
  let grants: unknown;
  try {
    grants = JSON.parse(row.approvedCsp);
  } catch {
    return new Map();
  }
  return Array.isArray(grants) ? directivesOfGrants(grants.filter((g): g is string => typeof g === 'string')) : new Map();
}

export function toSiteIntegrationScript(origin: string, row: SiteScriptRow): SiteIntegrationScript {
  const policy = serializeCsp(approvedPolicy(row));
  return { script: siteScriptUrl(origin, row), ...(policy ? { contentSecurityPolicy: policy } : {}), cookies: Boolean(row.cookies) };
}

// ---------------------------------------------------------------------------------------------
// Content-Security-Policy

/**
 * The directives an integration may widen on a page, and the page directive each widens. Fetch directives
 * only: `default-src` (it would widen every directive the page leaves to it), `object-src`, navigation and
 * document directives (`base-uri`, `form-action`, `frame-ancestors`, `sandbox`, reporting, trusted types) are
 * never taken from a manifest. `script-src-elem` and `style-src-elem` widen `script-src` and `style-src`: added
 * on their own they would replace those for elements and block the page's own script and stylesheets.
 */
const MERGEABLE: ReadonlyMap<string, string> = new Map([
  ['script-src', 'script-src'],
  ['script-src-elem', 'script-src'],
  ['style-src', 'style-src'],
  ['style-src-elem', 'style-src'],
  ['connect-src', 'connect-src'],
  ['img-src', 'img-src'],
  ['font-src', 'font-src'],
  ['media-src', 'media-src'],
  ['frame-src', 'frame-src'],
  ['child-src', 'child-src'],
  ['worker-src', 'worker-src'],
  ['manifest-src', 'manifest-src'],
]);

/** Directives that run code: of scheme sources only `https:` is kept (`data:`, `blob:` would run any text as script). */
const CODE_DIRECTIVES = new Set(['script-src', 'worker-src', 'child-src', 'frame-src']);

const SCHEME_SOURCE = /^[a-z][a-z0-9+.-]*:$/i;
/**
 * A host source: optional scheme, `*` or a host (optionally `*.`-prefixed), optional port, optional path. No quote,
 * comma or `;` can pass: keywords (`'unsafe-eval'`, `'unsafe-inline'`, `'strict-dynamic'`, nonces, hashes) are
 * never taken from a manifest, and nothing can end the directive or the policy.
 */
const HOST_SOURCE = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:\*|(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*)(?::(?:[0-9]{1,5}|\*))?(?:\/[A-Za-z0-9\-._~!$&()*+=:@%/]*)?$/i;
const MAX_SOURCES = 32;

function allowedSource(directive: string, source: string): boolean {
  if (source.length > 256) return false;
  if (SCHEME_SOURCE.test(source)) return !CODE_DIRECTIVES.has(directive) || source.toLowerCase() === 'https:';
  return HOST_SOURCE.test(source);
}

/** Directive -> sources, in the order declared (a directive declared twice: its first declaration, as browsers do). */
export type CspDirectives = Map<string, string[]>;

/**
 * The part of an integration's stored policy (the header value `contentSecurityPolicyText` made of its manifest)
 * that may widen a page: the `MERGEABLE` directives, each with its acceptable sources (`allowedSource`); anything
 * else is dropped, not refused, so one odd source does not take the integration's script off every page.
 */
export function sanitizeIntegrationCsp(policy: string | null | undefined): CspDirectives {
  const out: CspDirectives = new Map();
  if (!policy) return out;
  for (const part of policy.split(/[;,]/)) {
    const [name, ...sources] = part.trim().split(/\s+/);
    const directive = name?.toLowerCase();
    if (!directive || !MERGEABLE.has(directive) || out.has(directive)) continue;
    const kept = [...new Set(sources.filter((source) => allowedSource(MERGEABLE.get(directive)!, source)))].slice(0, MAX_SOURCES);
    if (kept.length > 0) out.set(directive, kept);
  }
  return out;
}

/**
 * What an organization approves of a policy: each source it may widen a page with, as a `directive source` pair, in
 * the order declared. Compared as sets (in SQL, like scopes) when a new version is published.
 */
export function cspGrants(policy: string | null | undefined): string[] {
  return [...sanitizeIntegrationCsp(policy)].flatMap(([directive, sources]) => sources.map((source) => `${directive} ${source}`));
}

/** The directives of approved grants (`cspGrants`), each source checked again as a manifest's would be. */
function directivesOfGrants(grants: string[]): CspDirectives {
  const byDirective = new Map<string, string[]>();
  for (const grant of grants) {
    const [directive, source] = grant.split(' ');
    if (!directive || !source) continue;
    byDirective.set(directive, [...(byDirective.get(directive) ?? []), source]);
  }
  return sanitizeIntegrationCsp([...byDirective].map(([directive, sources]) => `${directive} ${sources.join(' ')}`).join('; '));
}

export const serializeCsp = (directives: CspDirectives) =>
  [...directives].map(([name, sources]) => (sources.length > 0 ? `${name} ${sources.join(' ')}` : name)).join('; ');

/**
 * The page's policy with each script's declared directives added: their sources appended to the page's own
 * directive (or the directive added, with only them, where the page leaves it to `default-src 'none'`). Nothing
 * the page declares is removed or replaced; with no scripts the page's policy is returned as it was.
 */
export function mergePageCsp(page: CspDirectives, scripts: readonly { contentSecurityPolicy?: string | null }[]): CspDirectives {
  const merged: CspDirectives = new Map([...page].map(([name, sources]) => [name, [...sources]]));
  for (const script of scripts) {
    for (const [declared, sources] of sanitizeIntegrationCsp(script.contentSecurityPolicy)) {
      const target = MERGEABLE.get(declared)!;
      const current = merged.get(target) ?? [];
      merged.set(target, [...current, ...sources.filter((source) => !current.includes(source))]);
    }
  }
  return merged;
}
