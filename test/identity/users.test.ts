import { describe, expect, it } from 'vitest';
import { CreatedApiTokenSchema, UserSchema } from '../../src/schemas/user';
import { ADMIN_TOKEN, addMember, api, createUser, expectError } from '../helpers/harness';
import { createOrg, expectSchema, expectStatus, uniq } from '../organizations/support';
import { fetchWorker } from '../helpers/worker';

const StrictUser = UserSchema.strict();
const StrictCreatedToken = CreatedApiTokenSchema.strict();
const newEmail = () => `person-${uniq()}@example.test`;

describe('getAuthenticatedUser: GET /v1/user', () => {
  it('returns the user owning the token', async () => {
    const user = await createUser({ displayName: 'Grace Hopper' });
    const res = expectStatus(await api('GET', '/v1/user', { token: user.token }), 200);
    expect(expectSchema(StrictUser, res.body)).toEqual({
      object: 'user',
      id: user.id,
      displayName: 'Grace Hopper',
      email: user.email,
      urls: { location: `http://api.test/v1/users/${user.id}` },
    });
  });

  it('accepts the scheme name in any case', async () => {
    const user = await createUser();
    const res = expectStatus(await api('GET', '/v1/user', { headers: { Authorization: `bearer ${user.token}` } }), 200);
    expect(res.body.id).toBe(user.id);
  });

  it('answers 401 with the error body without a token or with an unknown token', async () => {
    const res = await fetchWorker('http://api.test/v1/user');
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: { code: 401, message: expect.any(String) } });
    expectError(await api('GET', '/v1/user', { token: 'dpa_unknownTokenValue000000000000000000000' }), 401);
    expectError(await api('GET', '/v1/user', { headers: { Authorization: 'Token abc' } }), 401);
  });

  it('answers 403 for the operator token, which is not a user', async () => {
    expectError(await api('GET', '/v1/user', { token: ADMIN_TOKEN }), 403);
  });
});

describe('createUser: POST /v1/users', () => {
  it('creates a user (201) with a lowercased email and a photo', async () => {
    const email = newEmail();
    const res = expectStatus(
      await api('POST', '/v1/users', {
        token: ADMIN_TOKEN,
        body: { displayName: '  Ada  ', email: email.toUpperCase(), photoURL: 'https://example.com/ada.png' },
      }),
      201,
    );
    const user = expectSchema(StrictUser, res.body);
    expect(user).toMatchObject({ object: 'user', displayName: 'Ada', email, photoURL: 'https://example.com/ada.png' });
    expect(user.id).toMatch(/^[0-9A-Za-z]{20}$/);
    expect(user.urls.location).toBe(`http://api.test/v1/users/${user.id}`);
    const fetched = expectStatus(await api('GET', `/v1/users/${user.id}`, { token: ADMIN_TOKEN }), 200);
    expect(fetched.body).toEqual(user);
  });

  it('vouches for the email by default, and not with emailVerified:false', async () => {
    const domain = `verified-${uniq()}.example`;
    const owner = await createUser({ email: `owner@${domain}` });
    const orgId = await createOrg(owner.token, { emailDomains: [domain] });
    const verified = await createUser({ email: `v@${domain}` });
    expect((await api('POST', `/v1/orgs/${orgId}/join`, { token: verified.token })).status).toBe(204);
    const unverified = await createUser({ email: `u@${domain}`, emailVerified: false });
    expectError(await api('POST', `/v1/orgs/${orgId}/join`, { token: unverified.token }), 404); // as for an organization one may not join
  });

  it('answers 409 when a user with the email exists, whatever its case', async () => {
    const email = newEmail();
    expectStatus(await api('POST', '/v1/users', { token: ADMIN_TOKEN, body: { displayName: 'First', email } }), 201);
    expectError(await api('POST', '/v1/users', { token: ADMIN_TOKEN, body: { displayName: 'Second', email: email.toUpperCase() } }), 409, email);
  });

  it('rejects invalid bodies with 400 naming the field', async () => {
    const post = (body: unknown) => api('POST', '/v1/users', { token: ADMIN_TOKEN, body });
    const email = newEmail();
    expectError(await post({ email }), 400, 'displayName');
    expectError(await post({ displayName: '', email }), 400, 'displayName');
    expectError(await post({ displayName: '   ', email }), 400, 'displayName');
    expectError(await post({ displayName: 'x'.repeat(65), email }), 400, 'displayName');
    expectError(await post({ displayName: 'Ok' }), 400, 'email');
    expectError(await post({ displayName: 'Ok', email: 'not-an-email' }), 400, 'email');
    expectError(await post({ displayName: 'Ok', email, emailVerified: 'yes' }), 400, 'emailVerified');
    expectError(await post({ displayName: 'Ok', email, photoURL: 'not a url' }), 400, 'photoURL');
    expectError(await post({ displayName: 'Ok', email, photoURL: 'javascript:alert(1)' }), 400, 'photoURL');
    expectError(await api('POST', '/v1/users', { token: ADMIN_TOKEN, rawBody: '{"displayName":' }), 400, 'json');
    // None of the rejected requests created the user.
    expectStatus(await post({ displayName: 'Ok', email }), 201);
  });

  it('answers 401 without a token and 403 for a user token', async () => {
    const user = await createUser();
    const body = { displayName: 'Nope', email: newEmail() };
    expectError(await api('POST', '/v1/users', { body }), 401);
    expectError(await api('POST', '/v1/users', { token: user.token, body }), 403, 'operator');
    // The refused request created nothing: the email is still free.
    expectStatus(await api('POST', '/v1/users', { token: ADMIN_TOKEN, body }), 201);
  });
});

describe('getUserById: GET /v1/users/{userId}', () => {
  it('returns a user to themselves, to members of a shared organization and to the operator', async () => {
    const target = await createUser({ displayName: 'Target' });
    const colleague = await createUser();
    const org = expectStatus(await api('POST', '/v1/orgs', { token: target.token, body: { title: 'Shared' } }), 201);
    await addMember(org.body.id, colleague.id, 'read');
    for (const token of [colleague.token, target.token, ADMIN_TOKEN]) {
      const res = expectStatus(await api('GET', `/v1/users/${target.id}`, { token }), 200);
      expect(expectSchema(StrictUser, res.body)).toMatchObject({ id: target.id, displayName: 'Target' });
    }
    const stranger = await createUser();
    expectError(await api('GET', `/v1/users/${target.id}`, { token: stranger.token }), 404, 'user');
  });

  it('answers 404 for an unknown user', async () => {
    const user = await createUser();
    expectError(await api('GET', '/v1/users/noSuchUser0000000000', { token: user.token }), 404, 'user');
  });

  it('answers 401 without a token', async () => {
    const user = await createUser();
    expectError(await api('GET', `/v1/users/${user.id}`), 401);
  });
});

describe('createUserToken: POST /v1/users/{userId}/tokens', () => {
  it('issues a working token (201), shown once, with its label and prefix', async () => {
    const user = await createUser();
    const res = expectStatus(await api('POST', `/v1/users/${user.id}/tokens`, { token: ADMIN_TOKEN, body: { label: '  CI  ' } }), 201);
    const token = expectSchema(StrictCreatedToken, res.body);
    expect(token).toMatchObject({ object: 'api-token', label: 'CI', lastUsedAt: null });
    expect(token.token.startsWith(token.prefix)).toBe(true);
    expect(token.token.length).toBeGreaterThan(token.prefix.length + 20);
    expect(token.token).not.toBe(user.token);
    const me = expectStatus(await api('GET', '/v1/user', { token: token.token }), 200);
    expect(me.body.id).toBe(user.id);
  });

  it('accepts no body at all, giving a token without label', async () => {
    const user = await createUser();
    const res = expectStatus(await api('POST', `/v1/users/${user.id}/tokens`, { token: ADMIN_TOKEN }), 201);
    expect(expectSchema(StrictCreatedToken, res.body).label).toBeNull();
  });

  it('rejects a bad label and malformed JSON with 400', async () => {
    const user = await createUser();
    expectError(await api('POST', `/v1/users/${user.id}/tokens`, { token: ADMIN_TOKEN, body: { label: '' } }), 400, 'label');
    expectError(await api('POST', `/v1/users/${user.id}/tokens`, { token: ADMIN_TOKEN, body: { label: 'x'.repeat(101) } }), 400, 'label');
    expectError(await api('POST', `/v1/users/${user.id}/tokens`, { token: ADMIN_TOKEN, body: { label: 7 } }), 400, 'label');
    expectError(await api('POST', `/v1/users/${user.id}/tokens`, { token: ADMIN_TOKEN, rawBody: '{"label":' }), 400, 'json');
    expect((await api('GET', '/v1/user/tokens', { token: user.token })).body.count).toBe(1);
  });

  it('answers 404 for an unknown user', async () => {
    expectError(await api('POST', '/v1/users/noSuchUser0000000000/tokens', { token: ADMIN_TOKEN, body: {} }), 404, 'user');
  });

  it('answers 401 without a token and 403 for a user token, even for themselves', async () => {
    const user = await createUser();
    expectError(await api('POST', `/v1/users/${user.id}/tokens`, { body: {} }), 401);
    expectError(await api('POST', `/v1/users/${user.id}/tokens`, { token: user.token, body: {} }), 403, 'operator');
    expect((await api('GET', '/v1/user/tokens', { token: user.token })).body.count).toBe(1);
  });
});
