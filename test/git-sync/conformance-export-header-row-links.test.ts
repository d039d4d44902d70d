import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on a real repository (gitprobe10a): a link in a table's header row (`| Use the [API](../api/) when |`) to a
 * page the same import created. The import writes such a link as its batch ref (`_gp43`) before converting; a header
 * cell is text in GitBook's document, so only the source patch holds the link, and its hunk was kept with the ref.
 * A paragraph of that page edited in GitBook: the export wrote `[API](_gp43)` into the repository, a broken link.
 */

const DELIVERY = ['# Delivery', '', 'Intro paragraph.', '', '| Use delivery when | Use the [API](../api/) when |', '| --- | --- |', '| You want files | You want queries |', '', 'End.', ''].join('\n');
const API = ['# API', '', 'Query it.', ''].join('\n');

describe('a link only the source patch holds, to a page the import created', () => {
  it('is written back as the path it was, never as the import batch ref', async () => {
    const name = 'conformance-export-header-row-links';
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository(name, {
      files: {
        'README.md': '# Home\n\nWelcome.\n',
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Delivery](access/delivery/README.md)\n* [API](access/api/README.md)\n',
        'access/delivery/README.md': DELIVERY,
        'access/api/README.md': API,
      },
    });
    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true });
    const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const flat = (list: any[]): any[] => list.flatMap((p) => [p, ...flat(p.pages ?? [])]);
    const page = flat(pages).find((p) => p.git?.path === 'access/delivery/README.md');
    const cr = await openChangeRequest(space.id, token, 'Intro');
    const document = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${page.id}`, { token }), 200).body.document;
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: page.id, document: { document: JSON.parse(JSON.stringify(document).replace('Intro paragraph.', 'Intro paragraph, edited.')) } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Intro` });
    expect((await gitOutput(name, 'diff', '--name-status', created.head, 'refs/heads/main')).trim().split('\n')).toEqual(['M\taccess/delivery/README.md']);
    expect(await gitOutput(name, 'show', 'refs/heads/main:access/delivery/README.md')).toBe(DELIVERY.replace('Intro paragraph.', 'Intro paragraph, edited.'));
  });
});
