import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * The author's lines are kept only where their links name the space's content by id (a relative path goes stale when
 * a page moves), and the content batch rewrote only its own refs into ids before converting: a page edited with
 * Markdown that links by relative path, as its file does, had those lines written our way (`<https://x.example>` for the author's `[https://x.example](https://x.example)`).
 * The conversion now writes the kept lines' links by id itself, with the resolver it reads them with.
 */

const GUIDE = ['# Guide', '', '- see [the setup](setup.md) or [https://x.example](https://x.example)', '- then [its second step](setup.md#step-2)', '', 'Closing paragraph.', ''].join('\n');

const FILES = {
  'README.md': '# Home\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n* [Setup](setup.md)\n',
  'guide.md': GUIDE,
  'setup.md': '# Setup\n\n## Step 2\n\nText.\n',
};

describe('a page edited with Markdown that links by relative path', () => {
  it("keeps the author's lines holding those links, written back as the targets' paths", async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository('conformance-export-relative-links', { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-export-relative-links'), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const guide = pages.find((p: any) => p.git?.path === 'guide.md');
    const cr = await openChangeRequest(space.id, token, 'Note');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: guide.id, document: { markdown: `${GUIDE}\nA note.\n` } }]);
    const markdown = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${guide.id}?format=markdown`, { token }), 200).body.markdown;
    const setup = pages.find((p: any) => p.git?.path === 'setup.md');
    expect(markdown).toContain(`- see [the setup](/pages/${setup.id}) or [https://x.example](https://x.example)\n- then [its second step](/pages/${setup.id}#step-2)\n`);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-export-relative-links'), commitMessage: `GITBOOK-${cr.number}: Note`, timestamp: new Date().toISOString() });
    expect((await gitOutput('conformance-export-relative-links', 'diff', '--name-status', created.head, 'refs/heads/main')).trim()).toBe('M\tguide.md');
    expect(await gitOutput('conformance-export-relative-links', 'show', 'refs/heads/main:guide.md')).toBe(`${GUIDE}\nA note.\n`);
  });
});
