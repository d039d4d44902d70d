import type { SiteCustomizationSettings } from '../schemas/site-customization';

/**
 * The site's colors as CSS custom properties, for its light and dark themes. Text and link colors are
 * chosen for contrast (WCAG 2: at least 4.5:1 for text), whatever primary color the site picked: the
 * primary color is darkened (light theme) or lightened (dark theme) until links on the background pass,
 * and text on a primary background is black or white, whichever contrasts more.
 */

type Rgb = [number, number, number];

function parseHex(hex: string): Rgb {
  let h = String(hex).replace(/^#/, '');
  if (!/^[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$/.test(h)) return [52, 109, 219];
  if (h.length === 3) h = [...h].map((c) => c + c).join('');
  const n = Number.parseInt(h, 16);
  return Number.isFinite(n) && h.length === 6 ? [(n >> 16) & 255, (n >> 8) & 255, n & 255] : [52, 109, 219];
}

const toHex = ([r, g, b]: Rgb) => `#${[r, g, b].map((v) => Math.round(Math.min(255, Math.max(0, v))).toString(16).padStart(2, '0')).join('')}`;

function luminance([r, g, b]: Rgb): number {
  const channel = (v: number) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

export function contrast(a: string, b: string): number {
  const [la, lb] = [luminance(parseHex(a)), luminance(parseHex(b))];
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/** `a` moved toward `b` by `amount` (0..1). */
function mix(a: string, b: string, amount: number): string {
  const [x, y] = [parseHex(a), parseHex(b)];
  return toHex([0, 1, 2].map((i) => x[i] + (y[i] - x[i]) * amount) as Rgb);
}

/**
 * `color`, moved toward black or white in small steps until it reaches `ratio` against `background`. Each step is
 * `mix` and `contrast` of its hex form, computed on the rounded channels that hex form holds (no hex text written and
 * read again per step: a cold isolate's first page ran this loop's regular expressions a few hundred times).
 */
export function readableOn(color: string, background: string, ratio = 4.5): string {
  const backgroundLuminance = luminance(parseHex(background));
  const target = backgroundLuminance > 0.4 ? '#000000' : '#ffffff';
  const [from, to] = [parseHex(color), parseHex(target)];
  for (let step = 0; step <= 20; step++) {
    const candidate = from.map((v, i) => Math.round(Math.min(255, Math.max(0, v + (to[i] - v) * (step / 20))))) as Rgb;
    const l = luminance(candidate);
    if ((Math.max(l, backgroundLuminance) + 0.05) / (Math.min(l, backgroundLuminance) + 0.05) >= ratio) return toHex(candidate);
  }
  return target;
}

/** Black or white text on `background`, whichever contrasts more. */
export const textOn = (background: string) => (contrast('#ffffff', background) >= contrast('#111111', background) ? '#ffffff' : '#111111');

interface Palette {
  bg: string;
  text: string;
  muted: string;
  border: string;
  codeBg: string;
}

const LIGHT: Palette = { bg: '#ffffff', text: '#1b1f24', muted: '#545d68', border: '#d5dbe1', codeBg: '#f4f6f8' };
const DARK: Palette = { bg: '#111418', text: '#e8eaed', muted: '#a3acb7', border: '#2f3740', codeBg: '#1b2027' };

function variables(base: Palette, settings: SiteCustomizationSettings, mode: 'light' | 'dark'): string {
  const styling = settings.styling;
  // Every color reaches the stylesheet as the six hex digits parseHex reads from it, whatever the
  // stored value holds (a value like `red;}body{...` or `</style>` cannot leave its declaration).
  const primary = toHex(parseHex(styling.primaryColor[mode]));
  const tint = styling.tint?.color[mode];
  const bg = tint ? mix(base.bg, tint, mode === 'light' ? 0.04 : 0.06) : base.bg;
  const onPrimary = textOn(primary);
  const vars: Record<string, string> = {
    '--color-primary': primary,
    '--color-on-primary': onPrimary,
    '--color-link': readableOn(primary, bg),
    '--color-text': base.text,
    '--color-bg': bg,
    '--color-muted': readableOn(base.muted, bg),
    '--color-border': base.border,
    '--color-code-bg': tint ? mix(base.codeBg, tint, 0.06) : base.codeBg,
    '--color-info': readableOn(styling.infoColor[mode], bg, 3),
    '--color-success': readableOn(styling.successColor[mode], bg, 3),
    '--color-warning': readableOn(styling.warningColor[mode], bg, 3),
    '--color-danger': readableOn(styling.dangerColor[mode], bg, 3),
  };
  return `${Object.entries(vars)
    .map(([name, value]) => `${name}:${value}`)
    .join(';')};color-scheme:${mode}`;
}

const RADIUS = { straight: '0', rounded: '6px', circular: '12px' } as const;

/**
 * The site's theme stylesheet (served inline, allowed by its hash in the Content-Security-Policy):
 * the light palette, the dark one for `prefers-color-scheme: dark` unless the visitor chose light
 * (`data-theme` on the root element, set by the toggle script), and the dark one when chosen.
 */
export function themeCss(settings: SiteCustomizationSettings): string {
  const light = variables(LIGHT, settings, 'light');
  const dark = variables(DARK, settings, 'dark');
  const radius = `--radius:${RADIUS[settings.styling.corners] ?? RADIUS.rounded}`;
  return [
    `:root{${light};${radius}}`,
    `@media (prefers-color-scheme: dark){:root:not([data-theme=light]){${dark}}}`,
    `:root[data-theme=dark]{${dark}}`,
  ].join('\n');
}
