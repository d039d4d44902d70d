import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * An export of many edited pages asks the remote for the files they replace in batches (prefetchBlobs), not one request
 * per page: an export of 201 edited pages made 207 requests (the benchmark's `requests`), 201 of them one blob each.
 */

const PAGES = 30;
const files: Record<string, string> = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': `# Table of contents\n\n* [Home](README.md)\n${Array.from({ length: PAGES }, (_, i) => `* [Page ${i}](page-${i}.md)\n`).join('')}`,
};
for (let i = 0; i < PAGES; i++) files[`page-${i}.md`] = `# Page ${i}\n\nThe text of page ${i}.\n`;

describe('an export of many edited pages', () => {
  it('reads the files they replace in a few requests, not one each', { timeout: 240_000 }, async () => {
    const name = 'export-requests';
    const { token, space, head, byPath } = await importedSpace(name, files);
    const cr = await openChangeRequest(space.id, token, 'Edit all');
    const edits = [];
    for (let i = 0; i < PAGES; i++) edits.push(await leafEdit(space.id, token, cr.number, byPath(`page-${i}.md`).id, `The text of page ${i}.`, `The text of page ${i}, edited.`));
    await applyChanges(space.id, cr.number, token, edits);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: 'GITBOOK-1: Edit all' });

    expect((await gitOutput(name, 'diff', '--shortstat', head, 'refs/heads/main')).trim()).toBe(`${PAGES} files changed, ${PAGES} insertions(+), ${PAGES} deletions(-)`);
    const row = await env.DB.prepare(`select json_extract(stats, '$.requests') as requests from git_sync_operations where space_id = ? and direction = 'export'`).bind(space.id).first<{ requests: number }>();
    // ls-refs and the trees' fetch, a batch of blobs, the push's two: well under one per page.
    expect(row!.requests).toBeLessThan(10);
  });
});
