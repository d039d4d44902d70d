import type { Context, Next } from 'hono';
import type { AppBindings } from '../env';

/**
 * `GET /docs`: the API reference (Scalar), rendered in the browser from `/openapi.json`, with everything it loads
 * served from our own origin. Its script is @scalar/api-reference's standalone bundle, a static asset of the
 * Worker (`[assets]` in wrangler.toml, filled by src/cli/docs-assets.mjs): the platform serves it, the Worker's
 * module graph never holds it, and no CDN is asked, so the page works offline.
 */
export const API_REFERENCE_SCRIPT = '/docs/assets/api-reference.js';

/**
 * Only our origin: scripts by this response's nonce besides (the inline `<script>` that starts the reference),
 * styles also inline, as the reference needs: its bundle injects `<style>` elements of its own without a nonce
 * (only its main stylesheet takes the one of `<meta property="csp-nonce">`) and sets `style` attributes. No
 * 'unsafe-eval': the bundle only probes for it (zod's `Function('')` check, caught) and renders without it.
 * Loaded in headless Chromium without network, the page asks nothing of another origin.
 */
export function apiReferenceCsp(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self'",
    "font-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export async function serveApiReference(c: Context<AppBindings>, next: Next) {
  const { Scalar } = await import('@scalar/hono-api-reference');
  const nonce = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
  // withDefaultFonts: false, else the reference loads its fonts from fonts.scalar.com.
  const response = await Scalar<AppBindings>({ url: '/openapi.json', pageTitle: 'Docs Platform API reference', cdn: API_REFERENCE_SCRIPT, nonce, withDefaultFonts: false })(c, next);
  if (!response) return response;
  response.headers.set('content-security-policy', apiReferenceCsp(nonce));
  return response;
}
