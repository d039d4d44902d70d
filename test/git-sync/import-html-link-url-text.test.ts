import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * An HTML link whose text is its URL (`<a href="https://…" target="_blank">https://…</a>`, in a list of a quote): GFM
 * links the URL text itself, and the reader made a link inside the link, which no document may hold. Every edit of
 * the imported page was then refused (400 on its own document, read and sent back as GitBook's editor sends it).
 * The inner link is read as its text: the page takes edits, and its untouched line stays as written.
 */

const LINE = '> * See <a href="https://example.com/guide" target="_blank">https://example.com/guide</a>.';

describe('Git Sync import: an HTML link whose text is a URL', () => {
  it('imports a document the API takes back, and an edit elsewhere keeps the line', async () => {
    const name = `html-link-url-${crypto.randomUUID().slice(0, 8)}`;
    const { token, space, head, byPath } = await importedSpace(name, {
      'README.md': `# Home\n\nFirst paragraph here.\n\n${LINE}\n> * Other item.\n`,
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n',
    });
    const page = byPath('README.md');
    const cr = await openChangeRequest(space.id, token, 'Edit');
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${page.id}`, { token }), 200).body;
    const asRead = await api('POST', `/v1/spaces/${space.id}/change-requests/${cr.number}/content`, { token, body: { changes: [{ operation: 'update_page', page: page.id, document: { document: read.document } }] } });
    expect(asRead.status, JSON.stringify(asRead.body)).toBe(200);

    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, page.id, 'First paragraph here.', 'First paragraph edited.')]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: 'GITBOOK-1: Edit' });
    expect(await gitOutput(name, 'diff', '--numstat', head, 'refs/heads/main')).toBe('1\t1\tREADME.md\n');
    expect(await gitOutput(name, 'show', 'refs/heads/main:README.md')).toContain(`${LINE}\n`);
  });
});
