/**
 * Pages' slugs from their titles.
 * Apart from revisions.ts, which re-exports it, so that a read that needs only this (a cold isolate's first page read:
 * tree.ts, presenter.ts, computed-pages.ts, spaces.ts) does not evaluate revisions.ts's document writing, its
 * packed-documents (node:zlib) and its delta differ (issue 42 item 7).
 */

/** A URL-safe slug from a title: `Getting Started!` -> `getting-started`. */
export function slugify(title: string): string {
  return latinSlug(title) || 'page';
}

/** The Latin letters and digits of a title as a slug (accents dropped), '' when it has none. */
function latinSlug(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100)
    .replace(/-+$/, '');
}

/**
 * GitBook's slug of a title it reads nothing of (Korean, Hebrew, Hindi, Thai, emoji alone): its Git Sync writes such
 * pages as `undefined.md`, `undefined-1.md`... in the public repositories of Korean spaces (and links them so:
 * `{% content-ref url="undefined-1.md" %}`), where titles mixing scripts keep their Latin part as limax reads it
 * (`2장 코틀린 기초` -> `2.md`, `Tutorial: IntelliJ를 사용한 Coroutines 디버깅` -> `tutorial-intellij-coroutines.md`).
 */
export const UNREADABLE_TITLE_SLUG = 'undefined';

/**
 * GitBook's slug of a new page's title, transliterated as GitBook writes it: Chinese as toneless pinyin syllables
 * (`常见问题` -> `chang-jian-wen-ti`), Cyrillic as `удалить зависшую транзакцию` -> `udalit-zavisshuyu-tranzakciyu`,
 * Greek, Arabic, Japanese kana too, `&` as `and`, apostrophes dropped (`Math & TeX` -> `math-and-tex`). limax
 * gave every slug GitBook had given in the public repositories compared (Russian, Chinese, Latin titles), where
 * `transliteration`, `any-ascii` and `@sindresorhus/slugify` each missed some. A title it cannot read (Korean,
 * Hebrew, Hindi, Thai, emoji alone) gets GitBook's `undefined` (UNREADABLE_TITLE_SLUG). Loaded on first use: its
 * tables (about 480 KB, most of them pinyin's) stay out of the Worker's start; `slugify` stays the synchronous one for
 * anchors and existing callers.
 */
export async function slugOfTitle(title: string): Promise<string> {
  return (await transliteratedSlug(title)) || latinSlug(title) || UNREADABLE_TITLE_SLUG;
}

/** limax's slug of a text (see `slugOfTitle`), at most 100 characters; '' when it reads nothing of it. */
export async function transliteratedSlug(text: string): Promise<string> {
  const { default: limax } = await import('limax');
  const slug = limax(text, { tone: false }).slice(0, 100).replace(/-+$/, '');
  return /^[a-z0-9][a-z0-9-]*$/.test(slug) ? slug : '';
}

/** `base`, or `base-1`, `base-2`... : the first slug no sibling (other than `self`) uses. */
export function uniqueSlug(base: string, siblings: ReadonlyArray<readonly [id: string, slug: string]>, self?: string): string {
  const taken = new Set(siblings.filter(([id]) => id !== self).map(([, slug]) => slug));
  return firstFreeSlug(base, (slug) => taken.has(slug));
}

/**
 * `base`, or `base-1`, `base-2`... : the first that is not taken. GitBook numbers a repeated slug from 1 (a second page
 * titled "Create the Map" beside one is `create-the-map-1`, its file `create-the-map-1.md`: jigx-docs, GITBOOK-1).
 */
export function firstFreeSlug(base: string, taken: (slug: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 1; ; n++) {
    const candidate = `${base.slice(0, 95)}-${n}`;
    if (!taken(candidate)) return candidate;
  }
}
