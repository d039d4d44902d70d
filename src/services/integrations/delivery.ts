import { and, eq, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import { createDb, rawRun, runBatch, type BatchItem, type Db } from '../../db/client';
import { integrationEvents, integrationInstallations, integrations, integrationSiteInstallations, integrationSpaceInstallations, organizations } from '../../db/schema';
import type { Env } from '../../env';
import type { UrlContext } from '../../schemas/common';
import { toIntegration, type IntegrationAssetUrls } from '../../schemas/integration';
import type { OrganizationRow } from '../organizations/organizations';
import { assetSigner, integrationAssetUrls } from './assets';
import { toInstallation, toSiteInstallation, toSpaceInstallation } from '../../schemas/integration-installation';
import { defaultConfiguration } from './configuration';
import { decryptSecret, encryptSecret, newSigningSecret } from './crypto';
import { eventPayload } from './event-payload';
import { coveredSpacesSql } from './installations';
import { EVENT_NOT_HANDLED_STATUS, NO_LOADER_MESSAGE, runIntegrationScript, type ScriptTarget, type TraceLine } from './runtime';
import { noteUnhandled } from './site-views';
import { newIntegrationToken } from './tokens';
import { deliverWebhook } from './webhooks';

/**
 * Delivery of one integration event (the `integration-event` job): at least once, to the integration's
 * script (runtime.ts) and, in development mode, to its tunnel (webhooks.ts), with the event row as the
 * idempotency record and the truth shown by listIntegrationEvents / getIntegrationEvent.
 *
 * 1. One batch claims the event and loads it with its integration, installation and the space or site
 *    installation it is about. The claim (`status = 'pending'` and no live lease) sets a lease and counts the
 *    attempt; an event already `success` or `failed` is not delivered again (a redelivered message is acked),
 *    and one leased by another consumer is retried later.
 * 2. The receivers are called (at once); the script gets fresh integration and installation tokens (one batch).
 * 3. One batch records the outcome: the attempt's trace lines (what the script logged, then one line per
 *    receiver with its status or error) and the status: `success` when every receiver accepted the event;
 *    otherwise `pending` again (the lease released) and the job throws so the queue retries it with backoff,
 *    until the attempt `MAX_DELIVERY_ATTEMPTS`, which marks it `failed` (its line says so) and throws once
 *    more, so the message ends in the dead-letter queue.
 */

/** The queue consumer's `max_retries` (wrangler.toml) is 5: a message is delivered at most 6 times. */
export const MAX_DELIVERY_ATTEMPTS = 6;
/** How long a consumer holds an event it is delivering: longer than an attempt can take (script 30 s, tunnel 10 s). */
export const DELIVERY_LEASE_MS = 2 * 60 * 1000;
/** The API origin told to scripts when API_URL is unset (see wrangler.toml): reachable only from their isolates. */
export const UNKNOWN_API_ORIGIN = 'https://api.invalid';

/** The delivery did not happen or did not succeed, and may next time: the queue retries the message. */
export class DeliveryRetry extends Error {
  override name = 'DeliveryRetry';
}

/** The last attempt failed: the event is `failed`; thrown so that the message goes to the dead-letter queue. */
export class DeliveryFailed extends Error {
  override name = 'DeliveryFailed';
}

export type DeliveryOutcome = 'delivered' | 'already-done' | 'gone';

/**
 * `API_URL` without `/v1`: the API as scripts are told it (`environment.apiEndpoint`). GitBook's is
 * `https://api.gitbook.com`, and the client of its runtime (`new GitBookAPI({ endpoint })`) appends `/v1` itself.
 */
export function apiEndpointOf(env: Env): string {
  return (env.API_URL || UNKNOWN_API_ORIGIN).replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** `<apiEndpoint>/v1`, where the API's paths start: what payloads and the environment's `urls` link to. */
export const apiBaseOf = (apiEndpoint: string) => `${apiEndpoint}/v1`;

type EventRow = typeof integrationEvents.$inferSelect;
export type IntegrationRow = typeof integrations.$inferSelect;
export type InstallationRow = typeof integrationInstallations.$inferSelect;
export type ContentInstallationRow = { status: string; configuration: Record<string, unknown>; externalIds: string[] };

/** The integration's owner organization (`integrationOwnerId` a value or SQL), for a batch: the environment shows it. */
export const ownerQuery = (db: Db, ownerId: SQL | string) => db.select().from(organizations).where(sql`${organizations.id} = ${ownerId}`);

/** The event with everything its delivery needs, claimed (or not) in the same batch. */
function claimAndLoad(db: Db, eventId: string, now: string, leaseUntil: string) {
  const ofEvent = (expression: string) => sql`(select ${sql.raw(expression)} from integration_events where id = ${eventId})`;
  return db.batch([
    db
      .update(integrationEvents)
      .set({ leaseUntil, attempts: sql`${integrationEvents.attempts} + 1`, updatedAt: now })
      .where(
        and(
          eq(integrationEvents.id, eventId),
          eq(integrationEvents.status, 'pending'),
          or(isNull(integrationEvents.leaseUntil), lt(integrationEvents.leaseUntil, now)),
        ),
      )
      .returning({ attempts: integrationEvents.attempts }),
    // Three selects rather than one join: a D1 batch answers rows as objects, where columns of the same
    // name in joined tables (id, status, configuration ...) would overwrite each other.
    db.select().from(integrationEvents).where(eq(integrationEvents.id, eventId)),
    db.select().from(integrations).where(sql`${integrations.id} = ${ofEvent('integration_id')}`),
    ownerQuery(db, sql`(select owner_org_id from integrations where id = ${ofEvent('integration_id')})`),
    db
      .select({ installation: integrationInstallations, spaces: coveredSpacesSql })
      .from(integrationInstallations)
      .where(sql`${integrationInstallations.id} = ${ofEvent('installation_id')}`),
    db
      .select({ status: integrationSpaceInstallations.status, configuration: integrationSpaceInstallations.configuration, externalIds: integrationSpaceInstallations.externalIds })
      .from(integrationSpaceInstallations)
      .where(
        sql`${integrationSpaceInstallations.installationId} = ${ofEvent('installation_id')}
          and ${integrationSpaceInstallations.spaceId} = ${ofEvent("json_extract(payload, '$.spaceId')")}`,
      ),
    db
      .select({ status: integrationSiteInstallations.status, configuration: integrationSiteInstallations.configuration, externalIds: integrationSiteInstallations.externalIds })
      .from(integrationSiteInstallations)
      .where(
        sql`${integrationSiteInstallations.installationId} = ${ofEvent('installation_id')}
          and ${integrationSiteInstallations.siteId} = ${ofEvent("json_extract(payload, '$.siteId')")}`,
      ),
  ]);
}

interface EnvironmentArgs extends ScriptSecrets {
  apiEndpoint: string;
  /** The deployment's APP_URL (the installation's `urls.app`); the API's origin when unset. */
  appUrl: string | undefined;
  integration: IntegrationRow;
  /** The integration's owner organization (the environment's `integration.owner`). */
  owner: OrganizationRow;
  installation: InstallationRow | null;
  /** How many spaces the installation covers (GitBook's `spaces` of an installation). */
  installationSpaces: number;
  /** The event: its `spaceId` or `siteId` adds the space or site installation. */
  payload: Record<string, unknown>;
  spaceInstallation?: ContentInstallationRow;
  siteInstallation?: ContentInstallationRow;
}

/**
 * GitBook's `IntegrationEnvironment` of one invocation of the script (an event's delivery, a fetch event). The
 * installation, space and site installations are the API objects the API's own reads answer (installations.ts).
 */
function environmentOf(args: EnvironmentArgs & { tokens: { integration: string; installation?: string }; assets: IntegrationAssetUrls }): Record<string, unknown> {
  const { apiEndpoint, integration, installation, payload } = args;
  const urls: UrlContext = { api: apiBaseOf(apiEndpoint), app: (args.appUrl || new URL(apiEndpoint).origin).replace(/\/$/, '') };
  const environment: Record<string, unknown> = {
    apiEndpoint,
    apiTokens: args.tokens,
    // The integration as the API shows it to a non-member of its owner (GitBook's `Integration`, every field).
    integration: toIntegration(integration, { owner: args.owner, ownerRank: null, admin: false, urls, assets: args.assets }),
    secrets: args.secrets,
    signingSecrets: {
      integration: args.integrationSigningSecret,
      ...(args.signingSecret ? { installation: args.signingSecret } : {}),
    },
  };
  if (!installation) return environment;
  environment.installation = toInstallation(installation, integration.name, args.installationSpaces, urls);
  // An installation on all spaces (sites) covers each without a row of its own: it is shown as the API shows it,
  // with the installation's status and the defaults of the integration's configuration for that target.
  const covering = (row: ContentInstallationRow | undefined, selection: string, target: 'space' | 'site'): ContentInstallationRow | undefined =>
    row ?? (selection === 'all' ? { status: installation.status, configuration: defaultConfiguration(integration.configurations, target), externalIds: [] } : undefined);
  const space = covering(args.spaceInstallation, installation.spaceSelection, 'space');
  // A site's event (site_view, whose `spaceId` GitBook deprecates) is the site installation's alone: an integration
  // reading `spaceInstallation || siteInstallation` must find the site's configuration.
  if (typeof payload.spaceId === 'string' && typeof payload.siteId !== 'string' && space) {
    environment.spaceInstallation = toSpaceInstallation(integration.name, installation.id, payload.spaceId, space, null, urls);
  }
  const site = covering(args.siteInstallation, installation.siteSelection, 'site');
  if (typeof payload.siteId === 'string' && site) {
    environment.siteInstallation = toSiteInstallation(integration.name, installation.id, payload.siteId, site, null, urls);
  }
  return environment;
}

/**
 * What the script is given besides tokens: the integration's secrets, its own signing secret and the installation's.
 * `integrationSigningSecret` of an integration published before it had one (migration 0016) is made here:
 * `sealedIntegrationSigningSecret` is its ciphertext, stored by `scriptEnvironment`.
 */
export interface ScriptSecrets {
  secrets: Record<string, string>;
  signingSecret: string | null;
  integrationSigningSecret: string;
  sealedIntegrationSigningSecret?: string;
}

/** Decrypts the integration's secrets and signing secret and the installation's (throws when they cannot be read). */
export async function readScriptSecrets(env: Env, integration: IntegrationRow, installation: InstallationRow | null): Promise<ScriptSecrets> {
  const signingSecret = installation ? await decryptSecret(env, installation.signingSecret) : null;
  const secrets = integration.secrets ? (JSON.parse(await decryptSecret(env, integration.secrets)) as Record<string, string>) : {};
  if (integration.signingSecret) return { secrets, signingSecret, integrationSigningSecret: await decryptSecret(env, integration.signingSecret) };
  const integrationSigningSecret = newSigningSecret();
  return { secrets, signingSecret, integrationSigningSecret, sealedIntegrationSigningSecret: await encryptSecret(env, integrationSigningSecret) };
}

/**
 * The environment of one invocation of the script, with fresh integration and installation tokens (issued in
 * one batch, the one round trip this makes). The same batch stores a signing secret made for an integration that
 * had none (the first of concurrent deliveries wins, and the others hand over the stored one).
 */
export async function scriptEnvironment(env: Env, db: Db, args: EnvironmentArgs): Promise<Record<string, unknown>> {
  const { integration, installation, sealedIntegrationSigningSecret: sealed } = args;
  const now = Date.now();
  const integrationToken = await newIntegrationToken(db, integration.id, null, now);
  const installationToken = installation ? await newIntegrationToken(db, integration.id, installation.id, now) : null;
  const storeSigningSecret = sealed
    ? db
        .update(integrations)
        .set({ signingSecret: sql`coalesce(${integrations.signingSecret}, ${sealed})` })
        .where(eq(integrations.id, integration.id))
        .returning({ signingSecret: integrations.signingSecret })
    : null;
  const results = await runBatch(db, [integrationToken.insert, ...(installationToken ? [installationToken.insert] : []), ...(storeSigningSecret ? [storeSigningSecret] : [])]);
  let integrationSigningSecret = args.integrationSigningSecret;
  if (storeSigningSecret) {
    const stored = (results[results.length - 1] as { signingSecret: string | null }[])[0]?.signingSecret;
    if (stored && stored !== sealed) integrationSigningSecret = await decryptSecret(env, stored);
  }
  return environmentOf({
    ...args,
    assets: await assetUrlsOf(env, new URL(args.apiEndpoint).origin, integration),
    integrationSigningSecret,
    tokens: { integration: integrationToken.token, ...(installationToken ? { installation: installationToken.token } : {}) },
  });
}

/** The integration's asset URLs as the API shows them; without FILES_SIGNING_KEY, its assets' base alone. */
async function assetUrlsOf(env: Env, origin: string, integration: IntegrationRow): Promise<IntegrationAssetUrls> {
  try {
    return await integrationAssetUrls(origin, integration, assetSigner(env));
  } catch {
    return integrationAssetUrls(origin, { iconKey: null, previewKeys: [], scriptKey: integration.scriptKey }, () => Promise.resolve(''));
  }
}

/** The isolate a script runs in: the integration's current version, with its script's key. */
export const scriptTarget = (integration: IntegrationRow, scriptKey: string): ScriptTarget => ({
  id: integration.id,
  version: integration.version,
  scriptKey,
  contentSecurityPolicy: integration.contentSecurityPolicy,
});

/** Appends lines to an event's trace, in order: one statement for the caller's batch. */
export const appendTrace = (db: Db, eventId: string, lines: TraceLine[]) =>
  rawRun(
    db,
    sql`insert into integration_event_logs (event_id, level, message, timestamp)
      select ${eventId}, json_extract(value, '$.level'), json_extract(value, '$.message'), json_extract(value, '$.timestamp')
      from json_each(${JSON.stringify(lines)}) order by key`,
  );

export const line = (level: TraceLine['level'], message: string): TraceLine => ({ level, message, timestamp: new Date().toISOString() });

/**
 * Records a call the script answered at once (a fetch, a render, a published script) as its event, with its trace and
 * outcome, in one batch after the answer: `record` (events.ts `insertEvent`) gives the id the script was told.
 * `later`: lines the script's waitUntil work logs after the answer (never rejects; bounded by the script's wall time).
 */
export function recordInvocation(
  env: Env,
  ctx: { waitUntil(promise: Promise<unknown>): void },
  record: { id: string; statement: BatchItem },
  outcome: { type: string; ok: boolean; lines: TraceLine[]; later?: Promise<TraceLine[]> },
): void {
  const db = createDb(env.DB);
  const write = (outcome.later ?? Promise.resolve([]))
    .then((after) =>
      runBatch(db, [
        record.statement,
        appendTrace(db, record.id, [...outcome.lines, ...after]),
        db.update(integrationEvents).set({ status: outcome.ok ? 'success' : 'failed', attempts: 1 }).where(eq(integrationEvents.id, record.id)),
      ]),
    )
    .catch((error: unknown) => console.error(`integration ${outcome.type} event ${record.id} not recorded`, error));
  ctx.waitUntil(write);
}

/** The trace lines of one attempt, and whether every receiver accepted the event. */
interface AttemptResult {
  ok: boolean;
  lines: TraceLine[];
  /** The script answered that it does not handle the event's type (406). */
  notHandled?: boolean;
}

/** Calls the event's receivers (never throws: whatever goes wrong is a failed attempt with its reason). */
async function attemptDelivery(
  env: Env,
  db: Db,
  loaded: { event: EventRow; integration: IntegrationRow; owner: OrganizationRow; installation: InstallationRow | null; installationSpaces: number },
  contentInstallations: { space?: ContentInstallationRow; site?: ContentInstallationRow },
  attempt: string,
): Promise<AttemptResult> {
  const { event, integration, installation } = loaded;
  const apiEndpoint = apiEndpointOf(env);
  const payload = eventPayload(event.id, event.payload, apiBaseOf(apiEndpoint));
  const tunnel = integration.devTunnelUrl && (integration.devAll || event.orgId === integration.ownerOrgId) ? integration.devTunnelUrl : null;
  const scriptKey = integration.scriptKey;
  if (!scriptKey && !tunnel) {
    return { ok: true, lines: [line('info', `${attempt}: nothing to deliver to: the integration has no script and its development mode is off`)] };
  }

  let keys: ScriptSecrets;
  try {
    keys = await readScriptSecrets(env, integration, installation);
  } catch (error) {
    return { ok: false, lines: [line('error', `${attempt}: the integration's secrets could not be read: ${error instanceof Error ? error.message : String(error)}`)] };
  }
  const { signingSecret } = keys;

  const toScript = async (key: string): Promise<AttemptResult> => {
    if (!env.LOADER) return { ok: false, lines: [line('error', `${attempt}: the script was not run. ${NO_LOADER_MESSAGE}`)] };
    const environment = await scriptEnvironment(env, db, {
      apiEndpoint,
      appUrl: env.APP_URL,
      integration,
      owner: loaded.owner,
      installation,
      installationSpaces: loaded.installationSpaces,
      payload,
      spaceInstallation: contentInstallations.space,
      siteInstallation: contentInstallations.site,
      ...keys,
    });
    const result = await runIntegrationScript(env, scriptTarget(integration, key), payload, environment, new URL(apiEndpoint).origin);
    const notHandled = result.status === EVENT_NOT_HANDLED_STATUS;
    return { ok: result.ok, notHandled, lines: [...result.logs, line(result.ok ? 'info' : 'error', `${attempt}: the script ${result.detail}`)] };
  };

  const toTunnel = async (url: string): Promise<AttemptResult> => {
    if (!signingSecret) {
      // The installation is gone (an installation_deleted event) and its signing secret with it.
      return { ok: true, lines: [line('warn', `${attempt}: not sent to the development tunnel: the installation no longer exists, so there is no secret to sign with`)] };
    }
    const result = await deliverWebhook(env, url, event.id, JSON.stringify(payload), signingSecret);
    return { ok: result.ok, lines: [line(result.ok ? 'info' : 'error', `${attempt}: the development tunnel ${url} ${result.detail}`)] };
  };

  const results = await Promise.all([
    scriptKey ? toScript(scriptKey).catch((error) => ({ ok: false, lines: [line('error', `${attempt}: the script was not run: ${error instanceof Error ? error.message : String(error)}`)] })) : null,
    tunnel ? toTunnel(tunnel) : null,
  ]);
  const done = results.filter((r): r is AttemptResult => r !== null);
  return { ok: done.every((r) => r.ok), lines: done.flatMap((r) => r.lines), notHandled: done.some((r) => r.notHandled) };
}

/**
 * One delivery attempt of the event (see the top of this file). Resolves when it is delivered or needs no
 * delivery; throws `DeliveryRetry` when it should be retried, `DeliveryFailed` after its last attempt.
 * `messageAttempts` is the queue's count of this message's deliveries (1 on the first): the last one the
 * queue makes is the event's last attempt too.
 */
export async function deliverIntegrationEvent(env: Env, eventId: string, messageAttempts: number): Promise<DeliveryOutcome> {
  const db = createDb(env.DB);
  const started = Date.now();
  const now = new Date(started).toISOString();
  const leaseUntil = new Date(started + DELIVERY_LEASE_MS).toISOString();
  const [claimed, [event], [integration], [owner], [covered], [spaceInstallation], [siteInstallation]] = await claimAndLoad(db, eventId, now, leaseUntil);
  if (!event || !integration || !owner) return 'gone'; // its integration (or its owner) was purged (events go with it)
  if (claimed.length === 0) {
    if (event.status !== 'pending') return 'already-done';
    throw new DeliveryRetry(`integration event ${eventId} is being delivered by another consumer (until ${event.leaseUntil})`);
  }
  const loaded = { event, integration, owner, installation: covered?.installation ?? null, installationSpaces: covered?.spaces ?? 0 };
  const attempts = claimed[0].attempts;
  const last = attempts >= MAX_DELIVERY_ATTEMPTS || messageAttempts >= MAX_DELIVERY_ATTEMPTS;
  const label = `Attempt ${attempts} of ${MAX_DELIVERY_ATTEMPTS}`;
  const result = await attemptDelivery(env, db, loaded, { space: spaceInstallation, site: siteInstallation }, label);

  const status = result.ok ? 'success' : last ? 'failed' : 'pending';
  const lines = result.lines;
  if (status === 'failed') {
    let at = lines.length - 1;
    while (at >= 0 && lines[at].level !== 'error') at--;
    const closing = ': no attempts left, the event failed';
    if (at >= 0) lines[at] = { ...lines[at], message: `${lines[at].message}${closing}` };
    else lines.push(line('error', `${label}${closing}`));
  }
  const unhandled = result.notHandled ? noteUnhandled(db, integration.id, integration.version, event.type) : null;
  await runBatch(db, [
    ...(unhandled ? [unhandled] : []),
    appendTrace(db, eventId, lines),
    db
      .update(integrationEvents)
      .set({ status, leaseUntil: null, updatedAt: new Date().toISOString() })
      .where(and(eq(integrationEvents.id, eventId), eq(integrationEvents.leaseUntil, leaseUntil))),
  ]);
  if (status === 'success') return 'delivered';
  if (status === 'failed') throw new DeliveryFailed(`integration event ${eventId} failed after ${attempts} attempt(s)`);
  throw new DeliveryRetry(`integration event ${eventId}: attempt ${attempts} failed`);
}
