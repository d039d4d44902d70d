/**
 * An organization's agent instructions: GET (members with a role) and PUT (admins), answered as
 * GitBook's `OrganizationAgentInstructions` (checked against @gitbook/api 0.202.0's schema). The
 * instructions are a rich-text document, or Markdown converted the way page content is.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_DOCUMENT_DEPTH, MAX_PAGE_MARKDOWN_CHARS } from '../../src/services/content/batch';
import { GITBOOK_0202, gitbookErrors, gitbookOperations, gitbookValidator, schemaValidator } from '../helpers/gitbook-schema';
import { addMember, api, CALLERS, createUser, callerUser, expectError, expectStatus, seedOrg, type Caller, type TestOrg } from '../helpers/harness';
import { measureRoundTrips } from '../helpers/round-trips';

const gitbookInstructions = gitbookValidator('OrganizationAgentInstructions', GITBOOK_0202.components);
const path = (orgId: string) => `/v1/orgs/${orgId}/agent-instructions`;
const get = (orgId: string, token: string | null) => api('GET', path(orgId), { token });
const put = (orgId: string, token: string | null, body: unknown) => api('PUT', path(orgId), { token, body });

const paragraph = (text: string) => ({ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }] });
const DOCUMENT = { object: 'document', data: {}, nodes: [paragraph('Answer in English. Link to the API reference when a question is about endpoints.')] };
const EMPTY = { object: 'document', data: {}, nodes: [] };

/** The body is GitBook's OrganizationAgentInstructions and has exactly its fields; returns it. */
function expectInstructions(body: any, orgId: string): any {
  expect(gitbookErrors(gitbookInstructions, body), JSON.stringify(body)).toBe('valid');
  expect(Object.keys(body).sort()).toEqual(['instructions', 'object', 'updatedAt', 'updatedBy', 'urls']);
  expect(body.object).toBe('agent-instructions');
  expect(body.urls).toEqual({ location: `http://api.test/v1/orgs/${orgId}/agent-instructions` });
  expect(new Date(body.updatedAt).toISOString()).toBe(body.updatedAt);
  return body;
}

let org: TestOrg;
let owner: string;

beforeAll(async () => {
  org = await seedOrg();
  owner = org.owner.token;
});

describe('getOrganizationAgentInstructions', () => {
  it('answers an empty document before any were written: updatedAt the organization’s creation, updatedBy empty', async () => {
    const fresh = await seedOrg();
    const created = expectStatus(await api('GET', `/v1/orgs/${fresh.id}`, { token: fresh.owner.token }), 200).body;
    const res = expectStatus(await get(fresh.id, fresh.members.read.token), 200);
    const body = expectInstructions(res.body, fresh.id);
    expect(body.instructions).toEqual(EMPTY);
    expect(body.updatedBy).toBe('');
    expect(body.updatedAt).toBe(created.createdAt);
  });

  it('members with a role read them; guests 403; outsiders 404', async () => {
    expectStatus(await put(org.id, owner, { instructions: DOCUMENT }), 200);
    const expected: Record<Caller, number> = { admin: 200, create: 200, review: 200, edit: 200, comment: 200, read: 200, guest: 403, outsider: 404 };
    for (const caller of CALLERS) {
      const res = await get(org.id, callerUser(org, caller).token);
      if (expected[caller] !== 200) {
        expectError(res, expected[caller]);
        continue;
      }
      expect(res.status, caller).toBe(200);
      expect(expectInstructions(res.body, org.id).instructions).toEqual(DOCUMENT);
    }
  });

  it("answers 404 for another organization's id and an unknown one, 401 without a token", async () => {
    const other = await seedOrg();
    expectError(await get(other.id, owner), 404);
    expectError(await get('zzzzzzzzzzzzzzzzzzzz', owner), 404);
    expectError(await get(org.id, null), 401);
    expectError(await get(org.id, 'not-a-token'), 401);
  });

  it('reads in at most 2 D1 round trips', async () => {
    const r = await measureRoundTrips('GET', path(org.id), owner);
    expect(r.status).toBe(200);
    expect(r.roundTrips).toBeLessThanOrEqual(2);
  });
});

describe('updateOrganizationAgentInstructions', () => {
  it('stores a rich-text document and answers it (200), with who and when', async () => {
    const target = await seedOrg();
    const before = new Date().toISOString();
    const res = expectStatus(await put(target.id, target.owner.token, { instructions: DOCUMENT }), 200);
    const body = expectInstructions(res.body, target.id);
    expect(body.instructions).toEqual(DOCUMENT);
    expect(body.updatedBy).toBe(target.owner.id);
    expect(body.updatedAt >= before).toBe(true);
    expect(expectStatus(await get(target.id, target.members.read.token), 200).body).toEqual(body);
  });

  it('accepts Markdown, converted whole (a leading heading stays), and reads back as a document', async () => {
    const target = await seedOrg();
    const markdown = '# Tone\n\nBe **concise**.\n\n- Prefer examples\n- Cite the [API reference](https://example.com/api)\n';
    const body = expectInstructions(expectStatus(await put(target.id, target.owner.token, { instructions: markdown }), 200).body, target.id);
    expect(body.instructions.object).toBe('document');
    expect(body.instructions.nodes.map((n: any) => n.type)).toEqual(['heading-1', 'paragraph', 'list-unordered']);
    expect(JSON.stringify(body.instructions)).toContain('"url":"https://example.com/api"');
    expect(expectStatus(await get(target.id, target.owner.token), 200).body.instructions).toEqual(body.instructions);
  });

  it('replaces what was there; an empty document clears them; the last writer is recorded', async () => {
    const target = await seedOrg();
    const admin2 = await createUser();
    await addMember(target.id, admin2.id, 'admin');
    expectStatus(await put(target.id, target.owner.token, { instructions: DOCUMENT }), 200);
    const second = { object: 'document', data: {}, nodes: [paragraph('Second version.')] };
    const replaced = expectStatus(await put(target.id, admin2.token, { instructions: second }), 200).body;
    expect(replaced.instructions).toEqual(second);
    expect(replaced.updatedBy).toBe(admin2.id);
    expect(expectStatus(await get(target.id, target.members.comment.token), 200).body).toEqual(replaced);
    const cleared = expectInstructions(expectStatus(await put(target.id, target.owner.token, { instructions: EMPTY }), 200).body, target.id);
    expect(cleared.instructions).toEqual(EMPTY);
    expect(cleared.updatedBy).toBe(target.owner.id);
    // Another organization's instructions are its own.
    expect(expectStatus(await get(org.id, owner), 200).body.instructions).not.toEqual(second);
  });

  it('only admins write (403 for every other role and guests, 404 for outsiders), changing nothing', async () => {
    const target = await seedOrg();
    expectStatus(await put(target.id, target.owner.token, { instructions: DOCUMENT }), 200);
    const attempt = { object: 'document', data: {}, nodes: [paragraph('Not allowed.')] };
    const expected: Record<Caller, number> = { admin: 200, create: 403, review: 403, edit: 403, comment: 403, read: 403, guest: 403, outsider: 404 };
    for (const caller of CALLERS.filter((c) => c !== 'admin')) {
      expectError(await put(target.id, callerUser(target, caller).token, { instructions: attempt }), expected[caller]);
    }
    expect(expectStatus(await get(target.id, target.owner.token), 200).body.instructions).toEqual(DOCUMENT);
  });

  it("answers 404 for another organization's id, 401 without a token", async () => {
    const other = await seedOrg();
    expectError(await put(other.id, owner, { instructions: DOCUMENT }), 404);
    expectError(await put('zzzzzzzzzzzzzzzzzzzz', owner, { instructions: DOCUMENT }), 404);
    expectError(await put(org.id, null, { instructions: DOCUMENT }), 401);
    expect(expectStatus(await get(other.id, other.owner.token), 200).body.instructions).toEqual(EMPTY);
  });

  it('refuses bad input with 400 naming instructions, and keeps what was stored', async () => {
    const target = await seedOrg();
    const t = target.owner.token;
    expectStatus(await put(target.id, t, { instructions: DOCUMENT }), 200);
    let deep: unknown = 'x';
    for (let i = 0; i < MAX_DOCUMENT_DEPTH + 5; i++) deep = { nested: deep };
    const cases: unknown[] = [
      {},
      { instructions: null },
      { instructions: 42 },
      { instructions: true },
      { instructions: [] },
      { instructions: [DOCUMENT] },
      { instructions: { object: 'nope' } },
      { instructions: { object: 'document', data: {}, nodes: [{ object: 'block', type: 'no-such-block', nodes: [] }] } },
      { instructions: { object: 'document', data: {}, nodes: 'x' } },
      { instructions: { object: 'document', data: {}, nodes: [deep] } },
      { instructions: 'x'.repeat(MAX_PAGE_MARKDOWN_CHARS + 1) },
      { instructions: `${'>'.repeat(300)} deep\n` },
      { markdown: '# Not the field' },
    ];
    for (const body of cases) expectError(await put(target.id, t, body), 400, 'instructions');
    expectError(await api('PUT', path(target.id), { token: t, rawBody: '{"instructions":' }), 400);
    expectError(await api('PUT', path(target.id), { token: t }), 400);
    // Over the request body limit (1 MiB).
    expectError(await put(target.id, t, { instructions: 'x'.repeat(1024 * 1024 + 10) }), 413);
    expect(expectStatus(await get(target.id, t), 200).body.instructions).toEqual(DOCUMENT);
  });

  it('accepts Markdown up to the page limit', async () => {
    const target = await seedOrg();
    const long = `${'word '.repeat(Math.floor(MAX_PAGE_MARKDOWN_CHARS / 5) - 1)}\n`;
    expect(long.length).toBeLessThanOrEqual(MAX_PAGE_MARKDOWN_CHARS);
    const body = expectStatus(await put(target.id, target.owner.token, { instructions: long }), 200).body;
    expect(body.instructions.nodes).toHaveLength(1);
  });

  it('writes in at most 3 D1 round trips', async () => {
    const r = await measureRoundTrips('PUT', path(org.id), owner, { instructions: DOCUMENT });
    expect(r.status).toBe(200);
    expect(r.roundTrips).toBeLessThanOrEqual(3);
  });
});

describe("GitBook's 0.202.0 operations", () => {
  const operations = gitbookOperations();

  it.each([
    ['getOrganizationAgentInstructions', 'get', () => get(org.id, owner)],
    ['updateOrganizationAgentInstructions', 'put', () => put(org.id, owner, { instructions: DOCUMENT })],
    ['updateOrganizationAgentInstructions', 'put', () => put(org.id, owner, { instructions: 'Answer in **English**.\n' })],
  ] as const)('%s answers with its documented status and response schema', async (operationId, method, request) => {
    const operation = operations.get(operationId)!;
    expect(operation).toMatchObject({ method, path: '/orgs/{organizationId}/agent-instructions' });
    const res = await request();
    expect(Object.keys(operation.responses)).toContain(String(res.status));
    expect(gitbookErrors(schemaValidator(operation.responses[String(res.status)]!, GITBOOK_0202.components), res.body), JSON.stringify(res.body)).toBe('valid');
  });
});
