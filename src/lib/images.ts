import { imageSize } from 'image-size';

/** Raster types accepted for integrations' icons and previews (read from the bytes, never trusted from the client). */
const IMAGE_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

/** The content type of a PNG, JPEG, GIF or WebP image read from its header; undefined for anything else. */
export function imageContentType(bytes: Uint8Array): string | undefined {
  try {
    const size = imageSize(bytes);
    return size.type && size.width && size.height ? IMAGE_TYPES[size.type] : undefined;
  } catch {
    return undefined;
  }
}
