import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, pageTree } from '../helpers/content';
import { expectStatus, seedOrg } from '../helpers/harness';

/**
 * A page created through the API with a title in another script gets GitBook's transliterated slug (its URL and,
 * once exported, its file's name), where it got `page`, `page-2`... before. Evidence of GitBook's scheme: the paths
 * its Git Sync wrote in public repositories (`udalit-zavisshuyu-tranzakciyu.md` for `Удалить зависшую транзакцию`,
 * `chang-jian-wen-ti.md` for `常见问题`, `math-and-tex.md` for `Math & TeX`).
 */
describe('slugs of new pages from non-Latin titles', () => {
  it('transliterates Cyrillic, Chinese, Greek and Arabic titles, and keeps a slug when the title changes', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const cr = await openChangeRequest(space.id, token, 'Scripts');
    const titles = ['Удалить  зависшую транзакцию', '常见问题', '常见问题', 'Ελληνικά', 'مرحبا بالعالم', 'Math & TeX', '한국어'];
    const result = await applyChanges(
      space.id,
      cr.number,
      token,
      titles.map((title) => ({ operation: 'insert_page', title, document: {} })),
    );
    expect(await pageTree(space.id, token, cr.number)).toEqual([
      'udalit-zavisshuyu-tranzakciyu: Удалить  зависшую транзакцию',
      'chang-jian-wen-ti: 常见问题',
      'chang-jian-wen-ti-2: 常见问题',
      'ellinika: Ελληνικά',
      'mrhba-balaalm: مرحبا بالعالم',
      'math-and-tex: Math & TeX',
      // Nothing limax reads: the fallback every title had before.
      'page: 한국어',
    ]);
    // Existing slugs never change: a new title keeps the page's URL.
    const first = result.changes[0].page.id;
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: first, title: 'Файловая система' }]);
    expect((await pageTree(space.id, token, cr.number))[0]).toBe('udalit-zavisshuyu-tranzakciyu: Файловая система');
    expectStatus(await merge(space.id, cr.number, token), 200);
    expect((await pageTree(space.id, token))[1]).toBe('chang-jian-wen-ti: 常见问题');
  });
});
