/**
 * A page's layout as GitBook's front matter holds it (`layout:`), flattened into the fields a page stores. Kept
 * apart from the converter so that the content model can name it without loading the Markdown parser.
 */
export interface PageLayoutFrontmatter {
  width: 'default' | 'wide';
  cover: boolean;
  coverSize: 'hero' | 'full';
  title: boolean;
  description: boolean;
  tableOfContents: boolean;
  outline: boolean;
  pagination: boolean;
  metadata: boolean;
}

export const LAYOUT_PARTS = ['title', 'description', 'tableOfContents', 'outline', 'pagination', 'metadata'] as const;
export const DEFAULT_PAGE_LAYOUT: PageLayoutFrontmatter = {
  width: 'default',
  cover: true,
  coverSize: 'hero',
  title: true,
  description: true,
  tableOfContents: true,
  outline: true,
  pagination: true,
  metadata: true,
};

/** A layout in GitBook's front matter form; undefined for the default layout, which front matter leaves out. */
export function layoutFrontmatter(layout: PageLayoutFrontmatter | undefined): Record<string, unknown> | undefined {
  if (!layout || LAYOUT_KEYS.every((key) => layout[key] === DEFAULT_PAGE_LAYOUT[key])) return undefined;
  return {
    width: layout.width,
    cover: { visible: layout.cover, size: layout.coverSize },
    ...Object.fromEntries(LAYOUT_PARTS.map((part) => [part, { visible: layout[part] }])),
  };
}
const LAYOUT_KEYS = Object.keys(DEFAULT_PAGE_LAYOUT) as Array<keyof PageLayoutFrontmatter>;
