import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on real repositories after an edit: a link to no file of the repository (`asciidoc.md` beside the page, the
 * file being `syntax/asciidoc.md`) is a URL to the import, and the page's Markdown gives it back as written; sent back
 * in an edit, the content batch resolved it by slug path, where the page `syntax/asciidoc.md` has the slug
 * `asciidoc`, and the export "fixed" the link into `syntax/asciidoc.md`. A link that resolved to no page stays as
 * written; a new link to the same slug path still finds its page.
 */

const BROKEN = ['# Broken', '', 'Read [the guide](asciidoc.md) first.', '', 'Closing paragraph.', ''].join('\n');

const FILES = {
  'README.md': '# Home\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Broken](broken.md)\n* [Asciidoc](syntax/asciidoc.md)\n',
  'broken.md': BROKEN,
  'syntax/asciidoc.md': '# Asciidoc\n\nText.\n',
};

describe('a link to no page of the repository', () => {
  it('stays as written when its page is edited as Markdown, on its line or elsewhere', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository('conformance-export-broken-link', { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-export-broken-link'), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const broken = pages.find((p: any) => p.git?.path === 'broken.md');
    const cr = await openChangeRequest(space.id, token, 'Edit');
    const markdown = await pageMarkdown(space.id, broken.id, token, cr.number);
    expect(markdown).toContain('[the guide](asciidoc.md)');
    const edited = markdown.replace('first.', 'first of all.').replace('Closing paragraph.', 'Closing paragraph, with [a new link](asciidoc.md).');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: broken.id, document: { markdown: edited } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-export-broken-link'), commitMessage: `GITBOOK-${cr.number}: Edit`, timestamp: new Date().toISOString() });
    expect((await gitOutput('conformance-export-broken-link', 'diff', '--name-status', created.head, 'refs/heads/main')).trim()).toBe('M\tbroken.md');
    expect(await gitOutput('conformance-export-broken-link', 'show', 'refs/heads/main:broken.md')).toBe(
      BROKEN.replace('first.', 'first of all.').replace('Closing paragraph.', 'Closing paragraph, with [a new link](asciidoc.md).'),
    );
  });

  it('still resolves by slug path in a page that never held it as a URL', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('conformance-export-slug-link', { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-export-slug-link'), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const asciidoc = pages.find((p: any) => p.git?.path === 'syntax/asciidoc.md');
    const cr = await openChangeRequest(space.id, token, 'Link');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: asciidoc.id, document: { markdown: '# Asciidoc\n\nText, and [itself](asciidoc.md).\n' } }]);
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${asciidoc.id}`, { token }), 200).body;
    const refs = JSON.stringify(read.document).match(/"ref":\{[^}]*\}/g);
    expect(refs).toEqual([`"ref":{"kind":"page","page":"${asciidoc.id}"}`]);
  });
});
