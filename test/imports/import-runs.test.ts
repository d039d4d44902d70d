/**
 * Import runs (GitBook's startImportRun, listImportRuns, getImportRun, cancelImportRun): a website imported into a
 * space in the background by the queue consumer. The website is a stand-in behind the outbound guard's fetch seam
 * (nothing leaves the machine); the messages startImportRun sends are captured and delivered by the test, through
 * the Worker's own queue handler. Every effect is read back through the API.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { setOutboundFetch } from '../../src/lib/outbound';
import { PNG_1x1, applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import type { QueuedJob } from '../helpers/conversations';
import { GITBOOK_0202, gitbookErrors, gitbookOperations, schemaValidator } from '../helpers/gitbook-schema';
import { api, expectError, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { apiCapturingQueue, seedInstallation, seedIntegration, seedToken } from '../helpers/integrations';
import { measureRoundTrips } from '../helpers/round-trips';

const SITE = 'https://docs.example.com';
const png = Uint8Array.from(atob(PNG_1x1), (c) => c.charCodeAt(0));
const html = (body: string) => new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8' } });
const page = (title: string, main: string) => `<!doctype html><html><head><title>${title}</title></head><body><nav><a href="/docs/">Docs</a> <a href="/docs/setup">Setup</a></nav><main>${main}</main></body></html>`;

/** The stand-in website, and what happens when one of its paths is asked for (a test's hook). */
const PAGES: Record<string, () => Response | Promise<Response>> = {
  '/docs/': () => html(page('Welcome', '<h1>Welcome</h1><p>Read the <a href="setup">setup</a>.</p><p><img src="logo.png" alt="Logo"></p>')),
  '/docs/setup': () => html(page('Setup', '<h1>Setup</h1><p>Run <code>install</code>.</p>')),
  '/docs/logo.png': () => new Response(png, { headers: { 'content-type': 'image/png' } }),
  '/slow/': () => html(page('Slow', '<h1>Slow</h1><p><a href="/slow/next">Next</a></p>')),
  '/slow/next': () => html(page('Next', '<h1>Next</h1>')),
};
let onFetch: ((url: URL) => Promise<void>) | undefined;
let requested: string[] = [];

async function website(request: Request): Promise<Response> {
  const url = new URL(request.url);
  requested.push(url.href);
  await onFetch?.(url);
  if (url.origin === 'https://down.example.com') throw new Error('internal error; reference = 0000');
  const answer = url.origin === SITE ? PAGES[url.pathname] : undefined;
  return answer ? answer() : new Response('not found', { status: 404 });
}

const GITBOOK = gitbookOperations();
function expectGitbook(operationId: string, body: unknown, status = '200') {
  const validator = schemaValidator(GITBOOK.get(operationId)!.responses[status]!, GITBOOK_0202.components);
  expect(gitbookErrors(validator, body), JSON.stringify(body)).toBe('valid');
}

let org: TestOrg;
let owner: string;
const imports = (orgId = org.id) => `/v1/org/${orgId}/imports`;

beforeAll(async () => {
  org = await seedOrg();
  owner = org.owner.token;
  setOutboundFetch(website);
});
afterAll(() => {
  setOutboundFetch();
});

/** startImportRun with a queue that keeps its messages. */
async function start(body: unknown, token = owner, orgId = org.id) {
  const { status, body: answer, sent } = await apiCapturingQueue('POST', imports(orgId), token, body);
  return { status, body: answer as any, sent: sent as unknown as QueuedJob[] };
}

/** Delivers messages to the Worker's queue handler (one batch); the queue's verdict. */
async function deliver(jobs: QueuedJob[], attempts = 1) {
  const batch = createMessageBatch<unknown>('docs-platform-jobs', jobs.map((body, index) => ({ id: `m-${index}-${body.id}`, timestamp: new Date(), attempts, body })));
  const ctx = createExecutionContext();
  await worker.queue(batch, env as never, ctx);
  return getQueueResult(batch, ctx);
}

const getRun = async (id: string, token = owner) => expectStatus(await api('GET', `${imports()}/${id}`, { token }), 200).body;
const titles = (pages: any[]): string[] => pages.flatMap((p) => [p.title, ...titles(p.pages ?? [])]);
const mainTitles = async (spaceId: string) => titles(expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token: owner }), 200).body.pages);

/** Rewrites a run's row (what the consumer or time would have made of it). */
const setRun = (id: string, fields: Record<string, string | null>) =>
  env.DB.prepare(`update import_runs set ${Object.keys(fields).map((k) => `${k} = ?`).join(', ')} where id = ?`).bind(...Object.values(fields), id).run();

describe('startImportRun and the consumer', () => {
  it("imports a website into the space's main content in the background: pending, then completed with its pages", async () => {
    const space = await createSpace(org.id, owner, 'Imported');
    const started = await start({ source: { type: 'website', url: `${SITE}/docs/` }, target: { space: space.id } });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    expectGitbook('startImportRun', started.body, '201');
    expect(started.body).toMatchObject({ object: 'import-run', status: 'pending', source: { type: 'website', url: `${SITE}/docs/` }, target: { space: space.id }, createdBy: org.owner.id, pages: [] });
    expect(started.body.urls.location).toBe(`http://api.test${imports()}/${started.body.id}`);
    expect(started.sent).toEqual([{ id: `import-run:${started.body.id}`, type: 'import-run', payload: { runId: started.body.id } }]);
    // Nothing is fetched or written before the consumer runs.
    expect(await mainTitles(space.id)).toEqual([]);

    const verdict = await deliver(started.sent);
    expect(verdict.explicitAcks).toHaveLength(1);
    const run = await getRun(started.body.id);
    expectGitbook('getImportRun', run);
    expect(run).toMatchObject({ status: 'completed', startedAt: expect.any(String), completedAt: expect.any(String) });
    expect(run.pages.map((p: any) => [p.sourceURL, p.type, p.status])).toEqual([
      [`${SITE}/docs/`, 'page', 'complete'],
      [`${SITE}/docs/setup`, 'page', 'complete'],
    ]);
    expect(await mainTitles(space.id)).toEqual(['Welcome', 'Setup']);
    // The pages listed are the space's, and the image came along as a file.
    const welcome = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${run.pages[0].id}?format=markdown`, { token: owner }), 200).body;
    expect(welcome.markdown).toContain('Read the');
    expect(expectStatus(await api('GET', `/v1/spaces/${space.id}/content/files`, { token: owner }), 200).body.count).toBe(1);

    // A redelivered message changes nothing.
    await deliver(started.sent);
    expect(await mainTitles(space.id)).toEqual(['Welcome', 'Setup']);
    expect((await getRun(started.body.id)).completedAt).toBe(run.completedAt);
  });

  it('imports into an open change request (by number), under a page of it: main does not move', async () => {
    const space = await createSpace(org.id, owner, 'Into a change request');
    const cr = await openChangeRequest(space.id, owner, 'Import here');
    const applied = await applyChanges(space.id, cr.number, owner, [{ operation: 'insert_page', title: 'Imported docs', document: { markdown: 'Below.\n' } }]);
    const parent = applied.changes[0].page.id as string;
    const started = await start({ source: { type: 'website', url: `${SITE}/docs/setup` }, target: { space: space.id, changeRequest: String(cr.number), page: parent }, enhance: false });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    expect(started.body.target).toEqual({ space: space.id, changeRequest: cr.id, page: parent });
    await deliver(started.sent);
    expect((await getRun(started.body.id)).status).toBe('completed');
    const crPages = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/pages`, { token: owner }), 200).body.pages;
    expect(crPages.map((p: any) => [p.title, titles(p.pages ?? [])])).toEqual([['Imported docs', ['Setup']]]);
    expect(await mainTitles(space.id)).toEqual([]);
  });

  it("ends failed with the import's own reason: a site that cannot be reached, an unknown target page", async () => {
    const space = await createSpace(org.id, owner, 'Failing');
    const down = await start({ source: { type: 'website', url: 'https://down.example.com/docs/' }, target: { space: space.id } });
    await deliver(down.sent);
    const failed = await getRun(down.body.id);
    expectGitbook('getImportRun', failed);
    expect(failed.status).toBe('failed');
    expect(failed.reason).toContain('https://down.example.com/docs/ could not be fetched');
    expect(failed.completedAt).toBeUndefined();

    const nowhere = await start({ source: { type: 'website', url: `${SITE}/docs/setup` }, target: { space: space.id, page: 'noSuchPage' } });
    await deliver(nowhere.sent);
    const unknownPage = await getRun(nowhere.body.id);
    expect(unknownPage.status).toBe('failed');
    expect(unknownPage.reason).toContain('noSuchPage');
    expect(await mainTitles(space.id)).toEqual([]);
  });

  it('refuses at once, starting nothing: refused URLs, file sources, AI enhancement, closed or unknown change requests, a site of another organization', async () => {
    const space = await createSpace(org.id, owner, 'Refusals');
    const merged = await openChangeRequest(space.id, owner, 'Merged');
    await applyChanges(space.id, merged.number, owner, [{ operation: 'insert_page', title: 'P', document: { markdown: 'P.\n' } }]);
    expectStatus(await merge(space.id, merged.number, owner), 200);
    const stranger = await seedOrg();
    const theirSite = expectStatus(await api('POST', `/v1/orgs/${stranger.id}/sites`, { token: stranger.owner.token, body: { title: 'Theirs' } }), 201).body;
    const target = { space: space.id };
    const cases: Array<[unknown, number, string]> = [
      [{ source: { type: 'website', url: 'http://127.0.0.1/admin' }, target }, 400, 'source.url'],
      [{ source: { type: 'website', url: 'http://169.254.169.254/latest/meta-data/' }, target }, 400, 'link-local'],
      [{ source: { type: 'website', url: 'ftp://docs.example.com/' }, target }, 400, 'source.url'],
      [{ source: { type: 'website', url: 'not a url' }, target }, 400, 'source.url'],
      [{ source: { type: 'file', files: ['a.docx'] }, target }, 400, 'not supported'],
      [{ source: { type: 'notion' }, target }, 400, 'source'],
      [{ source: { type: 'website', url: `${SITE}/docs/` }, target, enhance: true }, 400, 'enhance'],
      [{ source: { type: 'website', url: `${SITE}/docs/` }, target: { ...target, changeRequest: String(merged.number) } }, 400, 'merged'],
      [{ source: { type: 'website', url: `${SITE}/docs/` }, target: { ...target, changeRequest: '999' } }, 404, 'Change request not found'],
      [{ source: { type: 'website', url: `${SITE}/docs/` }, target, site: theirSite.id }, 400, 'site'],
      [{ source: { type: 'website', url: `${SITE}/docs/` }, target: { space: 'noSuchSpace' } }, 404, 'Space not found'],
      [{ source: { type: 'website', url: `${SITE}/docs/` } }, 400, 'target'],
      [{ source: { type: 'website', url: 'x'.repeat(3000) }, target }, 400, 'source.url'],
    ];
    for (const [body, status, message] of cases) {
      const res = await start(body);
      expectError({ status: res.status, body: res.body, headers: new Headers() }, status, message);
      expect(res.sent).toEqual([]);
    }
    expect(expectStatus(await api('GET', `${imports()}?space=${space.id}`, { token: owner }), 200).body.count).toBe(0);
    expect(requested.filter((url) => url.includes('127.0.0.1') || url.includes('169.254'))).toEqual([]);
  });

  it("records the site the space is published in, or the one named; fails a run whose starter can no longer edit the space", async () => {
    const space = await createSpace(org.id, owner, 'Published');
    const site = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token: owner, body: { title: 'Site', spaces: [space.id] } }), 201).body;
    const resolved = await start({ source: { type: 'website', url: `${SITE}/docs/` }, target: { space: space.id } });
    expect(resolved.body.site).toBe(site.id);
    const other = expectStatus(await api('POST', `/v1/orgs/${org.id}/sites`, { token: owner, body: { title: 'Being set up' } }), 201).body;
    const named = await start({ source: { type: 'website', url: `${SITE}/docs/` }, target: { space: space.id }, site: other.id });
    expect(named.body.site).toBe(other.id);
    // A site's runs: those started for it, and those of its spaces.
    const bySite = async (siteId: string) => expectStatus(await api('GET', `${imports()}?site=${siteId}`, { token: owner }), 200).body.items.map((r: any) => r.id).sort();
    expect(await bySite(other.id)).toEqual([named.body.id]);
    expect(await bySite(site.id)).toEqual([resolved.body.id, named.body.id].sort());

    const editor = org.members.edit;
    const byEditor = await start({ source: { type: 'website', url: `${SITE}/docs/` }, target: { space: space.id } }, editor.token);
    expect(byEditor.status).toBe(201);
    expectStatus(await api('PATCH', `/v1/orgs/${org.id}/members/${editor.id}`, { token: owner, body: { role: 'read' } }), 200);
    await deliver(byEditor.sent);
    const run = await getRun(byEditor.body.id);
    expect(run).toMatchObject({ status: 'failed', reason: 'The user who started the import can no longer edit the space' });
    expectStatus(await api('PATCH', `/v1/orgs/${org.id}/members/${editor.id}`, { token: owner, body: { role: 'edit' } }), 200);
  });
});

describe('cancelImportRun', () => {
  it('cancels a pending run: the consumer then writes nothing; a second cancel is a 400', async () => {
    const space = await createSpace(org.id, owner, 'Cancelled');
    const started = await start({ source: { type: 'website', url: `${SITE}/docs/` }, target: { space: space.id } });
    const cancelled = expectStatus(await api('POST', `${imports()}/${started.body.id}/cancel`, { token: owner }), 200).body;
    expectGitbook('cancelImportRun', cancelled);
    expect(cancelled.status).toBe('cancelled');
    requested = [];
    await deliver(started.sent);
    expect(requested).toEqual([]);
    expect((await getRun(started.body.id)).status).toBe('cancelled');
    expect(await mainTitles(space.id)).toEqual([]);
    expectError(await api('POST', `${imports()}/${started.body.id}/cancel`, { token: owner }), 400, 'cancelled');
  });

  it('cancels a run while it crawls: it stops fetching and writes nothing', async () => {
    const space = await createSpace(org.id, owner, 'Cancelled mid-crawl');
    const started = await start({ source: { type: 'website', url: `${SITE}/slow/` }, target: { space: space.id } });
    requested = [];
    onFetch = async (url) => {
      if (url.pathname !== '/slow/') return;
      const res = await api('POST', `${imports()}/${started.body.id}/cancel`, { token: owner });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ status: 'cancelled', startedAt: expect.any(String) });
    };
    try {
      await deliver(started.sent);
    } finally {
      onFetch = undefined;
    }
    expect(requested).toEqual([`${SITE}/slow/`]);
    expect((await getRun(started.body.id)).status).toBe('cancelled');
    expect(await mainTitles(space.id)).toEqual([]);
  });

  it('refuses a finished run, and one that is writing its content (400)', async () => {
    const space = await createSpace(org.id, owner, 'Too late');
    const done = await start({ source: { type: 'website', url: `${SITE}/docs/setup` }, target: { space: space.id } });
    await deliver(done.sent);
    expectError(await api('POST', `${imports()}/${done.body.id}/cancel`, { token: owner }), 400, 'completed');
    const writing = await start({ source: { type: 'website', url: `${SITE}/docs/setup` }, target: { space: space.id } });
    await setRun(writing.body.id, { status: 'in-progress', step: 'writing' });
    expectError(await api('POST', `${imports()}/${writing.body.id}/cancel`, { token: owner }), 400, 'writing');
    // A delivery finding it so (an earlier one stopped mid-write) ends it failed, saying so.
    await deliver(writing.sent);
    const interrupted = await getRun(writing.body.id);
    expect(interrupted.status).toBe('failed');
    expect(interrupted.reason).toContain('interrupted while writing');
  });
});

describe('runs that never reported back', () => {
  it('read as failed after an hour without news, are filtered so, and are no longer taken up', async () => {
    const space = await createSpace(org.id, owner, 'Stale');
    const started = await start({ source: { type: 'website', url: `${SITE}/docs/` }, target: { space: space.id } });
    await setRun(started.body.id, { updated_at: new Date(Date.now() - 2 * 60 * 60 * 1000).toISOString() });
    const run = await getRun(started.body.id);
    expect(run).toMatchObject({ status: 'failed', reason: expect.stringContaining('did not report back') });
    const list = (status: string) => api('GET', `${imports()}?space=${space.id}&status=${status}`, { token: owner });
    expect(expectStatus(await list('failed'), 200).body.items.map((r: any) => r.id)).toEqual([started.body.id]);
    expect(expectStatus(await list('active'), 200).body.count).toBe(0);
    expect(expectStatus(await list('pending'), 200).body.count).toBe(0);
    expectError(await api('POST', `${imports()}/${started.body.id}/cancel`, { token: owner }), 400, 'failed');
    requested = [];
    await deliver(started.sent);
    expect(requested).toEqual([]);
    expect(await mainTitles(space.id)).toEqual([]);
  });
});

describe('listImportRuns', () => {
  it('lists the runs most recent first, paged, filtered by space, change request and status', async () => {
    const space = await createSpace(org.id, owner, 'Listed');
    const cr = await openChangeRequest(space.id, owner, 'Listed CR');
    const first = await start({ source: { type: 'website', url: `${SITE}/docs/` }, target: { space: space.id } });
    const second = await start({ source: { type: 'website', url: `${SITE}/docs/setup` }, target: { space: space.id, changeRequest: cr.id } });
    await deliver(second.sent);
    const all = expectStatus(await api('GET', `${imports()}?space=${space.id}`, { token: owner }), 200).body;
    expectGitbook('listImportRuns', all);
    expect(all.items.map((r: any) => r.id)).toEqual([second.body.id, first.body.id]);
    expect(all.count).toBe(2);
    const pageOne = expectStatus(await api('GET', `${imports()}?space=${space.id}&limit=1`, { token: owner }), 200).body;
    expect(pageOne.items.map((r: any) => r.id)).toEqual([second.body.id]);
    const pageTwo = expectStatus(await api('GET', `${imports()}?space=${space.id}&limit=1&page=${pageOne.next.page}`, { token: owner }), 200).body;
    expect(pageTwo.items.map((r: any) => r.id)).toEqual([first.body.id]);
    expect(pageTwo.next).toBeUndefined();
    const byCr = expectStatus(await api('GET', `${imports()}?changeRequest=${cr.id}`, { token: owner }), 200).body;
    expect(byCr.items.map((r: any) => r.id)).toEqual([second.body.id]);
    const ids = async (status: string) => expectStatus(await api('GET', `${imports()}?space=${space.id}&status=${status}`, { token: owner }), 200).body.items.map((r: any) => r.id);
    expect(await ids('completed')).toEqual([second.body.id]);
    expect(await ids('active')).toEqual([first.body.id]);
    expect(await ids('pending')).toEqual([first.body.id]);
    expect(await ids('cancelled')).toEqual([]);
  });

  it('bad filters and cursors are 400s naming them', async () => {
    expectError(await api('GET', `${imports()}?status=running`, { token: owner }), 400, 'status');
    expectError(await api('GET', `${imports()}?limit=1001`, { token: owner }), 400, 'limit');
    expectError(await api('GET', `${imports()}?page=nope`, { token: owner }), 400, 'page');
    expectError(await api('GET', `${imports()}?space=${'x'.repeat(200)}`, { token: owner }), 400, 'space');
  });
});

describe('who may do what', () => {
  let spaceId: string;
  let runId: string;
  let hiddenRunId: string;
  beforeAll(async () => {
    spaceId = (await createSpace(org.id, owner, 'Access')).id;
    runId = (await start({ source: { type: 'website', url: `${SITE}/docs/` }, target: { space: spaceId } })).body.id;
    // A space members do not see (no default access): only its admins and those granted see its runs.
    const hidden = await createSpace(org.id, owner, 'Hidden');
    expectStatus(await api('PATCH', `/v1/spaces/${hidden.id}`, { token: owner, body: { defaultLevel: null } }), 200);
    hiddenRunId = (await start({ source: { type: 'website', url: `${SITE}/docs/` }, target: { space: hidden.id } })).body.id;
  });

  it('members who read the target space see its runs; others in the organization get 404 and lists without them', async () => {
    const reader = org.members.read.token;
    expect((await getRun(runId, reader)).id).toBe(runId);
    const readerList = expectStatus(await api('GET', imports(), { token: reader }), 200).body.items.map((r: any) => r.id);
    expect(readerList).toContain(runId);
    expect(readerList).not.toContain(hiddenRunId);
    expectError(await api('GET', `${imports()}/${hiddenRunId}`, { token: reader }), 404, 'Import run not found');
    const guest = org.members.guest.token;
    expectError(await api('GET', `${imports()}/${runId}`, { token: guest }), 404);
    expect(expectStatus(await api('GET', imports(), { token: guest }), 200).body).toEqual({ items: [], count: 0 });
  });

  it('start and cancel need edit on the space: a reader gets 403, a guest 404, and nothing changes', async () => {
    const body = { source: { type: 'website', url: `${SITE}/docs/` }, target: { space: spaceId } };
    const byReader = await start(body, org.members.read.token);
    expectError({ status: byReader.status, body: byReader.body, headers: new Headers() }, 403);
    const byGuest = await start(body, org.members.guest.token);
    expectError({ status: byGuest.status, body: byGuest.body, headers: new Headers() }, 404);
    expectError(await api('POST', `${imports()}/${runId}/cancel`, { token: org.members.read.token }), 403);
    expectError(await api('POST', `${imports()}/${runId}/cancel`, { token: org.members.comment.token }), 403);
    expectError(await api('POST', `${imports()}/${runId}/cancel`, { token: org.members.guest.token }), 404);
    expect((await getRun(runId)).status).toBe('pending');
  });

  it("another organization's admin, outsiders and unknown ids get 404; no token 401; integration tokens 403", async () => {
    const stranger = await seedOrg();
    const them = stranger.owner.token;
    const body = { source: { type: 'website', url: `${SITE}/docs/` }, target: { space: spaceId } };
    // Their own organization's path with our ids, and ours.
    for (const orgId of [stranger.id, org.id]) {
      expectError(await api('GET', `${imports(orgId)}/${runId}`, { token: them }), 404);
      expectError(await api('POST', `${imports(orgId)}/${runId}/cancel`, { token: them }), 404);
      const started = await start(body, them, orgId);
      expectError({ status: started.status, body: started.body, headers: new Headers() }, 404);
    }
    expect(expectStatus(await api('GET', imports(stranger.id), { token: them }), 200).body).toEqual({ items: [], count: 0 });
    expectError(await api('GET', imports(), { token: them }), 404, 'Organization not found');
    expectError(await api('GET', imports(), { token: org.outsider.token }), 404);
    expectError(await api('GET', `${imports()}/noSuchRun`, { token: owner }), 404, 'Import run not found');
    expectError(await api('POST', `${imports()}/noSuchRun/cancel`, { token: owner }), 404);
    expectError(await api('GET', `${imports('noSuchOrg')}/${runId}`, { token: owner }), 404);
    for (const [method, path] of [['GET', imports()], ['GET', `${imports()}/${runId}`], ['POST', `${imports()}/${runId}/cancel`], ['POST', imports()]]) {
      expectError(await api(method, path, { body: method === 'POST' ? body : undefined }), 401);
    }
    const integration = await seedIntegration(org.id, { scopes: ['space:content:read', 'space:content:write'] });
    const installation = await seedInstallation(integration, org.id, { spaces: 'all' });
    for (const token of [await seedToken(integration.id, installation.id), await seedToken(integration.id, null)]) {
      expectError(await api('GET', imports(), { token }), 403);
      expectError(await api('GET', `${imports()}/${runId}`, { token }), 403);
      expectError(await api('POST', imports(), { token, body }), 403);
      expectError(await api('POST', `${imports()}/${runId}/cancel`, { token }), 403);
    }
    expect((await getRun(runId)).status).toBe('pending');
  });

  it('stays within the round-trip budget: reads and lists 2, start and cancel 3', async () => {
    const read = await measureRoundTrips('GET', `${imports()}/${runId}`, owner);
    expect(read.status).toBe(200);
    expect(read.roundTrips).toBeLessThanOrEqual(2);
    const list = await measureRoundTrips('GET', `${imports()}?status=active&site=x&space=${spaceId}`, owner);
    expect(list.status).toBe(200);
    expect(list.roundTrips).toBeLessThanOrEqual(2);
    const started = await measureRoundTrips('POST', imports(), owner, { source: { type: 'website', url: `${SITE}/docs/` }, target: { space: spaceId } });
    expect(started.status).toBe(201);
    expect(started.roundTrips).toBeLessThanOrEqual(3);
    const cancelled = await measureRoundTrips('POST', `${imports()}/${(started.body as { id: string }).id}/cancel`, owner);
    expect(cancelled.status).toBe(200);
    expect(cancelled.roundTrips).toBeLessThanOrEqual(3);
  });
});
