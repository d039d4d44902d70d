import type { Env } from '../../env';
import { ApiError } from '../../lib/errors';
import { randomBase62 } from '../../lib/ids';

/**
 * Integration secrets and the signing secrets of integrations and installations are kept as AES-256-GCM ciphertext
 * (`base64(iv || ciphertext)`), under a key derived from the INTEGRATIONS_KEY secret and nothing else: a
 * deployment without it answers 503 naming it wherever a secret is written or read. Only the delivery path
 * decrypts them; no API read returns them.
 *
 * Deployments once fell back to ADMIN_TOKEN when INTEGRATIONS_KEY was unset: one that did must set
 * INTEGRATIONS_KEY to its ADMIN_TOKEN's value to keep reading what it stored (README, Deploying).
 */
async function aesKey(env: Env): Promise<CryptoKey> {
  const material = env.INTEGRATIONS_KEY;
  if (!material) throw new ApiError(503, 'Integration secrets are not configured: set the INTEGRATIONS_KEY secret');
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`integrations:${material}`));
  return crypto.subtle.importKey('raw', digest, 'AES-GCM', false, ['encrypt', 'decrypt']);
}

/** Base64 of bytes, in slices: one spread of a large array would overflow the stack (secrets reach 200 KB). */
function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

export async function encryptSecret(env: Env, plaintext: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, await aesKey(env), new TextEncoder().encode(plaintext)));
  const out = new Uint8Array(iv.length + sealed.length);
  out.set(iv);
  out.set(sealed, iv.length);
  return toBase64(out);
}

/** The plaintext; 503 without INTEGRATIONS_KEY, an Error saying which key to check when it is not the one used. */
export async function decryptSecret(env: Env, ciphertext: string): Promise<string> {
  const key = await aesKey(env);
  const bytes = fromBase64(ciphertext);
  try {
    return new TextDecoder().decode(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: bytes.slice(0, 12) }, key, bytes.slice(12)));
  } catch {
    throw new Error('a secret could not be decrypted with this INTEGRATIONS_KEY: it is not the key it was stored under');
  }
}

/** A Standard Webhooks signing secret: `whsec_` and 24 random bytes in base64. */
export function newSigningSecret(): string {
  return `whsec_${toBase64(crypto.getRandomValues(new Uint8Array(24)))}`;
}

