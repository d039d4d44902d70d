/**
 * The Change requests group: create, get, patch, the space and organization lists, and who may do
 * what (list, get, create, patch, update, merge) for every organization role and an outsider.
 * Every change request body is checked against our strict schema and against GitBook's published
 * `ChangeRequest` JSON schema (@gitbook/api's OpenAPI document).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ChangeRequestSchema } from '../../src/schemas/change-request';
import { listOf } from '../../src/schemas/common';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { ALL_ROLES, BASE, api, expectError, seedOrg, type ApiResponse, type RoleName, type TestOrg, CALLERS, callerUser, type Caller } from '../helpers/harness';
import { expectSchema, UNKNOWN_ID } from '../spaces/support';
import { gitbookValidator } from '../helpers/gitbook-schema';

// ---------------------------------------------------------------------------------------------
// Helpers

const StrictChangeRequestSchema = ChangeRequestSchema.strict();
const ChangeRequestListSchema = listOf(StrictChangeRequestSchema, 'ChangeRequests').strict();

const gitbookChangeRequest = gitbookValidator('ChangeRequest');

/** The body is a ChangeRequest for our strict schema and for GitBook's; returns it. */
function expectChangeRequest(body: unknown): any {
  expectSchema(StrictChangeRequestSchema, body);
  const theirs = gitbookChangeRequest.validate(body);
  expect(theirs.valid ? 'valid' : theirs.errors.slice(-5).map((e) => `${e.instanceLocation}: ${e.error}`)).toBe('valid');
  return body;
}

/** The body is a list of ChangeRequests (each valid for GitBook's schema too); returns it. */
function expectChangeRequestList(res: ApiResponse): { items: any[]; count: number; next?: { page: string } } {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expectSchema(ChangeRequestListSchema, res.body);
  for (const item of res.body.items) expectChangeRequest(item);
  return res.body;
}

const crsPath = (spaceId: string) => `/v1/spaces/${spaceId}/change-requests`;
const crPath = (spaceId: string, cr: string | number) => `/v1/spaces/${spaceId}/change-requests/${cr}`;
const orgCrsPath = (orgId: string) => `/v1/orgs/${orgId}/change-requests`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Creates a change request and waits a little, so that consecutive timestamps differ. */
async function openSpaced(spaceId: string, token: string, subject: string): Promise<any> {
  const cr = await openChangeRequest(spaceId, token, subject);
  await sleep(5);
  return cr;
}

async function getCr(spaceId: string, cr: string | number, token: string): Promise<any> {
  const res = await api('GET', crPath(spaceId, cr), { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return expectChangeRequest(res.body);
}

async function patchCr(spaceId: string, cr: string | number, token: string, body: unknown): Promise<ApiResponse> {
  return api('PATCH', crPath(spaceId, cr), { token, body });
}

async function counters(spaceId: string, token: string) {
  const res = await api('GET', `/v1/spaces/${spaceId}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const { changeRequests, changeRequestsOpen, changeRequestsDraft } = res.body;
  return { changeRequests, changeRequestsOpen, changeRequestsDraft };
}

async function spaceRevision(spaceId: string, token: string): Promise<string> {
  const res = await api('GET', `/v1/spaces/${spaceId}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.revision;
}

async function listIds(path: string, token: string): Promise<string[]> {
  return expectChangeRequestList(await api('GET', path, { token })).items.map((cr) => cr.id);
}

/** A valid rich-text document (one paragraph). */
const DOCUMENT = {
  object: 'document',
  data: { schemaVersion: 1 },
  nodes: [
    {
      object: 'block',
      type: 'paragraph',
      key: 'p1',
      isVoid: false,
      data: { align: 'start' },
      nodes: [{ object: 'text', key: 't1', leaves: [{ object: 'leaf', text: 'Why this change', marks: [] }] }],
    },
  ],
};

const insertPage = (title: string) => ({ operation: 'insert_page', title, document: { markdown: `# ${title}\n\nBody.\n` } });

// ---------------------------------------------------------------------------------------------

describe('create a change request', () => {
  it('answers 201 with a Location equal to urls.location and an open ChangeRequest based on the space head', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const head = await spaceRevision(space.id, org.owner.token);
    const res = await api('POST', crsPath(space.id), { token: org.owner.token, body: { subject: 'First edits' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const cr = expectChangeRequest(res.body);
    expect(res.headers.get('Location')).toBe(cr.urls.location);
    expect(cr.urls.location).toBe(`${BASE}/v1/spaces/${space.id}/change-requests/${cr.id}`);
    expect(cr.urls.app).toContain(`/s/${space.id}/~/changes/1`);
    expect(cr).toMatchObject({
      object: 'change-request',
      number: 1,
      status: 'open',
      subject: 'First edits',
      space: space.id,
      revision: head,
      revisionInitial: head,
      comments: 0,
      outdated: false,
      createdBy: { object: 'user', id: org.owner.id, displayName: org.owner.displayName, email: org.owner.email },
    });
    expect(cr).not.toHaveProperty('description');
    expect(cr).not.toHaveProperty('revisionMerged');
    expect(cr).not.toHaveProperty('revisionMergedAncestor');
    expect(cr.createdAt).toBe(cr.updatedAt);
    // Both schemas really check: broken copies fail them.
    expect(gitbookChangeRequest.validate({ ...cr, status: 'closed' }).valid).toBe(false);
    expect(gitbookChangeRequest.validate({ ...cr, createdBy: { id: cr.createdBy.id } }).valid).toBe(false);
    expect(StrictChangeRequestSchema.safeParse({ ...cr, spaceId: cr.space }).success).toBe(false);
    // The Location points at the change request.
    const located = await api('GET', new URL(res.headers.get('Location')!).pathname, { token: org.owner.token });
    expect(located.status).toBe(200);
    expect(located.body).toEqual(cr);
    // Creating a change request does not move the space's head.
    expect(await spaceRevision(space.id, org.owner.token)).toBe(head);
  });

  it('records the caller as createdBy (an edit member) and accepts an empty body (empty subject)', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const editor = org.members.edit;
    const res = await api('POST', crsPath(space.id), { token: editor.token, body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const cr = expectChangeRequest(res.body);
    expect(cr.createdBy).toMatchObject({ id: editor.id, displayName: editor.displayName, email: editor.email });
    expect(cr.subject).toBe('');
    expect(cr.status).toBe('open');
  });

  it('numbers change requests 1, 2, 3 in each space independently', async () => {
    const org = await seedOrg();
    const a = await createSpace(org.id, org.owner.token, 'A');
    const b = await createSpace(org.id, org.owner.token, 'B');
    const numbers: number[] = [];
    for (const subject of ['one', 'two', 'three']) numbers.push((await openChangeRequest(a.id, org.owner.token, subject)).number);
    expect(numbers).toEqual([1, 2, 3]);
    expect((await openChangeRequest(b.id, org.owner.token, 'other')).number).toBe(1);
    expect((await openChangeRequest(a.id, org.owner.token, 'four')).number).toBe(4);
    expect((await getCr(a.id, 3, org.owner.token)).subject).toBe('three');
  });

  it('gives 10 concurrent creates in one space exactly the numbers 1..10', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => api('POST', crsPath(space.id), { token: org.owner.token, body: { subject: `CR ${i}` } })),
    );
    for (const res of results) expect(res.status, JSON.stringify(res.body)).toBe(201);
    const numbers = results.map((res) => res.body.number).sort((x: number, y: number) => x - y);
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(new Set(results.map((res) => res.body.id)).size).toBe(10);
    // Each number resolves to the change request that got it.
    for (const res of results) expect((await getCr(space.id, res.body.number, org.owner.token)).id).toBe(res.body.id);
    expect(await counters(space.id, org.owner.token)).toEqual({ changeRequests: 10, changeRequestsOpen: 10, changeRequestsDraft: 0 });
  });

  it('refuses template and agentTaskId with 400 and creates nothing', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const bodies = [
      { subject: 'From a template', template: { id: 'tpl', params: { contentRefs: {} } } },
      { template: 'anything' },
      { subject: 'Agent', agentTaskId: 'task-1' },
    ];
    for (const body of bodies) {
      const res = await api('POST', crsPath(space.id), { token: org.owner.token, body });
      expectError(res, 400, 'template' in body ? 'template' : 'agentTaskId');
    }
    expect(await counters(space.id, org.owner.token)).toEqual({ changeRequests: 0, changeRequestsOpen: 0, changeRequestsDraft: 0 });
    expect(expectChangeRequestList(await api('GET', crsPath(space.id), { token: org.owner.token })).count).toBe(0);
    // The next change request still gets number 1.
    expect((await openChangeRequest(space.id, org.owner.token)).number).toBe(1);
  });

  it('refuses a subject over 100 characters with 400 naming subject; 100 is accepted', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    expectError(await api('POST', crsPath(space.id), { token: org.owner.token, body: { subject: 'x'.repeat(101) } }), 400, 'subject');
    expectError(await api('POST', crsPath(space.id), { token: org.owner.token, body: { subject: 42 } }), 400, 'subject');
    expect(await counters(space.id, org.owner.token)).toMatchObject({ changeRequests: 0 });
    const ok = await openChangeRequest(space.id, org.owner.token, 'y'.repeat(100));
    expect(ok.subject).toBe('y'.repeat(100));
    expect(ok.number).toBe(1);
  });

  it('keeps the space counters changeRequests, changeRequestsOpen and changeRequestsDraft in step with creates, patches and merges', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const token = org.owner.token;
    expect(await counters(space.id, token)).toEqual({ changeRequests: 0, changeRequestsOpen: 0, changeRequestsDraft: 0 });
    for (const subject of ['a', 'b', 'c', 'd']) await openChangeRequest(space.id, token, subject);
    expect(await counters(space.id, token)).toEqual({ changeRequests: 4, changeRequestsOpen: 4, changeRequestsDraft: 0 });
    expect((await patchCr(space.id, 1, token, { status: 'draft' })).status).toBe(200);
    expect(await counters(space.id, token)).toEqual({ changeRequests: 4, changeRequestsOpen: 3, changeRequestsDraft: 1 });
    expect((await patchCr(space.id, 2, token, { status: 'draft' })).status).toBe(200);
    expect((await patchCr(space.id, 3, token, { status: 'archived' })).status).toBe(200);
    expect(await counters(space.id, token)).toEqual({ changeRequests: 4, changeRequestsOpen: 1, changeRequestsDraft: 2 });
    expect((await patchCr(space.id, 1, token, { status: 'open' })).status).toBe(200);
    expect(await counters(space.id, token)).toEqual({ changeRequests: 4, changeRequestsOpen: 2, changeRequestsDraft: 1 });
    // A subject-only patch changes no counter.
    expect((await patchCr(space.id, 2, token, { subject: 'renamed' })).status).toBe(200);
    expect(await counters(space.id, token)).toEqual({ changeRequests: 4, changeRequestsOpen: 2, changeRequestsDraft: 1 });
    const merged = await merge(space.id, 4, token);
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    expect(await counters(space.id, token)).toEqual({ changeRequests: 4, changeRequestsOpen: 1, changeRequestsDraft: 1 });
    await openChangeRequest(space.id, token, 'e');
    expect(await counters(space.id, token)).toEqual({ changeRequests: 5, changeRequestsOpen: 2, changeRequestsDraft: 1 });
  });
});

describe('get a change request', () => {
  it('finds it by id and by number, with the same body', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    await openChangeRequest(space.id, org.owner.token, 'first');
    const created = await openChangeRequest(space.id, org.owner.token, 'second');
    const byId = await getCr(space.id, created.id, org.owner.token);
    const byNumber = await getCr(space.id, 2, org.owner.token);
    expect(byId).toEqual(created);
    expect(byNumber).toEqual(created);
    expect((await getCr(space.id, 1, org.owner.token)).subject).toBe('first');
    // A reader sees it too.
    expect(await getCr(space.id, created.id, org.members.read.token)).toEqual(created);
  });

  it('answers 404 for an unknown id or number, and for a change request of another space', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token, 'Here');
    const other = await createSpace(org.id, org.owner.token, 'There');
    await openChangeRequest(space.id, org.owner.token);
    const elsewhere = await openChangeRequest(other.id, org.owner.token);
    const elsewhereSecond = await openChangeRequest(other.id, org.owner.token);
    expect(elsewhereSecond.number).toBe(2);
    for (const ref of [UNKNOWN_ID, '2', '999', '0', elsewhere.id, elsewhereSecond.id]) {
      expectError(await api('GET', crPath(space.id, ref), { token: org.owner.token }), 404);
    }
    // Patching through the wrong space finds nothing either, and changes nothing.
    expectError(await patchCr(space.id, elsewhere.id, org.owner.token, { subject: 'hijacked' }), 404);
    expect((await getCr(other.id, elsewhere.id, org.owner.token)).subject).toBe(elsewhere.subject);
  });
});

describe('patch a change request', () => {
  it('changes the subject and moves updatedAt, not createdAt', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const cr = await openSpaced(space.id, org.owner.token, 'Before');
    const res = await patchCr(space.id, cr.id, org.members.edit.token, { subject: 'After' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const patched = expectChangeRequest(res.body);
    expect(patched).toMatchObject({ id: cr.id, number: 1, subject: 'After', status: 'open', createdAt: cr.createdAt, revision: cr.revision });
    // The creator does not change when someone else edits.
    expect(patched.createdBy.id).toBe(org.owner.id);
    expect(patched.updatedAt > cr.updatedAt).toBe(true);
    expect(await getCr(space.id, 1, org.owner.token)).toEqual(patched);
    expectError(await patchCr(space.id, cr.id, org.owner.token, { subject: 'z'.repeat(101) }), 400, 'subject');
    expect((await getCr(space.id, 1, org.owner.token)).subject).toBe('After');
  });

  it('accepts a valid description document and returns it; refuses an invalid one with 400 naming description', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const cr = await openChangeRequest(space.id, org.owner.token);
    const res = await patchCr(space.id, cr.number, org.owner.token, { description: DOCUMENT });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expectChangeRequest(res.body);
    expect(res.body.description).toEqual(DOCUMENT);
    expect((await getCr(space.id, cr.id, org.owner.token)).description).toEqual(DOCUMENT);

    const invalid: unknown[] = [
      'just a string',
      { object: 'document', nodes: [] },
      { object: 'document', data: {}, nodes: [{ object: 'block', type: 'no-such-block', key: 'k', nodes: [] }] },
      { ...DOCUMENT, nodes: [DOCUMENT.nodes[0], DOCUMENT.nodes[0]] },
    ];
    for (const description of invalid) {
      expectError(await patchCr(space.id, cr.id, org.owner.token, { description }), 400, 'description');
    }
    // An invalid description in the same body as a valid subject changes nothing.
    expectError(await patchCr(space.id, cr.id, org.owner.token, { subject: 'new', description: 'bad' }), 400, 'description');
    const after = await getCr(space.id, cr.id, org.owner.token);
    expect(after.description).toEqual(DOCUMENT);
    expect(after.subject).toBe(cr.subject);
  });

  it('moves status between draft, open and archived, and the list filters follow', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const token = org.members.edit.token;
    const cr = await openChangeRequest(space.id, org.owner.token);
    for (const status of ['draft', 'open', 'archived', 'draft', 'archived', 'open'] as const) {
      const res = await patchCr(space.id, cr.id, token, { status });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(expectChangeRequest(res.body).status).toBe(status);
      expect((await getCr(space.id, cr.id, token)).status).toBe(status);
      for (const filter of ['draft', 'open', 'archived'] as const) {
        expect(await listIds(`${crsPath(space.id)}?status=${filter}`, token), `${status} under ${filter}`).toEqual(filter === status ? [cr.id] : []);
      }
      expect(await counters(space.id, token)).toEqual({
        changeRequests: 1,
        changeRequestsOpen: status === 'open' ? 1 : 0,
        changeRequestsDraft: status === 'draft' ? 1 : 0,
      });
    }
  });

  it("refuses status 'merged' (400) and unknown statuses", async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const cr = await openChangeRequest(space.id, org.owner.token);
    expectError(await patchCr(space.id, cr.id, org.owner.token, { status: 'merged' }), 400, 'status');
    expectError(await patchCr(space.id, cr.id, org.owner.token, { status: 'closed' }), 400, 'status');
    const after = await getCr(space.id, cr.id, org.owner.token);
    expect(after.status).toBe('open');
    expect(after).not.toHaveProperty('revisionMerged');
    expect(await counters(space.id, org.owner.token)).toEqual({ changeRequests: 1, changeRequestsOpen: 1, changeRequestsDraft: 0 });
  });

  it("refuses to change a merged change request's status (400); it stays merged", async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const cr = await openChangeRequest(space.id, org.owner.token);
    await applyChanges(space.id, cr.id, org.owner.token, [insertPage('Merged page')]);
    const merged = await merge(space.id, cr.id, org.owner.token);
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    expect(merged.body).toEqual({ revision: expect.any(String), result: 'merge' });
    const before = await getCr(space.id, cr.id, org.owner.token);
    expect(before).toMatchObject({ status: 'merged', revisionMerged: merged.body.revision, outdated: false });
    for (const status of ['open', 'draft', 'archived']) {
      expectError(await patchCr(space.id, cr.id, org.owner.token, { status }), 400, 'status');
    }
    expect(await getCr(space.id, cr.id, org.owner.token)).toEqual(before);
    expect(await counters(space.id, org.owner.token)).toEqual({ changeRequests: 1, changeRequestsOpen: 0, changeRequestsDraft: 0 });
    expect(await listIds(`${crsPath(space.id)}?status=merged`, org.owner.token)).toEqual([cr.id]);
  });

  it('answers 200 with the change request unchanged for an empty body', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const cr = await openSpaced(space.id, org.owner.token, 'Stay');
    const res = await patchCr(space.id, cr.id, org.owner.token, {});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(expectChangeRequest(res.body)).toEqual(cr);
    expect(await getCr(space.id, cr.id, org.owner.token)).toEqual(cr);
  });
});

describe('list the change requests of a space', () => {
  it('lists open ones by default; draft, archived and merged only through the status filter', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const token = org.owner.token;
    const open1 = await openSpaced(space.id, token, 'open 1');
    const draft = await openSpaced(space.id, token, 'draft');
    const archived = await openSpaced(space.id, token, 'archived');
    const open2 = await openSpaced(space.id, token, 'open 2');
    const merged = await openSpaced(space.id, token, 'merged');
    expect((await patchCr(space.id, draft.id, token, { status: 'draft' })).status).toBe(200);
    expect((await patchCr(space.id, archived.id, token, { status: 'archived' })).status).toBe(200);
    expect((await merge(space.id, merged.id, token)).status).toBe(200);

    const byDefault = expectChangeRequestList(await api('GET', crsPath(space.id), { token: org.members.read.token }));
    expect(byDefault.count).toBe(2);
    expect(byDefault.items.map((cr) => cr.id)).toEqual([open2.id, open1.id]);
    expect(byDefault.next).toBeUndefined();
    expect(await listIds(`${crsPath(space.id)}?status=open`, token)).toEqual([open2.id, open1.id]);
    expect(await listIds(`${crsPath(space.id)}?status=draft`, token)).toEqual([draft.id]);
    expect(await listIds(`${crsPath(space.id)}?status=archived`, token)).toEqual([archived.id]);
    expect(await listIds(`${crsPath(space.id)}?status=merged`, token)).toEqual([merged.id]);
    expectError(await api('GET', `${crsPath(space.id)}?status=closed`, { token }), 400, 'status');
  });

  it('filters by creator', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const byOwner = await openSpaced(space.id, org.owner.token, 'owner');
    const byEditor = await openSpaced(space.id, org.members.edit.token, 'editor');
    const byEditor2 = await openSpaced(space.id, org.members.edit.token, 'editor 2');
    const token = org.owner.token;
    expect(await listIds(`${crsPath(space.id)}?creator=${org.owner.id}`, token)).toEqual([byOwner.id]);
    expect(await listIds(`${crsPath(space.id)}?creator=${org.members.edit.id}`, token)).toEqual([byEditor2.id, byEditor.id]);
    expect(await listIds(`${crsPath(space.id)}?creator=${org.members.read.id}`, token)).toEqual([]);
    const counted = expectChangeRequestList(await api('GET', `${crsPath(space.id)}?creator=${org.members.edit.id}`, { token }));
    expect(counted.count).toBe(2);
  });

  it('filters by contributor: a user who posted content to a change request becomes its contributor', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const token = org.owner.token;
    const untouched = await openSpaced(space.id, token, 'untouched');
    const edited = await openSpaced(space.id, token, 'edited');
    const editor = org.members.edit;
    expect(await listIds(`${crsPath(space.id)}?contributor=${editor.id}`, token)).toEqual([]);
    await applyChanges(space.id, edited.number, editor.token, [insertPage('Contributed')]);
    expect(await listIds(`${crsPath(space.id)}?contributor=${editor.id}`, token)).toEqual([edited.id]);
    // A second batch does not list it twice.
    await applyChanges(space.id, edited.number, editor.token, [insertPage('Again')]);
    const list = expectChangeRequestList(await api('GET', `${crsPath(space.id)}?contributor=${editor.id}`, { token }));
    expect(list.items.map((cr) => cr.id)).toEqual([edited.id]);
    expect(list.count).toBe(1);
    expect(await listIds(`${crsPath(space.id)}?contributor=${org.members.review.id}`, token)).toEqual([]);
    // Filters combine.
    expect(await listIds(`${crsPath(space.id)}?contributor=${editor.id}&creator=${editor.id}`, token)).toEqual([]);
    expect(await listIds(`${crsPath(space.id)}?contributor=${editor.id}&creator=${org.owner.id}`, token)).toEqual([edited.id]);
    expect(untouched.id).not.toBe(edited.id);
  });

  it('answers an empty list for requestedReviewer (no review requests in this deployment)', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    await openChangeRequest(space.id, org.owner.token);
    await openChangeRequest(space.id, org.owner.token);
    const res = expectChangeRequestList(await api('GET', `${crsPath(space.id)}?requestedReviewer=${org.members.review.id}`, { token: org.owner.token }));
    expect(res).toEqual({ items: [], count: 0 });
    expect(expectChangeRequestList(await api('GET', crsPath(space.id), { token: org.owner.token })).count).toBe(2);
  });

  it('orders by updatedAt by default and by createdAt on request, newest first', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const token = org.owner.token;
    const a = await openSpaced(space.id, token, 'A');
    const b = await openSpaced(space.id, token, 'B');
    const c = await openSpaced(space.id, token, 'C');
    expect(await listIds(crsPath(space.id), token)).toEqual([c.id, b.id, a.id]);
    expect(await listIds(`${crsPath(space.id)}?orderBy=createdAt`, token)).toEqual([c.id, b.id, a.id]);
    // Patching the oldest makes it the most recently updated.
    expect((await patchCr(space.id, a.id, token, { subject: 'A edited' })).status).toBe(200);
    await sleep(5);
    expect(await listIds(crsPath(space.id), token)).toEqual([a.id, c.id, b.id]);
    expect(await listIds(`${crsPath(space.id)}?orderBy=updatedAt`, token)).toEqual([a.id, c.id, b.id]);
    expect(await listIds(`${crsPath(space.id)}?orderBy=createdAt`, token)).toEqual([c.id, b.id, a.id]);
    // A content batch also counts as an update.
    await applyChanges(space.id, b.id, token, [insertPage('Touch')]);
    expect(await listIds(crsPath(space.id), token)).toEqual([b.id, a.id, c.id]);
    expect(await listIds(`${crsPath(space.id)}?orderBy=createdAt`, token)).toEqual([c.id, b.id, a.id]);
    expectError(await api('GET', `${crsPath(space.id)}?orderBy=subject`, { token }), 400, 'orderBy');
  });

  it('pages with limit=2 across 5 change requests: cursors, count, no duplicates; refuses a bad cursor and limit 1001', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    const token = org.owner.token;
    const created: any[] = [];
    for (let i = 0; i < 5; i++) created.push(await openSpaced(space.id, token, `CR ${i}`));
    const newestFirst = created.map((cr) => cr.id).reverse();
    for (const orderBy of ['', '&orderBy=createdAt']) {
      const seen: string[] = [];
      const sizes: number[] = [];
      let page: string | undefined;
      for (let guard = 0; guard < 10; guard++) {
        const res = expectChangeRequestList(
          await api('GET', `${crsPath(space.id)}?limit=2${orderBy}${page ? `&page=${encodeURIComponent(page)}` : ''}`, { token }),
        );
        expect(res.count).toBe(5);
        sizes.push(res.items.length);
        seen.push(...res.items.map((cr) => cr.id));
        page = res.next?.page;
        if (!page) break;
        expect(typeof page).toBe('string');
      }
      expect(sizes).toEqual([2, 2, 1]);
      expect(new Set(seen).size).toBe(5);
      expect(seen).toEqual(newestFirst);
    }
    // Exactly one full page: no next.
    const all = expectChangeRequestList(await api('GET', `${crsPath(space.id)}?limit=5`, { token }));
    expect(all.items).toHaveLength(5);
    expect(all.next).toBeUndefined();
    expect(expectChangeRequestList(await api('GET', `${crsPath(space.id)}?limit=1000`, { token })).items).toHaveLength(5);
    expectError(await api('GET', `${crsPath(space.id)}?page=not-a-cursor`, { token }), 400, 'page');
    expectError(await api('GET', `${crsPath(space.id)}?page=${btoa('{"a":1}')}`, { token }), 400, 'page');
    expectError(await api('GET', `${crsPath(space.id)}?limit=1001`, { token }), 400, 'limit');
    expectError(await api('GET', `${crsPath(space.id)}?limit=0`, { token }), 400, 'limit');
  });
});

describe('list the change requests of an organization', () => {
  it('includes the change requests of every space the caller can read, with the same filters', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const a = await createSpace(org.id, token, 'A');
    const b = await createSpace(org.id, token, 'B');
    const a1 = await openSpaced(a.id, token, 'a1');
    const b1 = await openSpaced(b.id, token, 'b1');
    const a2 = await openSpaced(a.id, org.members.edit.token, 'a2');
    const b2 = await openSpaced(b.id, token, 'b2');
    // Another organization's change requests never appear.
    const foreignOrg = await api('POST', '/v1/orgs', { token: org.outsider.token, body: { title: 'Foreign' } });
    expect(foreignOrg.status).toBe(201);
    const foreign = await createSpace(foreignOrg.body.id, org.outsider.token);
    await openChangeRequest(foreign.id, org.outsider.token);

    const list = expectChangeRequestList(await api('GET', orgCrsPath(org.id), { token: org.members.read.token }));
    expect(list.items.map((cr) => cr.id)).toEqual([b2.id, a2.id, b1.id, a1.id]);
    expect(list.count).toBe(4);
    expect(new Set(list.items.map((cr) => cr.space))).toEqual(new Set([a.id, b.id]));
    expect(await listIds(`${orgCrsPath(org.id)}?creator=${org.members.edit.id}`, token)).toEqual([a2.id]);
    expect((await patchCr(b.id, b1.id, token, { status: 'draft' })).status).toBe(200);
    expect(await listIds(orgCrsPath(org.id), token)).toEqual([b2.id, a2.id, a1.id]);
    expect(await listIds(`${orgCrsPath(org.id)}?status=draft`, token)).toEqual([b1.id]);
    expect(await listIds(`${orgCrsPath(org.id)}?orderBy=createdAt`, token)).toEqual([b2.id, a2.id, a1.id]);
    expect((await api('GET', `${orgCrsPath(org.id)}?requestedReviewer=${org.owner.id}`, { token })).body).toEqual({ items: [], count: 0 });
    // Pagination across spaces.
    const first = expectChangeRequestList(await api('GET', `${orgCrsPath(org.id)}?limit=2`, { token }));
    expect(first.count).toBe(3);
    expect(first.next?.page).toEqual(expect.any(String));
    const second = expectChangeRequestList(await api('GET', `${orgCrsPath(org.id)}?limit=2&page=${encodeURIComponent(first.next!.page)}`, { token }));
    expect([...first.items, ...second.items].map((cr) => cr.id)).toEqual([b2.id, a2.id, a1.id]);
    expect(second.next).toBeUndefined();
    expectError(await api('GET', `${orgCrsPath(org.id)}?limit=1001`, { token }), 400, 'limit');
    expectError(await api('GET', `${orgCrsPath(org.id)}?page=nope`, { token }), 400, 'page');
  });

  it('excludes spaces the caller cannot read (defaultLevel null) and deleted spaces', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const visible = await createSpace(org.id, token, 'Visible');
    const hidden = await createSpace(org.id, token, 'Hidden');
    const doomed = await createSpace(org.id, token, 'Doomed');
    const seen = await openSpaced(visible.id, token, 'seen');
    const secret = await openSpaced(hidden.id, token, 'secret');
    const gone = await openSpaced(doomed.id, token, 'gone');
    const reader = org.members.read.token;
    expect(await listIds(orgCrsPath(org.id), reader)).toEqual([gone.id, secret.id, seen.id]);

    const restricted = await api('PATCH', `/v1/spaces/${hidden.id}`, { token, body: { defaultLevel: null } });
    expect(restricted.status, JSON.stringify(restricted.body)).toBe(200);
    expect(restricted.body.defaultLevel).toBeNull();
    expect(await listIds(orgCrsPath(org.id), reader)).toEqual([gone.id, seen.id]);
    expect(expectChangeRequestList(await api('GET', orgCrsPath(org.id), { token: reader })).count).toBe(2);
    // The owner still reads the restricted space; the reader cannot reach it directly either.
    expect(await listIds(orgCrsPath(org.id), token)).toEqual([gone.id, secret.id, seen.id]);
    expectError(await api('GET', crsPath(hidden.id), { token: reader }), 404);
    expectError(await api('GET', crPath(hidden.id, secret.id), { token: reader }), 404);

    expect((await api('DELETE', `/v1/spaces/${doomed.id}`, { token })).status).toBe(204);
    expect(await listIds(orgCrsPath(org.id), token)).toEqual([secret.id, seen.id]);
    expect(await listIds(orgCrsPath(org.id), reader)).toEqual([seen.id]);
    expect(expectChangeRequestList(await api('GET', orgCrsPath(org.id), { token })).count).toBe(2);
  });

  it('answers 404 to a non-member and 401 without a token', async () => {
    const org = await seedOrg();
    const space = await createSpace(org.id, org.owner.token);
    await openChangeRequest(space.id, org.owner.token);
    expectError(await api('GET', orgCrsPath(org.id), { token: org.outsider.token }), 404);
    expectError(await api('GET', orgCrsPath(UNKNOWN_ID), { token: org.owner.token }), 404);
    expectError(await api('GET', orgCrsPath(org.id)), 401);
  });
});

// ---------------------------------------------------------------------------------------------
// Who may do what


const S = (admin: number, create: number, review: number, edit: number, comment: number, read: number, guest: number, outsider: number) =>
  ({ admin, create, review, edit, comment, read, guest, outsider }) as Record<Caller, number>;

describe('authorization by organization role on a space with defaultLevel inherit', () => {
  let org: TestOrg;
  let space: string;
  /** A change request that the read-only operations look at. */
  let shared: any;
  const tokenFor = (caller: Caller) => callerUser(org, caller).token;

  beforeAll(async () => {
    org = await seedOrg();
    space = (await createSpace(org.id, org.owner.token)).id;
    shared = await openChangeRequest(space, org.owner.token, 'Shared');
  });

  const LIST = S(200, 200, 200, 200, 200, 200, 404, 404);
  it.each(CALLERS.map((caller) => [caller, LIST[caller]] as const))('listChangeRequestsForSpace as %s -> %i', async (caller, expected) => {
    const res = await api('GET', crsPath(space), { token: tokenFor(caller) });
    if (expected === 200) expect(expectChangeRequestList(res).items.map((cr) => cr.id)).toContain(shared.id);
    else expectError(res, expected);
  });

  const ORG_LIST = S(200, 200, 200, 200, 200, 200, 200, 404);
  it.each(CALLERS.map((caller) => [caller, ORG_LIST[caller]] as const))('listChangeRequestsForOrganization as %s -> %i', async (caller, expected) => {
    const res = await api('GET', orgCrsPath(org.id), { token: tokenFor(caller) });
    if (expected !== 200) return void expectError(res, expected);
    const ids = expectChangeRequestList(res).items.map((cr) => cr.id);
    // A guest is a member but reads no space of an 'inherit' organization.
    if (caller === 'guest') expect(ids).toEqual([]);
    else expect(ids).toContain(shared.id);
  });

  const GET = S(200, 200, 200, 200, 200, 200, 404, 404);
  it.each(CALLERS.map((caller) => [caller, GET[caller]] as const))('getChangeRequestById as %s -> %i', async (caller, expected) => {
    for (const ref of [shared.id, shared.number]) {
      const res = await api('GET', crPath(space, ref), { token: tokenFor(caller) });
      if (expected === 200) {
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(expectChangeRequest(res.body).id).toBe(shared.id);
      } else expectError(res, expected);
    }
  });

  const CREATE = S(201, 201, 201, 201, 403, 403, 404, 404);
  it.each(CALLERS.map((caller) => [caller, CREATE[caller]] as const))('createChangeRequest as %s -> %i', async (caller, expected) => {
    const before = await counters(space, org.owner.token);
    const res = await api('POST', crsPath(space), { token: tokenFor(caller), body: { subject: `by ${caller}` } });
    if (expected === 201) {
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const cr = expectChangeRequest(res.body);
      expect(cr.createdBy.id).toBe(callerUser(org, caller).id);
      expect(cr.number).toBe(before.changeRequests + 1);
      expect(await counters(space, org.owner.token)).toMatchObject({ changeRequests: before.changeRequests + 1 });
    } else {
      expectError(res, expected);
      expect(await counters(space, org.owner.token)).toEqual(before);
    }
  });

  const PATCH = S(200, 200, 200, 200, 403, 403, 404, 404);
  it.each(CALLERS.map((caller) => [caller, PATCH[caller]] as const))('updateChangeRequestById as %s -> %i', async (caller, expected) => {
    const cr = await openChangeRequest(space, org.owner.token, 'To patch');
    const res = await patchCr(space, cr.id, tokenFor(caller), { subject: `patched by ${caller}`, status: 'draft' });
    const after = await getCr(space, cr.id, org.owner.token);
    if (expected === 200) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(expectChangeRequest(res.body)).toMatchObject({ subject: `patched by ${caller}`, status: 'draft' });
      expect(after).toMatchObject({ subject: `patched by ${caller}`, status: 'draft' });
    } else {
      expectError(res, expected);
      expect(after).toEqual(cr);
    }
  });

  const UPDATE = S(200, 200, 200, 200, 403, 403, 404, 404);
  it.each(CALLERS.map((caller) => [caller, UPDATE[caller]] as const))('updateChangeRequest (pull main) as %s -> %i', async (caller, expected) => {
    const cr = await openChangeRequest(space, org.owner.token, 'To update');
    // Move main past the change request's base.
    const mover = await openChangeRequest(space, org.owner.token, 'Mover');
    await applyChanges(space, mover.id, org.owner.token, [insertPage(`Main page for ${caller}`)]);
    const moved = await merge(space, mover.id, org.owner.token);
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const before = await getCr(space, cr.id, org.owner.token);
    expect(before.outdated).toBe(true);
    const res = await api('POST', `${crPath(space, cr.id)}/update`, { token: tokenFor(caller) });
    const after = await getCr(space, cr.id, org.owner.token);
    if (expected === 200) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ revision: after.revision, result: 'update' });
      expect(after).toMatchObject({ outdated: false, revisionMergedAncestor: moved.body.revision });
    } else {
      expectError(res, expected);
      expect(after).toEqual(before);
    }
  });

  const MERGE = S(200, 200, 200, 403, 403, 403, 404, 404);
  it.each(CALLERS.map((caller) => [caller, MERGE[caller]] as const))('mergeChangeRequest as %s -> %i', async (caller, expected) => {
    // A fresh change request per case, with content, on an up-to-date base.
    const cr = await openChangeRequest(space, org.owner.token, `Merge by ${caller}`);
    await applyChanges(space, cr.id, org.owner.token, [insertPage(`Merged by ${caller}`)]);
    const before = await getCr(space, cr.id, org.owner.token);
    const headBefore = await spaceRevision(space, org.owner.token);
    const res = await merge(space, cr.id, tokenFor(caller));
    const after = await getCr(space, cr.id, org.owner.token);
    if (expected === 200) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ revision: expect.any(String), result: 'merge' });
      expect(after).toMatchObject({ status: 'merged', revisionMerged: res.body.revision });
      expect(await spaceRevision(space, org.owner.token)).toBe(res.body.revision);
    } else {
      expectError(res, expected);
      expect(after).toEqual(before);
      expect(await spaceRevision(space, org.owner.token)).toBe(headBefore);
    }
  });

  it('answers 401 to every operation without a token', async () => {
    const calls: Array<[string, string, unknown?]> = [
      ['GET', crsPath(space)],
      ['POST', crsPath(space), { subject: 'anonymous' }],
      ['GET', crPath(space, shared.id)],
      ['PATCH', crPath(space, shared.id), { subject: 'anonymous' }],
      ['POST', `${crPath(space, shared.id)}/merge`],
      ['POST', `${crPath(space, shared.id)}/update`],
      ['GET', orgCrsPath(org.id)],
    ];
    const before = await getCr(space, shared.id, org.owner.token);
    for (const [method, path, body] of calls) {
      expectError(await api(method, path, { body }), 401);
      expectError(await api(method, path, { body, token: 'not-a-real-token' }), 401);
    }
    expect(await getCr(space, shared.id, org.owner.token)).toEqual(before);
  });
});

describe("another organization's space", () => {
  it('answers 404 to every operation and changes nothing', async () => {
    const mine = await seedOrg();
    const theirs = await seedOrg();
    const space = await createSpace(theirs.id, theirs.owner.token);
    const cr = await openChangeRequest(space.id, theirs.owner.token, 'Theirs');
    await applyChanges(space.id, cr.id, theirs.owner.token, [insertPage('Theirs')]);
    const before = await getCr(space.id, cr.id, theirs.owner.token);
    const head = await spaceRevision(space.id, theirs.owner.token);
    const counted = await counters(space.id, theirs.owner.token);
    const token = mine.owner.token;
    const calls: Array<[string, string, unknown?]> = [
      ['GET', crsPath(space.id)],
      ['POST', crsPath(space.id), { subject: 'intruder' }],
      ['GET', crPath(space.id, cr.id)],
      ['GET', crPath(space.id, cr.number)],
      ['PATCH', crPath(space.id, cr.id), { subject: 'intruder', status: 'archived' }],
      ['PATCH', crPath(space.id, cr.number), {}],
      ['POST', `${crPath(space.id, cr.id)}/merge`],
      ['POST', `${crPath(space.id, cr.id)}/update`],
      ['GET', orgCrsPath(theirs.id)],
    ];
    for (const [method, path, body] of calls) {
      const res = await api(method, path, { token, body });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(404);
      expectError(res, 404);
    }
    // Their change request under my space is not found either.
    const mySpace = await createSpace(mine.id, token);
    expectError(await api('GET', crPath(mySpace.id, cr.id), { token }), 404);
    expect(await getCr(space.id, cr.id, theirs.owner.token)).toEqual(before);
    expect(await spaceRevision(space.id, theirs.owner.token)).toBe(head);
    expect(await counters(space.id, theirs.owner.token)).toEqual(counted);
    expect(await listIds(orgCrsPath(mine.id), token)).toEqual([]);
  });
});
