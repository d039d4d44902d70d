import { describe, expect, it } from 'vitest';
import { api, expectError, seedOrg } from '../helpers/harness';

describe('updateSpaceById with mergeRules', () => {
  it('checks rules naming more users than one statement can bind: 400 naming them, not 500', async () => {
    const org = await seedOrg();
    const space = await api('POST', `/v1/orgs/${org.id}/spaces`, { token: org.owner.token, body: { title: 'Rules' } });
    const strangers = Array.from({ length: 150 }, (_, i) => `stranger${i}`);
    const body = { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [org.members.review.id, ...strangers.slice(0, 99)] }, { rule: 'allow_bypass', users: strangers.slice(99) }] } };
    const message = expectError(await api('PATCH', `/v1/spaces/${space.body.id}`, { token: org.owner.token, body }), 400, 'mergeRules');
    expect(message).toContain('stranger149');
    expect(message).not.toContain(org.members.review.id);
    const ok = { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [org.members.review.id] }] } };
    const res = await api('PATCH', `/v1/spaces/${space.body.id}`, { token: org.owner.token, body: ok });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.mergeRules).toEqual(ok.mergeRules);
  });
});
