import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, gitOutput, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on real repositories after an edit: the link in the body of an `{% openapi-operation %}` block (GitBook
 * writes the spec's URL there) was counted as a link to the space's content, whose relative path goes stale, so the
 * author's line was not kept and an edit anywhere in the page exported it as `[...](/openapi/<spec>)`. The block reads
 * its spec from the tag; that line names nothing it reads and stays as written.
 */

const API = [
  '# Pets',
  '',
  '{% openapi-operation spec="petstore" path="/pets" method="get" %}',
  '[OpenAPI petstore](https://petstore3.swagger.io/api/v3/openapi.json)',
  '{% endopenapi-operation %}',
  '',
  'Closing paragraph.',
  '',
].join('\n');

const FILES = {
  'README.md': '# Home\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Pets](pets.md)\n* [Owners](owners.md)\n',
  'pets.md': API,
  'owners.md': API.replace('# Pets', '# Owners'),
};

const paragraph = (text: string) => ({ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }] });

describe("an OpenAPI block's body link", () => {
  it('is exported as written when the page is edited as JSON or as Markdown', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const created = await createRepository('conformance-export-openapi-link', { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-export-openapi-link'), force: true });
    const pages = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const pets = pages.find((p: any) => p.git?.path === 'pets.md');
    const owners = pages.find((p: any) => p.git?.path === 'owners.md');
    const cr = await openChangeRequest(space.id, token, 'Notes');
    const read = expectStatus(await api('GET', `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${pets.id}`, { token }), 200).body;
    const markdown = await pageMarkdown(space.id, owners.id, token, cr.number);
    expect(markdown).toContain('[OpenAPI petstore](https://petstore3.swagger.io/api/v3/openapi.json)');
    await applyChanges(space.id, cr.number, token, [
      { operation: 'update_page', page: pets.id, document: { document: { ...read.document, nodes: [...read.document.nodes, paragraph('A note.')] } } },
      { operation: 'update_page', page: owners.id, document: { markdown: markdown.replace('Closing paragraph.', 'Closing words.') } },
    ]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    await runGitOperation(space.id, token, 'export', { ...githubBody('conformance-export-openapi-link'), commitMessage: `GITBOOK-${cr.number}: Notes`, timestamp: new Date().toISOString() });
    expect((await gitOutput('conformance-export-openapi-link', 'diff', '--name-status', created.head, 'refs/heads/main')).trim()).toBe('M\towners.md\nM\tpets.md');
    expect(await gitOutput('conformance-export-openapi-link', 'show', 'refs/heads/main:pets.md')).toBe(`${API}\nA note.\n`);
    expect(await gitOutput('conformance-export-openapi-link', 'show', 'refs/heads/main:owners.md')).toBe(FILES['owners.md'].replace('Closing paragraph.', 'Closing words.'));
  });
});
