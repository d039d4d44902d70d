import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on a real repository (GitBook's own docs): a page whose front matter has a key that is no page field
 * (`tags:`) lost it on its first edit, with its `<figure>` and "mention" lines: its head, written the same as ours from
 * the whole front matter, was not recorded, while the page's writers give its fields only.
 */

const CHANNELS = [
  '---',
  'description: Use the assistant in chat tools',
  'tags:',
  '  - early-access',
  '  - add-on',
  '---',
  '',
  '# Channels',
  '',
  '{% hint style="info" %}',
  '#### Looking for embedding?',
  '',
  'Head to [embedding](../publish/embedding.md "mention") to learn more.',
  '{% endhint %}',
  '',
  '<figure><img src="../.gitbook/assets/channels@2x (1).png" alt=""><figcaption></figcaption></figure>',
  '',
  '### Overview',
  '',
  '* Answer questions where they are asked.',
  '',
].join('\n');

const FILES = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Channels](agent/channels.md)\n* [Embedding](publish/embedding.md)\n',
  'agent/channels.md': CHANNELS,
  'publish/embedding.md': '# Embedding\n\nEmbed it.\n',
  '.gitbook/assets/channels@2x (1).png': { base64: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==' },
};

describe('a page whose front matter holds keys that are no page fields', () => {
  it('keeps its whole head and its other lines when edited', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository('conformance-page-head', { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-page-head'), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const channels = pages.find((p: any) => p.git?.path === 'agent/channels.md');
    const cr = await openChangeRequest(space.id, token, 'Note');
    const markdown = await pageMarkdown(space.id, channels.id, token, cr.number);
    expect(markdown).toContain('tags:\n  - early-access');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: channels.id, document: { markdown: `${markdown.replace(/\n+$/, '')}\n\nA note.\n` } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-page-head'), commitMessage: `GITBOOK-${cr.number}: Note`, timestamp: new Date().toISOString() });
    expect((await gitOutput('conformance-page-head', 'diff', '--name-status', created.head, 'refs/heads/main')).trim()).toBe('M\tagent/channels.md');
    expect(await gitOutput('conformance-page-head', 'show', 'refs/heads/main:agent/channels.md')).toBe(`${CHANNELS}\nA note.\n`);
  });
});
