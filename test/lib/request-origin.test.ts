/** lib/request-origin: a request URL's origin and host name, parsed once per origin, are what `new URL` says. */
import { describe, expect, it } from 'vitest';
import { hostnameOf, originOf } from '../../src/lib/request-origin';

const URLS = [
  'http://api.test/v1/user',
  'https://API.Example.COM:443/v1/spaces/x?y=1',
  'https://api.example.com:8443/v1',
  'http://user:pass@host.test:8787/a',
  'http://host.test?x=1',
  'http://host.test#frag',
  'http://host.test',
  'https://[::1]:8443/v1',
  'http://acme.sites.test/docs/page',
];

describe('request origin', () => {
  it('answers what new URL answers, first parse or remembered', () => {
    for (let round = 0; round < 2; round++) {
      for (const url of URLS) {
        expect(originOf(url), url).toBe(new URL(url).origin);
        expect(hostnameOf(url), url).toBe(new URL(url).hostname);
      }
    }
  });

  it('tells apart URLs whose origins differ only after a shared prefix', () => {
    expect(hostnameOf('http://a.test/x')).toBe('a.test');
    expect(hostnameOf('http://a.test.evil/x')).toBe('a.test.evil');
    expect(originOf('http://a.test:81/x')).toBe('http://a.test:81');
  });
});
