import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * Found probing a real repository (probe23b, secoda/gitbook): a figure centred by `<div align="center">` ... `</div>`
 * (each tag a block GitBook reads as code) on a page whose patch no longer read whole as the document (a mention of
 * another page, said by id in the patch). Of the patch, only the hunks that still fit were kept, searched by halves;
 * the two hunks that keep one tag unfenced (the fence's opening line, then its closing one) only fit together, and a
 * half cut between them dropped both: a one-line edit exported the tag inside a new ```` ```html ```` fence.
 */
const PAGE = [
  '# Finding things',
  '',
  'Words to change here.',
  '',
  'See [other.md](other.md "mention") for the rest.',
  '',
  '<div align="center">',
  '',
  '<figure><img src="https://example.com/shot.png" alt=""><figcaption></figcaption></figure>',
  '',
  '</div>',
  '',
  'The end.',
  '',
].join('\n');

const FILES = {
  'README.md': '# Home\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Finding things](finding.md)\n* [Other](other.md)\n',
  'finding.md': PAGE,
  'other.md': '# Other\n\nMore.\n',
};

describe('a centred figure beside a mention, its page edited on another line', () => {
  it('keeps the div tags as written', async () => {
    const name = 'conformance-export-centered-html';
    const { token, space, head, byPath } = await importedSpace(name, FILES);
    const cr = await openChangeRequest(space.id, token, 'One line');
    const page = byPath('finding.md');
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, page.id, 'Words to change here.', 'Words changed here.')]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: One line` });
    expect(await gitOutput(name, 'diff', '--name-only', head, 'refs/heads/main')).toBe('finding.md\n');
    expect(await gitOutput(name, 'show', 'refs/heads/main:finding.md')).toBe(PAGE.replace('Words to change here.', 'Words changed here.'));
  }, 120_000);
});
