import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, api, createUser, seedOrg } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';
import { expectStatus, uniq } from './support';

/**
 * DESIGN.md's budget, for the Organizations group and identity: an authenticated read answers in at
 * most 2 D1 round trips (the token lookup included), a list page in at most 2 whatever its length,
 * a write in at most 3. Counted, not timed.
 */
describe('D1 round trips of the Organizations group and identity', () => {
  async function fixture() {
    const org = await seedOrg();
    const token = org.owner.token;
    const invite = expectStatus(await api('POST', `/v1/orgs/${org.id}/link-invites`, { token, body: { role: 'read' } }), 201);
    for (let i = 0; i < 3; i++) await api('POST', `/v1/orgs/${org.id}/link-invites`, { token, body: { role: 'edit' } });
    const domain = `rt-${uniq()}.example`;
    expectStatus(await api('PATCH', `/v1/orgs/${org.id}`, { token, body: { emailDomains: [domain] } }), 200);
    const joiner = await createUser({ email: `joiner@${domain}` });
    const linkJoiner = await createUser();
    // Warm the tokens' last-used stamps so the hourly write does not land in a measurement.
    for (const t of [token, org.members.read.token, org.members.guest.token, joiner.token, linkJoiner.token]) await api('GET', '/v1/user', { token: t });
    return { org, token, inviteId: invite.body.id as string, domain, joiner, linkJoiner };
  }

  it('reads answer in at most 2', async () => {
    const { org, token, domain, joiner } = await fixture();
    const reads: Array<[string, string]> = [
      ['/v1/user', token],
      [`/v1/users/${org.members.read.id}`, token],
      [`/v1/orgs/${org.id}`, token],
      [`/v1/orgs/${org.id}/members/${org.members.read.id}`, token],
      [`/v1/orgs/${org.id}/members/${org.members.guest.id}`, org.members.guest.token],
      [`/v1/email-domains/${domain}/orgs`, joiner.token],
    ];
    for (const [path, t] of reads) {
      const r = await measureRoundTrips('GET', path, t);
      expect(r.status, path).toBe(200);
      expect(r.roundTrips, path).toBeLessThanOrEqual(2);
    }
  });

  it('list pages answer in at most 2, whatever their length', async () => {
    const { org, token } = await fixture();
    const lists = [
      '/v1/orgs',
      '/v1/user/tokens',
      `/v1/orgs/${org.id}/members`,
      `/v1/orgs/${org.id}/members?role=read&search=user&limit=2`,
      `/v1/orgs/${org.id}/members?sort=lastSeenAt`,
      `/v1/orgs/${org.id}/link-invites`,
      `/v1/orgs/${org.id}/link-invites?limit=1`,
    ];
    for (const path of lists) {
      const r = await measureRoundTrips('GET', path, token);
      expect(r.status, path).toBe(200);
      expect(r.roundTrips, path).toBeLessThanOrEqual(2);
    }
  });

  it('writes answer in at most 3', async () => {
    const { org, token, inviteId, joiner, linkJoiner } = await fixture();
    const existing = await createUser();
    const writes: Array<[string, string, unknown, string]> = [
      ['POST', '/v1/orgs', { title: 'New org', hostname: `rt-${uniq()}`.slice(0, 32) }, token],
      ['PATCH', `/v1/orgs/${org.id}`, { title: 'Renamed' }, token],
      [
        'PATCH',
        `/v1/orgs/${org.id}`,
        {
          hostname: `rt-${uniq()}`.slice(0, 32),
          mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [org.members.review.id] }] },
        },
        token,
      ],
      ['POST', `/v1/orgs/${org.id}/join`, undefined, joiner.token],
      ['PATCH', `/v1/orgs/${org.id}/members/${org.members.edit.id}`, { role: 'review' }, token],
      ['PATCH', `/v1/orgs/${org.id}/members/${org.members.edit.id}`, { role: 'admin' }, token],
      ['DELETE', `/v1/orgs/${org.id}/members/${org.members.comment.id}`, undefined, token],
      ['POST', `/v1/orgs/${org.id}/invites`, { emails: [existing.email, `rt-${uniq()}@example.test`] }, token],
      ['POST', `/v1/orgs/${org.id}/link-invites`, { role: 'comment' }, token],
      ['DELETE', `/v1/orgs/${org.id}/link-invites/${inviteId}x`, undefined, token],
      ['POST', `/v1/orgs/${org.id}/invites/${inviteId}`, undefined, linkJoiner.token],
      ['POST', '/v1/users', { displayName: 'RT', email: `rt-user-${uniq()}@example.test` }, ADMIN_TOKEN],
      ['POST', `/v1/users/${existing.id}/tokens`, { label: 'rt' }, ADMIN_TOKEN],
      ['DELETE', '/v1/user/tokens/noSuchToken000000000', undefined, token],
    ];
    for (const [method, path, body, t] of writes) {
      const r = await measureRoundTrips(method, path, t, body);
      expect(r.status, `${method} ${path} ${JSON.stringify(r.body)}`).toBeLessThan(300);
      expect(r.roundTrips, `${method} ${path}`).toBeLessThanOrEqual(3);
    }
  });
});
