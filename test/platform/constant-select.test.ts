/**
 * The published site's first batch in constant SQL (services/sites/visitor-model, db/constant-select) is the batch
 * drizzle builds (services/sites/model `siteModelQueries` for a visitor, access `shareLinkQuery`, the host's
 * organization, integrations/site-scripts `siteScriptsSql`): the same SQL text and values for every kind of target, and the same rows, objects as drizzle maps
 * them (JSON parsed, booleans), for a site with a group, sections, site spaces and a share link.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { sql, type SQL } from 'drizzle-orm';
import { createDb, rawAll, runBatch, type BatchItem } from '../../src/db/client';
import { organizations, sites } from '../../src/db/schema';
import { orgHostCondition, type OrgHost } from '../../src/services/organizations/hostnames';
import { shareLinkQuery } from '../../src/services/sites/access';
import { siteModelQueries } from '../../src/services/sites/model';
import { orgOfHostStatement, shareLinkStatement, targetExpressions, visitorModelStatements } from '../../src/services/sites/visitor-model';
import type { SiteTarget } from '../../src/site/load';
import { siteScriptsSql, siteScriptsStatement } from '../../src/services/integrations/site-scripts';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { shareKeyOf } from '../site/helpers';

const db = () => createDb(env.DB);

/** The site's id (a value, or SQL finding it) and its organization's id, as drizzle SQL: what site/load wrote before `targetExpressions`. */
function targetSql(target: SiteTarget): { siteId: SQL | string; orgId: SQL } {
  if ('siteId' in target) return { siteId: target.siteId, orgId: sql`(select ${sites.orgId} from ${sites} where ${sites.id} = ${target.siteId})` };
  if ('basename' in target) {
    return { siteId: sql`(select ${sites.id} from ${sites} where ${sites.orgId} = ${target.orgId} and ${sites.basename} = ${target.basename})`, orgId: sql`${target.orgId}` };
  }
  const where = orgHostCondition(target);
  const org = sql`(select ${organizations.id} from ${organizations} where ${where})`;
  const siteId = sql`(select json_extract(${organizations.defaultContent}, '$.site') from ${organizations}
    where ${where} and json_extract(${organizations.defaultContent}, '$.type') = 'site')`;
  return { siteId, orgId: org };
}

/** What drizzle builds for a target's first batch (as site/load built it before its SQL was written out). */
function drizzleStatements(target: SiteTarget, key: string | undefined): BatchItem[] {
  const d = db();
  const { siteId, orgId } = targetSql(target);
  const id = siteId as unknown as string;
  const byHost = !('siteId' in target) && !('basename' in target);
  return [
    ...siteModelQueries(d, orgId as unknown as string, id, null),
    shareLinkQuery(d, id, key),
    ...(byHost ? [d.select({ id: organizations.id }).from(organizations).where(orgHostCondition(target as OrgHost))] : []),
    rawAll(d, siteScriptsSql(siteId)) as unknown as BatchItem,
  ];
}

function constantStatements(target: SiteTarget, key: string | undefined): BatchItem[] {
  const d = db();
  const { site, org } = targetExpressions(target);
  const byHost = !('siteId' in target) && !('basename' in target);
  return [
    ...visitorModelStatements(d, site, org),
    shareLinkStatement(d, site, key),
    ...(byHost ? [orgOfHostStatement(d, target as OrgHost)] : []),
    siteScriptsStatement(d, site),
  ];
}

const textOf = (statement: BatchItem) => {
  const item = statement as unknown as { _prepare?(): { getQuery(): { sql: string; params: unknown[] } }; getQuery?(): { sql: string; params: unknown[] } };
  const { sql: text, params } = item._prepare ? item._prepare().getQuery() : item.getQuery!();
  return { sql: text.replace(/\s+/g, ' ').trim(), params };
};

const TARGETS: SiteTarget[] = [{ siteId: 'site_1' }, { orgId: 'org_1', basename: 'docs' }, { hostname: 'acme' }, { customHostname: 'docs.acme.test' }];

describe("a published site's first batch in constant SQL", () => {
  it.each(TARGETS)('is the SQL drizzle builds, with the same values: %o', (target) => {
    for (const key of ['share-key', undefined]) {
      expect(constantStatements(target, key).map(textOf)).toEqual(drizzleStatements(target, key).map(textOf));
    }
  });

  it('answers the rows drizzle maps, by id, basename and host', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const [docs, api2] = [await createSpace(org.id, token, 'Docs'), await createSpace(org.id, token, 'API')];
    const site = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token, body: { title: 'Rows', visibility: 'share-link', spaces: [docs.id] } }), 201).body;
    const path = `/v1/orgs/${org.id}/sites/${site.id}`;
    expectStatus(await api('POST', `${path}/publish`, { token }), 200);
    expectStatus(await api('POST', `${path}/sections`, { token, body: { spaceId: api2.id, title: 'Reference' } }), 201);
    expectStatus(await api('POST', `${path}/section-groups`, { token, body: { title: 'Group' } }), 201);
    const link = expectStatus(await api('POST', `${path}/share-links`, { token, body: { name: 'Partners' } }), 201).body;
    const key = shareKeyOf(link);
    const label = `cs${Math.random().toString(36).slice(2, 8)}`;
    expectStatus(await api('PATCH', `/v1/orgs/${org.id}`, { token, body: { hostname: label, defaultContent: { type: 'site', site: site.id } } }), 200);

    const targets: SiteTarget[] = [{ siteId: site.id }, { orgId: org.id, basename: site.basename }, { hostname: label }, { siteId: 'no-such-site' }];
    for (const target of targets) {
      for (const shareKey of [key, 'not-a-key']) {
        const expected = await runBatch(db(), drizzleStatements(target, shareKey));
        const rows = await runBatch(db(), constantStatements(target, shareKey));
        expect(rows).toEqual(expected);
      }
    }
    const [[siteRow], groups, sections, siteSpaces, spaces, [share]] = (await runBatch(db(), constantStatements({ siteId: site.id }, key))) as any[];
    expect(siteRow).toMatchObject({ id: site.id, published: true, visibility: 'share-link' });
    expect(groups).toHaveLength(1);
    expect(sections.length).toBeGreaterThan(0);
    expect(siteSpaces.length).toBe(2);
    expect(spaces.map((s: any) => [s.space.title, s.rank]).sort()).toEqual([['API', 0], ['Docs', 0]]);
    expect(typeof spaces[0].space.mergeRules).toBe('object');
    expect(share).toEqual({ id: link.id });
  });
});
