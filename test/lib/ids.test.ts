/**
 * Resource ids start with a letter, as GitBook's do: GitBook's site renderer selects elements by id (`#<section id>`),
 * and a CSS id selector cannot start with a digit (a site section whose id did crashed the renderer's page in the
 * browser, in the renderer run of guide 20). Every character stays uniformly random otherwise.
 */
import { describe, expect, it } from 'vitest';
import { newId, randomBase62, timingSafeEqual } from '../../src/lib/ids';

describe('newId', () => {
  it('is 20 base62 characters, the first a letter', () => {
    const ids = Array.from({ length: 2000 }, newId);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z][0-9A-Za-z]{19}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Every letter can start an id, upper and lower case alike (not one fixed prefix).
    const firsts = new Set(ids.map((id) => id[0]));
    expect(firsts.size).toBeGreaterThan(40);
    expect([...firsts].some((c) => c >= 'a')).toBe(true);
    expect([...firsts].some((c) => c <= 'Z')).toBe(true);
  });

  it('keeps digits everywhere else, and randomBase62 (keys, tokens) starts with any character', () => {
    const rest = Array.from({ length: 500 }, () => newId().slice(1)).join('');
    expect(rest).toMatch(/[0-9]/);
    const keys = Array.from({ length: 500 }, () => randomBase62(20));
    expect(keys.some((key) => /^[0-9]/.test(key))).toBe(true);
  });
});

describe('timingSafeEqual', () => {
  it('is true for the same string only: not for a prefix, an extension, one character off, or another of the same length', () => {
    const secret = 'bench-admin-tökén-✓';
    expect(timingSafeEqual(secret, `${secret}`)).toBe(true);
    expect(timingSafeEqual('', '')).toBe(true);
    for (const other of [secret.slice(0, -1), `${secret}x`, `${secret}\0`, secret.replace('ö', 'o'), secret.replace('✓', '✔'), 'x'.repeat(secret.length), '']) {
      expect(timingSafeEqual(secret, other)).toBe(false);
      expect(timingSafeEqual(other, secret)).toBe(false);
    }
  });
});
