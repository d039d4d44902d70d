/**
 * A site's paths, with no imports: what the site's structure code (present.ts), Git Sync's redirects (which the site
 * model's writes reach, so they cannot import present.ts) and the site's reader share.
 */

type Place = { path: string; isDefault: boolean };

/** The path segments of a site space's published URL, under its section if any (the defaults have none). */
export function siteSpaceSegments(section: Place | null, siteSpace: Place): string[] {
  return [...(section && !section.isDefault ? [section.path] : []), ...(siteSpace.isDefault ? [] : [siteSpace.path])];
}

/** A path's segments as a redirect's source: each percent-encoded, `!'()*` too, as the sources' pattern wants. */
export function sourceOfSegments(segments: string[]): string {
  return `/${segments.map((p) => encodeURIComponent(p).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)).join('/')}`;
}
