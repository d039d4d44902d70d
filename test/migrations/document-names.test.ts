import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { sha256Base64Url, sha256Hex } from '../../src/lib/ids';
import { documentText } from '../../src/services/content/packed-documents';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';

/**
 * Documents named by 128 bits of their SHA-256 in base64url (issue 42, storage), where the code before named them by
 * the whole of it in hex. Nothing is renamed: a database made before keeps its hex names beside the new ones, and
 * every read takes a name as the content address it is.
 */
describe('document names: 22 characters of base64url, hex names written before still read', () => {
  it("names a new page's document by the first 128 bits of its canonical JSON's hash, and reads one named in hex", async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token, 'Names');
    const cr = await openChangeRequest(space.id, token, 'A page');
    const markdown = 'The **margay** climbs down trees head first.\n';
    const applied = await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', title: 'Margays', document: { markdown } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    const pageId = applied.changes[0].page.id as string;
    const page = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${pageId}`, { token }), 200).body;
    const name = page.documentId as string;
    expect(name).toMatch(/^[A-Za-z0-9_-]{22}$/);

    const row = (await env.DB.prepare('select body, refs from documents where hash = ?').bind(name).first<{ body: ArrayBuffer; refs: string | null }>())!;
    const json = documentText(row.body);
    expect((await sha256Base64Url(json)).slice(0, 22)).toBe(name);

    // The same document as the code before stored it: named by its hex hash, referred to by the space.
    const hex = await sha256Hex(json);
    await env.DB.batch([
      env.DB.prepare("insert into documents (hash, body, refs, created_at) values (?, ?, ?, '2026-01-01T00:00:00.000Z')").bind(hex, row.body, row.refs),
      env.DB.prepare('insert into space_documents (space_id, hash) values (?, ?)').bind(space.id, hex),
    ]);
    const byName = expectStatus(await api('GET', `/v1/spaces/${space.id}/documents/${name}`, { token }), 200).body;
    const byHex = expectStatus(await api('GET', `/v1/spaces/${space.id}/documents/${hex}`, { token }), 200).body;
    expect(byHex).toEqual(byName);
    expect(await pageMarkdown(space.id, pageId, token)).toContain('margay');
  });
});
