import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * GitBook labels a mention (`[setup.md](setup.md "mention")`) and a card (`{% content-ref %}`'s link, a cards table's
 * link cell) with its target's file name, and writes the new name when the target's file is renamed. Renaming the target
 * page (its slug) relabelled a mention in the files that were kept, not a cards table's link cell; and a page edited
 * afterwards wrote the mention's old label again (its document holds the label it was read with).
 */

const MENTION = ['# Mention', '', 'See [setup.md](setup.md "mention") for more.', '', 'Closing paragraph.', ''].join('\n');
const CARD = ['# Card', '', 'Start here.', '', '{% content-ref url="setup.md" %}', '[setup.md](setup.md)', '{% endcontent-ref %}', ''].join('\n');

const CARDS = [
  '# Cards',
  '',
  'Pick one.',
  '',
  '<table data-view="cards"><thead><tr><th></th><th data-hidden data-card-target data-type="content-ref"></th></tr></thead><tbody><tr><td><strong>Setup</strong></td><td><a href="setup.md">setup.md</a></td></tr></tbody></table>',
  '',
].join('\n');

const FILES = {
  'README.md': '# Home\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Mention](mention.md)\n* [Card](card.md)\n* [Cards](cards.md)\n* [Setup](setup.md)\n',
  'mention.md': MENTION,
  'card.md': CARD,
  'cards.md': CARDS,
  'setup.md': '# Setup\n\nText.\n',
};

async function exportChanges(name: string, spaceId: string, token: string, changes: (cr: number) => Promise<unknown[]>) {
  const cr = await openChangeRequest(spaceId, token, 'Edit');
  await applyChanges(spaceId, cr.number, token, await changes(cr.number));
  expectStatus(await merge(spaceId, cr.number, token), 200);
  await runGitOperation(spaceId, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Edit`, timestamp: new Date().toISOString() });
}

describe("a renamed page's mention and card labels", () => {
  it('follow its new file name, in the files kept and in pages edited afterwards', async () => {
    const name = 'conformance-export-renamed-labels';
    const { token, space, byPath } = await importedSpace(name, FILES);
    const setup = byPath('setup.md');
    await exportChanges(name, space.id, token, async () => [{ operation: 'update_page', page: setup.id, slug: 'install' }]);
    const show = (path: string) => gitOutput(name, 'show', `refs/heads/main:${path}`);
    expect(await show('mention.md')).toBe(MENTION.replace(/setup\.md/g, 'install.md'));
    expect(await show('card.md')).toBe(CARD.replace(/setup\.md/g, 'install.md'));
    expect(await show('cards.md')).toBe(CARDS.replace(/setup\.md/g, 'install.md'));
    // Both pages edited afterwards: only the edited line changes.
    await exportChanges(name, space.id, token, async (cr) => [
      await leafEdit(space.id, token, cr, byPath('mention.md').id, 'Closing paragraph.', 'Last paragraph.'),
      await leafEdit(space.id, token, cr, byPath('card.md').id, 'Start here.', 'Begin here.'),
      await leafEdit(space.id, token, cr, byPath('cards.md').id, 'Pick one.', 'Choose one.'),
    ]);
    expect(await show('mention.md')).toBe(MENTION.replace(/setup\.md/g, 'install.md').replace('Closing', 'Last'));
    expect(await show('card.md')).toBe(CARD.replace(/setup\.md/g, 'install.md').replace('Start', 'Begin'));
    expect(await show('cards.md')).toBe(CARDS.replace(/setup\.md/g, 'install.md').replace('Pick', 'Choose'));
  }, 180_000);
});
