/**
 * The guarded outbound fetch (src/lib/outbound.ts): every refused URL is a 400 naming it, made
 * without any request; redirects are checked per hop; time, size and hop limits; the operator
 * allowlist. The fetch is always a stand-in: nothing leaves the machine.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/lib/errors';
import { checkOutboundUrl, outboundFetch, OutboundError, setOutboundFetch, type FetchFunction } from '../../src/lib/outbound';

const NO_ALLOWLIST = { OUTBOUND_ALLOWED_HOSTS: '' };

/** A stand-in fetch that answers from a function and records what it was asked. */
function stub(answer: (request: Request) => Response | Promise<Response> = () => new Response('ok')) {
  return vi.fn<FetchFunction>(async (request) => answer(request));
}

async function refusal(promise: Promise<unknown>): Promise<OutboundError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'expected the call to be refused').toBeInstanceOf(OutboundError);
  return error as OutboundError;
}

/** URLs a server-side request forgery would use: schemes, credentials, internal names, every spelling of internal addresses. */
const SSRF_PAYLOADS = [
  // schemes and credentials
  'file:///etc/passwd',
  'gopher://127.0.0.1:70/_GET',
  'ftp://example.com/file',
  'javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'ws://example.com/socket',
  'http://user:secret@example.com/',
  'https://token@example.com/',
  'http://example.com:80@127.0.0.1/',
  'not a url',
  // IPv4: loopback, private, link-local (cloud metadata), CGNAT, unspecified, broadcast, multicast, reserved
  'http://127.0.0.1/',
  'http://127.0.0.53:8080/admin',
  'http://10.0.0.1/',
  'https://10.1.2.3:8443/path?q=1',
  'http://172.16.5.4/',
  'http://172.31.255.255/',
  'http://192.168.1.1/',
  'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
  'http://169.254.0.1/',
  'http://100.64.0.1/',
  'http://100.127.255.255/',
  'http://0.0.0.0/',
  'http://0.0.0.0:80/',
  'http://0/',
  'http://255.255.255.255/',
  'http://224.0.0.1/',
  'http://239.255.255.250:1900/',
  'http://240.0.0.1/',
  'http://192.0.2.1/',
  'http://198.18.0.1/',
  // other spellings of 127.0.0.1
  'http://2130706433/',
  'http://0177.0.0.1/',
  'http://00000177.0.0.1/',
  'http://0x7f.0.0.1/',
  'http://0x7f000001/',
  'http://0x7f.0x0.0x0.0x1/',
  'http://017700000001/',
  'http://127.1/',
  'http://127.0.1/',
  'http://%31%32%37.0.0.1/',
  'http://\uFF11\uFF12\uFF17.0.0.1/',
  'http://127.0.0.1./',
  'http://0xa9.0xfe.0xa9.0xfe/',
  'http://2852039166/',
  // IPv6
  'http://[::1]/',
  'http://[0:0:0:0:0:0:0:1]/',
  'http://[::]/',
  'http://[fe80::1]/',
  'http://[fc00::1]/',
  'http://[fd12:3456:789a::1]/',
  'http://[fec0::1]/',
  'http://[ff02::1]/',
  'http://[2001:db8::1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[::ffff:169.254.169.254]/',
  'http://[::ffff:10.0.0.1]:8080/',
  'http://[::127.0.0.1]/',
  'http://[::7f00:1]/',
  'http://[64:ff9b::127.0.0.1]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://[64:ff9b:1::a00:1]/',
  'http://[2002:7f00:1::]/',
  'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
  // internal names
  'http://localhost/',
  'http://LOCALHOST./',
  'http://localhost:8787/v1/users',
  'http://api.localhost/',
  'http://printer.local/',
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://service.internal/',
  'http://host.localdomain/',
  'http://router.home.arpa/',
  'http://intranet/',
  'http://kubernetes/',
  'http://127.0.0.1.nip.io/',
  'http://10-0-0-1.sslip.io/',
  'http://app.localtest.me/',
  'http://lvh.me/',
];

describe('refused URLs', () => {
  it('holds at least 25 payloads', () => {
    expect(SSRF_PAYLOADS.length).toBeGreaterThanOrEqual(25);
    expect(new Set(SSRF_PAYLOADS).size).toBe(SSRF_PAYLOADS.length);
  });

  it.each(SSRF_PAYLOADS)('%s is refused with a 400 naming it, without a request', async (url) => {
    const fetch = stub();
    const error = await refusal(outboundFetch(NO_ALLOWLIST, url, {}, { fetch, field: 'url' }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(400);
    expect(error.reason).toBe('refused');
    expect(error.message.startsWith(`url: ${url} is refused: `), error.message).toBe(true);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('names the field and says why', () => {
    expect(() => checkOutboundUrl(NO_ALLOWLIST, 'http://0x7f.1/', 'source.url')).toThrow('source.url: http://0x7f.1/ is refused: 127.0.0.1 is a loopback address');
    expect(() => checkOutboundUrl(NO_ALLOWLIST, 'http://[::ffff:169.254.169.254]/')).toThrow(/embeds the link-local address 169\.254\.169\.254/);
    expect(() => checkOutboundUrl(NO_ALLOWLIST, 'http://[::7f00:1]/')).toThrow(/IPv4-compatible IPv6 address of 127\.0\.0\.1/);
    expect(() => checkOutboundUrl(NO_ALLOWLIST, 'http://u:p@example.com/')).toThrow(/credentials/);
    expect(() => checkOutboundUrl(NO_ALLOWLIST, 'file:///etc/passwd')).toThrow(/scheme file:/);
    expect(() => checkOutboundUrl(NO_ALLOWLIST, 'http://metadata.google.internal/')).toThrow(/internal host name/);
  });

  it('admits public hosts and addresses', async () => {
    for (const url of ['https://example.com/docs/', 'http://93.184.216.34/', 'http://[2606:4700:4700::1111]/', 'https://docs.example.co.uk:8443/a?b=c#d', 'http://8.8.8.8/']) {
      const fetch = stub(() => new Response('hello'));
      const res = await outboundFetch(NO_ALLOWLIST, url, {}, { fetch });
      expect(res.status).toBe(200);
      expect(res.text()).toBe('hello');
      expect(fetch).toHaveBeenCalledTimes(1);
    }
  });
});

describe('redirects', () => {
  it('follows redirects by hand, checking each hop', async () => {
    const fetch = stub((request) => {
      expect(request.redirect).toBe('manual');
      const path = new URL(request.url).pathname;
      if (path === '/a') return new Response(null, { status: 301, headers: { location: '/b' } });
      if (path === '/b') return new Response(null, { status: 302, headers: { location: 'https://www.example.org/c' } });
      return new Response('landed');
    });
    const res = await outboundFetch(NO_ALLOWLIST, 'https://example.com/a', {}, { fetch });
    expect(res.url).toBe('https://www.example.org/c');
    expect(res.redirects).toBe(2);
    expect(res.text()).toBe('landed');
    expect(fetch.mock.calls.map(([r]) => r.url)).toEqual(['https://example.com/a', 'https://example.com/b', 'https://www.example.org/c']);
  });

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://127.0.0.1:8787/v1/users',
    '//localhost/admin',
    'http://[::ffff:10.0.0.1]/',
    'file:///etc/passwd',
    'http://user:pw@example.com/',
  ])('refuses a redirect to %s at the hop, without requesting it', async (location) => {
    const fetch = stub(() => new Response(null, { status: 302, headers: { location } }));
    const error = await refusal(outboundFetch(NO_ALLOWLIST, 'https://example.com/start', {}, { fetch }));
    expect(error.status).toBe(400);
    expect(error.reason).toBe('refused');
    expect(error.message).toContain('redirected from https://example.com/start');
    expect(error.message).toContain(`${new URL(location, 'https://example.com/start').href} is refused: `);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('follows 5 redirects and refuses a 6th', async () => {
    const chain = (limit: number) =>
      stub((request) => {
        const n = Number(new URL(request.url).pathname.slice(1) || 0);
        return n < limit ? new Response(null, { status: 307, headers: { location: `/${n + 1}` } }) : new Response(`at ${n}`);
      });
    const five = chain(5);
    const res = await outboundFetch(NO_ALLOWLIST, 'https://example.com/0', {}, { fetch: five });
    expect(res.text()).toBe('at 5');
    expect(res.redirects).toBe(5);
    expect(five).toHaveBeenCalledTimes(6);

    const endless = chain(Infinity);
    const error = await refusal(outboundFetch(NO_ALLOWLIST, 'https://example.com/0', {}, { fetch: endless }));
    expect(error.status).toBe(400);
    expect(error.reason).toBe('redirects');
    expect(error.message).toBe('url: https://example.com/0 redirects more than 5 times');
    expect(endless).toHaveBeenCalledTimes(6);
  });

  it('turns a POST into a GET on 303 and drops credentials across origins', async () => {
    const fetch = stub(async (request) => {
      if (request.url === 'https://example.com/form') return new Response(null, { status: 303, headers: { location: 'https://other.example.com/done' } });
      return new Response(`${request.method} ${request.headers.get('authorization') ?? 'none'} ${await request.text()}`);
    });
    const res = await outboundFetch(NO_ALLOWLIST, 'https://example.com/form', { method: 'POST', body: 'x=1', headers: { authorization: 'Bearer t' } }, { fetch });
    expect(res.text()).toBe('GET none ');
  });

  it('keeps the method and body on 307', async () => {
    const fetch = stub(async (request) => {
      if (request.url.endsWith('/old')) return new Response(null, { status: 307, headers: { location: '/new' } });
      return new Response(`${request.method} ${await request.text()}`);
    });
    const res = await outboundFetch(NO_ALLOWLIST, 'https://example.com/old', { method: 'POST', body: '{"a":1}' }, { fetch });
    expect(res.text()).toBe('POST {"a":1}');
  });

  it('answers a 3xx without Location as it is', async () => {
    const fetch = stub(() => new Response(null, { status: 304 }));
    const res = await outboundFetch(NO_ALLOWLIST, 'https://example.com/', {}, { fetch });
    expect(res.status).toBe(304);
  });
});

describe('limits', () => {
  it('refuses a body larger than the cap (declared or streamed), and accepts one at the cap', async () => {
    const declared = stub(() => new Response('x'.repeat(10), { headers: { 'content-length': '2000000' } }));
    const tooLarge = await refusal(outboundFetch(NO_ALLOWLIST, 'https://example.com/big', {}, { fetch: declared, maxBytes: 1_000_000 }));
    expect(tooLarge.reason).toBe('too_large');
    expect(tooLarge.message).toBe('url: https://example.com/big answered more than 1000000 bytes');

    let pulled = 0;
    const streamed = stub(
      () =>
        new Response(
          new ReadableStream({
            pull(controller) {
              pulled++;
              controller.enqueue(new Uint8Array(1024));
              if (pulled > 1000) controller.close();
            },
          }),
        ),
    );
    const error = await refusal(outboundFetch(NO_ALLOWLIST, 'https://example.com/stream', {}, { fetch: streamed, maxBytes: 4096 }));
    expect(error.reason).toBe('too_large');
    expect(error.status).toBe(400);
    expect(pulled).toBeLessThan(20);

    const exact = stub(() => new Response(new Uint8Array(4096)));
    const res = await outboundFetch(NO_ALLOWLIST, 'https://example.com/exact', {}, { fetch: exact, maxBytes: 4096 });
    expect(res.bytes.byteLength).toBe(4096);
  });

  it('has a default cap of 5 MiB', async () => {
    const fetch = stub(() => new Response(new Uint8Array(5 * 1024 * 1024 + 1)));
    const error = await refusal(outboundFetch(NO_ALLOWLIST, 'https://example.com/', {}, { fetch }));
    expect(error.message).toContain(`more than ${5 * 1024 * 1024} bytes`);
  });

  it('gives up after the time limit, waiting for the answer or for the body', async () => {
    const silent = stub(() => new Promise<Response>(() => undefined));
    const error = await refusal(outboundFetch(NO_ALLOWLIST, 'https://slow.example.com/', {}, { fetch: silent, timeoutMs: 50 }));
    expect(error.reason).toBe('timeout');
    expect(error.status).toBe(400);
    expect(error.message).toBe('url: https://slow.example.com/ did not answer within 0.05 s');

    const stalled = stub(
      () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('<html>'));
            },
          }),
        ),
    );
    const bodyError = await refusal(outboundFetch(NO_ALLOWLIST, 'https://slow.example.com/body', {}, { fetch: stalled, timeoutMs: 50 }));
    expect(bodyError.reason).toBe('timeout');
  });

  it('reports a network failure as a 400 naming the URL', async () => {
    const failing = stub(() => {
      throw new TypeError('connection refused');
    });
    const error = await refusal(outboundFetch(NO_ALLOWLIST, 'https://down.example.com/', {}, { fetch: failing }));
    expect(error.reason).toBe('network');
    expect(error.message).toBe('url: https://down.example.com/ could not be fetched: the connection to down.example.com:443 was refused');
  });

  // What workerd's fetch throws (wrangler dev, offline), as observed: the causes are in its log only.
  it.each([
    ['http://nonexistent.invalid/', 'internal error; reference = 6rq5fmk1kf1ed67p8e18lj6g', 'the host name nonexistent.invalid did not resolve (DNS)'],
    [
      'https://nonexistent.invalid/',
      'internal error; reference = qurl3aul09ggjugajgl6aq0h',
      'the host name nonexistent.invalid did not resolve (DNS), or the TLS handshake with it failed',
    ],
    ['http://docs.example.com:9/', 'Network connection lost.', 'the connection to docs.example.com:9 was refused or lost'],
    ['https://docs.example.com/', 'getaddrinfo ENOTFOUND docs.example.com', 'the host name docs.example.com did not resolve (DNS)'],
    ['https://docs.example.com/', 'self-signed certificate', 'the TLS handshake with docs.example.com failed'],
    ['https://docs.example.com/', 'something odd', 'network error reaching docs.example.com (something odd)'],
  ])("names the cause of %s failing with workerd's %j", async (url, thrown, cause) => {
    const failing = stub(() => {
      throw new Error(thrown);
    });
    const error = await refusal(outboundFetch(NO_ALLOWLIST, url, {}, { fetch: failing }));
    expect(error.reason).toBe('network');
    expect(error.message).toBe(`url: ${url} could not be fetched: ${cause}`);
  });
});

describe('OUTBOUND_ALLOWED_HOSTS', () => {
  const env = { OUTBOUND_ALLOWED_HOSTS: ' localhost , 10.0.0.5,*.corp.example, [::1], wiki ' };

  it.each(['http://localhost:8787/docs/', 'http://10.0.0.5/', 'https://docs.corp.example/', 'https://corp.example/', 'http://[::1]:8080/', 'http://wiki/'])(
    'admits %s',
    async (url) => {
      const fetch = stub();
      const res = await outboundFetch(env, url, {}, { fetch });
      expect(res.status).toBe(200);
      expect(fetch).toHaveBeenCalledTimes(1);
    },
  );

  it('admits a spelling of a named address (the URL parser canonicalizes both)', async () => {
    const fetch = stub();
    await outboundFetch({ OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' }, 'http://0x7f.1/', {}, { fetch });
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it.each(['http://10.0.0.6/', 'http://api.localhost/', 'http://corp.example.evil.com.local/', 'file://localhost/etc/passwd', 'http://user:pw@localhost/'])(
    'still refuses %s',
    async (url) => {
      const fetch = stub();
      const error = await refusal(outboundFetch(env, url, {}, { fetch }));
      expect(error.status).toBe(400);
      expect(fetch).not.toHaveBeenCalled();
    },
  );

  it('is checked at every hop', async () => {
    const fetch = stub((request) => (request.url.includes('10.0.0.5') ? new Response(null, { status: 302, headers: { location: 'http://10.0.0.6/' } }) : new Response('x')));
    const error = await refusal(outboundFetch(env, 'http://10.0.0.5/', {}, { fetch }));
    expect(error.message).toContain('http://10.0.0.6/ is refused');
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});

describe('the default fetch seam', () => {
  afterEach(() => {
    setOutboundFetch();
  });

  it('is used when a call names no fetch', async () => {
    const fetch = stub(() => new Response('from the seam'));
    setOutboundFetch(fetch);
    const res = await outboundFetch(NO_ALLOWLIST, 'https://example.com/');
    expect(res.text()).toBe('from the seam');
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});
