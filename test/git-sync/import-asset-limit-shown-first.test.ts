import { afterEach, describe, expect, it } from 'vitest';
import { PNG_1x1 } from '../helpers/content';
import { api, expectStatus } from '../helpers/harness';
import { importedSpace } from '../helpers/git-sync';
import { GIT_IMPORT_LIMITS } from '../../src/services/git-sync/import';

/**
 * More assets than one import stores (GIT_IMPORT_LIMITS.maxAssets): the files the pages show are stored first, the others
 * wait for the next import with a warning. The cut was by path, so an image a page shows could be left out while assets
 * no page shows were stored (probe20: Pentest-Everything, 3,156 assets, `image (842).png` shown by a page and not imported).
 */
const limit = GIT_IMPORT_LIMITS.maxAssets;
afterEach(() => {
  GIT_IMPORT_LIMITS.maxAssets = limit;
});

describe('Git Sync import: more assets than one import stores', () => {
  it('stores the files pages show first', { timeout: 120_000 }, async () => {
    GIT_IMPORT_LIMITS.maxAssets = 2;
    const png = (tag: string) => ({ base64: btoa(atob(PNG_1x1) + tag) });
    const { token, space } = await importedSpace(`asset-limit-${crypto.randomUUID().slice(0, 8)}`, {
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n',
      'README.md': '# Home\n\n![Shown](.gitbook/assets/z-shown.png)\n',
      '.gitbook/assets/a.png': png('a'),
      '.gitbook/assets/b.png': png('b'),
      '.gitbook/assets/c.png': png('c'),
      '.gitbook/assets/z-shown.png': png('z'),
    });
    const names = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/files?limit=100`, { token }), 200).body.items.map((f: any) => f.name);
    expect(names).toHaveLength(2);
    expect(names).toContain('z-shown.png');
    const info = expectStatus(await api('GET', `/v1/spaces/${space.id}/git/info`, { token }), 200).body;
    expect(JSON.stringify(info)).toMatch(/not imported \(more than 2 files in one import\)/);
  });
});
