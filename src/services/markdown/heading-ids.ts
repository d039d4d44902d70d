/**
 * Heading anchors, one definition for every reader: `markdownToDocument` stores each heading's id in
 * `meta.id` (GitBook's field for the id used in URLs), the site renderer (site/render) gives the heading
 * that id, and translations (services/translations) pin the source's slug as `data.id` before
 * translating, so `#anchor` links keep resolving in the result.
 *
 * GitBook's rules: an explicit `data.id` wins; otherwise the heading's text, lower-cased, with runs of
 * anything but letters and digits (of any script) made one `-`; a second heading with the same id gets
 * `-2`, a third `-3`.
 */

/** What a heading's `data.id` must look like to be used as its id. */
export const EXPLICIT_HEADING_ID = /^[-a-z0-9.+_]{1,100}$/;

/** A heading's generated id: lower-case letters and digits of any script, joined by `-`. */
export function headingSlug(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
}

/**
 * Hands out the ids of a page's headings in document order, each unique: the explicit id when it is
 * valid and free, else the slug of the text (`section` when the text has no letter or digit), suffixed
 * `-2`, `-3`... when taken. `reserved` ids (the site layout's own) are never handed out.
 */
export class HeadingIdAllocator {
  private readonly taken: Set<string>;

  constructor(reserved: Iterable<string> = []) {
    this.taken = new Set(reserved);
  }

  /** Marks ids as used before allocation starts (explicit ids set further down the page). */
  reserve(id: string) {
    this.taken.add(id);
  }

  allocate(explicitId: string | undefined, text: string): string {
    const valid = explicitId !== undefined && EXPLICIT_HEADING_ID.test(explicitId);
    if (valid && !this.taken.has(explicitId)) {
      this.taken.add(explicitId);
      return explicitId;
    }
    const base = (valid ? explicitId : headingSlug(text)) || 'section';
    let id = base;
    for (let n = 2; this.taken.has(id); n++) id = `${base}-${n}`;
    this.taken.add(id);
    return id;
  }
}
