import { env } from 'cloudflare:workers';
import { compressToEncodedURIComponent } from 'lz-string';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { MAX_CONFIGURATION_BYTES, MAX_CONFIGURATION_DEPTH } from '../../src/services/integrations/configuration';
import { MAX_RENDER_DEPTH } from '../../src/schemas/integration-render';
import { createSpace } from '../helpers/content';
import { GITBOOK_0202, gitbookErrors, gitbookOperations, gitbookValidator, schemaValidator } from '../helpers/gitbook-schema';
import { api, expectError, expectStatus, seedOrg, type ApiResponse, type TestOrg } from '../helpers/harness';
import { integrationName, seedIntegration, seedToken } from '../helpers/integrations';

declare module 'vitest' {
  interface ProvidedContext {
    /** test/fixtures/integrations/gitbook-render-integration.jsx, bundled as `gitbook publish` bundles it. */
    gitbookRenderIntegrationScript: string;
  }
}

/**
 * An integration configured through its own ContentKit component (`configurations.*: {componentId}`), written
 * with GitBook's runtime (test/fixtures/integrations/gitbook-render-integration.jsx) and published as `gitbook
 * publish` sends it, driven end to end through renderIntegrationUIWithPost/Get: rendered, its `save` action run
 * by the script, which saves the configuration with the installation's token through `context.api`, and read back.
 */
const SCRIPT = inject('gitbookRenderIntegrationScript');
const COMPONENT_CONFIGURATIONS = { account: { componentId: 'settings' }, space: { componentId: 'settings' }, site: { componentId: 'settings' } };

const operations = gitbookOperations();
const renderOutput = schemaValidator(operations.get('renderIntegrationUIWithPost')!.responses['200']!, GITBOOK_0202.components);
/** Both operations answer GitBook's ContentKitRenderOutput, with a Cache-Control header. */
function expectRendered(res: ApiResponse): any {
  expectStatus(res, 200);
  expect(gitbookErrors(renderOutput, res.body), JSON.stringify(res.body)).toBe('valid');
  expect(res.headers.get('cache-control')).toBe('no-store');
  return res.body;
}

interface Fixture {
  publisher: TestOrg;
  customer: TestOrg;
  name: string;
  installationId: string;
  spaceId: string;
  siteId: string;
  /** The integration installed on another organization. */
  other: { org: TestOrg; installationId: string };
}

let f: Fixture;

const installationUrl = (id = f.installationId) => `/v1/integrations/${f.name}/installations/${id}`;
const render = (body: unknown, token = f.customer.owner.token) => api('POST', `/v1/integrations/${f.name}/render`, { token, body });
const renderWithGet = (request: unknown, token = f.customer.owner.token) =>
  api('GET', `/v1/integrations/${f.name}/render?request=${compressToEncodedURIComponent(JSON.stringify(request))}`, { token });
const accountContext = () => ({ type: 'configuration_account', theme: 'light', organizationId: f.customer.id });
const spaceContext = () => ({ type: 'configuration_space', theme: 'dark', spaceId: f.spaceId });
const siteContext = () => ({ type: 'configuration_site', theme: 'light', siteId: f.siteId });
const settings = (context: unknown, extra: Record<string, unknown> = {}) => ({ componentId: 'settings', props: {}, context, ...extra });

/** All the text of the ContentKit tree's markdown elements. */
const markdownOf = (element: any): string[] =>
  !element || typeof element !== 'object' ? [] : [...(element.type === 'markdown' ? [element.content] : []), ...(element.children ?? []).flatMap(markdownOf)];

async function install(org: TestOrg): Promise<string> {
  return expectStatus(await api('POST', `/v1/integrations/${f.name}/installations`, { token: org.owner.token, body: { organization: org.id } }), 201).body.id;
}

beforeAll(async () => {
  const publisher = await seedOrg();
  const customer = await seedOrg();
  const name = integrationName('render');
  // The body `gitbook publish` sends for a manifest whose configurations are components.
  const published = await api('POST', `/v1/integrations/${name}`, {
    token: publisher.owner.token,
    body: {
      runtime: 'v2',
      title: 'Render settings',
      description: 'Configured through its own component',
      scopes: ['space:metadata:read'],
      visibility: 'public',
      configurations: COMPONENT_CONFIGURATIONS,
      organization: publisher.id,
      previewImages: [],
      script: SCRIPT,
    },
  });
  expectStatus(published, 200);
  f = { publisher, customer, name, installationId: '', spaceId: '', siteId: '', other: { org: await seedOrg(), installationId: '' } };
  f.installationId = await install(customer);
  f.other.installationId = await install(f.other.org);
  const token = customer.owner.token;
  f.spaceId = (await createSpace(customer.id, token, 'Configured space')).id;
  expectStatus(await api('POST', `${installationUrl()}/spaces`, { token, body: { space: f.spaceId } }), 201);
  f.siteId = expectStatus(await api('POST', `/v1/orgs/${customer.id}/sites`, { token, body: { title: 'Configured site' } }), 201).body.id;
  expectStatus(await api('POST', `${installationUrl()}/sites`, { token, body: { siteId: f.siteId } }), 201);
});

describe('an integration configured through its own component, driven through render', () => {
  it("renders the settings component for the account with GitBook's ContentKit output (createComponent's initialState from the environment)", async () => {
    const out = expectRendered(await render(settings(accountContext())));
    expect(out).toMatchObject({ type: 'element', props: {}, state: { endpoint: '', notify: false, label: 'Settings' } });
    expect(out.element.type).toBe('configuration');
    expect(markdownOf(out.element)).toEqual(['### Settings', 'Saved endpoint: none']);
    // The props reach the component. (Not validated: GitBook's PlainObject has no `type`, so a scalar value of
    // props matches two members of its `oneOf`, and no props but empty objects validate against its schema.)
    const labelled = expectStatus(await render(settings(accountContext(), { props: { label: 'Webhook settings' } })), 200).body;
    expect(labelled).toMatchObject({ type: 'element', props: { label: 'Webhook settings' }, state: { label: 'Webhook settings' } });
    expect(markdownOf(labelled.element)).toEqual(['### Webhook settings', 'Saved endpoint: none']);
  });

  it('runs the save action: the script saves the account and space configurations with its installation token, and reads show them', async () => {
    const saved = expectRendered(await render(settings(spaceContext(), { state: { endpoint: ' https://hooks.example.com/docs ', notify: true }, action: { action: 'save' } })));
    expect(saved).toEqual({ type: 'complete', returnValue: { saved: true } });

    const installation = expectStatus(await api('GET', installationUrl(), { token: f.customer.owner.token }), 200).body;
    expect(installation.configuration).toEqual({ endpoint: 'https://hooks.example.com/docs', options: { retries: 3, headers: { 'x-source': 'docs' } } });
    const onSpace = expectStatus(await api('GET', `${installationUrl()}/spaces/${f.spaceId}`, { token: f.customer.owner.token }), 200).body;
    expect(onSpace.configuration).toEqual({ notify: true });

    // Rendered again, the component starts from what it saved (the environment hands it the stored configurations).
    const again = expectRendered(await render(settings(spaceContext())));
    expect(again.state).toMatchObject({ endpoint: 'https://hooks.example.com/docs', notify: true });
    expect(markdownOf(again.element)).toContain('Saved endpoint: https://hooks.example.com/docs');
  });

  it('runs the same flow for a site with renderIntegrationUIWithGet (the request LZ-string compressed)', async () => {
    const first = expectRendered(await renderWithGet(settings(siteContext())));
    expect(first.state.notify).toBe(false);
    const saved = expectRendered(await renderWithGet(settings(siteContext(), { state: { ...first.state, notify: true }, action: { action: 'save' } })));
    expect(saved.type).toBe('complete');
    const onSite = expectStatus(await api('GET', `${installationUrl()}/sites/${f.siteId}`, { token: f.customer.owner.token }), 200).body;
    expect(onSite.configuration).toEqual({ notify: true });
  });

  it("hands on the script's ExposableError (status and message), and answers 502 without what it threw otherwise", async () => {
    expectError(await render(settings(accountContext(), { state: { endpoint: 'not a url' }, action: { action: 'save' } })), 400, 'Please enter a valid endpoint URL');
    expectError(await render(settings(accountContext(), { action: { action: 'fail.exposed' } })), 422, 'The endpoint refused the test delivery');
    const crash = expectError(await render(settings(accountContext(), { action: { action: 'fail.crash' } })), 502);
    expect(crash).not.toContain('secret-laden');
    // A component the integration does not have: the runtime's own 404.
    expectError(await render({ ...settings(accountContext()), componentId: 'nope' }), 404, 'Component nope not found');
  });

  it("the script's installation token changes its own installation only: another organization's installation reads as not found", async () => {
    const out = expectRendered(await render(settings(accountContext(), { action: { action: 'save.other', installationId: f.other.installationId } })));
    expect(out.state.otherStatus).toBe(404);
    const other = expectStatus(await api('GET', installationUrl(f.other.installationId), { token: f.other.org.owner.token }), 200).body;
    expect(other.configuration).toEqual({});
  });
});

describe('what the publisher sees of renders', () => {
  it("records each render as a ui_render event (GitBook's UIRenderEvent, without the state) with the script's trace", async () => {
    expectError(await render(settings(accountContext(), { state: { endpoint: 'typed-by-the-user' }, action: { action: 'fail.crash' } })), 502);
    const token = f.publisher.owner.token;
    // Recorded after the answer (waitUntil).
    let failed: any;
    for (let i = 0; i < 50 && !failed; i++) {
      const list = expectStatus(await api('GET', `/v1/integrations/${f.name}/events?limit=100`, { token }), 200).body;
      failed = list.items.find((e: any) => e.payload.type === 'ui_render' && e.payload.action?.action === 'fail.crash');
      if (!failed) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(failed).toMatchObject({ status: 'failed', installationId: f.installationId, payload: { componentId: 'settings', props: {}, context: accountContext() } });
    expect(JSON.stringify(failed.payload)).not.toContain('typed-by-the-user');
    const detail = expectStatus(await api('GET', `/v1/integrations/${f.name}/events/${failed.id}`, { token }), 200).body;
    expect(gitbookErrors(gitbookValidator('IntegrationEvent', GITBOOK_0202.components), detail.event), JSON.stringify(detail.event)).toBe('valid');
    expect(detail.trace.logs.map((l: any) => l.message).join('\n')).toContain('secret-laden internal failure');
    // The customer sees the (public) integration but does not read its events.
    expectError(await api('GET', `/v1/integrations/${f.name}/events/${failed.id}`, { token: f.customer.owner.token }), 403);
  });
});

describe('who may render', () => {
  it("answers an installation's own token, and refuses everyone who may not configure that installation", async () => {
    const integrationId = (await env.DB.prepare('select id from integrations where name = ?').bind(f.name).first<string>('id'))!;
    expectRendered(await render(settings(accountContext()), await seedToken(integrationId, f.installationId)));

    // Another organization's admin, its installation's token, and members of the installing organization who are no admins.
    expectError(await render(settings(accountContext()), f.other.org.owner.token), 404);
    expectError(await render(settings(accountContext()), await seedToken(integrationId, f.other.installationId)), 404);
    for (const role of ['create', 'edit', 'read', 'guest'] as const) expectError(await render(settings(accountContext()), f.customer.members[role].token), 404);
    expectError(await render(settings(siteContext()), f.customer.members.edit.token), 404);
    expectError(await render(settings(accountContext()), f.customer.outsider.token), 404);
    // The publisher's admins see the installation but do not configure it.
    expectError(await render(settings(accountContext()), f.publisher.owner.token), 403);
    // Another organization's space or site, named by its admin who has the integration installed too.
    expectError(await render(settings(spaceContext()), f.other.org.owner.token), 404);
    expectError(await render(settings(siteContext()), f.other.org.owner.token), 404);
    expectRendered(await render(settings(siteContext())));
  });

  it('answers 404 for an unknown integration, a private one the caller cannot see, and a space the installation does not cover', async () => {
    expectError(await api('POST', `/v1/integrations/${integrationName('none')}/render`, { token: f.customer.owner.token, body: settings(accountContext()) }), 404, 'No matching integration');
    const hidden = await seedIntegration(f.publisher.id, { visibility: 'private', script: SCRIPT, configurations: COMPONENT_CONFIGURATIONS });
    expectError(await api('POST', `/v1/integrations/${hidden.name}/render`, { token: f.customer.owner.token, body: settings(accountContext()) }), 404, 'No matching integration');
    const uncovered = (await createSpace(f.customer.id, f.customer.owner.token, 'Not configured')).id;
    expectError(await render(settings({ type: 'configuration_space', theme: 'light', spaceId: uncovered })), 404, 'not installed on this space');
    // No installation on that organization.
    expectError(await render(settings({ type: 'configuration_account', theme: 'light', organizationId: f.publisher.id }), f.publisher.owner.token), 404, 'Installation not found');
  });
});

describe('bad input', () => {
  it('refuses wrong types, missing fields and contexts other than configuration ones, naming the field', async () => {
    expectError(await render({ ...settings(accountContext()), props: 'x' }), 400, 'props');
    expectError(await render({ componentId: 'settings', props: {} }), 400, 'context');
    expectError(await render({ ...settings(accountContext()), componentId: 7 }), 400, 'componentId');
    expectError(await render(settings({ type: 'configuration_account', organizationId: f.customer.id })), 400, 'theme');
    expectError(await render(settings({ type: 'document', theme: 'light', spaceId: f.spaceId, editable: true })), 400, 'context.type');
    expectError(await render({ ...settings(accountContext()), action: { nothing: true } }), 400, 'action');
  });

  it('refuses props, state or actions too deep or too large', async () => {
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < MAX_RENDER_DEPTH + 5; i++) deep = { deep };
    expectError(await render(settings(accountContext(), { props: deep })), 400, 'props: at most');
    expectError(await render(settings(accountContext(), { state: deep })), 400, 'state: at most');
    expectError(await render(settings(accountContext(), { props: { big: 'x'.repeat(300 * 1024) } })), 400, 'characters');
  });

  it("refuses a GET request that is not LZ-string compressed RenderIntegrationUI", async () => {
    expectError(await api('GET', `/v1/integrations/${f.name}/render?request=%25%25%25`, { token: f.customer.owner.token }), 400, 'request');
    expectError(await api('GET', `/v1/integrations/${f.name}/render?request=${compressToEncodedURIComponent('{not json')}`, { token: f.customer.owner.token }), 400, 'JSON');
    expectError(await renderWithGet({ componentId: 'settings' }), 400, 'props');
    expectError(await api('GET', `/v1/integrations/${f.name}/render`, { token: f.customer.owner.token }), 400, 'request');
  });
});

describe('the configuration of an integration configured through a component', () => {
  it('is any JSON object its organization admins give through updateIntegrationInstallation and the space and site updates', async () => {
    const token = f.customer.owner.token;
    const configuration = { webhookUrl: 'https://hooks.example.com/a', events: { site_view: true }, list: [1, 'two', { three: 3 }] };
    const updated = expectStatus(await api('PATCH', installationUrl(), { token, body: { configuration } }), 200).body;
    expect(updated.configuration).toEqual(configuration);
    expect(expectStatus(await api('GET', installationUrl(), { token }), 200).body.configuration).toEqual(configuration);
    const onSpace = expectStatus(await api('PATCH', `${installationUrl()}/spaces/${f.spaceId}`, { token, body: { configuration: { content_updated: true, filters: { paths: ['a'] } } } }), 200);
    expect(onSpace.body.configuration).toEqual({ content_updated: true, filters: { paths: ['a'] } });
    const onSite = expectStatus(await api('PATCH', `${installationUrl()}/sites/${f.siteId}`, { token, body: { configuration: { page_feedback: false } } }), 200);
    expect(onSite.body.configuration).toEqual({ page_feedback: false });
  });

  it('is bounded: nesting and size answer 400, and nothing is stored', async () => {
    const token = f.customer.owner.token;
    const before = expectStatus(await api('GET', installationUrl(), { token }), 200).body.configuration;
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < MAX_CONFIGURATION_DEPTH; i++) deep = { deep };
    expectError(await api('PATCH', installationUrl(), { token, body: { configuration: deep } }), 400, 'levels of nesting');
    expectError(await api('PATCH', `${installationUrl()}/spaces/${f.spaceId}`, { token, body: { configuration: deep } }), 400, 'levels of nesting');
    expectError(await api('PATCH', installationUrl(), { token, body: { configuration: { big: 'x'.repeat(MAX_CONFIGURATION_BYTES) } } }), 400, `at most ${MAX_CONFIGURATION_BYTES} characters`);
    expectError(await api('PATCH', `${installationUrl()}/sites/${f.siteId}`, { token, body: { configuration: { big: 'x'.repeat(MAX_CONFIGURATION_BYTES) } } }), 400, 'characters');
    expect(expectStatus(await api('GET', installationUrl(), { token }), 200).body.configuration).toEqual(before);
    // Members who are no admins still may not configure it.
    expectError(await api('PATCH', installationUrl(), { token: f.customer.members.edit.token, body: { configuration: { webhookUrl: 'https://x.example' } } }), 404);
  });

  it('keeps property schemas strict for integrations that declare them', async () => {
    const declared = await seedIntegration(f.publisher.id, { configurations: { account: { properties: { url: { type: 'string' } } } } });
    const org = f.other.org;
    const id = expectStatus(await api('POST', `/v1/integrations/${declared.name}/installations`, { token: org.owner.token, body: { organization: org.id } }), 201).body.id;
    const url = `/v1/integrations/${declared.name}/installations/${id}`;
    expectError(await api('PATCH', url, { token: org.owner.token, body: { configuration: { webhookUrl: 'https://x.example' } } }), 400, 'configuration.webhookUrl: not a property');
    expectStatus(await api('PATCH', url, { token: org.owner.token, body: { configuration: { url: 'https://x.example' } } }), 200);
  });
});
