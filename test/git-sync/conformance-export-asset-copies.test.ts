import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, PNG_1x1 } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on a real repository (gitprobe8b): GitBook keeps two copies of one image under `.gitbook/assets/` when it is
 * uploaded twice (`Chart.png` and `Chart (1).png`, the same blob), and each page names the copy it was written
 * with. The import makes one file of the two (one blob, one file); an edited page was exported with its image
 * pointing at the other copy: a line changed that nobody edited. The image keeps the path (and the form, `<...>`
 * with spaces) the page's file had.
 */

const PAGES: Record<string, string> = {
  'first.md': '# First\n\nIntro text.\n\n![Chart](.gitbook/assets/Chart.png)\n',
  'second.md': '# Second\n\nIntro text.\n\n![Chart](<.gitbook/assets/Chart (1).png>)\n',
  'guide/third.md': '# Third\n\nIntro text.\n\n![Chart](<../.gitbook/assets/Chart (1).png>)\n\n<figure><img src="../.gitbook/assets/Chart (1).png" alt=""><figcaption></figcaption></figure>\n',
};

function edited(document: any, from: string, to: string): any {
  const copy = structuredClone(document);
  let done = false;
  const visit = (node: any) => {
    if (done || !node || typeof node !== 'object') return;
    if (node.object === 'leaf' && typeof node.text === 'string' && node.text.includes(from)) {
      node.text = node.text.replace(from, to);
      done = true;
      return;
    }
    for (const key of ['nodes', 'leaves', 'fragments']) for (const child of node[key] ?? []) visit(child);
  };
  visit(copy);
  expect(done, from).toBe(true);
  return copy;
}

describe('an edited page whose image is one of two copies of a blob', () => {
  it('is exported with the copy its file named, only the edited line changed', async () => {
    const name = 'conformance-export-asset-copies';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const { head } = await createRepository(name, {
      files: {
        'README.md': '# Home\n',
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [First](first.md)\n* [Second](second.md)\n* [Third](guide/third.md)\n',
        '.gitbook/assets/Chart.png': { base64: PNG_1x1 },
        '.gitbook/assets/Chart (1).png': { base64: PNG_1x1 },
        ...PAGES,
      },
    });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const cr = await openChangeRequest(space.id, token, 'Intro');
    const changes = [];
    for (const path of Object.keys(PAGES)) {
      const page = pages.find((p) => p.git?.path === path);
      const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${page.id}`, { token }), 200).body;
      changes.push({ operation: 'update_page', page: page.id, document: { document: edited(read.document, 'Intro text.', 'Intro text, edited.') } });
    }
    await applyChanges(space.id, cr.number, token, changes);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Intro` });

    expect((await gitOutput(name, 'diff', '--name-only', head, 'refs/heads/main')).trim().split('\n').sort()).toEqual(Object.keys(PAGES).sort());
    for (const [path, text] of Object.entries(PAGES)) {
      expect(await gitOutput(name, 'show', `refs/heads/main:${path}`), path).toBe(text.replace('Intro text.', 'Intro text, edited.'));
    }

    // A second edit after that export: the copies are still known.
    const first = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    const again = await openChangeRequest(space.id, token, 'Intro again');
    const page = pages.find((p) => p.git?.path === 'second.md');
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${again.number}/content/page/${page.id}`, { token }), 200).body;
    await applyChanges(space.id, again.number, token, [{ operation: 'update_page', page: page.id, document: { document: edited(read.document, 'Intro text, edited.', 'Intro text, edited twice.') } }]);
    expectStatus(await merge(space.id, again.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${again.number}: Intro again` });
    expect((await gitOutput(name, 'diff', '--name-only', first, 'refs/heads/main')).trim()).toBe('second.md');
    expect(await gitOutput(name, 'show', 'refs/heads/main:second.md')).toBe(PAGES['second.md'].replace('Intro text.', 'Intro text, edited twice.'));
  }, 240_000);
});
