/**
 * HTML text for the published site: a tagged template that escapes every interpolated value unless it
 * is already `Html` (markup built here or by the renderer), so no value reaches the page unescaped by
 * accident. Attribute values are escaped the same way (quotes included); URLs go through `safeHref`.
 */

import { escapeHtml } from '../lib/escape-html';

export class Html {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

type Value = Html | string | number | null | undefined | false | Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

/** Markup that is already safe (the renderer's output, constant strings). */
export const raw = (markup: string) => new Html(markup);

/**
 * A URL fit for an `href`/`src`: relative URLs and http(s)/mailto ones; anything else (javascript:,
 * data:, vbscript:...) becomes null, and the link is left out.
 */
export function safeHref(url: string | null | undefined): string | null {
  if (!url) return null;
  const trimmed = url.trim();
  // Browsers read a backslash as a slash and drop tabs and newlines: `/\evil.example` or `/\t/evil.example`
  // would be protocol-relative links to another host.
  if (/^(\/|#|\?)/.test(trimmed)) return /^\/[\\/]/.test(trimmed.replace(/[\u0000-\u001f\u007f]/g, '')) || /[\\\u0000-\u001f\u007f]/.test(trimmed) ? null : trimmed;
  try {
    const parsed = new URL(trimmed);
    return ['http:', 'https:', 'mailto:'].includes(parsed.protocol) ? parsed.href : null;
  } catch {
    return null;
  }
}
