import { describe, expect, it } from 'vitest';
import { parseSummary } from '../../src/services/git-sync/layout';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { createRepository, githubBody, runGitOperation } from '../helpers/git-sync';

/**
 * Found on a real repository (an API's documentation synced with GitBook, gitprobe8b): GitBook writes an OpenAPI
 * reference's pages in SUMMARY.md as a list item holding a fenced YAML block (`* ```yaml` ... `type: builtin:openapi`
 * ... ```` ``` ````). The summary reader took only a fence at the start of a line as an opening one: the item's fence
 * was not one, its closing fence opened a block that never closed, and every page and group after it was left out of
 * the space (the import still succeeded). A fence after a list marker opens a block as well.
 */

const SUMMARY = [
  '# Table of contents',
  '',
  '* [Home](README.md)',
  '',
  '## Reference',
  '',
  '* [API](reference/README.md)',
  '  * ```yaml',
  '    props:',
  '      models: true',
  '    type: builtin:openapi',
  '    ```',
  '* [Errors](reference/errors.md)',
  '',
  '## Guides',
  '',
  '* [Start](guides/start.md)',
  '  * [Deep](guides/deep.md)',
  '',
].join('\n');

const FILES: Record<string, string> = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': SUMMARY,
  'reference/README.md': '# API\n\nEndpoints.\n',
  'reference/errors.md': '# Errors\n\nCodes.\n',
  'guides/start.md': '# Start\n\nFirst.\n',
  'guides/deep.md': '# Deep\n\nSecond.\n',
};

const tree = (pages: Array<{ title: string; path: string | null; children: any[] }>, depth = 0): string[] =>
  pages.flatMap((p) => [`${'  '.repeat(depth)}${p.title} <${p.path ?? ''}>`, ...tree(p.children, depth + 1)]);

describe('SUMMARY.md with a fenced block in a list item (GitBook OpenAPI pages)', () => {
  it('reads the items and groups after the block', () => {
    const pages = parseSummary(SUMMARY, '', (path) => path in FILES);
    expect(tree(pages)).toEqual(['Home <README.md>', 'Reference <>', '  API <reference/README.md>', '  Errors <reference/errors.md>', 'Guides <>', '  Start <guides/start.md>', '    Deep <guides/deep.md>']);
  });

  it('imports every page of such a summary', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    await createRepository('conformance-summary-fenced-item', { files: FILES });
    await runGitOperation(space.id, token, 'import', { ...githubBody('conformance-summary-fenced-item'), force: true });
    const res = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200);
    const lines: string[] = [];
    const walk = (list: any[], depth: number) => list.forEach((p) => (lines.push(`${'  '.repeat(depth)}${p.title} <${p.git?.path ?? ''}>`), walk(p.pages ?? [], depth + 1)));
    walk(res.body.pages, 0);
    expect(lines).toEqual(['Home <README.md>', 'Reference <>', '  API <reference/README.md>', '  Errors <reference/errors.md>', 'Guides <>', '  Start <guides/start.md>', '    Deep <guides/deep.md>']);
  });
});
