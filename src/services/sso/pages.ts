/**
 * The HTML pages of the SAML login (routes/sso/saml-login): the one that shows a new API token once, and the
 * refusals. Every value is escaped; there is no script, and the Content-Security-Policy allows nothing but the one
 * inline style below (by its hash), in no frame.
 */

import { escapeHtml } from '../../lib/escape-html';

/** The page's only style; its hash is in `PAGE_CSP` (test/sso/login.test.ts recomputes it). */
export const PAGE_STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}code{display:block;padding:.75rem;background:#f2f2f2;border-radius:4px;word-break:break-all;font-size:15px}.muted{color:#555}';

export const PAGE_CSP = "default-src 'none'; style-src 'sha256-SdA3WFIAPyRNh3pZx01HK4NfXc8nVcUXnKbym7buzHM='; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Headers of every page: never cached (a token is in it), never framed, no referrer, no sniffing. */
export const PAGE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': PAGE_CSP,
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
};

function page(title: string, body: string): string {
  return (
    '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">' +
    `<title>${escapeHtml(title)}</title><style>${PAGE_STYLE}</style></head>` +
    `<body>${body}</body></html>\n`
  );
}

export function htmlResponse(status: number, html: string, headers: Record<string, string> = {}): Response {
  return new Response(html, { status, headers: { ...PAGE_HEADERS, ...headers } });
}

/** The login's result: the new token, shown once. */
export function tokenPage(input: { token: string; email: string; organization: string; provider: string }): string {
  return page(
    'Signed in',
    `<h1>Signed in to ${escapeHtml(input.organization)}</h1>` +
      `<p>You signed in as <strong>${escapeHtml(input.email)}</strong> through ${escapeHtml(input.provider)}.</p>` +
      '<p>Your new API token (use it as <em>Authorization: Bearer &lt;token&gt;</em>):</p>' +
      `<code id="token">${escapeHtml(input.token)}</code>` +
      '<p class="muted">It is shown only this once: copy it now. Only its hash is stored, so it cannot be shown again.</p>',
  );
}

const TITLES: Record<number, string> = {
  400: 'Malformed login response',
  403: 'Login refused',
  404: 'Login not found',
  413: 'Login response too large',
  500: 'Login failed',
};

/** A refusal: what went wrong, in words, and no token. */
export function errorPage(status: number, message: string): string {
  const title = TITLES[status] ?? 'Login failed';
  return page(title, `<h1>${escapeHtml(title)}</h1><p id="reason">${escapeHtml(message)}</p><p class="muted">No token was issued.</p>`);
}
