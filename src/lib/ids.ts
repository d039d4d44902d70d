const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const LETTERS = ALPHABET.slice(10);

/** Random characters of `alphabet`; rejection sampling keeps the distribution uniform. */
function randomFrom(alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
    for (const byte of bytes) {
      if (byte < limit && out.length < length) out += alphabet[byte % alphabet.length];
    }
  }
  return out;
}

/** Opaque random base62 string. */
export const randomBase62 = (length: number): string => randomFrom(ALPHABET, length);

/**
 * A resource id: 20 base62 characters whose first is a letter, as GitBook's ids are. GitBook's site renderer
 * selects elements by id (`#<section id>`), and a CSS id selector cannot start with a digit: a site section
 * whose id did crashed the renderer's page in the browser.
 */
export const newId = () => randomFrom(LETTERS, 1) + randomBase62(19);

export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** SHA-256 of text (as UTF-8) or of bytes, in hex. */
export async function sha256Hex(value: string | Uint8Array): Promise<string> {
  return toHex(await crypto.subtle.digest('SHA-256', typeof value === 'string' ? new TextEncoder().encode(value) : value));
}

/**
 * SHA-256 of text (as UTF-8) in base64url without padding: 43 characters where hex takes 64. Content-addressed tree
 * nodes are named by its first 22 characters (128 bits: services/content/tree.ts says why that is enough).
 */
export async function sha256Base64Url(value: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(value)));
  let binary = '';
  for (const byte of digest) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/**
 * Compares two secrets without leaking their common prefix length through timing. On UTF-16 code units: two strings
 * are equal exactly when those are, and nothing is encoded (every authenticated request compares its token with
 * the operator's: two encodings per request showed in a warm read's profile).
 */
export function timingSafeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  const length = Math.max(a.length, b.length);
  // charCodeAt past the end is NaN, which `| 0` makes 0, as the byte-wise version's `?? 0` did.
  for (let i = 0; i < length; i++) diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0);
  return diff === 0;
}
