import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on real repositories (issue 40): inline HTML in paragraphs (`<strong>`, `<a href>`) was read as code-marked
 * text, and HTML tables lost their `valign` columns and their `checkbox` columns' values. Imported, they are GitBook's
 * marks, link and table definitions; an edit exports only the lines it changed, each written in GitBook's form (the
 * table with its `valign` and checkbox column as GitBook writes them).
 */

const TABLE = (done: 'true' | 'false') =>
  `<table data-header-hidden><thead><tr><th valign="top"></th><th data-type="checkbox">Done</th></tr></thead><tbody><tr><td valign="top">One</td><td>${done}</td></tr></tbody></table>`;

const PICTURE = 'Open the menu <picture><source srcset=".gitbook/assets/menu-dark.svg" media="(prefers-color-scheme: dark)"><img src=".gitbook/assets/menu.svg" alt=""></picture> first.';

const PAGE = ['# Inline HTML', '', 'Press <strong>Save</strong> and read <a href="setup.md">the setup</a>.', '', TABLE('true'), '', PICTURE, '', 'Closing <em>paragraph</em>.', ''].join('\n');

const FILES = {
  'README.md': '# Home\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Inline HTML](inline.md)\n* [Setup](setup.md)\n',
  'inline.md': PAGE,
  'setup.md': '# Setup\n\nText.\n',
  '.gitbook/assets/menu.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>\n',
  '.gitbook/assets/menu-dark.svg': '<svg xmlns="http://www.w3.org/2000/svg" class="dark"/>\n',
};

describe('GitBook HTML in Markdown, imported and exported', () => {
  it('reads marks, links and table columns, and an edit exports only its lines in GitBook form', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository('conformance-export-gitbook-html', { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-export-gitbook-html'), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const inline = pages.find((p: any) => p.git?.path === 'inline.md');
    const setup = pages.find((p: any) => p.git?.path === 'setup.md');

    const cr = await openChangeRequest(space.id, token, 'Edit');
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${inline.id}`, { token }), 200).body;
    const [paragraph, table, picture, closing] = read.document.nodes;
    const leaves = paragraph.nodes[0].leaves.map((leaf: any) => [leaf.text, leaf.marks.map((mark: any) => mark.type)]);
    expect(leaves).toEqual([
      ['Press ', []],
      ['Save', ['bold']],
      [' and read ', []],
    ]);
    expect(paragraph.nodes[1]).toMatchObject({ type: 'link', data: { ref: { kind: 'page', page: setup.id } } });
    expect(table.data.definition.c1).toMatchObject({ type: 'text', verticalAlignment: 'top' });
    expect(table.data.definition.c2).toMatchObject({ type: 'checkbox', title: 'Done' });
    expect(table.data.records.r1.values.c2).toBe(true);
    // The picture's two images are the repository's files (its `srcset` a link like `src`).
    const files = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/files`, { token }), 200).body.items;
    const fileId = (name: string) => files.find((file: any) => file.name === name)?.id;
    expect(picture.nodes[1]).toMatchObject({ type: 'inline-image', data: { ref: { kind: 'file', file: fileId('menu.svg') }, refDark: { kind: 'file', file: fileId('menu-dark.svg') } } });
    expect(closing.nodes[0].leaves[1]).toMatchObject({ text: 'paragraph', marks: [{ type: 'italic' }] });

    // Edited as JSON: the first paragraph's opening word, and the checkbox unticked. The closing paragraph is not.
    const edited = [{ ...paragraph, nodes: [{ ...paragraph.nodes[0], leaves: [{ ...paragraph.nodes[0].leaves[0], text: 'Now press ' }, ...paragraph.nodes[0].leaves.slice(1)] }, ...paragraph.nodes.slice(1)] }, { ...table, data: { ...table.data, records: { r1: { ...table.data.records.r1, values: { ...table.data.records.r1.values, c2: false } } } } }, picture, closing];
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: inline.id, document: { document: { ...read.document, nodes: edited } } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-export-gitbook-html'), commitMessage: `GITBOOK-${cr.number}: Edit`, timestamp: new Date().toISOString() });

    expect((await gitOutput('conformance-export-gitbook-html', 'diff', '--name-status', created.head, 'refs/heads/main')).trim()).toBe('M\tinline.md');
    // The edited paragraph keeps its HTML around the changed words; the table is written again whole, in GitBook's form.
    const expected = PAGE.replace('Press <strong>', 'Now press <strong>').replace(TABLE('true'), TABLE('false'));
    expect(await gitOutput('conformance-export-gitbook-html', 'show', 'refs/heads/main:inline.md')).toBe(expected);
  });
});
