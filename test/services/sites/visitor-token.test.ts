/**
 * Visitor-auth JWTs: HS256 with the site's private key and an expiry, nothing else is trusted.
 */
import { SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  VISITOR_TOKEN_MAX_LENGTH,
  generateVisitorKey,
  signVisitorToken,
  verifyVisitorToken,
} from '../../../src/services/sites/visitor-token';

const key = generateVisitorKey();
const bytes = (secret: string) => new TextEncoder().encode(secret);
const now = () => Math.floor(Date.now() / 1000);

describe('generateVisitorKey', () => {
  it('makes a new 256-bit hex key each time', () => {
    const keys = new Set(Array.from({ length: 20 }, generateVisitorKey));
    expect(keys.size).toBe(20);
    for (const generated of keys) expect(generated).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('verifyVisitorToken', () => {
  it('returns the claims of a valid token', async () => {
    const token = await signVisitorToken({ isBetaUser: true, unsigned: { plan: 'pro' } }, key, 60);
    const payload = await verifyVisitorToken(token, key);
    expect(payload).toMatchObject({ isBetaUser: true, unsigned: { plan: 'pro' } });
    expect(payload?.exp).toBeGreaterThan(now());
  });

  it('accepts a token signed by another library with the key string as the secret', async () => {
    const token = await new SignJWT({ isAdmin: true })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('5m')
      .sign(bytes(key));
    expect(await verifyVisitorToken(token, key)).toMatchObject({ isAdmin: true });
  });

  it('refuses a token signed with another key', async () => {
    const token = await signVisitorToken({ isBetaUser: true }, generateVisitorKey(), 60);
    expect(await verifyVisitorToken(token, key)).toBeNull();
  });

  it('refuses an expired token, tolerating a few seconds of clock skew', async () => {
    expect(await verifyVisitorToken(await signVisitorToken({ a: 1 }, key, -60), key)).toBeNull();
    expect(await verifyVisitorToken(await signVisitorToken({ a: 1 }, key, -2), key)).toMatchObject({ a: 1 });
  });

  it('refuses a token without exp', async () => {
    const token = await new SignJWT({ isBetaUser: true }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().sign(bytes(key));
    expect(await verifyVisitorToken(token, key)).toBeNull();
  });

  it('refuses a token that is not valid yet', async () => {
    const token = await new SignJWT({ a: 1 })
      .setProtectedHeader({ alg: 'HS256' })
      .setNotBefore(now() + 3600)
      .setExpirationTime(now() + 7200)
      .sign(bytes(key));
    expect(await verifyVisitorToken(token, key)).toBeNull();
  });

  it('refuses an unsigned (alg none) token', async () => {
    const token = new UnsecuredJWT({ isAdmin: true }).setExpirationTime('1h').encode();
    expect(token.endsWith('.')).toBe(true);
    expect(await verifyVisitorToken(token, key)).toBeNull();
    // Even with a signature part copied from a genuine token.
    const genuine = await signVisitorToken({ isAdmin: true }, key, 60);
    expect(await verifyVisitorToken(`${token}${genuine.split('.')[2]}`, key)).toBeNull();
  });

  it('refuses another algorithm, even signed with the right key', async () => {
    const token = await new SignJWT({ isAdmin: true }).setProtectedHeader({ alg: 'HS512' }).setExpirationTime('1h').sign(bytes(key));
    expect(await verifyVisitorToken(token, key)).toBeNull();
  });

  it('refuses a token whose payload was changed', async () => {
    const [header, , signature] = (await signVisitorToken({ isAdmin: false }, key, 60)).split('.');
    const forged = btoa(JSON.stringify({ isAdmin: true, exp: now() + 60 })).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
    expect(await verifyVisitorToken(`${header}.${forged}.${signature}`, key)).toBeNull();
  });

  it.each([
    ['an empty string', ''],
    ['one segment', 'abc'],
    ['three garbage segments', 'not.a.jwt'],
    ['JSON', '{"alg":"HS256"}'],
    ['bad base64 segments', '!!!.@@@.###'],
  ])('returns null for a malformed token: %s', async (_name, token) => {
    expect(await verifyVisitorToken(token, key)).toBeNull();
  });

  it(`refuses a token longer than ${VISITOR_TOKEN_MAX_LENGTH} characters`, async () => {
    const near = await signVisitorToken({ filler: 'x'.repeat(5000) }, key, 60);
    expect(near.length).toBeLessThanOrEqual(VISITOR_TOKEN_MAX_LENGTH);
    expect(await verifyVisitorToken(near, key)).not.toBeNull();
    const long = await signVisitorToken({ filler: 'x'.repeat(7000) }, key, 60);
    expect(long.length).toBeGreaterThan(VISITOR_TOKEN_MAX_LENGTH);
    expect(await verifyVisitorToken(long, key)).toBeNull();
  });

  it('returns null with an empty key rather than throwing', async () => {
    const token = await signVisitorToken({ a: 1 }, key, 60);
    expect(await verifyVisitorToken(token, '')).toBeNull();
  });
});
