import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { listOf } from '../../src/schemas/common';
import { MemberSchema } from '../../src/schemas/member';
import { OrganizationSchema } from '../../src/schemas/organization';
import { ADMIN_TOKEN, ALL_ROLES, addMember, api, createUser, expectError, seedOrg, type RoleName } from '../helpers/harness';
import { collectPages, createOrg, expectSchema, expectStatus, setMemberColumns, uniq } from './support';

const OrganizationListSchema = listOf(OrganizationSchema, 'Organizations');
/** The API object must carry nothing beyond the public schema (no database columns). */
const StrictOrganization = OrganizationSchema.strict();

describe('listOrganizationsForAuthenticatedUser: GET /v1/orgs', () => {
  it('lists exactly the organizations the caller belongs to, with their role in permissions', async () => {
    const user = await createUser();
    const own = await createOrg(user.token, { title: 'Mine' });
    const other = await seedOrg();
    await addMember(other.id, user.id, 'read');
    const res = expectStatus(await api('GET', '/v1/orgs', { token: user.token }), 200);
    const body = expectSchema(OrganizationListSchema, res.body);
    expect(body.count).toBe(2);
    expect(body.next).toBeUndefined();
    expect(body.items.map((o) => o.id).sort()).toEqual([own, other.id].sort());
    const mine = body.items.find((o) => o.id === own)!;
    const theirs = body.items.find((o) => o.id === other.id)!;
    expect(mine.permissions).toMatchObject({ view: true, admin: true });
    expect(theirs.permissions).toMatchObject({ view: true, admin: false, listMembers: true, createContent: false });
    // The outsider's organization is never listed for this user.
    const outsiderList = expectStatus(await api('GET', '/v1/orgs', { token: other.outsider.token }), 200);
    expect(outsiderList.body.items.map((o: { id: string }) => o.id)).not.toContain(other.id);
    expect(outsiderList.body.count).toBe(1);
  });

  it('answers an empty list for a user without organizations', async () => {
    const user = await createUser();
    const res = expectStatus(await api('GET', '/v1/orgs', { token: user.token }), 200);
    expect(res.body).toEqual({ items: [], count: 0 });
  });

  it('includes organizations where the caller is a guest, and excludes a disabled membership', async () => {
    const org = await seedOrg();
    const guestList = expectStatus(await api('GET', '/v1/orgs', { token: org.members.guest.token }), 200);
    expect(guestList.body.items.map((o: { id: string }) => o.id)).toEqual([org.id]);
    expect(guestList.body.items[0].permissions).toMatchObject({ view: true, listMembers: false });

    await setMemberColumns(org.id, org.members.read.id, { disabled: true });
    const readList = expectStatus(await api('GET', '/v1/orgs', { token: org.members.read.token }), 200);
    expect(readList.body).toEqual({ items: [], count: 0 });
    expectError(await api('GET', `/v1/orgs/${org.id}`, { token: org.members.read.token }), 404);
  });

  it('paginates with limit and next.page to the end, without duplicates, count equal to the total', async () => {
    const user = await createUser();
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push(await createOrg(user.token));
    const { ids, count, pages } = await collectPages('/v1/orgs', user.token, 2);
    expect(count).toBe(5);
    expect(pages).toBe(3);
    expect([...ids].sort()).toEqual([...created].sort());
    const single = await collectPages('/v1/orgs', user.token, 5);
    expect(single.pages).toBe(1);
    expect(single.ids).toEqual(ids);
  });

  it('keeps the cursor stable when an organization is created between pages', async () => {
    const user = await createUser();
    const created: string[] = [];
    for (let i = 0; i < 4; i++) created.push(await createOrg(user.token));
    let added = '';
    const { ids } = await collectPages('/v1/orgs', user.token, 2, async (pageIndex) => {
      if (pageIndex === 1) {
        added = await createOrg(user.token);
        // Created later than every row already listed (the clock may not tick between fast requests).
        await env.DB.prepare('update organizations set created_at = ? where id = ?').bind('2999-01-01T00:00:00.000Z', added).run();
      }
    });
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...created, added].sort());
  });

  it('rejects limit=0, limit=1001, a non-numeric limit and a garbage page with 400', async () => {
    const user = await createUser();
    expectError(await api('GET', '/v1/orgs?limit=0', { token: user.token }), 400, 'limit');
    expectError(await api('GET', '/v1/orgs?limit=1001', { token: user.token }), 400, 'limit');
    expectError(await api('GET', '/v1/orgs?limit=ten', { token: user.token }), 400, 'limit');
    expectError(await api('GET', '/v1/orgs?page=not-a-cursor', { token: user.token }), 400, 'page');
    expectStatus(await api('GET', '/v1/orgs?limit=1000', { token: user.token }), 200);
  });

  it('answers 401 without a token or with an unknown one, and 403 for the operator token', async () => {
    expectError(await api('GET', '/v1/orgs'), 401);
    expectError(await api('GET', '/v1/orgs', { token: 'dpa_not-a-real-token' }), 401);
    expectError(await api('GET', '/v1/orgs', { token: ADMIN_TOKEN }), 403);
  });
});

describe('createOrganization: POST /v1/orgs', () => {
  it('creates the organization (201) with defaults, and the creator becomes its admin', async () => {
    const user = await createUser();
    const hostname = `acme-${uniq()}`.slice(0, 32);
    const res = expectStatus(
      await api('POST', '/v1/orgs', {
        token: user.token,
        body: {
          title: '  Acme Docs  ',
          type: 'community',
          useCase: 'productDocs',
          communityType: 'openSource',
          emailDomains: ['Acme.Example', 'acme.example', 'docs.acme.example'],
          hostname,
        },
      }),
      201,
    );
    const org = expectSchema(StrictOrganization, res.body);
    expect(org).toMatchObject({
      object: 'organization',
      title: 'Acme Docs',
      type: 'community',
      useCase: 'productDocs',
      communityType: 'openSource',
      emailDomains: ['acme.example', 'docs.acme.example'],
      hostname,
      defaultRole: 'read',
      sso: false,
      ai: false,
      inviteLinks: true,
      mergeRules: { type: 'none' },
    });
    expect(org.id).toMatch(/^[0-9A-Za-z]{20}$/);
    expect(new Date(org.createdAt).toISOString()).toBe(org.createdAt);
    expect(org.urls.location).toBe(`http://api.test/v1/orgs/${org.id}`);
    expect(org.urls.logo).toBeUndefined();
    expect(Object.values(org.permissions).every(Boolean)).toBe(true);

    const fetched = expectStatus(await api('GET', `/v1/orgs/${org.id}`, { token: user.token }), 200);
    expect(fetched.body).toEqual(org);
    const me = expectStatus(await api('GET', `/v1/orgs/${org.id}/members/${user.id}`, { token: user.token }), 200);
    expect(expectSchema(MemberSchema, me.body).role).toBe('admin');
  });

  it('applies type business and no hostname by default', async () => {
    const user = await createUser();
    const res = expectStatus(await api('POST', '/v1/orgs', { token: user.token, body: { title: 'Minimal' } }), 201);
    const org = expectSchema(StrictOrganization, res.body);
    expect(org.type).toBe('business');
    expect(org.hostname).toBeUndefined();
    expect(org.useCase).toBeUndefined();
    expect(org.emailDomains).toEqual([]);
  });

  it('rejects invalid bodies with 400 naming the field', async () => {
    const user = await createUser();
    const post = (body: unknown) => api('POST', '/v1/orgs', { token: user.token, body });
    expectError(await post({}), 400, 'title');
    expectError(await post({ title: 'x' }), 400, 'title');
    expectError(await post({ title: '   x   ' }), 400, 'title');
    expectError(await post({ title: 'x'.repeat(256) }), 400, 'title');
    expectError(await post({ title: 42 }), 400, 'title');
    expectError(await post({ title: 'Fine', type: 'enterprise' }), 400, 'type');
    expectError(await post({ title: 'Fine', useCase: 'everything' }), 400, 'useCase');
    expectError(await post({ title: 'Fine', emailDomains: ['not a domain'] }), 400, 'emailDomains');
    expectError(await post({ title: 'Fine', hostname: 'Has_Upper' }), 400, 'hostname');
    expectError(await api('POST', '/v1/orgs', { token: user.token, rawBody: '{"title": "Acme"' }), 400, 'json');
    // Nothing was created by the rejected requests.
    expect((await api('GET', '/v1/orgs', { token: user.token })).body.count).toBe(0);
  });

  it('answers 409 when the hostname is already taken', async () => {
    const user = await createUser();
    const hostname = `taken-${uniq()}`.slice(0, 32);
    await createOrg(user.token, { hostname });
    expectError(await api('POST', '/v1/orgs', { token: user.token, body: { title: 'Second', hostname } }), 409, hostname);
    expect((await api('GET', '/v1/orgs', { token: user.token })).body.count).toBe(1);
  });

  it('answers 401 without a token and 403 for the operator token', async () => {
    expectError(await api('POST', '/v1/orgs', { body: { title: 'Nope' } }), 401);
    expectError(await api('POST', '/v1/orgs', { token: 'dpa_invalid', body: { title: 'Nope' } }), 401);
    expectError(await api('POST', '/v1/orgs', { token: ADMIN_TOKEN, body: { title: 'Nope' } }), 403);
  });
});

describe('getOrganizationById: GET /v1/orgs/{organizationId}', () => {
  it('answers every member, guests included, with permissions computed from their role', async () => {
    const org = await seedOrg();
    const expected: Record<RoleName, Partial<Record<keyof typeof OrganizationSchema.shape.permissions.shape, boolean>>> = {
      admin: { view: true, admin: true, createContent: true, listMembers: true, listTeams: true, viewBilling: true, installIntegration: true },
      create: { view: true, admin: false, createContent: true, createOpenAPISpec: true, listMembers: true, viewBilling: false },
      review: { view: true, admin: false, createContent: false, listMembers: true, listTeams: true },
      edit: { view: true, admin: false, createContent: false, listMembers: true },
      comment: { view: true, admin: false, createContent: false, listMembers: true },
      read: { view: true, admin: false, createContent: false, listMembers: true, ownTeam: true, listIntegrations: true },
      guest: { view: true, admin: false, createContent: false, listMembers: false, listTeams: false, ownTeam: false },
    };
    for (const role of ALL_ROLES) {
      const res = expectStatus(await api('GET', `/v1/orgs/${org.id}`, { token: org.members[role].token }), 200);
      const body = expectSchema(StrictOrganization, res.body);
      expect(body.id).toBe(org.id);
      expect(body.permissions, role).toMatchObject(expected[role]);
    }
  });

  it('answers 404 to a non-member and for an unknown id', async () => {
    const org = await seedOrg();
    expectError(await api('GET', `/v1/orgs/${org.id}`, { token: org.outsider.token }), 404, 'not found');
    expectError(await api('GET', '/v1/orgs/doesNotExist000000000', { token: org.owner.token }), 404);
  });

  it('answers 401 without a token and 403 for the operator token', async () => {
    const org = await seedOrg();
    expectError(await api('GET', `/v1/orgs/${org.id}`), 401);
    expectError(await api('GET', `/v1/orgs/${org.id}`, { token: ADMIN_TOKEN }), 403);
  });
});

describe('updateOrganizationById: PATCH /v1/orgs/{organizationId}', () => {
  const patch = (orgId: string, token: string, body: unknown) => api('PATCH', `/v1/orgs/${orgId}`, { token, body });

  it('updates every writable field for an admin and persists it', async () => {
    const org = await seedOrg();
    const hostname = `docs-${uniq()}`.slice(0, 32);
    const mergeRules = {
      type: 'rules',
      rules: [{ rule: 'require_specific_reviewers', users: [org.members.review.id] }, { rule: 'require_at_least_one_review' }],
    };
    const res = expectStatus(
      await patch(org.id, org.owner.token, {
        title: 'Renamed',
        emailDomains: ['Example.COM', 'example.com', ' docs.example.org '],
        hostname,
        defaultRole: 'edit',
        logo: 'https://cdn.example.com/logo.png',
        sso: false,
        ai: true,
        inviteLinks: false,
        mergeRules,
        defaultContent: null,
      }),
      200,
    );
    const body = expectSchema(StrictOrganization, res.body);
    expect(body).toMatchObject({
      title: 'Renamed',
      emailDomains: ['example.com', 'docs.example.org'],
      hostname,
      defaultRole: 'edit',
      ai: true,
      sso: false,
      inviteLinks: false,
      mergeRules,
      urls: { logo: 'https://cdn.example.com/logo.png' },
    });
    const fetched = expectStatus(await api('GET', `/v1/orgs/${org.id}`, { token: org.members.read.token }), 200);
    expect(fetched.body).toMatchObject({ title: 'Renamed', hostname, defaultRole: 'edit', ai: true, inviteLinks: false, mergeRules });
    expect(fetched.body.permissions.admin).toBe(false);
  });

  it('leaves fields that are not given unchanged', async () => {
    const org = await seedOrg();
    expectStatus(await patch(org.id, org.owner.token, { ai: true, emailDomains: ['keep.example'] }), 200);
    const res = expectStatus(await patch(org.id, org.owner.token, { title: 'Only the title' }), 200);
    expect(res.body).toMatchObject({ title: 'Only the title', ai: true, emailDomains: ['keep.example'], defaultRole: 'read' });
  });

  it('clears hostname, logo and defaultRole with null', async () => {
    const org = await seedOrg();
    const hostname = `clear-${uniq()}`.slice(0, 32);
    expectStatus(await patch(org.id, org.owner.token, { hostname, logo: 'https://example.com/l.png' }), 200);
    const res = expectStatus(await patch(org.id, org.owner.token, { hostname: null, logo: null, defaultRole: null }), 200);
    const body = expectSchema(StrictOrganization, res.body);
    expect(body.hostname).toBeUndefined();
    expect(body.urls.logo).toBeUndefined();
    expect(body.defaultRole).toBeNull();
    // The hostname is free again for another organization.
    const otherOrg = await createOrg(org.outsider.token);
    expectStatus(await patch(otherOrg, org.outsider.token, { hostname }), 200);
  });

  it('validates the title length', async () => {
    const org = await seedOrg();
    expectError(await patch(org.id, org.owner.token, { title: 'x' }), 400, 'title');
    expectError(await patch(org.id, org.owner.token, { title: '  y  ' }), 400, 'title');
    expectError(await patch(org.id, org.owner.token, { title: 'x'.repeat(256) }), 400, 'title');
    expectError(await patch(org.id, org.owner.token, { title: null }), 400, 'title');
    expectStatus(await patch(org.id, org.owner.token, { title: 'ok' }), 200);
    expectStatus(await patch(org.id, org.owner.token, { title: 'x'.repeat(255) }), 200);
  });

  it('requires emailDomains to be domain names, lowercases and de-duplicates them', async () => {
    const org = await seedOrg();
    for (const bad of ['not a domain', 'example', 'user@example.com', '-bad.example', 'http://example.com', '']) {
      expectError(await patch(org.id, org.owner.token, { emailDomains: [bad] }), 400, 'emailDomains');
    }
    expectError(await patch(org.id, org.owner.token, { emailDomains: 'example.com' }), 400, 'emailDomains');
    const res = expectStatus(await patch(org.id, org.owner.token, { emailDomains: ['MAIL.Example.COM', 'mail.example.com', 'other.example'] }), 200);
    expect(res.body.emailDomains).toEqual(['mail.example.com', 'other.example']);
    const cleared = expectStatus(await patch(org.id, org.owner.token, { emailDomains: [] }), 200);
    expect(cleared.body.emailDomains).toEqual([]);
  });

  it('validates the hostname pattern and answers 409 when another organization uses it', async () => {
    const org = await seedOrg();
    for (const bad of ['ab', 'Upper-case', '-leading', 'trailing-', 'dots.not.allowed', 'under_score', 'x'.repeat(33)]) {
      expectError(await patch(org.id, org.owner.token, { hostname: bad }), 400, 'hostname');
    }
    const hostname = `h-${uniq()}`.slice(0, 32);
    expectStatus(await patch(org.id, org.owner.token, { hostname }), 200);
    // Setting an organization's own hostname again is not a conflict.
    expectStatus(await patch(org.id, org.owner.token, { hostname, title: 'Same host' }), 200);
    const otherOrg = await createOrg(org.outsider.token);
    expectError(await patch(otherOrg, org.outsider.token, { hostname }), 409, hostname);
    const other = expectStatus(await api('GET', `/v1/orgs/${otherOrg}`, { token: org.outsider.token }), 200);
    expect(other.body.hostname).toBeUndefined();
  });

  it('rejects defaultContent naming a site (no such site) and malformed defaultContent with 400', async () => {
    const org = await seedOrg();
    expectError(await patch(org.id, org.owner.token, { defaultContent: { type: 'site', site: 'site_123' } }), 400, 'default content');
    expectError(await patch(org.id, org.owner.token, { defaultContent: { type: 'space', space: 'x' } }), 400, 'defaultContent');
    expectStatus(await patch(org.id, org.owner.token, { defaultContent: null }), 200);
  });

  it("accepts one of its own sites as defaultContent, refuses another organization's site, and forgets a deleted one", async () => {
    const org = await seedOrg();
    const site = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token: org.owner.token, body: { title: 'Home' } }), 201).body;
    const otherOrg = await createOrg(org.outsider.token);
    const foreign = expectStatus(await api('POST', `/v1/orgs/${otherOrg}/sites`, { token: org.outsider.token, body: { title: 'Theirs' } }), 201).body;
    expectError(await patch(org.id, org.owner.token, { defaultContent: { type: 'site', site: foreign.id } }), 400, 'default content');
    const updated = expectStatus(await patch(org.id, org.owner.token, { defaultContent: { type: 'site', site: site.id } }), 200);
    expect(updated.body.defaultContent).toEqual({ type: 'site', site: site.id });
    expectStatus(await api('DELETE', `/v1/orgs/${org.id}/sites/${site.id}`, { token: org.owner.token }), 204);
    const after = expectStatus(await api('GET', `/v1/orgs/${org.id}`, { token: org.owner.token }), 200);
    expect(after.body.defaultContent).toBeUndefined();
  });

  it('rejects sso:true (no SAML provider) with 400 and accepts sso:false', async () => {
    const org = await seedOrg();
    expectError(await patch(org.id, org.owner.token, { sso: true }), 400, 'sso');
    expectError(await patch(org.id, org.owner.token, { sso: 'yes' }), 400, 'sso');
    const res = expectStatus(await patch(org.id, org.owner.token, { sso: false }), 200);
    expect(res.body.sso).toBe(false);
  });

  it('rejects mergeRules naming users who are not members, and malformed rules', async () => {
    const org = await seedOrg();
    const rules = (users: string[]) => ({ mergeRules: { type: 'rules', rules: [{ rule: 'require_one_of_specific_reviewers', users }] } });
    expectError(await patch(org.id, org.owner.token, rules([org.outsider.id])), 400, 'mergeRules');
    expectError(await patch(org.id, org.owner.token, rules([org.members.edit.id, 'no-such-user'])), 400, 'no-such-user');
    expectError(await patch(org.id, org.owner.token, { mergeRules: { type: 'sometimes' } }), 400, 'mergeRules');
    expectError(await patch(org.id, org.owner.token, { mergeRules: { type: 'rules', rules: [{ rule: 'do_whatever' }] } }), 400, 'mergeRules');
    const ok = expectStatus(await patch(org.id, org.owner.token, rules([org.members.edit.id])), 200);
    expect(ok.body.mergeRules).toEqual(rules([org.members.edit.id]).mergeRules);
    const none = expectStatus(await patch(org.id, org.owner.token, { mergeRules: { type: 'none' } }), 200);
    expect(none.body.mergeRules).toEqual({ type: 'none' });
  });

  it('checks mergeRules naming more users than one SQL statement can bind (400, not 500)', async () => {
    const org = await seedOrg();
    const ids = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`);
    const mergeRules = {
      type: 'rules',
      rules: [
        { rule: 'require_specific_reviewers', users: [org.members.review.id, ...ids(99, 'a')] },
        { rule: 'allow_bypass', users: ids(100, 'b') },
      ],
    };
    expectError(await patch(org.id, org.owner.token, { mergeRules }), 400, 'mergeRules');
    const members = { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: ALL_ROLES.map((r) => org.members[r].id) }] };
    expectStatus(await patch(org.id, org.owner.token, { mergeRules: members }), 200);
  });

  it('gives a hostname to only one of two organizations asking for it at the same time (409, not 500)', async () => {
    const org = await seedOrg();
    const otherOrg = await createOrg(org.outsider.token);
    const hostname = `race-${uniq()}`.slice(0, 32);
    const results = await Promise.all([patch(org.id, org.owner.token, { hostname }), patch(otherOrg, org.outsider.token, { hostname })]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    for (const r of results) if (r.status === 409) expectError(r, 409, hostname);
    const created = await Promise.all([
      api('POST', '/v1/orgs', { token: org.owner.token, body: { title: 'Race A', hostname: `${hostname}-b` } }),
      api('POST', '/v1/orgs', { token: org.owner.token, body: { title: 'Race B', hostname: `${hostname}-b` } }),
    ]);
    expect(created.map((r) => r.status).sort()).toEqual([201, 409]);
  });

  it('rejects an empty body, a missing body, malformed JSON and bad role or logo values with 400', async () => {
    const org = await seedOrg();
    expectError(await patch(org.id, org.owner.token, {}), 400, 'at least one field');
    expectError(await api('PATCH', `/v1/orgs/${org.id}`, { token: org.owner.token }), 400);
    expectError(await api('PATCH', `/v1/orgs/${org.id}`, { token: org.owner.token, rawBody: '{"title":' }), 400, 'malformed json');
    expectError(await patch(org.id, org.owner.token, { defaultRole: 'owner' }), 400, 'defaultRole');
    expectError(await patch(org.id, org.owner.token, { logo: 'not a url' }), 400, 'logo');
    expectError(await patch(org.id, org.owner.token, { inviteLinks: 'no' }), 400, 'inviteLinks');
  });

  it('accepts only http(s) logo URLs', async () => {
    const org = await seedOrg();
    // A logo is rendered by clients: a javascript: or data: URL must never be stored.
    expectError(await patch(org.id, org.owner.token, { logo: 'javascript:alert(1)' }), 400, 'logo');
    expectError(await patch(org.id, org.owner.token, { logo: 'data:image/svg+xml,<svg onload=alert(1)>' }), 400, 'logo');
    expect((await api('GET', `/v1/orgs/${org.id}`, { token: org.owner.token })).body.urls.logo).toBeUndefined();
    expectStatus(await patch(org.id, org.owner.token, { logo: 'http://example.com/logo.svg' }), 200);
  });

  it('answers 403 to members below admin and 404 to a non-member, changing nothing', async () => {
    const org = await seedOrg('Untouched');
    for (const role of ALL_ROLES.filter((r) => r !== 'admin')) {
      expectError(await patch(org.id, org.members[role].token, { title: 'Hijacked' }), 403);
    }
    expectError(await patch(org.id, org.outsider.token, { title: 'Hijacked' }), 404);
    expectError(await patch('doesNotExist000000000', org.owner.token, { title: 'Hijacked' }), 404);
    expect((await api('GET', `/v1/orgs/${org.id}`, { token: org.owner.token })).body.title).toBe('Untouched');
  });

  it('answers 401 without a token and 403 for the operator token', async () => {
    const org = await seedOrg();
    expectError(await patch(org.id, '', { title: 'Nope' }), 401);
    expectError(await patch(org.id, ADMIN_TOKEN, { title: 'Nope' }), 403);
  });
});

describe('joinOrganization: POST /v1/orgs/{organizationId}/join', () => {
  async function orgWithDomain(defaultRole: string | null = 'edit') {
    const org = await seedOrg();
    const domain = `join-${uniq()}.example`;
    expectStatus(await api('PATCH', `/v1/orgs/${org.id}`, { token: org.owner.token, body: { emailDomains: [domain], defaultRole } }), 200);
    return { org, domain };
  }

  it('lets a user whose verified email domain is allowed join (204) with the defaultRole', async () => {
    const { org, domain } = await orgWithDomain('edit');
    const joiner = await createUser({ email: `someone@${domain}` });
    expectError(await api('GET', `/v1/orgs/${org.id}`, { token: joiner.token }), 404);
    const res = await api('POST', `/v1/orgs/${org.id}/join`, { token: joiner.token });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(res.body).toBeNull();
    const member = expectStatus(await api('GET', `/v1/orgs/${org.id}/members/${joiner.id}`, { token: org.owner.token }), 200);
    expect(expectSchema(MemberSchema, member.body).role).toBe('edit');
    const mine = expectStatus(await api('GET', '/v1/orgs', { token: joiner.token }), 200);
    expect(mine.body.items.map((o: { id: string }) => o.id)).toEqual([org.id]);
  });

  it('joining again is a no-op that keeps a role changed since', async () => {
    const { org, domain } = await orgWithDomain('read');
    const joiner = await createUser({ email: `again@${domain.toUpperCase()}` });
    expect((await api('POST', `/v1/orgs/${org.id}/join`, { token: joiner.token })).status).toBe(204);
    expectStatus(await api('PATCH', `/v1/orgs/${org.id}/members/${joiner.id}`, { token: org.owner.token, body: { role: 'review' } }), 200);
    expect((await api('POST', `/v1/orgs/${org.id}/join`, { token: joiner.token })).status).toBe(204);
    const member = await api('GET', `/v1/orgs/${org.id}/members/${joiner.id}`, { token: org.owner.token });
    expect(member.body.role).toBe('review');
  });

  it('joins as a guest when the defaultRole is null', async () => {
    const { org, domain } = await orgWithDomain(null);
    const joiner = await createUser({ email: `guest@${domain}` });
    expect((await api('POST', `/v1/orgs/${org.id}/join`, { token: joiner.token })).status).toBe(204);
    const member = await api('GET', `/v1/orgs/${org.id}/members/${joiner.id}`, { token: joiner.token });
    expect(member.status).toBe(200);
    expect(member.body.role).toBeNull();
  });

  it('answers 404 to a user of another domain, of a subdomain, or with an unverified email, who do not join, as for an unknown organization', async () => {
    const { org, domain } = await orgWithDomain();
    const other = await createUser({ email: `x@other-${uniq()}.example` });
    const sub = await createUser({ email: `x@sub.${domain}` });
    const unverified = await createUser({ email: `unverified@${domain}`, emailVerified: false });
    for (const user of [other, sub, unverified]) {
      expectError(await api('POST', `/v1/orgs/${org.id}/join`, { token: user.token }), 404, 'organization not found');
      expectError(await api('GET', `/v1/orgs/${org.id}`, { token: user.token }), 404);
    }
    // An organization without email domains admits nobody this way.
    const closed = await seedOrg();
    expectError(await api('POST', `/v1/orgs/${closed.id}/join`, { token: closed.outsider.token }), 404, 'organization not found');
  });

  it('answers 404 for an unknown organization', async () => {
    const user = await createUser();
    expectError(await api('POST', '/v1/orgs/doesNotExist000000000/join', { token: user.token }), 404, 'organization not found');
  });

  it('answers 401 without a token and 403 for the operator token', async () => {
    const { org } = await orgWithDomain();
    expectError(await api('POST', `/v1/orgs/${org.id}/join`), 401);
    expectError(await api('POST', `/v1/orgs/${org.id}/join`, { token: ADMIN_TOKEN }), 403);
  });
});

describe('getOrganizationsForEmailDomain: GET /v1/email-domains/{emailDomain}/orgs', () => {
  const Schema = OrganizationSchema.array();

  it("returns the organizations that allow the caller's own domain, members or not", async () => {
    const domain = `lookup-${uniq()}.example`;
    const admin = await createUser({ email: `admin@${domain}` });
    const a = await createOrg(admin.token, { emailDomains: [domain] });
    const b = await createOrg(admin.token, { emailDomains: ['elsewhere.example', domain] });
    await createOrg(admin.token, { emailDomains: ['elsewhere.example'] });
    const seeker = await createUser({ email: `seeker@${domain}` });
    const res = expectStatus(await api('GET', `/v1/email-domains/${domain}/orgs`, { token: seeker.token }), 200);
    expect(Object.keys(res.body)).toEqual(['organizations']);
    const orgs = expectSchema(Schema, res.body.organizations);
    expect(orgs.map((o) => o.id).sort()).toEqual([a, b].sort());
    // The seeker is not a member: permissions say so.
    expect(orgs.every((o) => o.permissions.view === false && o.permissions.admin === false)).toBe(true);
    const asAdmin = expectStatus(await api('GET', `/v1/email-domains/${domain.toUpperCase()}/orgs`, { token: admin.token }), 200);
    expect(asAdmin.body.organizations.map((o: { id: string }) => o.id).sort()).toEqual([a, b].sort());
    expect(asAdmin.body.organizations.every((o: { permissions: { admin: boolean } }) => o.permissions.admin)).toBe(true);
  });

  it('answers an empty list when no organization allows the domain', async () => {
    const user = await createUser({ email: `nobody@none-${uniq()}.example` });
    const res = expectStatus(await api('GET', `/v1/email-domains/${user.email.split('@')[1]}/orgs`, { token: user.token }), 200);
    expect(res.body).toEqual({ organizations: [] });
  });

  it('answers 403 for another domain than the caller’s and for an unverified email', async () => {
    const domain = `secret-${uniq()}.example`;
    const admin = await createUser({ email: `admin@${domain}` });
    await createOrg(admin.token, { emailDomains: [domain] });
    const stranger = await createUser();
    expectError(await api('GET', `/v1/email-domains/${domain}/orgs`, { token: stranger.token }), 403);
    const unverified = await createUser({ email: `u@${domain}`, emailVerified: false });
    expectError(await api('GET', `/v1/email-domains/${domain}/orgs`, { token: unverified.token }), 403);
  });

  it('answers 401 without a token and 403 for the operator token', async () => {
    expectError(await api('GET', '/v1/email-domains/example.test/orgs'), 401);
    expectError(await api('GET', '/v1/email-domains/example.test/orgs', { token: ADMIN_TOKEN }), 403);
  });
});
