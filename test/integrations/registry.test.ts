import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { decryptSecret } from '../../src/services/integrations/crypto';
import { createSigner } from '../../src/services/content/files';
import { spaceRoleForScopes } from '../../src/services/integrations/scopes';
import { PNG_1x1 } from '../helpers/content';
import { GITBOOK_0202, gitbookErrors, gitbookOperations, gitbookValidator, schemaValidator } from '../helpers/gitbook-schema';
import { addMember, api, BASE, byCaller, callerUser, CALLERS, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { integrationName, seedInstallation, seedIntegration, seedToken } from '../helpers/integrations';
import { measureRoundTrips } from '../helpers/round-trips';
import { fetchWorker } from '../helpers/worker';

const INTEGRATION = gitbookValidator('Integration', GITBOOK_0202.components);
const SCRIPT = 'export default { async fetch() { return new Response("ok"); } };';
const SECRET = 'sk_live_this-value-must-never-come-back-9d1f';

function expectGitbookIntegration(body: unknown) {
  expect(gitbookErrors(INTEGRATION, body), JSON.stringify(body)).toBe('valid');
}

const publishBody = (organization: string, overrides: Record<string, unknown> = {}) => ({
  organization,
  title: 'Test integration',
  description: 'Does things',
  scopes: ['space:content:read'],
  script: SCRIPT,
  ...overrides,
});

function publish(name: string, token: string | null, body: Record<string, unknown>) {
  return api('POST', `/v1/integrations/${name}`, { token, body });
}

/** A path of our origin from an absolute URL the API gave (asset URLs are absolute). */
const pathOf = (url: string) => {
  expect(url.startsWith(`${BASE}/`), url).toBe(true);
  return url.slice(BASE.length);
};

const integrationRow = (name: string) =>
  env.DB.prepare('select * from integrations where name = ?').bind(name).first<Record<string, any>>();

let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  [org, other] = await Promise.all([seedOrg(), seedOrg()]);
});

describe('publishIntegration', () => {
  it('publishes version 1 with GitBook 0.202 Integration shape, then version 2 on each republish', async () => {
    const name = integrationName('pub');
    const body = publishBody(org.id, {
      icon: PNG_1x1,
      previewImages: [PNG_1x1, PNG_1x1],
      summary: '# Long form\n\nMarkdown.',
      visibility: 'public',
      target: 'space',
      scopes: ['space:content:read', 'space:content:read', 'space:metadata:read'],
      categories: ['content', 'other'],
      blocks: [
        { id: 'embed', title: 'Embed', description: 'Embeds a thing', urlUnfurl: ['https://www.example-video.com/watch?v=*'], markdown: { codeblock: 'embed', body: 'url' } },
      ],
      contentSources: [{ id: 'src', title: 'Source', configuration: { componentId: 'configure' } }],
      externalLinks: [{ url: 'https://example.com/docs', label: 'Docs' }],
      configurations: {
        account: {
          properties: {
            token: { type: 'string', title: 'API token', description: 'Your token', enum: ['a', 'b'], default: 'a' },
            count: { type: 'number', default: 3 },
            enabled: { type: 'boolean', default: true },
            connect: { type: 'button', title: 'Connect', callback_url: '/oauth', button_text: 'Connect' },
          },
          required: ['token'],
        },
        space: { componentId: 'space-config' },
      },
      secrets: { API_KEY: SECRET },
      contentSecurityPolicy: { 'default-src': "'self'", 'img-src': '*' },
    });
    const first = expectStatus(await publish(name, org.owner.token, body), 200).body;
    expectGitbookIntegration(first);
    expect(first).toMatchObject({
      object: 'integration',
      name,
      version: 1,
      title: 'Test integration',
      description: 'Does things',
      visibility: 'public',
      target: 'space',
      verified: false,
      scopes: ['space:content:read', 'space:metadata:read'],
      categories: ['content', 'other'],
      owner: { object: 'organization', id: org.id },
      permissions: { admin: true },
      contentSecurityPolicy: "default-src 'self'; img-src *",
    });
    expect(first.previewImages).toHaveLength(2);
    expect(first.urls.icon).toMatch(/\/integration-assets\/[A-Za-z0-9]+\/v1-[A-Za-z0-9]{8}\/icon\?expires=\d+&signature=[0-9a-f]{64}$/);
    expect(first.urls.location).toBe(`${BASE}/v1/integrations/${name}`);
    expect(first.configurations.account.required).toEqual(['token']);
    expect(JSON.stringify(first)).not.toContain('export default');

    // The bot user exists, named after the title; the script is the version's code in R2; secrets are ciphertext.
    const row = (await integrationRow(name))!;
    const bot = await env.DB.prepare('select * from users where id = ?').bind(row.bot_user_id).first<Record<string, any>>();
    expect(bot).toMatchObject({ display_name: 'Test integration', email: `${row.bot_user_id}@integrations.invalid`, email_verified: 1 });
    expect(row.script_key).toMatch(new RegExp(`^integrations/${row.id}/v1-[A-Za-z0-9]{8}/script\\.js$`));
    expect(await (await env.FILES.get(row.script_key))!.text()).toBe(SCRIPT);
    expect(row.secrets).toBeTruthy();
    expect(row.secrets).not.toContain(SECRET);

    const second = expectStatus(await publish(name, org.owner.token, { ...body, title: 'Renamed', secrets: undefined }), 200).body;
    expectGitbookIntegration(second);
    expect(second).toMatchObject({ version: 2, title: 'Renamed' });
    expect(second.urls.icon).toMatch(/\/v2-[A-Za-z0-9]{8}\/icon\?/);
    const after = (await integrationRow(name))!;
    expect(after.id).toBe(row.id);
    expect(after.secrets).toBe(row.secrets); // omitted secrets are kept
    expect((await env.DB.prepare('select display_name from users where id = ?').bind(row.bot_user_id).first<{ display_name: string }>())!.display_name).toBe('Renamed');
    const third = expectStatus(await publish(name, org.owner.token, body), 200).body;
    expect(third.version).toBe(3);
    // The replaced versions' objects are deleted once the new one is committed (after the response).
    for (let i = 0; i < 50 && (await env.FILES.head(row.icon_key)); i++) await new Promise((r) => setTimeout(r, 20));
    expect(await env.FILES.head(row.icon_key)).toBeNull();
    expect(await env.FILES.head(row.script_key)).toBeNull();
    expect(await env.FILES.head((await integrationRow(name))!.script_key)).not.toBeNull();
  });

  it('keeps the files of two publishes that race for the same version apart: the row points at the winner\'s own', async () => {
    const name = integrationName('race');
    expectStatus(await publish(name, org.owner.token, publishBody(org.id, { script: 'export default { fetch: () => new Response("first") };' })), 200);
    const scripts = ['A', 'B'].map((tag) => `export default { fetch: () => new Response(${JSON.stringify(tag)}) };`);
    const answers = await Promise.all(scripts.map((script) => publish(name, org.owner.token, publishBody(org.id, { script }))));
    const winners = answers.filter((res) => res.status === 200);
    expect(winners.length).toBeGreaterThanOrEqual(1);
    for (const res of answers.filter((r) => r.status !== 200)) expectError(res, 409);
    const row = (await integrationRow(name))!;
    const stored = await (await env.FILES.get(row.script_key))!.text();
    // The stored script is the one of the publish whose version the row holds, never the other's.
    expect(scripts).toContain(stored);
    expect(row.version).toBe(1 + winners.length);
    // A losing publish removes its own files; what is left is the current version's, and (until the
    // response's cleanup runs) the replaced ones'.
    const listed = await env.FILES.list({ prefix: `integrations/${row.id}/` });
    expect(listed.objects.map((o) => o.key)).toContain(row.script_key);
  });

  it('never returns secrets or the script, in any response', async () => {
    const name = integrationName('secret');
    const body = publishBody(org.id, { visibility: 'public', secrets: { KEY: SECRET, OTHER: `${SECRET}-2` }, script: `${SCRIPT} // ${SECRET}-script` });
    const responses = [
      await publish(name, org.owner.token, body),
      await api('GET', `/v1/integrations/${name}`, { token: org.owner.token }),
      await api('GET', `/v1/integrations/${name}`, { token: other.owner.token }),
      await api('GET', `/v1/integrations?owner=${org.id}`, { token: org.owner.token }),
      await api('GET', '/v1/integrations', { token: other.owner.token }),
    ];
    for (const res of responses) {
      expect(res.status).toBe(200);
      const text = JSON.stringify(res.body);
      expect(text).toContain(name);
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain('sk_live');
    }
  });

  it('takes bodies up to its own limit: 50 secrets of 4,000 characters and a script near 1 MiB (past the default 1 MiB body limit)', async () => {
    const name = integrationName('big');
    const secrets = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`KEY_${i}`, 's'.repeat(4000)]));
    const script = `${SCRIPT}\n// ${'x'.repeat(1000 * 1000)}`;
    const published = expectStatus(await publish(name, org.owner.token, publishBody(org.id, { secrets, script })), 200).body;
    expect(published.version).toBe(1);
    const row = (await integrationRow(name))!;
    expect(await decryptSecret(env as never, row.secrets)).toBe(JSON.stringify(secrets));
    expectError(await publish(integrationName('huge'), org.owner.token, publishBody(org.id, { script: 'x'.repeat(9 * 1024 * 1024) })), 413);
  });

  it('serves the icon and previews through signed URLs, and refuses tampered or expired signatures', async () => {
    const name = integrationName('icon');
    const published = expectStatus(await publish(name, org.owner.token, publishBody(org.id, { icon: PNG_1x1, previewImages: [PNG_1x1] })), 200).body;
    const icon = await api('GET', pathOf(published.urls.icon));
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/png');
    expect(icon.headers.get('x-content-type-options')).toBe('nosniff');
    const raw = await fetchBytes(pathOf(published.urls.icon));
    expect(raw).toEqual(Uint8Array.from(atob(PNG_1x1), (ch) => ch.charCodeAt(0)));
    expectStatus(await api('GET', pathOf(published.previewImages[0])), 200);

    const tampered = published.urls.icon.replace(/signature=([0-9a-f])/, (_: string, ch: string) => `signature=${ch === '0' ? '1' : '0'}`);
    expectError(await api('GET', pathOf(tampered)), 403, 'signature');
    // The icon's signature does not open another object (the script) of the same folder.
    expectError(await api('GET', pathOf(published.urls.icon.replace('/icon?', '/script.js?'))), 403);
    expectError(await api('GET', pathOf(published.urls.icon.replace('/icon?', '/preview-0?'))), 403, 'signature');

    const row = (await integrationRow(name))!;
    const expires = Math.floor(Date.now() / 1000) - 60;
    const signature = await createSigner(env as never)(['integration-asset', row.icon_key, expires].join('\n'));
    const served = `/integration-assets/${row.icon_key.slice('integrations/'.length)}`;
    expectError(await api('GET', `${served}?expires=${expires}&signature=${signature}`), 403, 'expired');
    expectError(await api('GET', served), 403);
  });

  it('refuses bad input with 400 and an error body naming the field', async () => {
    const name = integrationName('bad');
    const token = org.owner.token;
    const bad = async (overrides: Record<string, unknown>, field: string) => expectError(await publish(name, token, publishBody(org.id, overrides)), 400, field);
    await bad({ title: 42 }, 'title');
    await bad({ title: 'x' }, 'title');
    await bad({ title: 'x'.repeat(10_000) }, 'title');
    await bad({ description: 'd'.repeat(101) }, 'description');
    await bad({ summary: 's'.repeat(2049) }, 'summary');
    await bad({ scopes: ['space:content:delete'] }, 'scopes');
    await bad({ scopes: 'space:content:read' }, 'scopes');
    await bad({ visibility: 'secret' }, 'visibility');
    await bad({ categories: ['games'] }, 'categories');
    await bad({ runtime: 'v9' }, 'runtime');
    await bad({ script: '' }, 'script');
    await bad({ script: undefined }, 'script');
    await bad({ organization: undefined }, 'organization');
    await bad({ unknownField: true }, 'unknownField');
    await bad({ icon: 'not base64!' }, 'icon');
    await bad({ icon: btoa('plain text, not an image') }, 'icon');
    await bad({ previewImages: [PNG_1x1, PNG_1x1, PNG_1x1, PNG_1x1] }, 'previewImages');
    await bad({ secrets: { KEY: 'v'.repeat(4097) } }, 'secrets');
    await bad({ secrets: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`K${i}`, 'v'])) }, 'secrets');
    await bad({ secrets: { KEY: 7 } }, 'secrets');
    // An own `__proto__` key, as JSON carries it (an object literal would set the prototype instead).
    await bad({ secrets: JSON.parse('{"__proto__": "v", "KEY": "v"}') }, 'secrets.__proto__');
    await bad({ configurations: { account: { properties: JSON.parse('{"__proto__": {"type": "string"}}') } } }, 'configurations');
    await bad({ externalLinks: [{ url: 'javascript:alert(1)', label: 'x' }] }, 'externalLinks');
    await bad({ externalLinks: Array.from({ length: 6 }, () => ({ url: 'https://example.com', label: 'x' })) }, 'externalLinks');
    await bad({ blocks: [{ id: 'a', title: 'A block' }, { id: 'a', title: 'Same id' }] }, 'blocks');
    await bad({ contentSecurityPolicy: "default-src 'self'\r\nX-Injected: 1" }, 'contentSecurityPolicy');
    // Configurations: shape checked.
    await bad({ configurations: { account: { properties: { a: { type: 'date' } } } } }, 'configurations');
    await bad({ configurations: { account: { properties: { a: { type: 'string' } }, required: ['b'] } } }, 'configurations');
    await bad({ configurations: { account: { properties: { a: { type: 'button', button_text: 'Go' } } } } }, 'configurations');
    await bad({ configurations: { account: { properties: { a: { type: 'number', default: 'three' } } } } }, 'configurations');
    await bad({ configurations: { account: { properties: { a: { type: 'string', enum: ['x'], default: 'y' } } } } }, 'configurations');
    await bad({ configurations: { account: { properties: {}, componentId: 'both' } } }, 'configurations');
    await bad({ configurations: { workspace: { componentId: 'x' } } }, 'configurations');
    await bad({ configurations: { account: { required: [] } } }, 'configurations');

    // The name: GitBook's pattern and length.
    expectError(await publish('bad%20name', token, publishBody(org.id)), 400, 'integrationName');
    expectError(await publish('a'.repeat(101), token, publishBody(org.id)), 400, 'integrationName');
    expectError(await api('POST', `/v1/integrations/${name}`, { token, rawBody: '{"title":' }), 400);
    expect(await integrationRow(name)).toBeNull();
  });

  it('resolves the organization by id or by hostname; an unknown one is 404', async () => {
    const host = `pub-${Date.now().toString(36)}`;
    await env.DB.prepare('update organizations set hostname = ? where id = ?').bind(host, org.id).run();
    const byHost = expectStatus(await publish(integrationName('host'), org.owner.token, publishBody(host)), 200).body;
    expect(byHost.owner.id).toBe(org.id);
    expectError(await publish(integrationName('host'), org.owner.token, publishBody('no-such-organization')), 404, 'organization could not be found');
    // Another organization's hostname, for a caller who is not its member, reads as unknown.
    expectError(await publish(integrationName('host'), other.owner.token, publishBody(host)), 404, 'organization could not be found');
  });

  it('is for admins of the publishing organization only', async () => {
    const expected = byCaller(200, 403, 403, 403, 403, 403, 403, 404);
    for (const caller of CALLERS) {
      const res = await publish(integrationName('role'), callerUser(org, caller).token, publishBody(org.id));
      if (expected[caller] === 200) expectStatus(res, 200);
      else expectError(res, expected[caller]);
    }
  });

  it("refuses another organization's admin, and moving an integration to another organization", async () => {
    const publicName = integrationName('taken');
    const privateName = integrationName('taken');
    expectStatus(await publish(publicName, org.owner.token, publishBody(org.id, { visibility: 'public' })), 200);
    expectStatus(await publish(privateName, org.owner.token, publishBody(org.id, { visibility: 'private' })), 200);
    // Visible to them: 403; invisible: the name is taken (409).
    expectError(await publish(publicName, other.owner.token, publishBody(other.id)), 403, 'admins');
    expectError(await publish(privateName, other.owner.token, publishBody(other.id)), 409, 'already taken');
    // A member of the owner who is not an admin: 403.
    expectError(await publish(privateName, org.members.create.token, publishBody(org.id)), 403);

    // An admin of both organizations may not move it.
    const second = await seedOrg();
    await addMember(second.id, org.owner.id, 'admin');
    expectError(await publish(publicName, org.owner.token, publishBody(second.id)), 409, 'another organization');
    expect((await integrationRow(publicName))!.version).toBe(1);
  });

  it('recomputes the space role of its installations from what they approved when the scopes change', async () => {
    const name = integrationName('role');
    const scopes = ['space:content:read', 'site:metadata:read'];
    expectStatus(await publish(name, org.owner.token, publishBody(org.id, { scopes })), 200);
    const row = (await integrationRow(name))!;
    const installation = await seedInstallation({ id: row.id, name, botUserId: row.bot_user_id, scopes }, other.id);
    const stateOf = async () =>
      (await env.DB.prepare('select space_role, status from integration_installations where id = ?').bind(installation.id).first<{ space_role: number; status: string }>())!;
    expect(await stateOf()).toEqual({ space_role: spaceRoleForScopes(['space:content:read']), status: 'active' });
    // Asking for more: nothing changes until the installing organization approves it (test/integrations/consent.test.ts).
    expectStatus(await publish(name, org.owner.token, publishBody(org.id, { scopes: [...scopes, 'space:content:write'] })), 200);
    expect(await stateOf()).toEqual({ space_role: spaceRoleForScopes(['space:content:read']), status: 'pending' });
    // Asking for less narrows at once.
    expectStatus(await publish(name, org.owner.token, publishBody(org.id, { scopes: ['site:metadata:read'] })), 200);
    expect(await stateOf()).toEqual({ space_role: spaceRoleForScopes([]), status: 'active' });
  });

  it('needs a token', async () => {
    expectError(await publish(integrationName('anon'), null, publishBody(org.id)), 401);
  });
});

describe('getIntegrationByName', () => {
  it('reads public and unlisted integrations for anyone, private ones for members of their owner only', async () => {
    const pub = integrationName('vis');
    const unlisted = integrationName('vis');
    const priv = integrationName('vis');
    expectStatus(await publish(pub, org.owner.token, publishBody(org.id, { visibility: 'public' })), 200);
    expectStatus(await publish(unlisted, org.owner.token, publishBody(org.id, { visibility: 'unlisted' })), 200);
    expectStatus(await publish(priv, org.owner.token, publishBody(org.id, { visibility: 'private' })), 200);

    const asOutsider = expectStatus(await api('GET', `/v1/integrations/${pub}`, { token: other.owner.token }), 200).body;
    expectGitbookIntegration(asOutsider);
    expect(asOutsider.permissions.admin).toBe(false);
    expect(asOutsider.owner.permissions.view).toBe(false);
    expectStatus(await api('GET', `/v1/integrations/${unlisted}`, { token: other.owner.token }), 200);
    expectError(await api('GET', `/v1/integrations/${priv}`, { token: other.owner.token }), 404, 'No matching integration');
    expectError(await api('GET', `/v1/integrations/${integrationName('none')}`, { token: org.owner.token }), 404, 'No matching integration');

    const asReader = expectStatus(await api('GET', `/v1/integrations/${priv}`, { token: org.members.read.token }), 200).body;
    expect(asReader.permissions.admin).toBe(false);
    const asAdmin = expectStatus(await api('GET', `/v1/integrations/${priv}`, { token: org.owner.token }), 200).body;
    expect(asAdmin.permissions.admin).toBe(true);
    expectGitbookIntegration(asAdmin);
    expectError(await api('GET', `/v1/integrations/${pub}`), 401);
    expectError(await api('GET', '/v1/integrations/bad%20name', { token: org.owner.token }), 400);
  });

  it("admits the integration's own token and its installations' tokens", async () => {
    const integration = await seedIntegration(org.id, { visibility: 'private' });
    const installation = await seedInstallation(integration, other.id);
    const own = expectStatus(await api('GET', `/v1/integrations/${integration.name}`, { token: await seedToken(integration.id, null) }), 200).body;
    expect(own.permissions.admin).toBe(true);
    expectGitbookIntegration(own);
    const installed = expectStatus(await api('GET', `/v1/integrations/${integration.name}`, { token: await seedToken(integration.id, installation.id) }), 200).body;
    expect(installed.name).toBe(integration.name);
    // Another integration's token sees only what anyone sees.
    const stranger = await seedIntegration(other.id);
    expectError(await api('GET', `/v1/integrations/${integration.name}`, { token: await seedToken(stranger.id, null) }), 404);
    // The other routes admit no integration token.
    expectError(await api('GET', '/v1/integrations', { token: await seedToken(integration.id, null) }), 403);
    expectError(await api('DELETE', `/v1/integrations/${integration.name}`, { token: await seedToken(integration.id, null) }), 403);
  });
});

describe('listIntegrations', () => {
  let owner: TestOrg;
  const names: Record<string, string> = {};

  beforeAll(async () => {
    owner = await seedOrg();
    const token = owner.owner.token;
    const specs: Record<string, Record<string, unknown>> = {
      alpha: { title: 'Alpha analytics', categories: ['analytics'], scopes: ['site:views:read'], target: 'site', visibility: 'public' },
      bravo: {
        title: 'Bravo embeds',
        categories: ['content'],
        blocks: [{ id: 'b', title: 'Video', urlUnfurl: ['https://www.VideoHost.example/watch/*'] }],
        target: 'space',
        visibility: 'public',
      },
      charlie: {
        title: 'Charlie sync',
        contentSources: [{ id: 'c', title: 'Source', configuration: { componentId: 'x' } }],
        scopes: ['space:content:write'],
        visibility: 'public',
      },
      delta: { title: 'Delta secret', visibility: 'private', categories: ['analytics'] },
      echo: { title: 'Echo unlisted', visibility: 'unlisted' },
    };
    for (const [key, spec] of Object.entries(specs)) {
      names[key] = integrationName(key);
      expectStatus(await publish(names[key], token, publishBody(owner.id, spec)), 200);
    }
  });

  const list = async (query: string, token = owner.owner.token) => {
    const res = expectStatus(await api('GET', `/v1/integrations?owner=${owner.id}${query}`, { token }), 200).body;
    return res;
  };
  const namesOf = (page: any) => page.items.map((i: any) => i.name).sort();
  const of = (...keys: string[]) => keys.map((k) => names[k]).sort();

  it('lists every integration of the caller’s organizations, and only the public ones of others', async () => {
    const mine = await list('');
    expect(namesOf(mine)).toEqual(of('alpha', 'bravo', 'charlie', 'delta', 'echo'));
    expect(mine.count).toBe(5);
    const listSchema = schemaValidator(gitbookOperations().get('listIntegrations')!.responses['200']!, GITBOOK_0202.components);
    expect(gitbookErrors(listSchema, mine), JSON.stringify(mine)).toBe('valid');
    // A guest of the organization is a member: it sees them too.
    expect(namesOf(await list('', owner.members.guest.token))).toEqual(of('alpha', 'bravo', 'charlie', 'delta', 'echo'));
    const theirs = await list('', other.owner.token);
    expect(namesOf(theirs)).toEqual(of('alpha', 'bravo', 'charlie'));
    expect(theirs.count).toBe(3);
    // Without the owner filter, the outsider's list has none of the private or unlisted ones.
    const all = expectStatus(await api('GET', '/v1/integrations?limit=1000', { token: other.owner.token }), 200).body;
    const everything = all.items.map((i: any) => i.name);
    expect(everything).toEqual(expect.arrayContaining(of('alpha', 'bravo', 'charlie')));
    expect(everything).not.toContain(names.delta);
    expect(everything).not.toContain(names.echo);
  });

  it('filters by search, category, blockDomain, blocks, contentSources, scope and target', async () => {
    expect(namesOf(await list('&search=BRAVO'))).toEqual(of('bravo'));
    expect(namesOf(await list(`&search=${names.charlie.slice(0, 12)}`))).toEqual(of('charlie'));
    expect(namesOf(await list('&category=analytics'))).toEqual(of('alpha', 'delta'));
    expect(namesOf(await list('&blockDomain=videohost.example'))).toEqual(of('bravo'));
    expect(namesOf(await list('&blockDomain=elsewhere.example'))).toEqual([]);
    expect(namesOf(await list('&blocks=true'))).toEqual(of('bravo'));
    expect(namesOf(await list('&blocks=false'))).toEqual(of('alpha', 'charlie', 'delta', 'echo'));
    expect(namesOf(await list('&contentSources=true'))).toEqual(of('charlie'));
    expect((await list('&contentSources=false')).count).toBe(4);
    expect(namesOf(await list('&scope=space:content:write'))).toEqual(of('charlie'));
    expect(namesOf(await list('&scope=site:views:read'))).toEqual(of('alpha'));
    // target: integrations of that target, and those of target all (installable everywhere).
    expect(namesOf(await list('&target=site'))).toEqual(of('alpha', 'charlie', 'delta', 'echo'));
    expect(namesOf(await list('&target=all'))).toEqual(of('charlie', 'delta', 'echo'));
    expect(namesOf(await list('&category=analytics&target=site', other.owner.token))).toEqual(of('alpha'));
    const foreign = expectStatus(await api('GET', `/v1/integrations?owner=${other.id}`, { token: owner.owner.token }), 200).body;
    expect(foreign.items.every((i: any) => i.owner.id === other.id)).toBe(true);
    expect(foreign.count).toBe(foreign.items.length);
  });

  it('pages with an opaque cursor, and refuses bad parameters', async () => {
    const first = await list('&limit=2');
    expect(first.items).toHaveLength(2);
    expect(first.count).toBe(5);
    const second = await list(`&limit=2&page=${first.next.page}`);
    const third = await list(`&limit=2&page=${second.next.page}`);
    expect(third.next).toBeUndefined();
    expect([...first.items, ...second.items, ...third.items].map((i: any) => i.name).sort()).toEqual(of('alpha', 'bravo', 'charlie', 'delta', 'echo'));

    const token = owner.owner.token;
    expectError(await api('GET', '/v1/integrations?page=nonsense', { token }), 400);
    expectError(await api('GET', '/v1/integrations?limit=1001', { token }), 400);
    expectError(await api('GET', '/v1/integrations?category=games', { token }), 400, 'category');
    expectError(await api('GET', '/v1/integrations?scope=all', { token }), 400, 'scope');
    expectError(await api('GET', '/v1/integrations?blocks=yes', { token }), 400, 'blocks');
    expectError(await api('GET', '/v1/integrations?blockDomain=a%20b', { token }), 400, 'blockDomain');
    expectError(await api('GET', `/v1/integrations?search=${'x'.repeat(65)}`, { token }), 400, 'search');
    expectError(await api('GET', '/v1/integrations'), 401);
  });

  it('costs at most two D1 round trips, whatever the page length', async () => {
    const measured = await measureRoundTrips('GET', `/v1/integrations?owner=${owner.id}`, owner.owner.token);
    expect(measured.status).toBe(200);
    expect(measured.roundTrips).toBeLessThanOrEqual(2);
    const read = await measureRoundTrips('GET', `/v1/integrations/${names.alpha}`, owner.owner.token);
    expect(read.status).toBe(200);
    expect(read.roundTrips).toBeLessThanOrEqual(2);
  });
});

describe('unpublishIntegration', () => {
  it('tombstones the integration, removes its installations and records an installation_deleted event for each, in D1', async () => {
    const integration = await seedIntegration(org.id, { visibility: 'public', script: SCRIPT });
    const installation = await seedInstallation(integration, other.id, { spaces: 'all' });
    const paused = await seedInstallation(integration, (await seedOrg()).id, { status: 'paused' });

    expectStatus(await api('DELETE', `/v1/integrations/${integration.name}`, { token: org.owner.token }), 204);

    const row = (await integrationRow(integration.name))!;
    expect(row.deleted_at).toBeTruthy();
    const installations = await env.DB.prepare('select id from integration_installations where integration_id = ?').bind(integration.id).all();
    expect(installations.results).toEqual([]);
    const events = await env.DB.prepare("select * from integration_events where integration_id = ? and type = 'installation_deleted'").bind(integration.id).all<Record<string, any>>();
    expect(events.results.map((e) => e.installation_id).sort()).toEqual([installation.id, paused.id].sort());
    for (const event of events.results) {
      expect(JSON.parse(event.payload)).toEqual({ type: 'installation_deleted', installationId: event.installation_id });
    }
    expect(events.results.find((e) => e.installation_id === installation.id)!.org_id).toBe(other.id);

    expectError(await api('GET', `/v1/integrations/${integration.name}`, { token: org.owner.token }), 404, 'No matching integration');
    const listed = expectStatus(await api('GET', `/v1/integrations?owner=${org.id}&limit=1000`, { token: org.owner.token }), 200).body;
    expect(listed.items.map((i: any) => i.name)).not.toContain(integration.name);
    // Again, and an unknown name: 204.
    expectStatus(await api('DELETE', `/v1/integrations/${integration.name}`, { token: org.owner.token }), 204);
    expectStatus(await api('DELETE', `/v1/integrations/${integrationName('never')}`, { token: org.owner.token }), 204);

    // Publishing the name again replaces the tombstone (its events go with it) with a fresh integration.
    const fresh = expectStatus(await publish(integration.name, other.owner.token, publishBody(other.id)), 200).body;
    expect(fresh).toMatchObject({ version: 1, owner: { id: other.id } });
    const replaced = (await integrationRow(integration.name))!;
    expect(replaced.id).not.toBe(integration.id);
    expect(replaced.deleted_at).toBeNull();
    // A bot user of its own: the old one stays the author of what it wrote.
    expect(replaced.bot_user_id).not.toBe(integration.botUserId);
    expect(await env.DB.prepare('select id from users where id = ?').bind(integration.botUserId).first()).not.toBeNull();
    const left = await env.DB.prepare('select count(*) as n from integration_events where integration_id = ?').bind(integration.id).first<{ n: number }>();
    expect(left!.n).toBe(0);
  });

  it('is for admins of its organization (403 for others who see it, 204 for those who do not)', async () => {
    const expected = byCaller(204, 403, 403, 403, 403, 403, 403, 403);
    for (const caller of CALLERS) {
      const integration = await seedIntegration(org.id, { visibility: 'public' });
      const res = await api('DELETE', `/v1/integrations/${integration.name}`, { token: callerUser(org, caller).token });
      if (expected[caller] === 204) expectStatus(res, 204);
      else expectError(res, expected[caller]);
      expect(!!(await integrationRow(integration.name))!.deleted_at).toBe(expected[caller] === 204);
    }
    const hidden = await seedIntegration(org.id, { visibility: 'private' });
    expectStatus(await api('DELETE', `/v1/integrations/${hidden.name}`, { token: other.owner.token }), 204);
    expect((await integrationRow(hidden.name))!.deleted_at).toBeNull();
    expectError(await api('DELETE', `/v1/integrations/${hidden.name}`), 401);
  });

  it('costs at most three D1 round trips, and publishing too', async () => {
    const name = integrationName('trips');
    const published = await measureRoundTrips('POST', `/v1/integrations/${name}`, org.owner.token, publishBody(org.id, { icon: PNG_1x1 }));
    expect(published.status).toBe(200);
    expect(published.roundTrips).toBeLessThanOrEqual(3);
    const republished = await measureRoundTrips('POST', `/v1/integrations/${name}`, org.owner.token, publishBody(org.id));
    expect(republished.status).toBe(200);
    expect(republished.roundTrips).toBeLessThanOrEqual(3);
    const row = (await integrationRow(name))!;
    await seedInstallation({ id: row.id, name, botUserId: row.bot_user_id, scopes: [] }, other.id);
    const unpublished = await measureRoundTrips('DELETE', `/v1/integrations/${name}`, org.owner.token);
    expect(unpublished.status).toBe(204);
    expect(unpublished.roundTrips).toBeLessThanOrEqual(3);
  });
});

describe('integration development mode', () => {
  it('is set and cleared by admins of the organization; a refused tunnel URL is a 400', async () => {
    const integration = await seedIntegration(org.id, { visibility: 'private' });
    const path = `/v1/integrations/${integration.name}/dev`;
    const devOf = async () => env.DB.prepare('select dev_tunnel_url, dev_all from integrations where id = ?').bind(integration.id).first<Record<string, any>>();

    expectStatus(await api('PUT', path, { token: org.owner.token, body: { tunnelUrl: 'https://tunnel.example.com/dev', all: true } }), 204);
    expect(await devOf()).toEqual({ dev_tunnel_url: 'https://tunnel.example.com/dev', dev_all: 1 });
    expectStatus(await api('PUT', path, { token: org.owner.token, body: { tunnelUrl: 'https://tunnel.example.com/other' } }), 204);
    expect(await devOf()).toEqual({ dev_tunnel_url: 'https://tunnel.example.com/other', dev_all: 0 });

    expectError(await api('PUT', path, { token: org.owner.token, body: { tunnelUrl: 'http://127.0.0.1:8080' } }), 400, 'tunnelUrl');
    expectError(await api('PUT', path, { token: org.owner.token, body: { tunnelUrl: 'file:///etc/passwd' } }), 400, 'tunnelUrl');
    expectError(await api('PUT', path, { token: org.owner.token, body: { tunnelUrl: 'x'.repeat(257) } }), 400, 'tunnelUrl');
    expectError(await api('PUT', path, { token: org.owner.token, body: { all: true } }), 400, 'tunnelUrl');
    expect((await devOf())!.dev_tunnel_url).toBe('https://tunnel.example.com/other');

    expectError(await api('PUT', path, { token: org.members.create.token, body: { tunnelUrl: 'https://tunnel.example.com' } }), 403);
    expectError(await api('DELETE', path, { token: org.members.create.token }), 403);
    expectError(await api('PUT', path, { token: other.owner.token, body: { tunnelUrl: 'https://tunnel.example.com' } }), 404, 'No matching integration');
    expectError(await api('PUT', `/v1/integrations/${integrationName('none')}/dev`, { token: org.owner.token, body: { tunnelUrl: 'https://tunnel.example.com' } }), 404);
    expectError(await api('PUT', path, { body: { tunnelUrl: 'https://tunnel.example.com' } }), 401);

    const cleared = await api('DELETE', path, { token: org.owner.token });
    expect(cleared.status).toBe(205);
    expect(await devOf()).toEqual({ dev_tunnel_url: null, dev_all: 0 });
  });
});

async function fetchBytes(path: string): Promise<Uint8Array> {
  const { exports } = await import('cloudflare:workers');
  const res = await fetchWorker(`${BASE}${path}`);
  return new Uint8Array(await res.arrayBuffer());
}
