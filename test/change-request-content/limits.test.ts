import { describe, expect, it } from 'vitest';
import { api, expectError, seedOrg } from '../helpers/harness';
import { PNG_1x1, applyChanges, createSpace, merge, openChangeRequest, postChanges } from '../helpers/content';
import { fetchWorker } from '../helpers/worker';

/** Limits and hardening of content batches and downloads: bad input is a 400, never a 500 or a stored hazard. */
describe('content limits', () => {
  async function setup() {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const cr = await openChangeRequest(space.id, token);
    return { org, token, space, cr };
  }

  it('serves raster images inline and everything else as an attachment, never runnable', async () => {
    const { token, space, cr } = await setup();
    const html = btoa('<script>alert(1)</script>');
    const result = await applyChanges(space.id, cr.id, token, [
      {
        operation: 'insert_files',
        files: [
          { name: 'page.html', contentType: 'text/html', base64: html },
          { name: 'dot.png', contentType: 'image/png', base64: PNG_1x1 },
        ],
      },
    ]);
    const [htmlFile, pngFile] = result.insertedFiles;
    const htmlRes = await fetchWorker(htmlFile.downloadURL);
    expect(htmlRes.status).toBe(200);
    expect(htmlRes.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(htmlRes.headers.get('content-security-policy')).toContain('sandbox');
    const pngRes = await fetchWorker(pngFile.downloadURL);
    expect(pngRes.headers.get('content-disposition')).toMatch(/^inline;/);
    expect(pngRes.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('refuses file names and content types that cannot be a URL part or a header', async () => {
    const { token, space, cr } = await setup();
    const file = (name: string, contentType: string) => [{ operation: 'insert_files', files: [{ name, contentType, base64: PNG_1x1 }] }];
    expectError(await postChanges(space.id, cr.id, token, file('a\ud800.png', 'image/png')), 400, 'name');
    expectError(await postChanges(space.id, cr.id, token, file('dir/a.png', 'image/png')), 400, 'name');
    expectError(await postChanges(space.id, cr.id, token, file('a.png', 'image/png\r\nX-Evil: 1')), 400, 'contentType');
    const files = await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.id}/content/files`, { token });
    expect(files.body.count).toBe(0);
  });

  it('refuses documents and Markdown nested too deeply, and Markdown too large, with a 400', async () => {
    const { token, space, cr } = await setup();
    let deep: any = { object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'x', marks: [] }] }] };
    for (let i = 0; i < 1000; i++) deep = { object: 'block', type: 'blockquote', nodes: [deep] };
    const document = { object: 'document', data: {}, nodes: [deep] };
    expectError(await postChanges(space.id, cr.id, token, [{ operation: 'insert_page', title: 'Deep', document: { document } }]), 400, 'nested');
    const deepQuote = '> '.repeat(1400) + 'x';
    expectError(await postChanges(space.id, cr.id, token, [{ operation: 'insert_page', title: 'Q', document: { markdown: deepQuote } }]), 400, 'nested');
    const deepList = Array.from({ length: 300 }, (_, i) => `${'  '.repeat(i)}- item`).join('\n');
    expectError(await postChanges(space.id, cr.id, token, [{ operation: 'insert_page', title: 'L', document: { markdown: deepList } }]), 400, 'nested');
    const huge = 'word '.repeat(110_000);
    expectError(await postChanges(space.id, cr.id, token, [{ operation: 'insert_page', title: 'H', document: { markdown: huge } }]), 400, 'markdown');
    expectError(await api('PATCH', `/v1/spaces/${space.id}/change-requests/${cr.id}`, { token, body: { description: document } }), 400, 'description');
    // Reasonable nesting still works.
    const nested = Array.from({ length: 6 }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n');
    await applyChanges(space.id, cr.id, token, [{ operation: 'insert_page', title: 'Nested', document: { markdown: nested } }]);
  });

  it('caps the files of one batch', async () => {
    const { token, space, cr } = await setup();
    const files = Array.from({ length: 20 }, (_, i) => ({ name: `f${i}.png`, contentType: 'image/png', base64: PNG_1x1 }));
    const res = await postChanges(space.id, cr.id, token, [
      { operation: 'insert_files', files },
      { operation: 'insert_files', files },
      { operation: 'insert_files', files: files.slice(0, 1) },
    ]);
    expectError(res, 400, '41 files');
  });

  it('keeps editing the subject of a merged change request, but not its status', async () => {
    const { token, space, cr } = await setup();
    await applyChanges(space.id, cr.id, token, [{ operation: 'insert_page', title: 'P', document: {} }]);
    expect((await merge(space.id, cr.id, token)).status).toBe(200);
    const renamed = await api('PATCH', `/v1/spaces/${space.id}/change-requests/${cr.id}`, { token, body: { subject: 'Shipped' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ subject: 'Shipped', status: 'merged' });
  });
});
