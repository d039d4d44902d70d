import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on a real repository (GitBook-synced since 2020, gitprobe10b): its README's headings link to themselves as
 * `### [A heading](./#a-heading)`, the page's own folder (`./`) with an anchor, as GitBook's earlier exporter wrote
 * them. A paragraph of that page edited in GitBook: the export rewrote each such untouched line as
 * `[A heading](README.md#a-heading)`. The import reads both as the page; the export now writes the folder as the file
 * it replaces spelled it.
 */

const HOME = ['# Home', '', 'Intro paragraph.', '', '### [First role](./#first-role)', '', 'Text of the first role.', '', '### [Second role](./#second-role)', '', 'See [the guide](guide/).', ''].join('\n');
const GUIDE = ['# Guide', '', 'Steps.', '', '## [Step one](./#step-one)', '', 'Do it.', ''].join('\n');

describe("links to a page's own folder spelled ./", () => {
  it('keep ./ (with their anchor) in the lines of an edited page that nobody edited', async () => {
    const name = 'conformance-export-own-folder-links';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository(name, {
      files: { 'README.md': HOME, 'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide/README.md)\n', 'guide/README.md': GUIDE },
    });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const cr = await openChangeRequest(space.id, token, 'Intro');
    const changes = [];
    for (const [path, from, to] of [['README.md', 'Intro paragraph.', 'Intro paragraph, edited.'], ['guide/README.md', 'Steps.', 'Steps, edited.']]) {
      const page = pages.find((p) => p.git?.path === path);
      const document = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${page.id}`, { token }), 200).body.document;
      changes.push({ operation: 'update_page', page: page.id, document: { document: JSON.parse(JSON.stringify(document).replace(from, to)) } });
    }
    await applyChanges(space.id, cr.number, token, changes);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Intro` });
    expect((await gitOutput(name, 'diff', '--name-status', created.head, 'refs/heads/main')).trim().split('\n')).toEqual(['M\tREADME.md', 'M\tguide/README.md']);
    expect(await gitOutput(name, 'show', 'refs/heads/main:README.md')).toBe(HOME.replace('Intro paragraph.', 'Intro paragraph, edited.'));
    expect(await gitOutput(name, 'show', 'refs/heads/main:guide/README.md')).toBe(GUIDE.replace('Steps.', 'Steps, edited.'));
  });
});
