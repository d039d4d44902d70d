/**
 * The hourly cron removes the SAML login requests (services/sso/login `purgeExpiredSamlRequests`) that expired more
 * than a day before it runs, answered or not, and keeps the others.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { runScheduled } from '../../src/jobs/cron';
import { api, expectStatus, seedOrg } from '../helpers/harness';

const HOUR = 3600_000;

describe('cron: expired SAML login requests', () => {
  it('runScheduled deletes the requests expired more than a day ago, and only those', async () => {
    const org = await seedOrg();
    const provider = expectStatus(await api('POST', `/v1/orgs/${org.id}/saml`, { token: org.owner.token, body: { label: 'Purged IdP' } }), 201).body;
    const now = Date.now();
    const rows = [
      { id: '_old', expiresAt: now - 25 * HOUR, consumedAt: null },
      { id: '_old_used', expiresAt: now - 30 * HOUR, consumedAt: now - 31 * HOUR },
      { id: '_recent', expiresAt: now - 23 * HOUR, consumedAt: null },
      { id: '_pending', expiresAt: now + 5 * 60_000, consumedAt: null },
    ];
    for (const row of rows) {
      await env.DB.prepare('insert into saml_requests (id, provider_id, relay_state, created_at, expires_at, consumed_at) values (?, ?, ?, ?, ?, ?)')
        .bind(
          row.id,
          provider.id,
          'r',
          new Date(row.expiresAt - 10 * 60_000).toISOString(),
          new Date(row.expiresAt).toISOString(),
          row.consumedAt === null ? null : new Date(row.consumedAt).toISOString(),
        )
        .run();
    }
    await runScheduled(env, now);
    const left = await env.DB.prepare('select id from saml_requests where provider_id = ? order by id').bind(provider.id).all<{ id: string }>();
    expect(left.results.map((r) => r.id)).toEqual(['_pending', '_recent']);
  });
});
