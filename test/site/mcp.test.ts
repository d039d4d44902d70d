/**
 * The MCP server of a published site (`<site URL>/~gitbook/mcp`), reached by the official MCP TypeScript SDK's
 * client over Streamable HTTP, its fetch going to the Worker under test: tools listed, a search, a page read, what
 * the site's visitor may read and nothing more, refused without the site's key or token, off where the site's
 * customization turns `pageActions.mcp` off, and on an organization's host.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { signVisitorToken } from '../../src/services/sites/visitor-token';
import { api, BASE, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { fetchWorker } from '../helpers/worker';
import { publishedSite, shareKeyOf, spaceWithPages } from './helpers';

let org: TestOrg;
let space: { id: string; pages: Record<string, string> };
let site: { id: string; path: string };

const workerFetch = (input: string | URL | Request, init?: RequestInit) => fetchWorker(input as RequestInfo, init);

async function connect(url: string, headers: Record<string, string> = {}) {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: workerFetch, requestInit: { headers } });
  await client.connect(transport);
  return client;
}

const textOf = (result: any) => (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join('\n');

beforeAll(async () => {
  org = await seedOrg();
  space = await spaceWithPages(org, 'Guide', [
    { operation: 'insert_page', ref: 'a', title: 'Getting started', description: 'First steps', document: { markdown: 'Install the **zephyr** tool.\n\n## Zephyr setup\n\nConfigure zephyr.\n' } },
    { operation: 'insert_page', into: 'a', title: 'Deep dive', document: { markdown: 'Zephyr internals.\n' } },
    { operation: 'insert_page', title: 'Hidden page', hidden: true, document: { markdown: 'Zephyr secrets of the hidden page.\n' } },
    { operation: 'insert_page', title: 'Only pros', condition: 'visitor.claims.pro == true', document: { markdown: 'Zephyr for pros only.\n' } },
  ]);
  site = await publishedSite(org, [space.id], 'public', 'Zephyr Docs');
});

describe('the MCP server of a public site', () => {
  it('lists GitBook’s tools (no askQuestion: nothing here can answer one honestly)', async () => {
    const client = await connect(`${BASE}/s/${site.id}/~gitbook/mcp`);
    expect(client.getServerVersion()?.name).toBe('Zephyr Docs');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['getPage', 'searchDocumentation']);
    const search = tools.find((t) => t.name === 'searchDocumentation')!;
    expect(search.description).toContain('Zephyr Docs');
    expect(search.inputSchema.required).toEqual(['query']);
    expect(client.getInstructions()).toContain('no askQuestion');
    await client.close();
  });

  it('searchDocumentation: titles, absolute links and excerpts of what the visitor may see', async () => {
    const client = await connect(`${BASE}/s/${site.id}/~gitbook/mcp`);
    const result = await client.callTool({ name: 'searchDocumentation', arguments: { query: 'zephyr' } });
    const text = textOf(result);
    expect(result.isError).toBeFalsy();
    expect(text).toContain('## Getting started');
    expect(text).toContain(`Link: ${BASE}/s/${site.id}/getting-started`);
    expect(text).toContain(`Link: ${BASE}/s/${site.id}/getting-started/deep-dive`);
    expect(text).not.toContain('Hidden page');
    expect(text).not.toContain('Only pros');
    const none = await client.callTool({ name: 'searchDocumentation', arguments: { query: 'nonexistentword' } });
    expect(textOf(none)).toBe('No results for "nonexistentword".');
    await client.close();
  });

  it('getPage: the page’s Markdown by its URL or path, as the site’s .md view shows it', async () => {
    const client = await connect(`${BASE}/s/${site.id}/~gitbook/mcp`);
    const byUrl = textOf(await client.callTool({ name: 'getPage', arguments: { url: `${BASE}/s/${site.id}/getting-started` } }));
    expect(byUrl).toContain('# Getting started');
    expect(byUrl).toContain('Install the **zephyr** tool.');
    expect(byUrl).toContain('description: First steps');
    const byPath = textOf(await client.callTool({ name: 'getPage', arguments: { url: '/getting-started/deep-dive' } }));
    expect(byPath).toContain('Zephyr internals.');
    // Hidden pages open by their URL on the site, so here too; a page gated by its condition does not.
    expect(textOf(await client.callTool({ name: 'getPage', arguments: { url: '/hidden-page' } }))).toContain('secrets of the hidden page');
    const gated = await client.callTool({ name: 'getPage', arguments: { url: '/only-pros' } });
    expect(gated.isError).toBe(true);
    const elsewhere = await client.callTool({ name: 'getPage', arguments: { url: 'https://evil.example/s/x/getting-started' } });
    expect(elsewhere.isError).toBe(true);
    expect(textOf(elsewhere)).toContain('not the URL of a page of this site');
    await client.close();
  });

  it('stateless Streamable HTTP: GET is 405, a body over 64 KB is 413, no session id', async () => {
    const get = await fetchWorker(`${BASE}/s/${site.id}/~gitbook/mcp`, { headers: { Accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    const huge = await fetchWorker(`${BASE}/s/${site.id}/~gitbook/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(70_000) } }),
    });
    expect(huge.status).toBe(413);
    const init = await fetchWorker(`${BASE}/s/${site.id}/~gitbook/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
    });
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeNull();
    expect(((await init.json()) as any).result.serverInfo.name).toBe('Zephyr Docs');
  });

  it('404 where the customization turns pageActions.mcp off; back once on', async () => {
    const off = await publishedSite(org, [space.id], 'public', 'No MCP');
    expectStatus(await api('PUT', `${off.path}/customization`, { token: org.owner.token, body: { pageActions: { mcp: false } } }), 200);
    await expect(connect(`${BASE}/s/${off.id}/~gitbook/mcp`)).rejects.toThrow(/404/);
    expectStatus(await api('PUT', `${off.path}/customization`, { token: org.owner.token, body: { pageActions: { mcp: true } } }), 200);
    const client = await connect(`${BASE}/s/${off.id}/~gitbook/mcp`);
    expect((await client.listTools()).tools).toHaveLength(2);
    await client.close();
  });

  it('an unpublished or unknown site: 404', async () => {
    const draft = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token: org.owner.token, body: { title: 'Draft', spaces: [space.id] } }), 201).body;
    await expect(connect(`${BASE}/s/${draft.id}/~gitbook/mcp`)).rejects.toThrow(/404/);
    await expect(connect(`${BASE}/s/nosuchsite/~gitbook/mcp`)).rejects.toThrow(/404/);
  });
});

describe('protected sites', () => {
  it('a share-link site: refused without its key; with it (query or GitBook’s key segment) it serves', async () => {
    const shared = await publishedSite(org, [space.id], 'share-link', 'Partners');
    const link = expectStatus(await api('POST', `${shared.path}/share-links`, { token: org.owner.token, body: { name: 'Agents' } }), 201).body;
    const key = shareKeyOf(link);
    await expect(connect(`${BASE}/s/${shared.id}/~gitbook/mcp`)).rejects.toThrow(/404/);
    await expect(connect(`${BASE}/s/${shared.id}/~gitbook/mcp?share=wrong`)).rejects.toThrow(/404/);
    const byQuery = await connect(`${BASE}/s/${shared.id}/~gitbook/mcp?share=${encodeURIComponent(key)}`);
    expect(textOf(await byQuery.callTool({ name: 'searchDocumentation', arguments: { query: 'zephyr' } }))).toContain('Getting started');
    await byQuery.close();
    const bySegment = await connect(`${BASE}/s/${shared.id}/${encodeURIComponent(key)}/~gitbook/mcp`);
    const found = textOf(await bySegment.callTool({ name: 'searchDocumentation', arguments: { query: 'zephyr' } }));
    // Links keep the key, so that they open for whoever follows them.
    expect(found).toContain(`Link: ${BASE}/s/${shared.id}/${encodeURIComponent(key)}/getting-started`);
    const page = textOf(await bySegment.callTool({ name: 'getPage', arguments: { url: `${BASE}/s/${shared.id}/${encodeURIComponent(key)}/getting-started` } }));
    expect(page).toContain('Install the **zephyr** tool.');
    await bySegment.close();
  });

  it('a visitor-auth site: its visitor token as a bearer; conditions follow the claims', async () => {
    const members = await publishedSite(org, [space.id], 'visitor-auth', 'Members');
    const key = expectStatus(await api('GET', `${members.path}/publishing/auth`, { token: org.owner.token }), 200).body.privateKey;
    await expect(connect(`${BASE}/s/${members.id}/~gitbook/mcp`)).rejects.toThrow(/404/);
    const forged = await signVisitorToken({ pro: true }, 'not-the-key', 600);
    await expect(connect(`${BASE}/s/${members.id}/~gitbook/mcp`, { Authorization: `Bearer ${forged}` })).rejects.toThrow(/404/);
    const plain = await connect(`${BASE}/s/${members.id}/~gitbook/mcp`, { Authorization: `Bearer ${await signVisitorToken({}, key, 600)}` });
    expect((await plain.callTool({ name: 'getPage', arguments: { url: '/only-pros' } })).isError).toBe(true);
    await plain.close();
    const pro = await connect(`${BASE}/s/${members.id}/~gitbook/mcp`, { Authorization: `Bearer ${await signVisitorToken({ pro: true }, key, 600)}` });
    expect(textOf(await pro.callTool({ name: 'getPage', arguments: { url: '/only-pros' } }))).toContain('Zephyr for pros only.');
    expect(textOf(await pro.callTool({ name: 'searchDocumentation', arguments: { query: 'zephyr' } }))).toContain('Only pros');
    await pro.close();
  });
});

describe('on an organization’s host', () => {
  it('serves the default site’s MCP server at the host root', async () => {
    const hosted = await seedOrg();
    const hostedSpace = await spaceWithPages(hosted, 'Docs', [{ operation: 'insert_page', title: 'Home', document: { markdown: 'Hosted zephyr.\n' } }]);
    const hostedSite = await publishedSite(hosted, [hostedSpace.id], 'public', 'Hosted');
    const label = `mcp${hosted.id.slice(0, 8).toLowerCase()}`;
    expectStatus(await api('PATCH', `/v1/orgs/${hosted.id}`, { token: hosted.owner.token, body: { hostname: label, defaultContent: { type: 'site', site: hostedSite.id } } }), 200);
    const client = await connect(`http://${label}.sites.test/~gitbook/mcp`);
    const text = textOf(await client.callTool({ name: 'searchDocumentation', arguments: { query: 'zephyr' } }));
    expect(text).toContain(`Link: http://${label}.sites.test/home`);
    expect(textOf(await client.callTool({ name: 'getPage', arguments: { url: `http://${label}.sites.test/home` } }))).toContain('Hosted zephyr.');
    await client.close();
  });
});
