/**
 * getEmbedByUrlInSpace: a URL as an embed (a link with the page's title, site and icon, or rich HTML from
 * its oEmbed endpoint), fetched through the guarded outbound fetch (a stand-in here: nothing leaves the
 * machine). Refused URLs are 400s with no request made; callers who cannot read the space make none.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setOutboundFetch } from '../../src/lib/outbound';
import { createSpace } from '../helpers/content';
import { GITBOOK_0202, gitbookErrors, gitbookOperations, schemaValidator } from '../helpers/gitbook-schema';
import { api, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';

let org: TestOrg;
let owner: string;
let spaceId: string;
const requested: string[] = [];

const PAGE = `<!doctype html><html><head>
  <title>Fallback &amp; title</title>
  <meta property="og:title" content="Kumquat &quot;Guide&quot;">
  <meta property="og:site_name" content="Fruit Co">
  <link rel="icon" href="/favicon.ico">
  <link rel="alternate" type="application/json+oembed" href="https://video.example.com/oembed?id=1">
</head><body><meta property="og:title" content="Not in the head"></body></html>`;

/** A stand-in web: a few pages by URL; anything else is a 404. */
function web(pages: Record<string, { body: string; type: string; status?: number }>) {
  setOutboundFetch(async (request) => {
    requested.push(request.url);
    const page = pages[request.url];
    if (!page) return new Response('not found', { status: 404 });
    return new Response(page.body, { status: page.status ?? 200, headers: { 'content-type': page.type } });
  });
}

const embed = (url: string, token = owner) => api('GET', `/v1/spaces/${spaceId}/embed?url=${encodeURIComponent(url)}`, { token });
const validator = () => schemaValidator(gitbookOperations().get('getEmbedByUrlInSpace')!.responses['200']!, GITBOOK_0202.components);

beforeAll(async () => {
  org = await seedOrg();
  owner = org.owner.token;
  spaceId = (await createSpace(org.id, owner, 'Embeds')).id;
});

afterEach(() => {
  setOutboundFetch();
  requested.length = 0;
});

describe('getEmbedByUrlInSpace', () => {
  it("a page with an oEmbed endpoint answering rich HTML is a rich embed; without one, a link with the head's title, site and icon", async () => {
    web({
      'https://docs.example.com/guide': { body: PAGE, type: 'text/html; charset=utf-8' },
      'https://video.example.com/oembed?id=1': { body: JSON.stringify({ type: 'video', html: '<iframe src="https://video.example.com/e/1"></iframe>', title: 'Clip', provider_name: 'Video Co' }), type: 'application/json' },
      'https://plain.example.com/': { body: '<html><head><title> Plain\n page </title></head><body></body></html>', type: 'text/html' },
    });
    const rich = expectStatus(await embed('https://docs.example.com/guide'), 200).body;
    expect(gitbookErrors(validator(), rich), JSON.stringify(rich)).toBe('valid');
    expect(rich).toEqual({ type: 'rich', title: 'Clip', site: 'Video Co', icon: 'https://docs.example.com/favicon.ico', html: '<iframe src="https://video.example.com/e/1"></iframe>' });

    const plain = expectStatus(await embed('https://plain.example.com/'), 200).body;
    expect(gitbookErrors(validator(), plain), JSON.stringify(plain)).toBe('valid');
    expect(plain).toEqual({ type: 'link', title: 'Plain page', site: 'plain.example.com' });
  });

  it('an oEmbed answer that is not rich HTML leaves a link with the page head', async () => {
    web({
      'https://docs.example.com/guide': { body: PAGE, type: 'text/html' },
      'https://video.example.com/oembed?id=1': { body: JSON.stringify({ type: 'photo', url: 'https://video.example.com/1.png' }), type: 'application/json' },
    });
    expect(expectStatus(await embed('https://docs.example.com/guide'), 200).body).toEqual({
      type: 'link',
      title: 'Kumquat "Guide"',
      site: 'Fruit Co',
      icon: 'https://docs.example.com/favicon.ico',
    });
  });

  it('a page that cannot be read (404, not HTML, network failure) is a link to itself', async () => {
    web({ 'https://files.example.com/report.pdf': { body: '%PDF-1.7', type: 'application/pdf' } });
    for (const url of ['https://files.example.com/report.pdf', 'https://gone.example.com/page']) {
      const res = expectStatus(await embed(url), 200).body;
      expect(gitbookErrors(validator(), res)).toBe('valid');
      expect(res).toEqual({ type: 'link', title: url, site: new URL(url).hostname });
    }
    setOutboundFetch(async () => {
      throw new TypeError('network down');
    });
    expect(expectStatus(await embed('https://down.example.com/'), 200).body).toEqual({ type: 'link', title: 'https://down.example.com/', site: 'down.example.com' });
  });

  it('refuses private, loopback and metadata addresses, other schemes and credentials with a 400, without a request', async () => {
    web({});
    for (const url of ['http://127.0.0.1/', 'http://169.254.169.254/latest/meta-data', 'http://localhost:8787/', 'file:///etc/passwd', 'https://user:pw@example.com/', 'http://[::1]/', 'not a url']) {
      expectError(await embed(url), 400, 'url');
    }
    expect(requested).toEqual([]);
  });

  it('an oEmbed endpoint or redirect on a private address is refused too', async () => {
    setOutboundFetch(async (request) => {
      requested.push(request.url);
      if (request.url === 'https://docs.example.com/redirect') return new Response(null, { status: 302, headers: { location: 'http://10.0.0.1/admin' } });
      return new Response('<html><head><link rel="alternate" type="application/json+oembed" href="http://192.168.1.1/oembed"></head></html>', { headers: { 'content-type': 'text/html' } });
    });
    expectError(await embed('https://docs.example.com/redirect'), 400, '10.0.0.1');
    expectError(await embed('https://docs.example.com/private-oembed'), 400, '192.168.1.1');
    expect(requested).toEqual(['https://docs.example.com/redirect', 'https://docs.example.com/private-oembed']);
  });

  it('needs the read role on the space: guests, outsiders and other organizations get 404 and make no request; no token is 401; url is required', async () => {
    web({ 'https://plain.example.com/': { body: '<title>x</title>', type: 'text/html' } });
    const stranger = await seedOrg();
    for (const token of [org.members.guest.token, org.outsider.token, stranger.owner.token]) expectError(await embed('https://plain.example.com/', token), 404, 'Space not found');
    expect(requested).toEqual([]);
    expectError(await api('GET', `/v1/spaces/${spaceId}/embed?url=https://plain.example.com/`, {}), 401);
    expectStatus(await embed('https://plain.example.com/', org.members.read.token), 200);
    expectError(await api('GET', `/v1/spaces/${spaceId}/embed`, { token: owner }), 400, 'url');
    expectError(await embed(`https://example.com/${'a'.repeat(2100)}`), 400, 'url');
  });
});
