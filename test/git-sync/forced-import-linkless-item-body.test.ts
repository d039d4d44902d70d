import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, pageMarkdown } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';

/**
 * A forced import (`force: true`, the integrations' setup) makes the space a fresh import of the commit. A summary item
 * without a link (`* Section`) has no file, so a fresh import gives its page no body; one given a body in the app kept it
 * through a forced import (the re-read of pages edited since the sync skipped pages without a file). An unforced import
 * keeps it, for the next export to write (it then gets a file).
 */

const FILES = {
  'README.md': '# Home\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* Section\n    * [Nested](nested.md)\n',
  'nested.md': '# Nested\n\nA page under an item without a link.\n',
};

const sectionOf = async (spaceId: string, token: string) =>
  expectStatus(await api('GET', `/v1/spaces/${spaceId}/content/pages`, { token }), 200).body.pages.find((page: any) => page.title === 'Section');

describe('forced-import-linkless-item-body', { timeout: 300_000 }, () => {
  it('a forced import takes away the body an item without a link was given in the app; an unforced one keeps it', async () => {
    const name = `forced-linkless-body-${crypto.randomUUID().slice(0, 8)}`;
    const { org, token, space } = await importedSpace(name, FILES);
    const section = await sectionOf(space.id, token);
    const cr = await openChangeRequest(space.id, token, 'Body');
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: section.id, document: { markdown: '# Section\n\nA body given in the app.\n' } }]);
    expectStatus(await merge(space.id, cr.number, token), 200);
    expect(await pageMarkdown(space.id, section.id, token)).toContain('A body given in the app.');

    await runGitOperation(space.id, token, 'import', { ...githubBody(name), timestamp: new Date().toISOString() });
    expect(await pageMarkdown(space.id, section.id, token)).toContain('A body given in the app.');

    await runGitOperation(space.id, token, 'import', { ...githubBody(name), force: true, timestamp: new Date().toISOString() });
    const fresh = await createSpace(org.id, token);
    await runGitOperation(fresh.id, token, 'import', { ...githubBody(name), force: true });
    const freshSection = await sectionOf(fresh.id, token);
    expect(await pageMarkdown(space.id, section.id, token)).toBe(await pageMarkdown(fresh.id, freshSection.id, token));
    expect(await pageMarkdown(space.id, section.id, token)).not.toContain('A body given in the app.');
    expect((await sectionOf(space.id, token)).id).toBe(section.id);
  });
});
