import type { Env } from '../../env';
import { randomBase62 } from '../../lib/ids';

/**
 * Integration secrets and installation signing secrets are kept as AES-256-GCM ciphertext
 * (`base64(iv || ciphertext)`), under a key derived from the INTEGRATIONS_KEY secret (ADMIN_TOKEN when
 * unset). Only the delivery path decrypts them; no API read returns them.
 */
async function aesKey(env: Env): Promise<CryptoKey> {
  const material = env.INTEGRATIONS_KEY || env.ADMIN_TOKEN;
  if (!material) throw new Error('Set INTEGRATIONS_KEY (or ADMIN_TOKEN) to keep integration secrets');
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

export async function decryptSecret(env: Env, ciphertext: string): Promise<string> {
  const bytes = fromBase64(ciphertext);
  const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: bytes.slice(0, 12) }, await aesKey(env), bytes.slice(12));
  return new TextDecoder().decode(plain);
}

/** A Standard Webhooks signing secret: `whsec_` and 24 random bytes in base64. */
export function newSigningSecret(): string {
  return `whsec_${toBase64(crypto.getRandomValues(new Uint8Array(24)))}`;
}

