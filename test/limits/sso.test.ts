/**
 * The SAML login's routes (/sso/saml/*) have their own, lower budget per client address (the `sso` policy), on
 * top of the visitor budget every route outside /v1 has: TEST_RATE_LIMITS.SSO of test/limits/vitest.config.ts.
 */
import { describe, expect, it } from 'vitest';
import { BASE, api, expectStatus, seedOrg } from '../helpers/harness';
import { IDP, IDP_ENTITY_ID, IDP_SSO_URL } from '../sso/saml-fixtures';
import { fetchWorker } from '../helpers/worker';

// The budgets of this project (TEST_RATE_LIMITS in test/limits/vitest.config.ts), per 10-second window.
const SSO = 3;
const VISITOR = 5;

/** Windows are aligned to the clock (10 s): start in a fresh one when less than 4 seconds are left. */
async function inFreshWindow(): Promise<void> {
  const left = 10_000 - (Date.now() % 10_000);
  if (left < 4_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/** A GET of start from `ip`, without following the redirect to the identity provider. */
function startFrom(providerId: string, ip: string) {
  return fetchWorker(`${BASE}/sso/saml/${providerId}/start`, { redirect: 'manual', headers: { 'CF-Connecting-IP': ip } });
}

describe('the sso rate limit', () => {
  it('the start past the budget of one client address is 429 with Retry-After; another address is served', async () => {
    expect(SSO).toBeLessThan(VISITOR);
    const org = await seedOrg();
    const provider = expectStatus(
      await api('POST', `/v1/orgs/${org.id}/saml`, { token: org.owner.token, body: { label: 'Limited', entityID: IDP_ENTITY_ID, certificate: IDP.cert, ssoURL: IDP_SSO_URL } }),
      201,
    ).body;
    const octet = Math.floor(Math.random() * 250) + 1;
    const ip = `203.0.113.${octet}`;
    await inFreshWindow();
    const answers: Response[] = [];
    for (let i = 0; i < SSO + 1; i++) answers.push(await startFrom(provider.id, ip));
    expect(answers.map((a) => a.status)).toEqual([...Array(SSO).fill(302), 429]);
    const refused = answers.at(-1)!;
    const retryAfter = Number(refused.headers.get('Retry-After'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);
    const body = (await refused.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(429);
    expect(body.error.message).toContain('the "sso" rate limit allows 3 requests per 10 seconds for this client address');
    expect(refused.headers.get('RateLimit-Policy')).toContain(`"sso";q=${SSO};w=10`);
    // The ACS is counted in the same budget; another address has its own.
    const acs = await fetchWorker(`${BASE}/sso/saml/${provider.id}/acs`, {
      method: 'POST',
      headers: { 'CF-Connecting-IP': ip, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'SAMLResponse=x',
    });
    expect(acs.status).toBe(429);
    expect((await startFrom(provider.id, `192.0.2.${octet}`)).status).toBe(302);
  });
});
