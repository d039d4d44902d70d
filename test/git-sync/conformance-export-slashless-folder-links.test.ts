import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * A link to a folder's page written without the slash (`[Extras](notes/extras)`, `notes/extras/README.md` the page; hand-
 * written, found by gitprobe11a on AxonIQ's reference guide): the import reads it as the page; the export of an edit
 * elsewhere in the page wrote it `notes/extras/` on lines nobody edited. It keeps its spelling now.
 */

const HOME = ['# Home', '', 'Intro text here.', '', '| Name | Purpose |', '| --- | --- |', '| [Extras](notes/extras) | The rest |', '', 'See [Extras](notes/extras) too.', ''].join('\n');

const FILES = {
  'README.md': HOME,
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Extras](notes/extras/README.md)\n',
  'notes/extras/README.md': '# Extras\n\nMore.\n',
};

describe('a link to a folder without its slash', () => {
  it('keeps its spelling on the untouched lines of an edited page', async () => {
    const name = 'conformance-export-slashless-folder';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository(name, { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const home = pages.find((p: any) => p.git?.path === 'README.md');
    const cr = await openChangeRequest(space.id, token, 'Intro');
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${home.id}`, { token }), 200).body;
    const document = structuredClone(read.document);
    let edited = 0;
    const visit = (node: any) => {
      if (node?.object === 'leaf' && node.text === 'Intro text here.') (node.text = 'Intro text here, edited.'), edited++;
      for (const key of ['nodes', 'leaves', 'fragments']) for (const child of node?.[key] ?? []) visit(child);
    };
    visit(document);
    expect(edited).toBe(1);
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: home.id, document: { document } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Intro`, timestamp: new Date().toISOString() });
    expect((await gitOutput(name, 'diff', '--name-status', created.head, 'refs/heads/main')).trim()).toBe('M\tREADME.md');
    expect(await gitOutput(name, 'show', 'refs/heads/main:README.md')).toBe(HOME.replace('Intro text here.', 'Intro text here, edited.'));
  });
});
