/**
 * GET /docs (src/routes/api-reference.ts): the API reference loads only from our origin, under a CSP that
 * admits nothing else, and its script is a static asset of the Worker (wrangler.toml `[assets]`, filled by
 * src/cli/docs-assets.mjs, which test/vitest.config.ts runs): never a CDN. test/browser/run.mjs renders it.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { API_REFERENCE_SCRIPT } from '../../src/routes/api-reference';
import { fetchWorker } from '../helpers/worker';
import { BASE } from '../helpers/harness';

async function docs() {
  const res = await fetchWorker(new Request(`${BASE}/docs`));
  return { res, html: await res.text() };
}

describe('GET /docs', () => {
  it('references only same-origin scripts: the bundle served by the Worker, no CDN', async () => {
    const { res, html } = await docs();
    expect(res.status).toBe(200);
    const sources = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]*)"/g)].map((m) => m[1]);
    expect(sources).toEqual([API_REFERENCE_SCRIPT]);
    expect(html).not.toMatch(/https?:\/\/|\/\/cdn|jsdelivr|type="module"/);
    expect(html).toContain("'/openapi.json'".replaceAll("'", '"'));
  });

  it('carries a CSP that admits only our origin, and the inline start script by a nonce of this response', async () => {
    const first = await docs();
    const csp = first.res.headers.get('content-security-policy') ?? '';
    const directives = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
    const nonce = first.html.match(/<script type="text\/javascript" nonce="([^"]+)">/)?.[1];
    expect(nonce).toBeTruthy();
    expect(directives).toEqual({
      'default-src': ["'none'"],
      'script-src': ["'self'", `'nonce-${nonce}'`],
      'style-src': ["'self'", "'unsafe-inline'"],
      'img-src': ["'self'"],
      'font-src': ["'self'"],
      'connect-src': ["'self'"],
      'base-uri': ["'none'"],
      'form-action': ["'none'"],
      'frame-ancestors': ["'none'"],
    });
    const second = await docs();
    expect(second.res.headers.get('content-security-policy')).not.toContain(`'nonce-${nonce}'`);
  });
});

describe(`GET ${API_REFERENCE_SCRIPT}`, () => {
  // The platform serves it before the Worker runs; the test pool reaches the same assets through a binding
  // (test/vitest.config.ts) as its entry point goes to the Worker directly.
  it('is served from the static assets as JavaScript', async () => {
    const assets = (env as unknown as { ASSETS: Fetcher }).ASSETS;
    const res = await assets.fetch(new Request(`${BASE}${API_REFERENCE_SCRIPT}`));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
    const text = await res.text();
    expect(text.length).toBeGreaterThan(1_000_000);
    expect(text).toContain('createApiReference');
  });
});
