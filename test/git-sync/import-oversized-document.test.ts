import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitInfo, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on a real repository (a GraphQL API's reference, one 125 KB Markdown page of its types, gitprobe8b): the
 * page is within the Markdown limit of a page (256 K characters) but its document is over 1 MiB, the limit of a
 * stored document. The content batch refused that one change, and with it the whole import failed: nothing of the
 * repository arrived. Such a page is imported empty with a warning naming it, as one over the Markdown limit is;
 * the rest of the repository is imported, and an export keeps the file as it is. A page already imported whose file
 * grows over the limit keeps its content, with a warning saying so.
 */

// 12,000 two-letter items: 60 K characters of Markdown, well over 1 MiB as a document (a list item, its paragraph,
// its text and leaf each).
const BIG = `# Types\n\n${Array.from({ length: 12_000 }, (_, i) => `* ${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + ((i / 26) | 0) % 26)}`).join('\n')}\n`;

describe('a page whose document is over the limit of a stored document', () => {
  it('is imported empty with a warning; the repository is imported, and an export keeps the file', async () => {
    const name = 'import-oversized-document';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const { head } = await createRepository(name, {
      files: {
        'README.md': '# Home\n\nWelcome.\n',
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Types](reference/types.md)\n* [Guide](guide.md)\n',
        'reference/types.md': BIG,
        'guide.md': '# Guide\n\nSteps.\n',
      },
    });
    expect(BIG.length).toBeLessThan(256 * 1024);
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    const info = (await gitInfo(space.id, token)).body;
    expect(info.operation.error).toMatch(/reference\/types\.md: imported as an empty page \(the page is \d+ bytes as a document; the limit is 1048576\)/);

    const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    expect(pages.map((p) => [p.title, p.git?.path])).toEqual([
      ['Home', 'README.md'],
      ['Types', 'reference/types.md'],
      ['Guide', 'guide.md'],
    ]);
    expect(await pageMarkdown(space.id, pages[2].id, token)).toContain('Steps.');

    const cr = await openChangeRequest(space.id, token, 'Guide');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: pages[2].id, document: { markdown: '# Guide\n\nMore steps.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Guide` });
    expect((await gitOutput(name, 'diff', '--name-status', head, 'refs/heads/main')).trim()).toBe('M\tguide.md');

    // A page already here whose file grows over the limit keeps its content, and says so.
    const { head: pushed } = await control('commit', { name, files: { 'guide.md': `# Guide\n\nMore steps.\n\n${BIG.split('\n').slice(2).join('\n')}` }, message: 'A long guide' });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), timestamp: new Date(Date.now() + 60_000).toISOString() });
    const again = (await gitInfo(space.id, token)).body;
    expect(again.operation.error).toMatch(/guide\.md: not updated, the page keeps its content \(the page is \d+ bytes as a document; the limit is 1048576\)/);
    expect(await pageMarkdown(space.id, pages[2].id, token)).toContain('More steps.');
    const content = expectStatus(await api('GET', `/v1/spaces/${space.id}/content`, { token }), 200).body;
    expect(content.git.oid).toBe(pushed);
  }, 300_000);
});
