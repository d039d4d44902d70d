import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * A link to a folder's page written with its trailing slash (`[Kinds](kinds/)`, `guide/kinds/README.md` the page) in a
 * page of a folder, in a table row and in a paragraph, the same page written `kinds/README.md` by another link: the export of an edit elsewhere in the page wrote it
 * `kinds/README.md` on the table's row nobody edited (gitprobe15a, a GITBOOK-exported repository's table of fields).
 */

const PAGE = [
  '# Structure',
  '',
  'Intro text here.',
  '',
  'Start with [the kinds](kinds/README.md).',
  '',
  '| Field  | Meaning                                        |',
  '| ------ | ---------------------------------------------- |',
  '| `kind` | The kind. See the [kinds page](kinds/) for more. |',
  '| `id`   | The id.                                        |',
  '',
  'Also see the [kinds page](kinds/).',
  '',
].join('\n');

const FILES = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Structure](guide/structure.md)\n* [Kinds](guide/kinds/README.md)\n  * [One](guide/kinds/one.md)\n',
  'guide/structure.md': PAGE,
  'guide/kinds/README.md': '# Kinds\n\nAll kinds.\n',
  'guide/kinds/one.md': '# One\n\nThe first kind.\n',
};

describe('a link to a folder with its trailing slash', () => {
  it('keeps its spelling on the untouched lines of an edited page, in a table row too', async () => {
    const name = 'conformance-export-trailing-slash-folder';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository(name, { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const structure = pages.find((p: any) => p.git?.path === 'guide/structure.md');
    const cr = await openChangeRequest(space.id, token, 'Intro');
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${structure.id}`, { token }), 200).body;
    const document = structuredClone(read.document);
    let edited = 0;
    const visit = (node: any) => {
      if (node?.object === 'leaf' && node.text === 'Intro text here.') (node.text = 'Intro text here, edited.'), edited++;
      for (const key of ['nodes', 'leaves', 'fragments']) for (const child of node?.[key] ?? []) visit(child);
    };
    visit(document);
    expect(edited).toBe(1);
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: structure.id, document: { document } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Intro`, timestamp: new Date().toISOString() });
    expect((await gitOutput(name, 'diff', '--name-status', created.head, 'refs/heads/main')).trim()).toBe('M\tguide/structure.md');
    expect(await gitOutput(name, 'show', 'refs/heads/main:guide/structure.md')).toBe(PAGE.replace('Intro text here.', 'Intro text here, edited.'));
  });
});
