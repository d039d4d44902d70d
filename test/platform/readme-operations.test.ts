/**
 * The README's table of GitBook's operations served here (src/cli/operations-table.mjs): counted from the route
 * manifest and GitBook's newest published document, and kept current: the test fails when a route is added or
 * removed and the README was not regenerated with `npm run readme:operations`.
 */
import { describe, expect, it } from 'vitest';
import gitbook0202 from 'gitbook-api-0202/spec/openapi.json';
// The package does not export its package.json; its version names the document the table counts against.
import gitbookPackage from '../../node_modules/gitbook-api-0202/package.json';
import readme from '../../README.md?raw';
import { ROUTE_MANIFEST } from '../../src/routes/manifest';
import { countOperations, renderOperationsTable, replaceOperationsTable, TABLE_END, TABLE_START } from '../../src/cli/operations-table.mjs';

const SPEC = {
  info: { version: 'x' },
  paths: {
    '/orgs/{organizationId}': { get: { operationId: 'getOrganizationById', tags: ['organizations'] } },
    '/orgs/{organizationId}/members': { get: { operationId: 'listMembersInOrganizationById', tags: ['organization-members'] } },
    '/sites/{siteId}/redirects': { post: { operationId: 'createSiteRedirect', tags: ['site-redirects'] } },
    '/integrations/{integrationName}/installations/{installationId}/spaces': { post: { operationId: 'installIntegrationOnSpace' } },
  },
};

describe("README's operations table", () => {
  it('counts an operation as served by method and path, whatever the parameter names, and folds tags into groups', () => {
    const rows = countOperations(SPEC, [
      ['GET', '/v1/orgs/:orgId', 'organizations', 1],
      // Served but undocumented, or another method: not counted.
      ['GET', '/v1/orgs/:organizationId/members', 'organizations'],
      ['PUT', '/v1/sites/:siteId/redirects', 'sites', 1],
    ]);
    expect(rows).toEqual([
      { group: 'organizations', gitbook: 2, served: 1, missing: ['listMembersInOrganizationById'] },
      { group: 'sites', gitbook: 1, served: 0, missing: ['createSiteRedirect'] },
      { group: 'integrations', gitbook: 1, served: 0, missing: ['installIntegrationOnSpace'] },
    ]);
  });

  it('is current in README.md (run `npm run readme:operations` after adding a route)', () => {
    const table = renderOperationsTable(gitbook0202, ROUTE_MANIFEST, gitbookPackage.version);
    expect(table).toContain(`@gitbook/api ${gitbookPackage.version}`);
    expect(replaceOperationsTable(readme, table), 'README.md is stale: run `npm run readme:operations`').toBe(readme);
  });

  it('counts at least the operations issue 44 brought, and never more than GitBook has', () => {
    const rows = countOperations(gitbook0202, ROUTE_MANIFEST);
    const served = new Set(rows.flatMap((row) => row.missing));
    for (const id of ['inviteToCollection', 'listOrganizationAuditEvents', 'getComputedDocument', 'listSiteIntegrations']) {
      expect(served.has(id), id).toBe(false);
    }
    for (const row of rows) expect(row.served).toBeLessThanOrEqual(row.gitbook);
  });

  it('refuses a README without its markers rather than losing text', () => {
    expect(() => replaceOperationsTable('# no table', 'x')).toThrow(/markers/);
    expect(replaceOperationsTable(`a\n${TABLE_START}\nold\n${TABLE_END}\nb`, 'new')).toBe('a\nnew\nb');
  });
});
