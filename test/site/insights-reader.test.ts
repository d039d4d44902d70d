/**
 * Our HTML reader's own insights: each page says what its script reports (the page's ids, the search and its number
 * of results), the page feedback widget where `feedback.enabled` is on, the consent banner where the site sets its
 * tracking cookie, and `<site>/~gitbook/insights` takes the events for the visitor the request stands for (the site's
 * cookies), queued, stored by the consumer and seen by aggregateSiteEvents.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { siteAssets } from '../../src/site/assets';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { callCapturing, captureQueue, deliver, pageView } from '../helpers/insights';
import { grab, publishedSite, shareKeyOf, spaceWithPages, visit } from './helpers';

let org: TestOrg;
let space: { id: string; pages: Record<string, string> };
let site: { id: string; path: string };

beforeAll(async () => {
  org = await seedOrg();
  space = await spaceWithPages(org, 'Guide', [
    { operation: 'insert_page', title: 'Welcome', document: { markdown: 'Welcome to the **nimbus** docs.\n' } },
    { operation: 'insert_page', title: 'Setup', document: { markdown: 'Set nimbus up.\n' } },
  ]);
  site = await publishedSite(org, [space.id], 'public', 'Reader Docs');
});

const marker = (text: string) => grab(text, /(<div id="site-insights"[^>]*>)/) ?? '';

describe('what a page tells its script', () => {
  it('a page: the endpoint, the tracking setting and the page’s ids; no feedback widget by default', async () => {
    const page = await visit(`/s/${site.id}/setup`);
    const tag = marker(page.text);
    expect(tag).toContain(`data-endpoint="/s/${site.id}/~gitbook/insights"`);
    expect(tag).toContain(`data-cookie-path="/s/${site.id}/"`);
    expect(tag).toContain('data-tracking="1"');
    expect(tag).toContain(`data-page="${space.pages.Setup}"`);
    expect(tag).toContain(`data-space="${space.id}"`);
    expect(page.text).not.toContain('id="page-feedback"');
    // The tracking cookie is asked for, as integrations' cookies are.
    expect(page.text).toContain('id="cookie-consent"');
    expect(page.headers.get('Content-Security-Policy')).toContain("connect-src 'self'");
  });

  it('the search page: the query and how many results it showed', async () => {
    expect(marker((await visit(`/s/${site.id}/~search?q=nimbus`)).text)).toMatch(/data-search-query="nimbus" data-search-results="2"/);
    expect(marker((await visit(`/s/${site.id}/~search?q=zzzunfound`)).text)).toContain('data-search-results="0"');
  });

  it('feedback.enabled shows the widget (a rating, then a comment); no tracking cookie, no banner', async () => {
    const styled = await publishedSite(org, [space.id], 'public', 'Feedback Docs');
    expectStatus(await api('PUT', `${styled.path}/customization`, { token: org.owner.token, body: { feedback: { enabled: true }, insights: { trackingCookie: false } } }), 200);
    const page = await visit(`/s/${styled.id}/setup`);
    expect(page.text).toContain('<section id="page-feedback" class="page-feedback" hidden');
    expect(page.text).toMatch(/data-rating="good">Yes<\/button> <button type="button" data-rating="ok">Somewhat<\/button> <button type="button" data-rating="bad">No/);
    expect(page.text).toContain('maxlength="512"');
    expect(marker(page.text)).toContain('data-tracking="0"');
    expect(page.text).not.toContain('id="cookie-consent"');
  });

  it('the site’s script is valid JavaScript that posts to the endpoint with the site’s cookies', async () => {
    const { js } = await siteAssets();
    expect(() => new Function(js.body)).not.toThrow();
    expect(js.body).toContain('credentials:"same-origin"');
    expect(js.body).toContain('"page_post_feedback_comment"');
  });
});

describe('<site>/~gitbook/insights', () => {
  const post = (path: string, events: unknown[], captured = captureQueue(), headers: Record<string, string> = {}) =>
    callCapturing(path, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify({ events }) }, captured);

  it('takes a page view and a feedback of a readable site: queued, then counted', async () => {
    const captured = captureQueue();
    const feedback = { ...pageView(space.id, space.pages.Setup), type: 'page_post_feedback', feedback: { rating: 'good' } };
    const res = await post(`/s/${site.id}/~gitbook/insights`, [pageView(space.id, space.pages.Setup), feedback], captured);
    expect(res.status, res.text).toBe(204);
    expect(res.statements.filter((s) => !/^\s*select/i.test(s))).toEqual([]);
    await deliver(captured.messages);
    const counts = expectStatus(
      await api('POST', `${site.path}/insights/events/aggregate`, {
        token: org.owner.token,
        body: { select: [{ column: 'eventType' }, { column: 'eventsCount' }, { column: 'pageFeedbackRating' }], range: 'last24Hours', order: { by: { column: 'eventType' }, direction: 'asc' } },
      }),
      200,
    ).body;
    expect(counts.columns).toEqual([
      { column: 'eventType', values: ['page_post_feedback', 'page_view'] },
      { column: 'eventsCount', values: [1, 1] },
      { column: 'pageFeedbackRating', values: [{ ok: 0, good: 1, bad: 0 }, { ok: 0, good: 0, bad: 0 }] },
    ]);
  });

  it('a share-link site: only with its key (cookie or key segment); GET 405; bad events 400; a huge body 413', async () => {
    const shared = await publishedSite(org, [space.id], 'share-link', 'Shared reader');
    const key = shareKeyOf(expectStatus(await api('POST', `${shared.path}/share-links`, { token: org.owner.token, body: { name: 'L' } }), 201).body);
    const view = [pageView(space.id, space.pages.Setup)];
    expect((await post(`/s/${shared.id}/~gitbook/insights`, view)).status).toBe(404);
    expect((await post(`/s/${shared.id}/~gitbook/insights`, view, captureQueue(), { Cookie: `site_share_${shared.id}=${encodeURIComponent(key)}` })).status).toBe(204);
    expect((await post(`/s/${shared.id}/${encodeURIComponent(key)}/~gitbook/insights`, view)).status).toBe(204);
    expect((await visit(`/s/${site.id}/~gitbook/insights`)).status).toBe(405);
    const bad = await post(`/s/${site.id}/~gitbook/insights`, [{ ...view[0], type: 'page_explode' }]);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('type');
    const huge = await callCapturing(`/s/${site.id}/~gitbook/insights`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: 'x'.repeat(200_000) }, captureQueue());
    expect(huge.status).toBe(413);
    // Other paths of a site take no POST.
    expect((await callCapturing(`/s/${site.id}/setup`, { method: 'POST', body: '{}' }, captureQueue())).status).toBe(405);
  });

  it('a tool call of the site’s MCP server is an mcp_request event (display context mcp), queued after the answer', async () => {
    const captured = captureQueue();
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'searchDocumentation', arguments: { query: 'nimbus' } } };
    const res = await callCapturing(`/s/${site.id}/~gitbook/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify(call),
    }, captured);
    expect(res.status, res.text).toBe(200);
    expect(res.body.result.content[0].text).toContain('## Welcome');
    expect(captured.messages).toHaveLength(1);
    expect(captured.messages[0]).toMatchObject({ payload: { events: [{ type: 'mcp_request', displayContext: 'mcp', siteId: site.id, page: null }] } });
    // tools/list is no tool call: nothing recorded.
    const list = captureQueue();
    await callCapturing(`/s/${site.id}/~gitbook/mcp`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) }, list);
    expect(list.messages).toEqual([]);
  });

  it('what agents read: llms.txt and pages as Markdown are server events, with the bot their user agent names', async () => {
    const captured = captureQueue();
    const agent = { 'User-Agent': 'Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)' };
    expect((await callCapturing(`/s/${site.id}/llms.txt`, { headers: agent }, captured)).status).toBe(200);
    expect((await callCapturing(`/s/${site.id}/setup.md`, { headers: agent }, captured)).status).toBe(200);
    expect((await callCapturing(`/s/${site.id}/no-such-page.md`, { headers: agent }, captured)).status).toBe(404);
    const events = captured.messages.flatMap((m: any) => m.payload.events);
    expect(events.map((e: any) => [e.type, e.displayContext, e.data.bot, e.urlPath])).toEqual([
      ['llms_request', 'server', 'claudebot', `/s/${site.id}/llms.txt`],
      ['page_markdown_request', 'server', 'claudebot', `/s/${site.id}/setup.md`],
    ]);
  });

  it('on an organization’s host', async () => {
    const hosted = await seedOrg();
    const hostedSpace = await spaceWithPages(hosted, 'Docs', [{ operation: 'insert_page', title: 'Home', document: { markdown: 'Hosted.\n' } }]);
    const hostedSite = await publishedSite(hosted, [hostedSpace.id], 'public', 'Hosted');
    const label = `ins${hosted.id.slice(0, 8).toLowerCase()}`;
    expectStatus(await api('PATCH', `/v1/orgs/${hosted.id}`, { token: hosted.owner.token, body: { hostname: label, defaultContent: { type: 'site', site: hostedSite.id } } }), 200);
    const page = await visit('/home', {}, `http://${label}.sites.test`);
    expect(marker(page.text)).toContain('data-endpoint="/~gitbook/insights"');
    const captured = captureQueue();
    const res = await callCapturing(`http://${label}.sites.test/~gitbook/insights`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ events: [pageView(hostedSpace.id, hostedSpace.pages.Home)] }),
    }, captured);
    expect(res.status, res.text).toBe(204);
    expect(captured.messages).toHaveLength(1);
  });
});
