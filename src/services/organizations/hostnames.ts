import { and, eq, isNull, lt, ne, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { organizations } from '../../db/schema';
import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { randomBase62 } from '../../lib/ids';
import { OutboundError, outboundFetch } from '../../lib/outbound';
import { nowIso } from '../../lib/time';
import { isUniqueViolation } from './organizations';

/**
 * The hosts an organization's site is served on, and who may claim them.
 *
 * - `hostname`: a label, served at `<label>.<SITES_DOMAIN>` (nowhere while SITES_DOMAIN is unset). Never one
 *   of `RESERVED_LABELS`, never a name that is the deployment's own host.
 * - `customHostname`: a domain of the organization's own (`docs.example.com`), served only once its owner has
 *   proved it: a DNS TXT record `_docs-platform-challenge.<customHostname>` whose value is the challenge we
 *   generated. Never the deployment's own hosts (the request's host, the hosts of API_URL, APP_URL and
 *   SITES_URL, SITES_DOMAIN), nor anything under them, nor localhost or an IP address.
 *
 * A request whose Host is one of these is served the site only (src/site/routes.ts `siteHostDispatch`).
 */

/** Labels no organization may take under SITES_DOMAIN: names a deployment keeps for itself. */
export const RESERVED_LABELS: ReadonlySet<string> = new Set([
  'www', 'api', 'app', 'admin', 'auth', 'sso', 'login', 'docs', 'status', 'mail', 'cdn', 'static', 'assets', 'files', 'sites', 'localhost',
]);

const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
/** GitBook's `SiteHostname`: at least three labels (`docs.example.com`). */
const CUSTOM_HOSTNAME = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.]){2,}[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$/;
export const CHALLENGE_PREFIX = '_docs-platform-challenge';

const normalize = (host: string) => host.trim().toLowerCase().replace(/\.$/, '');
const isUnder = (host: string, suffix: string) => host === suffix || host.endsWith(`.${suffix}`);
/** An IP literal: IPv6 (any colon) or a name whose last label is numeric (no top-level domain is). */
const isIpHost = (host: string) => host.includes(':') || host.startsWith('[') || /(^|\.)\d+$/.test(host);

function hostOf(url: string | undefined): string | null {
  if (!url) return null;
  try {
    return normalize(new URL(url.includes('://') ? url : `https://${url}`).hostname) || null;
  } catch {
    return null;
  }
}

/** SITES_DOMAIN as a host name (`sites.example.com`), or null when unset. */
export function sitesDomain(env: Pick<Env, 'SITES_DOMAIN'>): string | null {
  return hostOf(env.SITES_DOMAIN?.replace(/^\*?\./, ''));
}

type HostEnv = Pick<Env, 'SITES_DOMAIN' | 'API_URL' | 'APP_URL' | 'SITES_URL'>;

/** The deployment's configured hosts (API_URL, APP_URL, SITES_URL), with localhost. */
function deploymentHosts(env: HostEnv): string[] {
  return ['localhost', ...[env.API_URL, env.APP_URL, env.SITES_URL].map(hostOf).filter((h): h is string => h !== null)];
}

/** Why `label` may not be an organization's `hostname` (null when it may); `requestHost` is the API's own. */
export function labelRefusal(label: string, env: HostEnv, requestHost: string): string | null {
  if (RESERVED_LABELS.has(label)) return `hostname: "${label}" is reserved (${[...RESERVED_LABELS].join(', ')})`;
  const domain = sitesDomain(env);
  const own = domain && [...deploymentHosts(env), normalize(requestHost)].includes(`${label}.${domain}`);
  if (own) return `hostname: "${label}.${domain}" is this deployment's own host`;
  return null;
}

/** Why `host` may not be an organization's `customHostname` (null when it may). */
export function customHostnameRefusal(host: string, env: HostEnv, requestHost: string): string | null {
  if (isIpHost(host)) return `customHostname: "${host}" is an IP address; give a domain name such as docs.example.com`;
  if (host.length > 253 || !CUSTOM_HOSTNAME.test(host)) {
    return `customHostname: "${host}" must be a domain name of at least three labels, such as docs.example.com`;
  }
  const domain = sitesDomain(env);
  if (domain && isUnder(host, domain)) return `customHostname: "${host}" is under SITES_DOMAIN (${domain}); claim a label there with hostname instead`;
  const own = [...deploymentHosts(env), normalize(requestHost)].find((d) => isUnder(host, d));
  if (own) return `customHostname: "${host}" is this deployment's own host (${own}) or under it`;
  return null;
}

export type OrgHost = { hostname: string } | { customHostname: string };

/**
 * What a request's Host may be: an organization's label under SITES_DOMAIN, a custom hostname to look up, or
 * null (the deployment's own hosts, localhost, IP addresses, reserved labels): the API. Decided without D1, so
 * requests to the API's hosts pay nothing; a host of three labels or more that is none of the deployment's
 * costs one lookup (set API_URL to the API's public URL so that its host is known).
 */
export function orgHostOf(rawHost: string, env: HostEnv): OrgHost | null {
  const host = normalize(rawHost);
  if (!/^[a-z0-9.-]{1,253}$/.test(host) || isIpHost(host)) return null;
  const own = deploymentHosts(env);
  if (own.includes(host)) return null;
  const domain = sitesDomain(env);
  if (domain && isUnder(host, domain)) {
    const label = host.slice(0, -domain.length - 1);
    return LABEL.test(label) && label.length <= 32 && !RESERVED_LABELS.has(label) ? { hostname: label } : null;
  }
  if (!CUSTOM_HOSTNAME.test(host) || own.some((d) => isUnder(host, d))) return null;
  return { customHostname: host };
}

/** The organization a host names: its label, or its custom hostname only once verified (a pending one serves nothing). */
export function orgHostCondition(target: OrgHost): SQL {
  if ('hostname' in target) return sql`${organizations.hostname} = ${target.hostname}`;
  return sql`${organizations.customHostname} = ${target.customHostname} and ${organizations.customHostnameVerifiedAt} is not null`;
}

/**
 * A condition on a site's organization (`orgColumn`) for a request to `host`: on an organization's host, only that
 * organization's sites (a label no organization has: none); on a three-label host no organization has verified, it
 * is the API's own host (API_URL unset), where nothing is limited; elsewhere (the API's hosts) nothing is limited.
 */
export function servedOnHostSql(host: OrgHost | null, orgColumn: SQL): SQL {
  if (!host) return sql`1`;
  const org = sql`(select ${organizations.id} from ${organizations} where ${orgHostCondition(host)})`;
  if ('hostname' in host) return sql`${orgColumn} = ${org}`;
  return sql`coalesce(${org}, ${orgColumn}) = ${orgColumn}`;
}

/** A new challenge for a custom hostname: the value its TXT record must have. */
export const newChallenge = () => `docs-platform-verification=${randomBase62(32)}`;

/** The DNS name of a custom hostname's TXT record. */
export const challengeName = (host: string) => `${CHALLENGE_PREFIX}.${host}`;

// ---------------------------------------------------------------------------------------------
// DNS

/** Reads TXT records. Production: DNS over HTTPS (`dohResolver`); tests inject a deterministic one (`setTxtResolver`). */
export interface TxtResolver {
  /** The TXT records of `name` (each record's strings joined), [] when it has none or does not exist. */
  resolveTxt(name: string): Promise<string[]>;
}

export const DEFAULT_DNS_RESOLVER_URL = 'https://cloudflare-dns.com/dns-query';
const TXT_TYPE = 16;

/** The strings of one TXT record's `data` as DoH JSON writes it (`"part one" "part two"`), joined. */
function txtData(data: string): string {
  const parts = [...data.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1].replace(/\\(.)/g, '$1'));
  return parts.length > 0 ? parts.join('') : data;
}

/**
 * The production resolver: a DNS-over-HTTPS JSON query (`?name=&type=TXT`, `accept: application/dns-json`) to
 * DNS_RESOLVER_URL (Cloudflare's when unset), through the guarded outbound fetch. A resolver that cannot be
 * reached is a 502: the hostname stays pending.
 */
export function dohResolver(env: Pick<Env, 'DNS_RESOLVER_URL' | 'OUTBOUND_ALLOWED_HOSTS'>): TxtResolver {
  const endpoint = env.DNS_RESOLVER_URL || DEFAULT_DNS_RESOLVER_URL;
  return {
    async resolveTxt(name) {
      const url = new URL(endpoint);
      url.searchParams.set('name', name);
      url.searchParams.set('type', 'TXT');
      const failed = (why: string) => new ApiError(502, `customHostname: the DNS resolver ${endpoint} could not be queried: ${why}`);
      let body: { Status?: number; Answer?: { type?: number; data?: string }[] };
      try {
        const response = await outboundFetch(env, url, { headers: { accept: 'application/dns-json' } }, { field: 'DNS_RESOLVER_URL', maxBytes: 65_536, timeoutMs: 5_000 });
        if (!response.ok) throw failed(`HTTP ${response.status}`);
        body = JSON.parse(response.text());
      } catch (error) {
        if (error instanceof OutboundError) throw failed(error.message);
        if (error instanceof SyntaxError) throw failed('the answer is not JSON');
        throw error;
      }
      // NXDOMAIN (3) and NOERROR without records read as no record; other statuses are the resolver's failure.
      if (body.Status !== 0 && body.Status !== 3) throw failed(`DNS status ${body.Status}`);
      return (body.Answer ?? []).filter((a) => a.type === TXT_TYPE && typeof a.data === 'string').map((a) => txtData(a.data!));
    },
  };
}

let injected: TxtResolver | null = null;

/** Replaces the resolver (tests); without an argument the production one is used again. Returns the previous one. */
export function setTxtResolver(resolver?: TxtResolver): TxtResolver | null {
  const previous = injected;
  injected = resolver ?? null;
  return previous;
}

export const txtResolver = (env: Env): TxtResolver => injected ?? dohResolver(env);

/** Whether the custom hostname's TXT record holds its challenge. */
export async function challengeAnswered(env: Env, host: string, challenge: string): Promise<boolean> {
  const records = await txtResolver(env).resolveTxt(challengeName(host));
  return records.some((r) => r.trim() === challenge);
}


import { pendingCutoff } from '../../lib/hostname-claims';
export { CUSTOM_HOSTNAME_PENDING_DAYS, claimStands, pendingCutoff } from '../../lib/hostname-claims';

/**
 * Marks an organization's custom hostname verified, for the challenge that was checked only (a hostname changed
 * meanwhile stays pending). The first organization to prove a name takes it: other organizations' pending claims of
 * it are cleared in the same transaction. False when another organization proved it first (the unique index over
 * verified claims refuses the update).
 */
export async function takeCustomHostname(db: Db, orgId: string, host: string, challenge: string): Promise<boolean> {
  try {
    await db.batch([
      db
        .update(organizations)
        .set({ customHostnameVerifiedAt: nowIso() })
        .where(and(eq(organizations.id, orgId), eq(organizations.customHostname, host), eq(organizations.customHostnameChallenge, challenge))),
      db
        .update(organizations)
        .set({ customHostname: null, customHostnameChallenge: null, customHostnameClaimedAt: null })
        .where(and(eq(organizations.customHostname, host), isNull(organizations.customHostnameVerifiedAt), ne(organizations.id, orgId))),
    ]);
    return true;
  } catch (error) {
    if (isUniqueViolation(error, 'organizations.custom_hostname')) return false;
    throw error;
  }
}

/** Clears pending custom hostname claims past their period (the cron); returns how many. */
export async function clearExpiredClaims(db: Db, now = Date.now()): Promise<number> {
  const cleared = await db
    .update(organizations)
    .set({ customHostname: null, customHostnameChallenge: null, customHostnameClaimedAt: null })
    .where(and(isNull(organizations.customHostnameVerifiedAt), lt(organizations.customHostnameClaimedAt, pendingCutoff(now))))
    .returning({ id: organizations.id });
  return cleared.length;
}
