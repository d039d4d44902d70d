/**
 * Heading anchors: the site renderer (site/render) gives each heading an id, its `data.id` when that is a safe
 * explicit id, else a slug of its text; translations (services/translations) pin the source's slug as `data.id`
 * before translating, so `#anchor` links keep resolving in the result. One definition for both.
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
