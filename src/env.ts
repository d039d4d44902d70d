import type { RateLimitOutcome } from './services/limits/rate-limits';
import type { D1Client, Db } from './db/client';
import type { SpaceWriter } from './durable-objects/space-writer';
import type { SiteTokenPayload } from './services/sites/site-token';
import type { AuditRecording } from './services/audit/recorder';

export interface Env {
  DB: D1Database;
  FILES: R2Bucket;
  JOBS: Queue<unknown>;
  SPACE_WRITER: DurableObjectNamespace<SpaceWriter>;
  /** The operator's token (secret). Never a key of anything: FILES_SIGNING_KEY and INTEGRATIONS_KEY are secrets of their own. */
  ADMIN_TOKEN?: string;
  /** HMAC key of signed file download URLs (secret); unset, making or opening one answers 503 naming it. */
  FILES_SIGNING_KEY?: string;
  APP_URL?: string;
  /** Public base URL of this API without `/v1`: integration scripts' `apiEndpoint` and links in delivered events. */
  API_URL?: string;
  /** Public base URL of published sites (`<base>/<organization>/<basename>`); `<API origin>/sites` when unset. */
  SITES_URL?: string;
  /** Seconds a published page is served from the edge cache with no D1 read (src/site/edge-cache.ts): the freshness bound after a publish; 30 when unset, 0 turns it off. */
  SITE_EDGE_FRESH_SECONDS?: string;
  /** Domain under which each organization's `hostname` label serves its site (`<label>.<SITES_DOMAIN>`); none when unset. */
  SITES_DOMAIN?: string;
  /** DNS-over-HTTPS JSON endpoint that checks custom hostnames' TXT challenges; Cloudflare's when unset. */
  DNS_RESOLVER_URL?: string;
  /** Comma-separated host names (`*.suffix` for a domain) the outbound guard admits even when it would refuse them (src/lib/outbound.ts). */
  OUTBOUND_ALLOWED_HOSTS?: string;
  /** Like OUTBOUND_ALLOWED_HOSTS, for Git Sync's repositories only (a self-hosted GitLab on a private address). */
  GIT_SYNC_ALLOWED_HOSTS?: string;
  /** Git Sync: the largest pack of a full fetch (a server without protocol v2: one with it is read as a stream); 32 MiB when unset. */
  GIT_SYNC_MAX_FULL_FETCH_BYTES?: string;
  /** Git Sync: the largest file an import stores (streamed into R2, never held); 100 MiB when unset (services/git-sync/assets). */
  GIT_SYNC_MAX_FILE_BYTES?: string;
  /** The Durable Object location hint of SpaceWriters (`weur`, `enam`...: near the D1 primary); none when unset (durable-objects/space-writer). */
  SPACE_WRITER_LOCATION_HINT?: string;
  /** Workers AI (wrangler.toml `[ai]`): conversation analysis with models when bound (services/conversations/analyzers). */
  AI?: unknown;
  /** The Workers AI text generation model that extracts conversations' issues (JSON mode); a current Llama when unset. */
  CONVERSATIONS_AI_MODEL?: string;
  /** The Workers AI translation model of translation runs (input `{ text, source_lang, target_lang }`); m2m100 when unset. */
  TRANSLATIONS_AI_MODEL?: string;
  /** Worker Loader: runs integration scripts in isolates of their own (wrangler.toml `[[worker_loaders]]`). */
  LOADER?: WorkerLoader;
  /** The running Worker version (wrangler.toml `[version_metadata]`): getApiInformation's `build` is its upload time. */
  CF_VERSION_METADATA?: { id?: string; tag?: string; timestamp?: string };
  /** Request rate limits (services/limits/rate-limits): one Rate Limiting binding per policy, and its "<requests>/<seconds>". */
  RL_USER?: RateLimit;
  RL_INSTALLATION?: RateLimit;
  RL_OPERATOR?: RateLimit;
  RL_VISITOR?: RateLimit;
  RL_CONTENT_WRITES?: RateLimit;
  RL_EXPORTS?: RateLimit;
  RL_SEARCH?: RateLimit;
  RL_INGESTION?: RateLimit;
  RL_SSO?: RateLimit;
  RATE_LIMIT_USER?: string;
  RATE_LIMIT_INSTALLATION?: string;
  RATE_LIMIT_OPERATOR?: string;
  RATE_LIMIT_VISITOR?: string;
  RATE_LIMIT_CONTENT_WRITES?: string;
  RATE_LIMIT_EXPORTS?: string;
  RATE_LIMIT_SEARCH?: string;
  RATE_LIMIT_INGESTION?: string;
  RATE_LIMIT_SSO?: string;
  /** Caps that protect storage (services/limits/caps): positive integers as strings, defaults when unset. */
  MAX_PAGES_PER_SPACE?: string;
  MAX_FILES_PER_SPACE?: string;
  MAX_FILE_BYTES?: string;
  MAX_SPACES_PER_ORGANIZATION?: string;
  MAX_MEMBERS_PER_ORGANIZATION?: string;
  MAX_COMMENTS_PER_PAGE?: string;
  MAX_INTEGRATIONS_PER_ORGANIZATION?: string;
  MAX_INSTALLATIONS_PER_ORGANIZATION?: string;
  MAX_CONVERSATIONS_PER_DAY?: string;
  /** Key (secret; any string, hashed to AES-256) of integration secrets and signing secrets at rest; unset, writing or reading one answers 503 naming it. */
  INTEGRATIONS_KEY?: string;
  /** HMAC key (secret) of site tokens, the bearer resolvePublishedContentByUrl hands a site's renderer (services/sites/site-token); unset, issuing or using one answers 503 naming it. */
  SITE_TOKENS_KEY?: string;
}

/** What an installation token may reach: its organization, the spaces and sites it covers, its integration's scopes. */
export interface InstallationGrant {
  integrationId: string;
  installationId: string;
  orgId: string;
  scopes: string[];
  /** 'all', or the ids of the spaces (sites) the installation was extended to. */
  spaces: 'all' | string[];
  sites: 'all' | string[];
}

/** Who is calling: a user with an API token, the deployment's operator, or a published site's visitor (with or without a site token). */
export type Actor =
  | { kind: 'user'; userId: string; email: string; emailVerified: boolean }
  | { kind: 'operator' }
  /** A short-lived integration token (integration routes only); `userId` is the integration's bot user. */
  | { kind: 'integration'; integrationId: string; userId: string }
  /** A short-lived installation token: acts as the integration's bot user within `grant`. */
  | { kind: 'installation'; userId: string; grant: InstallationGrant }
  /** No API token, on the few reads a published site's visitors make (see middleware/auth). */
  | { kind: 'visitor' }
  /**
   * A site token (services/sites/site-token): a visitor of one published site, with their claims, on the
   * operations that admit site tokens (defineRoute `siteToken: true`) and only there.
   */
  | { kind: 'site'; token: SiteTokenPayload };

export type AppBindings = {
  Bindings: Env;
  Variables: {
    requestId: string;
    db: Db;
    /** The request's D1 session (db/client `openSession`), whose bookmark the answer carries. */
    d1: D1Client;
    /** The bookmark of a write the space's writer (a Durable Object, on a session of its own) made for this request. */
    writerBookmark?: string;
    actor: Actor;
    /** A state-changing request's audit event, carried by its first write (middleware/audit, services/audit). */
    audit?: AuditRecording;
    /** What each rate limit policy said of this request, for its RateLimit headers (middleware/rate-limit). */
    rateLimits: RateLimitOutcome[];
  };
};
