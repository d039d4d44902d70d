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

