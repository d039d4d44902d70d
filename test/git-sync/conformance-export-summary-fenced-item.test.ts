import { describe, expect, it } from 'vitest';
import { applyChanges, merge, openChangeRequest } from '../helpers/content';
import { gitOutput, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * GitBook writes an OpenAPI reference's pages in SUMMARY.md as a list item holding a fenced YAML block (`* ```yaml`,
 * `type: builtin:openapi`, its spec, ```` ``` ````), the first child of the page above it. The import reads no page
 * from it (conformance-summary-fenced-item); an export writing the summary again (a page added in the app) dropped
 * the block, 11 lines of each reference (gitprobe18b, mobiusflow/docs-gitbook-public: two references lost on adding
 * a page). Its lines are kept where they were, as the author's other lines that are no page are.
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
  '    type: builtin:openapi',
  '    props:',
  '      models: false',
  '    dependencies:',
  '      spec:',
  '        ref:',
  '          kind: openapi',
  '          spec: shop-api',
  '    ```',
  '  * [Errors](reference/errors.md)',
  '',
].join('\n');

describe('Git Sync export: a summary holding an OpenAPI reference as a fenced item', () => {
  it('keeps the fenced item where it was when the summary is written again', { timeout: 120_000 }, async () => {
    const name = 'conformance-export-summary-fenced-item';
    const { token, space, head } = await importedSpace(name, {
      'README.md': '# Home\n\nWelcome.\n',
      'SUMMARY.md': SUMMARY,
      'reference/README.md': '# API\n\nEndpoints.\n',
      'reference/errors.md': '# Errors\n\nCodes.\n',
    });
    const cr = await openChangeRequest(space.id, token, 'Add');
    await applyChanges(space.id, cr.number, token, [{ operation: 'insert_page', title: 'Changelog', document: { markdown: '# Changelog\n\nNews.\n' } }]);
    expect((await merge(space.id, cr.number, token)).status).toBe(200);
    await runGitOperation(space.id, token, 'export', { ...githubBody(name), commitMessage: `GITBOOK-${cr.number}: Add` });
    expect((await gitOutput(name, 'diff', '--name-status', head, 'refs/heads/main')).trim().split('\n').sort()).toEqual(['A\tchangelog.md', 'M\tSUMMARY.md']);
    expect(await gitOutput(name, 'show', 'refs/heads/main:SUMMARY.md')).toBe(`${SUMMARY}\n***\n\n* [Changelog](changelog.md)\n`);
  });
});
