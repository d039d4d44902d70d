import { describe, expect, it } from 'vitest';
import { loadGroup, ownHandlers } from '../../src/routes/group-app';
import { ROUTE_MANIFEST } from '../../src/routes/manifest';
import { api, expectError, seedOrg } from '../helpers/harness';

/**
 * app.ts routes a request once: the main app's match finds the manifest's route, and its group's handlers for that
 * route run in the main app's context (routes/group-app `routeHandler`). Only a group with handlers beyond its
 * routes' own paths goes through its own app, and a second route match.
 */
describe("route groups' handlers, called from the main app's match", () => {
  const groups = [...new Set(ROUTE_MANIFEST.map(([, , group]) => group))];

  it('serve every route of the API directly, but for the groups with catch-all handlers', async () => {
    const throughGroupApp = new Set<string>();
    for (const group of groups) {
      const app = await loadGroup(group);
      for (const [method, path] of ROUTE_MANIFEST.filter(([, , g]) => g === group)) {
        if (!ownHandlers(app, method, path)) throughGroupApp.add(group);
      }
    }
    expect([...throughGroupApp].sort()).toEqual(['app-links/app-links', 'integrations/public-endpoint', 'site', 'sso/saml-login']);
  });

  it("run a warm request without the group's own router", async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    // The groups that serve the two reads below (a group missing from the manifest would load an empty app, whose
    // router no request reaches: the count below could not fail).
    const groupOf = (method: string, path: string) => ROUTE_MANIFEST.find(([m, p]) => m === method && p === path)![2];
    const identity = await loadGroup(groupOf('GET', '/v1/users/:userId'));
    const spaces = await loadGroup(groupOf('GET', '/v1/spaces/:spaceId'));
    expect(identity.routes.some((r) => r.path === '/v1/users/:userId')).toBe(true);
    expect(spaces.routes.some((r) => r.path === '/v1/spaces/:spaceId')).toBe(true);
    const space = await api('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'Routed once' } });
    expect(space.status).toBe(201);
    let groupMatches = 0;
    const originals = [identity, spaces].map((app) => app.router.match);
    for (const app of [identity, spaces]) {
      const match = app.router.match.bind(app.router);
      app.router.match = (...args) => (groupMatches++, match(...args));
    }
    try {
      const user = await api('GET', `/v1/users/${org.members.read.id}`, { token });
      expect(user.status).toBe(200);
      // The path parameter the handler read is the main app's match's.
      expect(user.body.id).toBe(org.members.read.id);
      const read = await api('GET', `/v1/spaces/${space.body.id}`, { token });
      expect(read.status).toBe(200);
      expect(read.body.id).toBe(space.body.id);
      expect(groupMatches).toBe(0);
    } finally {
      [identity, spaces].forEach((app, i) => (app.router.match = originals[i]));
    }
  });

  it("answer their errors through the main app's middleware: error body, request id, rate limit headers", async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    // A handler's own 404, a validator's 400 and a route middleware's 403 (tokenAccess: the operator may not read a user's tokens).
    const missing = await api('GET', '/v1/spaces/no-such-space', { token });
    expectError(missing, 404);
    const invalid = await api('PATCH', `/v1/orgs/${org.id}`, { token, body: { title: 42 } });
    expectError(invalid, 400);
    for (const res of [missing, invalid]) {
      expect(res.headers.get('X-Request-Id')).toBeTruthy();
      expect(res.headers.get('RateLimit-Policy')).toContain('"user"');
    }
  });
});
