import { describe, expect, it } from 'vitest';
import { applyChanges, createSpace, merge, openChangeRequest, pageTree } from '../helpers/content';
import { expectStatus, seedOrg } from '../helpers/harness';

/**
 * A page created through the API with a title in another script gets GitBook's transliterated slug (its URL and,
 * once exported, its file's name), where it got `page`, `page-2`... before. Evidence of GitBook's scheme: the paths
 * its Git Sync wrote in public repositories (`udalit-zavisshuyu-tranzakciyu.md` for `Удалить зависшую транзакцию`,
 * `chang-jian-wen-ti.md` for `常见问题`, `math-and-tex.md` for `Math & TeX`; `undefined.md`, `undefined-1.md` for Korean
 * titles, `2.md` for `2장 코틀린 기초`).
 */
describe('slugs of new pages from non-Latin titles', () => {
  it('transliterates Cyrillic, Chinese, Greek and Arabic titles, and keeps a slug when the title changes', async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    const space = await createSpace(org.id, token);
    const cr = await openChangeRequest(space.id, token, 'Scripts');
    const titles = ['Удалить  зависшую транзакцию', '常见问题', '常见问题', 'Ελληνικά', 'مرحبا بالعالم', 'Math & TeX', '한국어', 'שלום עולם', 'नमस्ते दुनिया', 'สวัสดีครับ', '2장 코틀린 기초', 'Tutorial: IntelliJ를 사용한 Coroutines 디버깅'];
    const result = await applyChanges(
      space.id,
      cr.number,
      token,
      titles.map((title) => ({ operation: 'insert_page', title, document: {} })),
    );
    expect(await pageTree(space.id, token, cr.number)).toEqual([
      'udalit-zavisshuyu-tranzakciyu: Удалить  зависшую транзакцию',
      'chang-jian-wen-ti: 常见问题',
      'chang-jian-wen-ti-1: 常见问题',
      'ellinika: Ελληνικά',
      'mrhba-balaalm: مرحبا بالعالم',
      'math-and-tex: Math & TeX',
      // Nothing limax reads (Korean, Hebrew, Hindi, Thai): GitBook's `undefined`, as its Git Sync names such pages' files
      // (`undefined.md`, `undefined-1.md`... in Korean spaces' repositories); `page` before.
      'undefined: 한국어',
      'undefined-1: שלום עולם',
      'undefined-2: नमस्ते दुनिया',
      'undefined-3: สวัสดีครับ',
      // Mixed scripts: the Latin part, as GitBook wrote `2.md` and `tutorial-intellij-coroutines.md` for these titles.
      '2: 2장 코틀린 기초',
      'tutorial-intellij-coroutines: Tutorial: IntelliJ를 사용한 Coroutines 디버깅',
    ]);
    // Existing slugs never change: a new title keeps the page's URL.
    const first = result.changes[0].page.id;
    await applyChanges(space.id, cr.number, token, [{ operation: 'update_page', page: first, title: 'Файловая система' }]);
    expect((await pageTree(space.id, token, cr.number))[0]).toBe('udalit-zavisshuyu-tranzakciyu: Файловая система');
    expectStatus(await merge(space.id, cr.number, token), 200);
    expect((await pageTree(space.id, token))[1]).toBe('chang-jian-wen-ti: 常见问题');
  });
});
