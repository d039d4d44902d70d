import { exports } from 'cloudflare:workers';
import { expect, it } from 'vitest';

it('answers 401 without a token', async () => {
  const res = await exports.default.fetch('http://api.test/v1/user');
  expect(res.status).toBe(401);
  expect(await res.json()).toEqual({ error: { code: 401, message: expect.any(String) } });
});
