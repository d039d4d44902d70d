/**
 * The front matter keys a page keeps as fields of its own (content batches read them, page reads write
 * them back); the others (`cover`, `layout`, `if`...) come back with the source's head while these are
 * unchanged. A module of its own: page reads name them without loading a converter.
 */
export const PAGE_FIELD_FRONTMATTER_KEYS = ['description', 'icon', 'hidden', 'noIndex', 'noRobotsIndex', 'layout', 'if'] as const;
