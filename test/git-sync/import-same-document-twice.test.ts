import { describe, expect, it } from 'vitest';
import { control, githubBody, importedSpace, runGitOperation } from '../helpers/git-sync';
import { api, expectStatus } from '../helpers/harness';

/**
 * A push that gives a changed page the very document a new page of the same push has (GitBook's "Wiki Overhaul" of
 * AdvancedTeleport's docs filled several pages with the same one-line placeholder, gitprobe16a): the import's writer
 * held that document twice, once with its JSON (the changed page's, to be stored as a delta of its previous version)
 * and once without (the new page's, its JSON let go once packed). Both were taken for the delta; the one without JSON
 * became an empty delta, stored last under the document's hash, so the revision, the pages and the index catch-up
 * answered 500 (Unexpected end of JSON input) from then on.
 */

const PLACEHOLDER = 'Planned for the next major version of the plugin.';

describe('Git Sync import: one document for a changed page and a new page of the same push', () => {
  it('stores it readable: the revision and both pages read back', { timeout: 240_000 }, async () => {
    const name = `same-document-${crypto.randomUUID().slice(0, 8)}`;
    const { token, space } = await importedSpace(name, {
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Signs](signs.md)\n',
      'README.md': '# Home\n\nThe first page.\n',
      'signs.md': `# Signs\n\nSigns teleport a player who clicks them to the warp written on their second line, once the sign is made with the right permission.\n`,
    });

    await control('commit', {
      name,
      message: 'GITBOOK-35: Wiki Overhaul',
      files: {
        'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Signs](signs.md)\n* [Portals](portals.md)\n',
        'signs.md': `# Signs\n\n${PLACEHOLDER}\n`,
        'portals.md': `# Portals\n\n${PLACEHOLDER}\n`,
      },
    });
    await runGitOperation(space.id, token, 'import', githubBody(name));

    const head = expectStatus(await api('GET', `/v1/spaces/${space.id}`, { token }), 200).body.revision;
    expectStatus(await api('GET', `/v1/spaces/${space.id}/revisions/${head}`, { token }), 200);
    const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    for (const title of ['Signs', 'Portals']) {
      const page = pages.find((p) => p.title === title);
      const markdown = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/page/${page.id}?format=markdown`, { token }), 200).body.markdown;
      expect(markdown).toContain(PLACEHOLDER);
    }
  });
});
