import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * A SUMMARY.md written by hand (`-` bullets, four spaces a level, `./` before paths, `\_` escapes), then a page added
 * or moved here: the export wrote the whole summary again in GitBook's spelling (`*`, two spaces), a diff on every line
 * nobody touched (00labs/huma-monorepo's summary has four spaces a level), and a group's heading without its anchor
 * got one (`## Sip & CIPP` became `## Sip & CIPP <a href="#sip-cipp" ...>`, found probing KelvinTegelaar/CIPP-docs).
 * Lines saying what ours would say are kept as written, the summary's title too; a new or moved line takes the file's
 * indentation, so it nests where it should, and its bullet (probe22: `*` among `-` items starts a list of its own).
 */

const SUMMARY = [
  '# Summary',
  '',
  '- [Home](./README.md)',
  '- [Guides](./guides/README.md)',
  '    - [Install\\_steps](./guides/install_steps.md)',
  '    - [Deploy](./guides/deploy.md)',
  '- [FAQ](./faq.md)',
  '',
  '## Sip & Help',
  '',
  '- [Contact](help/contact.md)',
  '',
].join('\n');

const FILES = {
  'README.md': '# Home\n',
  'SUMMARY.md': SUMMARY,
  'guides/README.md': '# Guides\n',
  'guides/install_steps.md': '# Install\\_steps\n',
  'guides/deploy.md': '# Deploy\n',
  'faq.md': '# FAQ\n',
  'help/contact.md': '# Contact\n',
};

const changedLines = async (name: string, from: string) =>
  (await gitOutput(name, 'diff', '-U0', from, 'refs/heads/main', '--', 'SUMMARY.md')).split('\n').filter((l) => /^[-+](?![-+]{2} )/.test(l));

describe("an export rewriting a hand-written SUMMARY.md", () => {
  it("keeps the author's lines and indentation, changing only the lines of what changed", async () => {
    const name = 'summary-author-lines';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository(name, { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const guides = pages.find((p: any) => p.title === 'Guides');
    const cr = await openChangeRequest(space.id, token, 'Rollback');
    await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', into: guides.id, at: 2, title: 'Rollback', document: { markdown: '# Rollback\n\nUndo.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Rollback`, timestamp: new Date().toISOString() });
    expect(await changedLines(name, created.head)).toEqual(['+    - [Rollback](guides/rollback.md)']);
  });
});
