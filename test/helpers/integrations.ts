import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import worker from '../../src/index';
import { INTEGRATION_EVENT_JOB } from '../../src/services/integrations/events';
import { newId } from '../../src/lib/ids';
import { spaceRoleForScopes } from '../../src/services/integrations/scopes';
import { encryptSecret, newSigningSecret } from '../../src/services/integrations/crypto';
import { newIntegrationToken } from '../../src/services/integrations/tokens';
import { createDb } from '../../src/db/client';
import { requestWithBindings } from './round-trips';

let counter = 0;
export const integrationName = (prefix = 'it') => `${prefix}-${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

export interface SeededIntegration {
  id: string;
  name: string;
  botUserId: string;
  scopes: string[];
}

/**
 * An integration written straight to D1 (and its script to R2), for tests that exercise what comes after
 * publishing; the publish route has its own tests.
 */
export async function seedIntegration(
  ownerOrgId: string,
  options: { name?: string; scopes?: string[]; script?: string; visibility?: string; target?: string; configurations?: Record<string, unknown>; secrets?: Record<string, string> } = {},
): Promise<SeededIntegration> {
  const id = newId();
  const botUserId = newId();
  const name = options.name ?? integrationName();
  const scopes = options.scopes ?? ['space:content:read'];
  const now = new Date().toISOString();
  let scriptKey: string | null = null;
  if (options.script !== undefined) {
    scriptKey = `integrations/${id}/v1/script.js`;
    await env.FILES.put(scriptKey, options.script);
  }
  const secrets = options.secrets ? await encryptSecret(env as never, JSON.stringify(options.secrets)) : null;
  await env.DB.batch([
    env.DB.prepare('insert into users (id, display_name, email, email_verified, created_at) values (?, ?, ?, 1, ?)').bind(botUserId, name, `${botUserId}@integrations.invalid`, now),
    env.DB.prepare(
      `insert into integrations (id, name, owner_org_id, bot_user_id, version, runtime, title, description, visibility, target, scopes, categories, blocks,
         content_sources, external_links, configurations, preview_keys, script_key, secrets, created_at, updated_at)
       values (?, ?, ?, ?, 1, 'v1', ?, 'A test integration', ?, ?, ?, '[]', '[]', '[]', '[]', ?, '[]', ?, ?, ?, ?)`,
    ).bind(id, name, ownerOrgId, botUserId, `Integration ${name}`, options.visibility ?? 'public', options.target ?? 'all', JSON.stringify(scopes), JSON.stringify(options.configurations ?? {}), scriptKey, secrets, now, now),
  ]);
  return { id, name, botUserId, scopes };
}

export interface SeededInstallation {
  id: string;
  /** The user its tokens act as. */
  botUserId: string;
  signingSecret: string;
}

/**
 * An installation written straight to D1, covering all of the organization's spaces and sites or the given
 * ones, having approved the integration's scopes (or `approvedScopes`), as installing it does.
 */
export async function seedInstallation(
  integration: SeededIntegration,
  orgId: string,
  options: { spaces?: 'all' | string[]; sites?: 'all' | string[]; status?: string; approvedScopes?: string[] } = {},
): Promise<SeededInstallation> {
  const id = newId();
  const botUserId = newId();
  const now = new Date().toISOString();
  const signingSecret = newSigningSecret();
  const spaces = options.spaces ?? [];
  const sites = options.sites ?? [];
  const approved = options.approvedScopes ?? integration.scopes;
  await env.DB.batch([
    env.DB.prepare('insert into users (id, display_name, email, email_verified, created_at) values (?, ?, ?, 1, ?)').bind(botUserId, integration.name, `${botUserId}@integrations.invalid`, now),
    env.DB.prepare(
      `insert into integration_installations (id, bot_user_id, integration_id, org_id, status, space_selection, site_selection, space_role, approved_scopes, configuration, external_ids, signing_secret, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, '{}', '[]', ?, ?, ?)`,
    ).bind(
      id,
      botUserId,
      integration.id,
      orgId,
      options.status ?? 'active',
      spaces === 'all' ? 'all' : 'selected',
      sites === 'all' ? 'all' : 'selected',
      spaceRoleForScopes(approved),
      JSON.stringify(approved),
      await encryptSecret(env as never, signingSecret),
      now,
      now,
    ),
    ...(spaces === 'all' ? [] : spaces).map((spaceId) =>
      env.DB.prepare(`insert into integration_space_installations (installation_id, space_id, configuration, external_ids, created_at, updated_at) values (?, ?, '{}', '[]', ?, ?)`).bind(id, spaceId, now, now),
    ),
    ...(sites === 'all' ? [] : sites).map((siteId) =>
      env.DB.prepare(`insert into integration_site_installations (installation_id, site_id, configuration, external_ids, created_at, updated_at) values (?, ?, '{}', '[]', ?, ?)`).bind(id, siteId, now, now),
    ),
  ]);
  return { id, botUserId, signingSecret };
}

/** A token for the integration itself (installation null) or for one installation, as the runtime hands them out. */
export async function seedToken(integrationId: string, installationId: string | null): Promise<string> {
  const db = createDb(env.DB);
  const { token, insert } = await newIntegrationToken(db, integrationId, installationId);
  await insert;
  return token;
}

/** A pending installation_setup event of the installation, written straight to D1. */
export async function seedEvent(integration: SeededIntegration, installationId: string, orgId: string): Promise<string> {
  const id = newId();
  const now = new Date().toISOString();
  await env.DB.prepare(
    `insert into integration_events (id, integration_id, installation_id, org_id, type, payload, status, attempts, created_at, updated_at)
     values (?, ?, ?, ?, 'installation_setup', ?, 'pending', 0, ?, ?)`,
  )
    .bind(id, integration.id, installationId, orgId, JSON.stringify({ type: 'installation_setup', installationId, status: 'active' }), now, now)
    .run();
  return id;
}

/**
 * Runs the queue consumer over the pending events (of one installation, or all), as the queue delivers
 * them: one message per event. Answers the queue's verdict on each message.
 */
export async function deliverPendingEvents(installationId?: string) {
  const pending = await env.DB.prepare(`select id from integration_events where status = 'pending' and (?1 is null or installation_id = ?1)`)
    .bind(installationId ?? null)
    .all<{ id: string }>();
  const batch = createMessageBatch<unknown>(
    'docs-platform-jobs',
    pending.results.map(({ id }) => ({ id: `m-${id}`, timestamp: new Date(), attempts: 1, body: { id, type: INTEGRATION_EVENT_JOB, payload: { eventId: id } } })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, env as never, ctx);
  return getQueueResult(batch, ctx);
}

/** One request through the app with a queue that keeps what is sent to it: the response and the message bodies. */
export async function apiCapturingQueue(method: string, path: string, token: string, body?: unknown) {
  const sent: { id: string; type: string; payload: { eventId?: string } }[] = [];
  const queue = {
    send: async (message: never) => void sent.push(message),
    sendBatch: async (messages: { body: never }[]) => void sent.push(...messages.map((m) => m.body)),
  };
  return { ...(await requestWithBindings(method, path, token, body, { JOBS: queue as unknown as Queue<unknown> })), sent };
}
