import { describe, expect, it } from 'vitest';
import { documentToMarkdown } from '../../src/services/markdown/index';
import { markdownToDocument } from '../../src/services/markdown/round-trip';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on real repositories after an edit: a page whose head was written again (a page field or its title changed)
 * had its front matter written whole our way: the author's key order lost, and keys that are no page field
 * (`tags:`) dropped. The source's front matter is kept, only the fields that changed set in it.
 */

const HEAD = [
  '---',
  'layout:',
  '  width: wide',
  'tags:',
  '  - early-access # a comment',
  'description: The head',
  'icon: book',
  '---',
  '',
  '# Head',
  '',
  'Body.',
  '',
].join('\n');

const FILES = {
  'README.md': '# Home\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Head](head.md)\n* [Other](other.md)\n',
  'head.md': HEAD,
  'other.md': HEAD.replace('# Head', '# Other'),
};

const paragraph = (text: string) => ({ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }] });

describe("a page's front matter written again", () => {
  it('keeps the keys that are no page fields and the order of all, a field set in place, removed or added last', () => {
    const { document } = markdownToDocument(HEAD);
    const fields = { layout: { width: 'wide' }, icon: 'book' };
    expect(documentToMarkdown(document, { title: 'Head', frontmatter: { ...fields, description: 'New', hidden: true } })).toBe(
      HEAD.replace('description: The head', 'description: New').replace('icon: book\n', 'icon: book\nhidden: true\n'),
    );
    expect(documentToMarkdown(document, { title: 'Renamed', frontmatter: fields })).toBe(HEAD.replace('description: The head\n', '').replace('# Head', '# Renamed'));
  });

  it('is exported with the source order and keys when a field or the title changed', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository('conformance-export-front-matter', { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-export-front-matter'), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const head = pages.find((p: any) => p.git?.path === 'head.md');
    const other = pages.find((p: any) => p.git?.path === 'other.md');
    const cr = await openChangeRequest(space.id, token, 'Fields');
    const readHead = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${head.id}`, { token }), 200).body;
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${other.id}`, { token }), 200).body;
    await applyChanges(space.id, cr.number, token, [
      { operation: 'update_page', page: head.id, description: 'A new description', document: { document: { ...readHead.document, nodes: [...readHead.document.nodes, paragraph('A note.')] } } },
      { operation: 'update_page', page: other.id, title: 'Other things', document: { document: { ...read.document, nodes: [...read.document.nodes, paragraph('A note.')] } } },
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-export-front-matter'), commitMessage: `GITBOOK-${cr.number}: Fields`, timestamp: new Date().toISOString() });
    expect((await gitOutput('conformance-export-front-matter', 'diff', '--name-status', created.head, 'refs/heads/main')).trim()).toBe('M\tSUMMARY.md\nM\thead.md\nM\tother.md');
    // SUMMARY.md's item follows the retitled page, as GitBook writes it; the other item stays (conformance-export-summary-retitled).
    expect(await gitOutput('conformance-export-front-matter', 'show', 'refs/heads/main:SUMMARY.md')).toBe(FILES['SUMMARY.md'].replace('[Other]', '[Other things]'));
    expect(await gitOutput('conformance-export-front-matter', 'show', 'refs/heads/main:head.md')).toBe(`${HEAD.replace('description: The head', 'description: A new description')}\nA note.\n`);
    expect(await gitOutput('conformance-export-front-matter', 'show', 'refs/heads/main:other.md')).toBe(`${HEAD.replace('# Head', '# Other things')}\nA note.\n`);
  });
});
