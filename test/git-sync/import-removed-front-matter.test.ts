import { describe, expect, it } from 'vitest';
import { api, expectStatus } from '../helpers/harness';
import { control, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * A push that removes a page's front matter (or some of its fields): the page's file is all Git Sync knows of it, so the
 * re-imported page has none of the removed fields, as a fresh import of the same commit has none (gitprobe15a's history
 * replay: a GITBOOK-N commit of a real repository dropped a page's `layout:` block; the space kept the old layout, and
 * the page read back with front matter that its file no longer had).
 */
const FRONT = [
  '---',
  'description: What the page is about.',
  'icon: rocket',
  'hidden: true',
  'layout:',
  '  title:',
  '    visible: true',
  '  description:',
  '    visible: false',
  '  outline:',
  '    visible: false',
  '---',
  '',
].join('\n');

describe('Git Sync import: front matter removed by a push', () => {
  it('clears the fields the file no longer has, and keeps those it still has', async () => {
    const files = {
      'README.md': '# Home\n\nWelcome.\n',
      'guide.md': `${FRONT}# Guide\n\nSome text.\n`,
      'other.md': `${FRONT}# Other\n\nMore text.\n`,
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n* [Other](other.md)\n',
    };
    const { token, space, byPath } = await importedSpace('removed-front-matter', files);
    const guide = byPath('guide.md');
    const other = byPath('other.md');
    expect(guide).toMatchObject({ description: 'What the page is about.', icon: 'rocket', hidden: true });

    await control('commit', {
      name: 'removed-front-matter',
      message: 'Drop the front matter',
      files: { 'guide.md': '# Guide\n\nSome text, edited.\n', 'other.md': '---\ndescription: Still described.\n---\n\n# Other\n\nMore text, edited.\n' },
    });
    await runGitOperation(space.id, token, 'import', { ...githubBody('removed-front-matter'), force: false, timestamp: new Date().toISOString() });

    const read = async (id: string) => expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${id}`, { token }), 200).body;
    const markdown = async (id: string) => expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${id}?format=markdown`, { token }), 200).body.markdown;
    const guideAfter = await read(guide.id);
    expect(guideAfter.description).toBeUndefined();
    expect(guideAfter.icon).toBeUndefined();
    expect(guideAfter.hidden ?? false).toBe(false);
    expect(await markdown(guide.id)).toBe('# Guide\n\nSome text, edited.\n');
    const otherAfter = await read(other.id);
    expect(otherAfter.description).toBe('Still described.');
    expect(otherAfter.icon).toBeUndefined();
    expect(await markdown(other.id)).toBe('---\ndescription: Still described.\n---\n\n# Other\n\nMore text, edited.\n');
  });
});
