import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, PNG_1x1 } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, noise, runGitOperation } from '../helpers/git-sync';

/**
 * Found on two real repositories (gitprobe10b): a file's path percent-encoded in a way the export does not write
 * itself. A `<figure><img src="...">` holding `%20` for its spaces (hand-written, varsity-tech-product/quandora-gitbook)
 * came back with spaces; a Markdown image of `image%20%2891%29.png` (GitBook-exported in 2020, wandb/gitbook) came
 * back as `image%20(91).png`. Both were lines nobody edited, of a page edited elsewhere. The import reads every
 * spelling as the file; the export now writes the file's path as the file it replaces spelled it.
 */

const PAGE = [
  '# Home',
  '',
  'First paragraph.',
  '',
  '<figure><img src=".gitbook/assets/blue%20logo.png" alt="Logo"><figcaption></figcaption></figure>',
  '',
  '![](.gitbook/assets/shot%20%2812%29.png)',
  '',
  '<img src=".gitbook/assets/shot (12).png" alt="Same file, spaces as they are">',
  '',
].join('\n');

describe('file paths percent-encoded in the file an export replaces', () => {
  it('keep their encoding in the lines of an edited page that nobody edited', async () => {
    const name = 'conformance-export-encoded-paths';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository(name, {
      files: {
        'README.md': PAGE,
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n',
        '.gitbook/assets/blue logo.png': { base64: PNG_1x1 },
        // Bytes of its own: two files of one blob are copies, which the export tells apart otherwise (asset copies).
        '.gitbook/assets/shot (12).png': { base64: btoa(String.fromCharCode(...noise(64, 5))) },
      },
    });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const cr = await openChangeRequest(space.id, token, 'First');
    const document = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${pages[0].id}`, { token }), 200).body.document;
    const edited = JSON.parse(JSON.stringify(document).replace('First paragraph.', 'First paragraph, edited.'));
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: pages[0].id, document: { document: edited } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: First` });
    expect((await gitOutput(name, 'diff', '--name-status', created.head, 'refs/heads/main')).trim()).toBe('M\tREADME.md');
    expect(await gitOutput(name, 'show', 'refs/heads/main:README.md')).toBe(PAGE.replace('First paragraph.', 'First paragraph, edited.'));
  });
});
