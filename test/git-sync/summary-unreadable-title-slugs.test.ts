import { describe, expect, it } from 'vitest';
import { api, expectStatus } from '../helpers/harness';
import { importedSpace } from '../helpers/git-sync';

/**
 * Pages whose file names no slug (the root `readme.md`, a folder named in Hangul, which limax cannot transliterate) take
 * their title's slug, `undefined` when the title is unreadable too; GitBook names such pages' files `undefined-1.md`,
 * `undefined-2/README.md`... (gitprobe15a, a GITBOOK-exported Korean repository). The import gave the second slugless
 * page `undefined-1` and then failed on the file that names that slug: 'slug "undefined-1" is already used by a sibling
 * page'. A slug a file names is left to it; the slugless pages are numbered past it.
 */
describe('Git Sync import: unreadable titles beside files named by their slugs', () => {
  it('imports every page, each file keeping the slug it names', async () => {
    const { token, space } = await importedSpace('unreadable-title-slugs', {
      'readme.md': '# 가나다\n\nHome.\n',
      '라마/README.md': '# 라마\n\nA folder named in Hangul.\n',
      'undefined-1.md': '# 바사\n\nNamed by its slug.\n',
      'undefined-2/README.md': '# 아자\n\nAlso named by its slug.\n',
      'undefined-2/undefined.md': '# 차카\n\nA child.\n',
      'SUMMARY.md': '# Table of contents\n\n* [가나다](readme.md)\n* [라마](라마/README.md)\n* [바사](undefined-1.md)\n* [아자](undefined-2/README.md)\n  * [차카](undefined-2/undefined.md)\n',
    });
    const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
    const bySlugPath = new Map<string, string>();
    const walk = (list: any[]) => list.forEach((p) => (bySlugPath.set(p.git?.path, p.path), walk(p.pages ?? [])));
    walk(pages);
    expect(bySlugPath.get('undefined-1.md')).toBe('undefined-1');
    expect(bySlugPath.get('undefined-2/README.md')).toBe('undefined-2');
    expect(bySlugPath.get('undefined-2/undefined.md')).toBe('undefined-2/undefined');
    const others = [bySlugPath.get('readme.md'), bySlugPath.get('라마/README.md')];
    expect(new Set([...others, 'undefined-1', 'undefined-2']).size).toBe(4);
    expect(others.every((slug) => /^undefined(-\d+)?$/.test(slug ?? ''))).toBe(true);
  });
});
