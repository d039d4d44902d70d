/**
 * Visitor-auth tokens: a site with `visitor-auth` visibility trusts JWTs that the customer's own
 * backend signs with the site's private key (HS256, a shared secret), and reads their claims for
 * adaptive content. jose runs on WebCrypto, which workerd provides.
 *
 * The secret is the UTF-8 bytes of the key string as shown to admins, which is what JWT libraries
 * do with a string secret (`jwt.sign(claims, privateKey)` in jsonwebtoken, `new TextEncoder().encode(key)`
 * with jose): customers paste the key as is.
 */
import { SignJWT, jwtVerify } from 'jose';

/** Longer tokens are refused before any parsing: a visitor token carries a handful of claims. */
export const VISITOR_TOKEN_MAX_LENGTH = 8 * 1024;
/** Seconds of clock difference tolerated between the customer's backend and us on exp/nbf. */
export const VISITOR_TOKEN_CLOCK_TOLERANCE = 5;
const ALGORITHM = 'HS256';

/** A new site private key: 32 random bytes (256 bits, HS256's own size), hex-encoded. */
export function generateVisitorKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function secret(key: string): Uint8Array {
  return new TextEncoder().encode(key);
}

/**
 * The payload of a token signed with `key`, or null when it must not be trusted: bad signature,
 * another algorithm (`none`, HS512, RS256...), no `exp`, expired or not yet valid, malformed, too long.
 * Never throws: a visitor with a bad token is simply a visitor without claims.
 */
export async function verifyVisitorToken(token: string, key: string): Promise<Record<string, unknown> | null> {
  if (typeof token !== 'string' || token.length === 0 || token.length > VISITOR_TOKEN_MAX_LENGTH) return null;
  if (typeof key !== 'string' || key.length === 0) return null;
  try {
    const { payload } = await jwtVerify(token, secret(key), {
      algorithms: [ALGORITHM],
      requiredClaims: ['exp'],
      clockTolerance: VISITOR_TOKEN_CLOCK_TOLERANCE,
    });
    return { ...payload };
  } catch {
    return null;
  }
}

/**
 * A token as a customer's backend would sign it (for tests and the local demo). `expiresIn` is a
 * number of seconds from now (negative for an already expired token) or a jose time span ('2h').
 */
export async function signVisitorToken(
  claims: Record<string, unknown>,
  key: string,
  expiresIn: number | string = '1h',
): Promise<string> {
  const expiration = typeof expiresIn === 'number' ? Math.floor(Date.now() / 1000) + expiresIn : expiresIn;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime(expiration)
    .sign(secret(key));
}
