import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { gitOutput, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * A link the file did not have, to an asset whose name has spaces, is written as GitBook writes it: the destination in
 * angle brackets with its spaces (`](<.gitbook/assets/shot (1).png>)`, sun0lee-esg GITBOOK-121 bb330fc adds such
 * lines). It was written `%20` (`](.gitbook/assets/shot%20(1).png)`), GitBook's form nowhere (found-gitprobe16c 3,
 * winf-hsos/gitbook-data-analytics force-exported into a new repository). A link the file spelled `%20` keeps it.
 */
const png = (variant: string) => ({ base64: `iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9a${variant}AAAAABJRU5ErkJggg==` });

describe('Git Sync export: a new link to an asset whose name has spaces', () => {
  it('is written in angle brackets; a link the file spelled with %20 keeps its spelling', async () => {
    const name = 'conformance-export-spaced-new-link';
    const guide = '# Guide\n\nIntro text here.\n\nAn old link: [the plan](.gitbook/assets/plan%20(draft).png).\n';
    const { token, space, head, byPath } = await importedSpace(name, {
      'README.md': '# Home\n\nWelcome.\n',
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n',
      'guide.md': guide,
      '.gitbook/assets/shot (1).png': png('w'),
      '.gitbook/assets/plan (draft).png': png('x'),
    });
    const files: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/files?limit=100`, { token }), 200).body.items;
    const shot = files.find((file) => file.name === 'shot (1).png');
    expect(shot).toBeTruthy();
    const page = byPath('guide.md');
    const cr = await openChangeRequest(space.id, token, 'Guide');
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${page.id}`, { token }), 200).body;
    const document = structuredClone(read.document);
    const text = (value: string) => ({ object: 'text', leaves: [{ object: 'leaf', text: value, marks: [] }] });
    document.nodes.push({
      object: 'block',
      type: 'paragraph',
      data: {},
      nodes: [text('A new link: '), { object: 'inline', type: 'link', data: { ref: { kind: 'file', file: shot.id } }, nodes: [text('the shot')] }, text('.')],
    });
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: page.id, document: { document } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Guide` });
    expect((await gitOutput(name, 'diff', '--name-status', head, 'refs/heads/main')).trim()).toBe('M\tguide.md');
    expect(await gitOutput(name, 'show', 'refs/heads/main:guide.md')).toBe(`${guide}\nA new link: [the shot](<.gitbook/assets/shot (1).png>).\n`);
  });
});
