import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest, pageMarkdown, PNG_1x1 } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { githubBody, gitOutput, importedSpace, leafEdit, runGitOperation } from '../helpers/git-sync';

/**
 * A path written like a link where the converter reads none: a Markdown link inside an HTML block (raw text to
 * CommonMark), in a code span, a fenced or an indented block (tyrival/gitbook's option descriptions, found by gitprobe12c), a
 * caption, a front matter's description. The import rewrote every `](path)` of a page to the batch ref of the
 * page it leads to before converting: where no link was read, the ref stayed as text, the page said `[Other](_gp2)`,
 * and the next export wrote that into the repository (devtron's `<li>... [App Details](../app-details/README.md)
 * page.</li>`). The links the converter reads lead to their pages as before.
 */

const HOME = [
  '---',
  'description: See [Other](guide/other.md) for more.',
  '---',
  '',
  '# Home',
  '',
  'Read [the other page](guide/other.md) first.',
  '',
  '<ul>',
  '<li>Pods: see the [Other](guide/other.md) page.</li>',
  '<li>Anchored: [Other](guide/other.md#setup) and [Folder](guide/) too.</li>',
  '</ul>',
  '',
  'In code: `[Other](guide/other.md)` stays.',
  '',
  '```md',
  'See [Other](guide/other.md) here.',
  '```',
  '',
  '<table><thead><tr><th>Name</th></tr></thead><tbody><tr><td>[Other](guide/other.md) in a cell</td></tr></tbody></table>',
  '',
  '**`--path DIR`**',
  '',
  '    Sets the folder of [Other](guide/other.md) and more.',
  '',
  '<figure><img src=".gitbook/assets/pic.png" alt=""><figcaption><p>See [Other](guide/other.md)</p></figcaption></figure>',
  '',
  'Last paragraph here.',
  '',
].join('\n');

const FILES = {
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide/README.md)\n  * [Other](guide/other.md)\n',
  'README.md': HOME,
  'guide/README.md': '# Guide\n\n<div>Back to [Home](../README.md) from here.</div>\n\nThe guide.\n',
  'guide/other.md': '# Other\n\n## Setup\n\nOther text.\n',
  '.gitbook/assets/pic.png': { base64: PNG_1x1 },
};

describe('Git Sync import: a path where the converter reads no link', () => {
  it('stays as written in the page (no batch ref), links read lead to their page, and an export of an edit elsewhere writes it byte for byte', async () => {
    const name = 'import-unread-links';
    const { token, space, byPath } = await importedSpace(name, FILES);
    const home = byPath('README.md');
    const other = byPath('guide/other.md') ?? (await childByPath(space.id, token, 'guide/other.md'));
    const guide = byPath('guide/README.md');
    const markdown = await pageMarkdown(space.id, home.id, token);
    expect(markdown).not.toContain('_gp');
    expect(await pageMarkdown(space.id, guide.id, token)).not.toContain('_gp');
    const document = JSON.stringify(expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${home.id}`, { token }), 200).body.document);
    expect(document).not.toContain('_gp');
    // The link the converter reads leads to the page (by id), as before.
    expect(document).toContain(`"page":"${other.id}"`);

    const head0 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    const cr = await openChangeRequest(space.id, token, 'Edit');
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, home.id, 'Last paragraph here.', 'Last paragraph, edited.')]);
    await applyChanges(space.id, cr.number, token, [await leafEdit(space.id, token, cr.number, guide.id, 'The guide.', 'The guide, edited.')]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Edit` });
    const head1 = (await gitOutput(name, 'rev-parse', 'refs/heads/main')).trim();
    expect(await gitOutput(name, 'show', `${head1}:README.md`)).toBe(HOME.replace('Last paragraph here.', 'Last paragraph, edited.'));
    const diff = await gitOutput(name, 'diff', '--unified=0', head0, head1);
    expect(diff.split('\n').filter((line) => /^[-+][^-+]/.test(line))).toEqual(['-Last paragraph here.', '+Last paragraph, edited.', '-The guide.', '+The guide, edited.']);
  }, 240_000);
});

async function childByPath(spaceId: string, token: string, path: string) {
  const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200).body.pages;
  const all: any[] = [];
  const visit = (list: any[]) => list.forEach((page) => (all.push(page), visit(page.pages ?? [])));
  visit(pages);
  return all.find((page) => page.git?.path === path);
}
