import { outboundFetch, type OutboundEnv } from '../../lib/outbound';

/**
 * HTTP deliveries of integration events (the development-mode tunnel), signed the Standard Webhooks way
 * (https://www.standardwebhooks.com): `webhook-id` is the event id (the same on every attempt, so the
 * receiver can drop a repeat), `webhook-timestamp` the attempt's time in Unix seconds, and
 * `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of `<id>.<timestamp>.<body>` under the
 * installation's signing secret (`whsec_` and the base64 key bytes). Receivers verify it with any Standard
 * Webhooks library (`new Webhook(secret).verify(body, headers)`).
 */

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** The key bytes of a `whsec_...` secret (a secret without the prefix is taken as base64 as it is). */
function secretBytes(secret: string): Uint8Array {
  return fromBase64(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
}

/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`. */
export async function webhookSignature(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', secretBytes(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${body}`));
  return `v1,${toBase64(new Uint8Array(mac))}`;
}

/** The three Standard Webhooks headers of one delivery. */
export async function webhookHeaders(secret: string, id: string, body: string, now = Date.now()): Promise<Record<string, string>> {
  const timestamp = Math.floor(now / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': await webhookSignature(secret, id, timestamp, body),
  };
}

export interface WebhookResult {
  ok: boolean;
  /** The receiver's status, when it answered. */
  status?: number;
  /** What went wrong, for the trace: the status and the start of the body, or the error. */
  detail: string;
}

/** Characters of a failed receiver's body kept in the trace. */
const BODY_EXCERPT = 300;

/**
 * POSTs one signed JSON delivery through the outbound guard (lib/outbound: no private addresses, redirects
 * checked hop by hop, time and size capped). A 2xx answer is a success; anything else, or no answer, fails.
 */
export async function deliverWebhook(env: OutboundEnv, url: string, id: string, body: string, secret: string): Promise<WebhookResult> {
  const headers = { 'content-type': 'application/json', 'user-agent': 'docs-platform-integrations/1', ...(await webhookHeaders(secret, id, body)) };
  try {
    const response = await outboundFetch(env, url, { method: 'POST', headers, body }, { field: 'tunnel', maxBytes: 64 * 1024 });
    if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status, detail: `answered ${response.status}` };
    const excerpt = response.text().slice(0, BODY_EXCERPT).trim();
    return { ok: false, status: response.status, detail: `answered ${response.status}${excerpt ? `: ${excerpt}` : ''}` };
  } catch (error) {
    return { ok: false, detail: `could not be reached: ${error instanceof Error ? error.message : String(error)}` };
  }
}
