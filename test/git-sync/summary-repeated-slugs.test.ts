import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, pageTree } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, githubBody, gitOutput, runGitOperation } from '../helpers/git-sync';

/**
 * GitBook numbers a repeated slug, and the file of a new page whose name is taken, from 1: jigx-docs (its commit
 * `GITBOOK-1`) has a page "Create the Map" at `create-the-map-1.md` beside the folder `create-the-map/`; Korean
 * repositories GitBook wrote have `undefined.md`, `undefined-1.md`, `undefined-2.md`... and `coroutine.md`,
 * `coroutine-1.md` side by side. Pages here were numbered from 2 (`guide-2`, `guide-2.md`).
 */
describe('repeated slugs and file names, numbered as GitBook numbers them', () => {
  it('imports a second page of one slug as <slug>-1, and exports a new page whose file is taken as <slug>-1.md', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const name = 'summary-repeated-slugs';
    await createRepository(name, {
      files: {
        'README.md': '# Home\n\nWelcome.\n',
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guides](guides.md)\n* [All guides](guides/README.md)\n  * [Install](guides/install.md)\n',
        'guides.md': '# Guides\n\nA page.\n',
        'guides/README.md': '# All guides\n\nA folder.\n',
        'guides/install.md': '# Install\n\nRun it.\n',
      },
    });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    expect(await pageTree(space.id, token)).toEqual(['home: Home', 'guides: Guides', 'guides-1: All guides', 'guides-1/install: Install']);

    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const head = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    const cr = await openChangeRequest(space.id, token, 'Add');
    await applyChanges(space.id, cr.number, token, [
      // `guides.md` keeps its page, whose slug moves: its file is renamed with it (as GitBook renames a page's file with
      // its slug: docs-sfp GITBOOK-154), and the new page takes the slug, its file numbered (`guides.md` was synced).
      { operation: 'update_page', page: pages[1].id, slug: 'old-guides' },
      { operation: 'insert_page', title: 'Guides', document: { markdown: '# Guides\n\nThe new one.\n' } },
      // A second page of one title beside another: its slug is numbered from 1.
      { operation: 'insert_page', title: 'Home', document: { markdown: '# Home\n\nAnother.\n' } },
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    expect(await pageTree(space.id, token)).toEqual(['home: Home', 'old-guides: Guides', 'guides-1: All guides', 'guides-1/install: Install', 'guides: Guides', 'home-1: Home']);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Add` });
    const changed = await gitOutput(name, 'diff', '--name-status', head, 'refs/heads/main');
    expect(changed.trim().split('\n').sort()).toEqual(['A\tguides-1.md', 'A\thome-1.md', 'M\tSUMMARY.md', 'R100\tguides.md\told-guides.md']);
  }, 120_000);
});
