import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';
import { renderDocument } from '../../src/site/render/document';

/**
 * GitBook labels a mention in its Markdown with its target's file name (`[setup.md](setup.md "mention")`), and its
 * document holds no label: its app and site show the target as it is. Ours kept the label it was read with: once the
 * target page was renamed in the app (slug and title), an export relabelled the mention in the files, but the page
 * read and the published site of the page mentioning it went on saying `setup.md` until that page was imported again.
 * A label that is the target's file name is now the target's, read when shown; the author's own label stays.
 */

const MENTION = ['# Mention', '', 'See [setup.md](setup.md "mention") and [the steps](setup.md "mention").', '', 'Closing paragraph.', ''].join('\n');

const FILES = {
  'README.md': '# Home\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Mention](mention.md)\n* [Setup](setup.md)\n',
  'mention.md': MENTION,
  'setup.md': '# Setup\n\nText.\n',
};

const mentionsOf = (node: any): any[] => [...(node?.type === 'mention' ? [node] : []), ...(node?.nodes ?? []).flatMap(mentionsOf)];
const textOf = (node: any): string => (node?.object === 'leaf' ? node.text : [...(node?.nodes ?? []), ...(node?.leaves ?? [])].map(textOf).join(''));

describe('a mention of a page renamed in the app', () => {
  it('reads with the label of the target as it is now, in the page read, the published page and the exported file', async () => {
    const name = `mention-label-renamed-${Date.now().toString(36)}`;
    const { token, space, byPath } = await importedSpace(name, FILES);
    const mention = byPath('mention.md');
    const setup = byPath('setup.md');

    const cr = (await openChangeRequest(space.id, token, 'Rename')).number;
    await applyChanges(space.id, cr, token, [{ operation: 'update_page', page: setup.id, slug: 'install', title: 'Install' }]);
    expectStatus(await merge(space.id, cr, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr}: Rename`, timestamp: new Date().toISOString() });
    expect(await gitOutput(name, 'show', 'refs/heads/main:mention.md')).toBe(MENTION.replace('[setup.md](setup.md', '[install.md](install.md').replace('(setup.md "mention").', '(install.md "mention").'));

    // The page read: the first mention holds no label of its own (GitBook's mention), so no node says `setup.md`;
    // the author's label of the second stays.
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${mention.id}`, { token }), 200).body;
    const mentions = mentionsOf({ nodes: read.document.nodes });
    expect(mentions.map((node) => [node.data.ref, textOf(node)])).toEqual([
      [{ kind: 'page', page: setup.id }, ''],
      [{ kind: 'page', page: setup.id }, 'the steps'],
    ]);
    expect(JSON.stringify(read.document.nodes)).not.toContain('setup.md');

    // The published page shows the target's title now, as GitBook's site shows a mention.
    const html = (
      await renderDocument(read.document, {
        pageUrl: (ref) => (ref.page === setup.id ? '/docs/install' : null),
        pageTitle: (ref) => (ref.page === setup.id ? 'Install' : null),
        file: () => null,
      })
    ).html;
    expect(html).toContain('<a href="/docs/install">Install</a>');
    expect(html).toContain('<a href="/docs/install">the steps</a>');
    expect(html).not.toContain('setup.md');
  }, 180_000);
});
