import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { MAX_DELIVERY_ATTEMPTS } from '../../src/services/integrations/delivery';
import { decryptSecret } from '../../src/services/integrations/crypto';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { gitbookErrors, gitbookValidator, GITBOOK_0202 } from '../helpers/gitbook-schema';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { deliverPendingEvents, integrationName, seedInstallation, seedIntegration } from '../helpers/integrations';

declare module 'vitest' {
  interface ProvidedContext {
    /** test/fixtures/integrations/gitbook-runtime-integration.js, bundled as `gitbook publish` bundles it. */
    gitbookIntegrationScript: string;
  }
}

/**
 * GitBook's own tooling, unchanged: an integration written with @gitbook/runtime's `createIntegration` (its
 * `space_content_updated` handler reads the space through `context.api`), bundled as @gitbook/cli 0.25.1 bundles
 * it (test/fixtures/integrations/build-gitbook-integration.mjs) and published with the request its `gitbook
 * publish` sends, delivered through the queue consumer and the Worker Loader as in production.
 */
const SCRIPT = inject('gitbookIntegrationScript');
const SECRETS = { API_KEY: 'sk-gitbook-runtime-test' };

/** The body of @gitbook/cli 0.25.1's `publishIntegration` (src/publish.ts) for a manifest with these fields. */
function cliPublishBody(organization: string) {
  const manifest = { title: 'GitBook runtime', description: 'Built with @gitbook/runtime', scopes: ['space:metadata:read', 'space:content:read'], visibility: 'public', secrets: SECRETS };
  return JSON.parse(
    JSON.stringify({
      runtime: 'v2',
      title: manifest.title,
      icon: undefined,
      description: manifest.description ?? '',
      summary: undefined,
      scopes: manifest.scopes ?? [],
      categories: undefined,
      blocks: undefined,
      contentSources: undefined,
      configurations: undefined,
      secrets: manifest.secrets,
      visibility: manifest.visibility,
      target: undefined,
      organization,
      externalLinks: undefined,
      previewImages: [],
      contentSecurityPolicy: undefined,
      script: SCRIPT,
    }),
  );
}

interface Published {
  publisher: TestOrg;
  customer: TestOrg;
  name: string;
  installationId: string;
  installationSigningSecret: string;
  spaceId: string;
}

/** Published as `gitbook publish` does, installed by another organization on all its spaces. */
async function publishAndInstall(): Promise<Published> {
  const publisher = await seedOrg();
  const customer = await seedOrg();
  const name = integrationName('gbrt');
  expectStatus(await api('POST', `/v1/integrations/${name}`, { token: publisher.owner.token, body: cliPublishBody(publisher.id) }), 200);
  const token = customer.owner.token;
  const space = await createSpace(customer.id, token, 'Synced with GitBook runtime');
  const installation = expectStatus(await api('POST', `/v1/integrations/${name}/installations`, { token, body: { organization: customer.id } }), 201).body;
  expectStatus(await api('PATCH', `/v1/integrations/${name}/installations/${installation.id}`, { token, body: { space_selection: 'all' } }), 200);
  return { publisher, customer, name, installationId: installation.id, installationSigningSecret: installation.signingSecret, spaceId: space.id };
}

/** Merges a change request on the space: one space_content_updated event for the installation. */
async function mergeChange(p: Published): Promise<void> {
  const token = p.customer.owner.token;
  const cr = await openChangeRequest(p.spaceId, token);
  await applyChanges(p.spaceId, cr.number, token, [{ operation: 'insert_page', title: 'Hello', document: { markdown: 'Hello.\n' } }]);
  expectStatus(await merge(p.spaceId, cr.number, token), 200);
}

interface SeenEvent {
  id: string;
  type: string;
  status: string;
  pending?: boolean;
  attempts: number;
  logs: { level: string; message: string }[];
}

/** The integration's events of one type with their traces, as its publisher reads them. */
async function eventsOf(p: Published, type: string): Promise<SeenEvent[]> {
  const list = expectStatus(await api('GET', `/v1/integrations/${p.name}/events?limit=100`, { token: p.publisher.owner.token }), 200).body;
  const events = list.items.filter((e: any) => e.payload.type === type);
  return Promise.all(
    events.map(async (e: any) => {
      const detail = expectStatus(await api('GET', `/v1/integrations/${p.name}/events/${e.id}`, { token: p.publisher.owner.token }), 200).body;
      const attempts = await env.DB.prepare('select attempts from integration_events where id = ?').bind(e.id).first<number>('attempts');
      return { id: e.id, type, status: e.status, pending: e.pending, attempts: attempts!, logs: detail.trace.logs.map((l: any) => ({ level: l.level, message: l.message })) };
    }),
  );
}

/** The JSON the fixture's handler logged after `label: `. */
function logged(event: SeenEvent, label: string): any {
  const line = event.logs.find((l) => l.message.startsWith(`${label}: `));
  expect(line, `a "${label}" line in ${JSON.stringify(event.logs)}`).toBeDefined();
  return JSON.parse(line!.message.slice(label.length + 2));
}

describe('an integration built with @gitbook/runtime and published as @gitbook/cli publishes it', () => {
  let p: Published;
  let contentUpdated: SeenEvent;
  let queueResult: Awaited<ReturnType<typeof deliverPendingEvents>>;

  beforeAll(async () => {
    p = await publishAndInstall();
    await mergeChange(p);
    queueResult = await deliverPendingEvents(p.installationId);
    [contentUpdated] = await eventsOf(p, 'space_content_updated');
  });

  it('is published with the request of `gitbook publish` (`"runtime": "v2"`), and the runtime is kept', async () => {
    const row = await env.DB.prepare('select runtime, version from integrations where name = ?').bind(p.name).first<{ runtime: string; version: number }>();
    expect(row).toEqual({ runtime: 'v2', version: 1 });
    // GitBook's PublishIntegration.runtime has these two values only.
    expectStatus(
      await api('POST', `/v1/integrations/${p.name}`, { token: p.publisher.owner.token, body: { ...cliPublishBody(p.publisher.id), runtime: 'v3' } }),
      400,
    );
  });

  it("runs the handler of space_content_updated, whose context.api (GitBook's client, which appends /v1) reads the space", async () => {
    expect(contentUpdated).toMatchObject({ status: 'success', attempts: 1 });
    const messages = contentUpdated.logs.map((l) => l.message);
    expect(messages).toContain(`read with context.api: space ${p.spaceId} "Synced with GitBook runtime"`);
    expect(messages).toContain(`Attempt 1 of ${MAX_DELIVERY_ATTEMPTS}: the script answered 200`);
    expect(contentUpdated.logs.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('settles the events the integration does not handle (createIntegration answers 406) as success at the first attempt, saying so', async () => {
    const unhandled = [...(await eventsOf(p, 'installation_setup')), ...(await eventsOf(p, 'space_installation_setup'))];
    // Installing, then selecting all spaces (a setup change).
    expect(unhandled.map((e) => e.type).sort()).toEqual(['installation_setup', 'installation_setup']);
    // Their queue messages were acked, not retried.
    const messages = unhandled.map((e) => `m-${e.id}`);
    expect(queueResult.retryMessages.filter((m) => messages.includes(m.msgId))).toEqual([]);
    expect(queueResult.explicitAcks).toEqual(expect.arrayContaining(messages));
    for (const event of unhandled) {
      expect(event).toMatchObject({ status: 'success', attempts: 1 });
      expect(event.pending).toBeFalsy();
      expect(event.logs.at(-1)).toEqual({
        level: 'info',
        message: `Attempt 1 of ${MAX_DELIVERY_ATTEMPTS}: the script answered 406: the integration does not handle "${event.type}" events, so the event is settled and not sent again`,
      });
      // What the runtime itself logged stays in the trace.
      expect(event.logs.some((l) => l.message.includes(`Integration does not handle "${event.type}" events`))).toBe(true);
    }
  });

  it('hands the script signingSecrets.integration (the same at every event and publish) and the installation signing secret', async () => {
    const signingSecrets = logged(contentUpdated, 'signingSecrets');
    const stored = await env.DB.prepare('select signing_secret from integrations where name = ?').bind(p.name).first<string>('signing_secret');
    expect(stored).toBeTruthy();
    expect(stored).not.toContain(signingSecrets.integration);
    expect(signingSecrets).toEqual({ integration: await decryptSecret(env as never, stored!), installation: p.installationSigningSecret });
    expect(signingSecrets.integration).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(signingSecrets.integration).not.toBe(p.installationSigningSecret);

    // A new version keeps it; the next event gets the same.
    expectStatus(await api('POST', `/v1/integrations/${p.name}`, { token: p.publisher.owner.token, body: cliPublishBody(p.publisher.id) }), 200);
    expect(await env.DB.prepare('select signing_secret from integrations where name = ?').bind(p.name).first<string>('signing_secret')).toBe(stored);
    await mergeChange(p);
    await deliverPendingEvents(p.installationId);
    const second = (await eventsOf(p, 'space_content_updated')).find((e) => e.id !== contentUpdated.id)!;
    expect(second).toMatchObject({ status: 'success' });
    expect(logged(second, 'signingSecrets')).toEqual(signingSecrets);
  });

  it("hands the installation and space installation as GitBook's IntegrationEnvironment has them, and the secrets", async () => {
    const installation = logged(contentUpdated, 'installation');
    expect(gitbookErrors(gitbookValidator('IntegrationInstallation', GITBOOK_0202.components), installation)).toBe('valid');
    const read = expectStatus(await api('GET', `/v1/integrations/${p.name}/installations/${p.installationId}`, { token: p.customer.owner.token }), 200).body;
    // The API's own read, but for its origin: scripts are told API_URL's (here unset: https://api.invalid), and the
    // app's is that one too without APP_URL. A later test's publish touched `updatedAt` since the event was delivered.
    expect(installation).toEqual({
      ...read,
      updatedAt: installation.updatedAt,
      urls: {
        app: `https://api.invalid/o/${p.customer.id}/integrations/${p.name}`,
        location: `https://api.invalid/v1/integrations/${p.name}/installations/${p.installationId}`,
        publicEndpoint: `https://api.invalid/integrations/${p.name}/installations/${p.installationId}/public`,
        publicContentEndpoint: `https://api.invalid/integrations/${p.name}/installations/${p.installationId}/public`,
      },
    });
    expect(installation.spaces).toBe(1);

    const spaceInstallation = logged(contentUpdated, 'spaceInstallation');
    expect(gitbookErrors(gitbookValidator('IntegrationEnvironmentSpaceInstallation', GITBOOK_0202.components), spaceInstallation)).toBe('valid');
    expect(spaceInstallation).toEqual({
      integration: p.name,
      installation: p.installationId,
      space: p.spaceId,
      status: 'active',
      configuration: {},
      externalIds: [],
      urls: {
        location: `https://api.invalid/v1/integrations/${p.name}/installations/${p.installationId}/spaces/${p.spaceId}`,
        // The space installation's own endpoint: requests to it get this space installation in their environment.
        publicEndpoint: `https://api.invalid/integrations/${p.name}/installations/${p.installationId}/spaces/${p.spaceId}/public`,
        publicContentEndpoint: `https://api.invalid/integrations/${p.name}/installations/${p.installationId}/spaces/${p.spaceId}/public`,
      },
    });
    expect(logged(contentUpdated, 'secrets')).toEqual(SECRETS);
  });
});

describe('signingSecrets.integration of an integration stored before it had one', () => {
  it('is made at its first delivery, stored encrypted, and the same at the next', async () => {
    const publisher = await seedOrg();
    const customer = await seedOrg();
    const integration = await seedIntegration(publisher.id, { script: SCRIPT, scopes: ['space:metadata:read', 'space:content:read'] });
    expect(await env.DB.prepare('select signing_secret from integrations where id = ?').bind(integration.id).first<string | null>('signing_secret')).toBeNull();
    const space = await createSpace(customer.id, customer.owner.token, 'Seeded');
    const installation = await seedInstallation(integration, customer.id, { spaces: [space.id] });
    const p: Published = { publisher, customer, name: integration.name, installationId: installation.id, installationSigningSecret: installation.signingSecret, spaceId: space.id };

    await mergeChange(p);
    await deliverPendingEvents(installation.id);
    await mergeChange(p);
    await deliverPendingEvents(installation.id);
    const events = await eventsOf(p, 'space_content_updated');
    expect(events.map((e) => e.status)).toEqual(['success', 'success']);
    const stored = await env.DB.prepare('select signing_secret from integrations where id = ?').bind(integration.id).first<string>('signing_secret');
    const expected = { integration: await decryptSecret(env as never, stored!), installation: installation.signingSecret };
    for (const event of events) expect(logged(event, 'signingSecrets')).toEqual(expected);
  });
});
