import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { gitOutput, githubBody, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * An include tag naming a reusable content whose file name has spaces keeps them, as GitBook writes the tag
 * (`{% include "../.gitbook/includes/a note (1).md" %}`, the include tag of GitBook-exported repositories whose
 * reusable content was renumbered). The export wrote the path as a link's, `a%20note%20(1).md`, on an untouched
 * line of every edited page holding one (gitprobe18b, mobiusflow/docs-gitbook-public: the wide edit's 2/2 numstat).
 */
describe('Git Sync export: an include of a reusable content whose file name has spaces', () => {
  it('is written with its spaces, and an edit elsewhere in the page changes only its own line', { timeout: 120_000 }, async () => {
    const name = 'conformance-export-spaced-include';
    const guide = '# Guide\n\nIntro text here.\n\n{% include "../.gitbook/includes/a note (1).md" %}\n\nClosing words.\n';
    const { token, space, head, byPath } = await importedSpace(name, {
      'README.md': '# Home\n\nWelcome.\n',
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](topics/guide.md)\n',
      'topics/guide.md': guide,
      '.gitbook/includes/a note (1).md': '---\ntitle: A note\n---\n\nA shared paragraph.\n',
    });
    const page = byPath('topics/guide.md');
    const cr = await openChangeRequest(space.id, token, 'Guide');
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, page.id, 'Intro text here.', 'Intro text edited.')]);
    expect((await merge(space.id, cr.number, token)).status).toBe(200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Guide` });
    expect((await gitOutput(name, 'diff', '--numstat', head, 'refs/heads/main')).trim()).toBe('1\t1\ttopics/guide.md');
    expect(await gitOutput(name, 'show', 'refs/heads/main:topics/guide.md')).toBe(guide.replace('Intro text here.', 'Intro text edited.'));
  });
});
