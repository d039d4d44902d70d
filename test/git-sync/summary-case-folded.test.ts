import { describe, expect, it } from 'vitest';
import { caseFolded, parseSummary } from '../../src/services/git-sync/layout';
import { applyChanges, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { githubBody, gitInfo, gitOutput, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * A summary item naming its file in other case (`intro/README.md` where the file is `intro/README.MD`: 24 of 31 items of
 * beihaili/Get-Started-with-Web3's `zh/SUMMARY.md`). Matched case-sensitively, each was an empty page and the file's text
 * was not imported. No evidence says how GitBook reads such an item; the import reads it as the one file of that name in
 * other case, says so on the operation, and an export keeps the file's name and the item's line as written. Where
 * several files differ from it in case only, none is taken (an empty page, as before).
 */

const SUMMARY = ['# Table of contents', '', '* [Home](README.md)', '* [Intro](intro/README.md)', '  * [Step](intro/step.md)', '* [Twice](twice.md)', ''].join('\n');
const INTRO = '# Intro\n\nThe intro text.\n';

const FILES = {
  'SUMMARY.md': SUMMARY,
  'README.md': '# Home\n\nWelcome.\n',
  'intro/README.MD': INTRO,
  'intro/step.md': '# Step\n\nA step.\n',
  'Twice.md': '# Twice one\n',
  'TWICE.md': '# Twice two\n',
};

describe('a summary item naming its file in other case', () => {
  it('is read as the one file of that name in other case, none where several are', () => {
    const layout = parseSummary(SUMMARY, '', caseFolded(new Set(Object.keys(FILES))));
    expect(layout.map((page) => [page.key, page.writtenAs])).toEqual([
      ['README.md', undefined],
      ['intro/README.MD', 'intro/README.md'],
      ['missing:twice.md', undefined],
    ]);
  });

  it('imports the file as that page, says so, and an export of an edit writes the file under its own name, the summary unchanged', async () => {
    const name = 'summary-case-folded';
    const { token, space, head, byPath } = await importedSpace(name, FILES);
    const intro = byPath('intro/README.MD');
    expect(intro, 'the page of intro/README.MD').toBeDefined();
    expect(await pageMarkdown(space.id, intro.id, token)).toContain('The intro text.');
    const said = JSON.stringify((await gitInfo(space.id, token)).body.operation);
    expect(said).toContain('leads to \\"intro/README.md\\", which is no file of the repository: read as \\"intro/README.MD\\"');

    const cr = await openChangeRequest(space.id, token, 'Edit');
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, intro.id, 'The intro text.', 'The intro text, edited.')]);
    expect((await merge(space.id, cr.number, token)).status).toBe(200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Edit` });
    expect((await gitOutput(name, 'diff', '--name-status', head, 'refs/heads/main')).trim().split('\n')).toEqual(['M\tintro/README.MD']);
    expect(await gitOutput(name, 'show', 'refs/heads/main:intro/README.MD')).toBe(INTRO.replace('The intro text.', 'The intro text, edited.'));
  }, 240_000);
});
