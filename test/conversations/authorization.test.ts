import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { conversation, seedCluster, seedConversation, seedIssue } from '../helpers/conversations';
import { ADMIN_TOKEN, CALLERS, api, byCaller, callerUser, expectError, seedOrg, type ApiResponse, type Caller, type TestOrg } from '../helpers/harness';
import { seedInstallation, seedIntegration, seedToken } from '../helpers/integrations';

/**
 * Who may do what with conversations: members (read and up) read; admins ingest (the organization's
 * `ingestConversations`) and mute clusters; guests and outsiders see nothing (404). Installation tokens only
 * ingest (with `conversations:ingest`); GitBook documents the reads as user-only.
 */

const S = byCaller;
const READS = S(200, 200, 200, 200, 200, 200, 404, 404);
const ADMINS = (status: number) => S(status, 403, 403, 403, 403, 403, 404, 404);

let org: TestOrg;
let conversationId: string;
let clusterId: string;
let issueId: string;
const base = () => `/v1/orgs/${org.id}`;

beforeAll(async () => {
  org = await seedOrg();
  conversationId = (await seedConversation(org.id)).id;
  clusterId = await seedCluster(org.id);
  issueId = await seedIssue(org.id, conversationId, clusterId);
});

type Call = (caller: Caller, token: string | undefined) => Promise<ApiResponse>;

const OPERATIONS: Array<[string, Record<Caller, number>, Call]> = [
  ['ingestConversation', ADMINS(204), (caller, token) => api('POST', `${base()}/conversations`, { token, body: [conversation(`by-${caller}`, 'It fails')] })],
  ['listConversations', READS, (_c, token) => api('GET', `${base()}/conversations`, { token })],
  ['getConversationById', READS, (_c, token) => api('GET', `${base()}/conversations/${conversationId}`, { token })],
  ['listConversationsIssues', READS, (_c, token) => api('GET', `${base()}/conversations-issues?cluster=${clusterId}`, { token })],
  ['getConversationIssueById', READS, (_c, token) => api('GET', `${base()}/conversations-issues/${issueId}`, { token })],
  ['listConversationsIssuesClusters', READS, (_c, token) => api('GET', `${base()}/conversations-clusters`, { token })],
  ['getConversationsIssuesCluster', READS, (_c, token) => api('GET', `${base()}/conversations-clusters/${clusterId}`, { token })],
  ['updateConversationsIssuesCluster', ADMINS(200), (caller, token) => api('PATCH', `${base()}/conversations-clusters/${clusterId}`, { token, body: { muted: caller === 'admin' } })],
];

describe('authorization', () => {
  it.each(OPERATIONS)('%s answers each caller as its role allows', async (_name, expected, call) => {
    const actual: Record<string, number> = {};
    for (const caller of CALLERS) {
      const res = await call(caller, callerUser(org, caller).token);
      actual[caller] = res.status;
      if (res.status >= 400) expectError(res, res.status);
    }
    expect(actual).toEqual(expected);
  });

  it('stores exactly the conversations of the callers it answered 204', async () => {
    const rows = await env.DB.prepare(`select external_id from conversations where org_id = ? and external_id like 'by-%'`).bind(org.id).all<{ external_id: string }>();
    expect(rows.results.map((r) => r.external_id)).toEqual(['by-admin']);
    const cluster = await env.DB.prepare('select muted from conversation_clusters where id = ?').bind(clusterId).first<{ muted: number }>();
    // Only the admin's PATCH (muted: true) went through.
    expect(cluster!.muted).toBe(1);
  });

  it.each(OPERATIONS)('%s answers 401 without a token, and with an unknown one', async (_name, _expected, call) => {
    expectError(await call('admin', undefined), 401);
    expectError(await call('admin', 'not-a-token'), 401);
  });

  it.each(OPERATIONS)('%s refuses the operator token (403): it is not a user', async (_name, _expected, call) => {
    expectError(await call('admin', ADMIN_TOKEN), 403);
  });
});

describe('integration tokens', () => {
  let installationToken: string;
  let integrationToken: string;
  beforeAll(async () => {
    const publisher = await seedOrg();
    const integration = await seedIntegration(publisher.id, { scopes: ['conversations:ingest'] });
    const installation = await seedInstallation(integration, org.id);
    installationToken = await seedToken(integration.id, installation.id);
    integrationToken = await seedToken(integration.id, null);
  });

  it.each(OPERATIONS.filter(([name]) => name !== 'ingestConversation'))('%s refuses an installation token with conversations:ingest (403): reads and muting are for users', async (_name, _expected, call) => {
    expectError(await call('admin', installationToken), 403);
  });

  it('an installation token with conversations:ingest ingests', async () => {
    const [, , ingestCall] = OPERATIONS[0];
    expect((await ingestCall('admin', installationToken)).status).toBe(204);
  });

  it.each(OPERATIONS)('%s refuses the integration token itself (403)', async (_name, _expected, call) => {
    expectError(await call('admin', integrationToken), 403);
  });
});

describe("another organization's ids", () => {
  it('are not found (404) through this organization, and this organization is not found to its outsiders', async () => {
    const other = await seedOrg();
    const theirConversation = (await seedConversation(other.id)).id;
    const theirCluster = await seedCluster(other.id);
    const theirIssue = await seedIssue(other.id, theirConversation, theirCluster);
    const token = org.owner.token;
    expectError(await api('GET', `${base()}/conversations/${theirConversation}`, { token }), 404);
    expectError(await api('GET', `${base()}/conversations-issues/${theirIssue}`, { token }), 404);
    expectError(await api('GET', `${base()}/conversations-clusters/${theirCluster}`, { token }), 404);
    expectError(await api('PATCH', `${base()}/conversations-clusters/${theirCluster}`, { token, body: { muted: true } }), 404);
    // Through their organization: the organization itself is not found to a non-member.
    expectError(await api('GET', `/v1/orgs/${other.id}/conversations/${theirConversation}`, { token }), 404, 'organization');
    expectError(await api('POST', `/v1/orgs/${other.id}/conversations`, { token, body: conversation('x', 'y') }), 404, 'organization');
    expectError(await api('GET', `/v1/orgs/unknown/conversations-clusters`, { token }), 404, 'organization');
  });
});
