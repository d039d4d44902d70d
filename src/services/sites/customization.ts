import { CUSTOMIZATION_GROUPS, type GroupTree } from '../../schemas/customization-groups';
import type {
  PageAction,
  SiteCustomizationInput,
  SiteCustomizationSettings,
  SiteSpaceCustomizationOverride,
} from '../../schemas/site-customization';

/**
 * Site customization: the defaults, the PUT body made whole, a site space's override (its PATCHes and
 * its merge over the site's settings). The checks of what the settings refer to are customization-references.ts's:
 * they build statements and parse conditions, which a published page's settings never need (issue 42 item 7).
 *
 * Merging follows the groups of the schema (CUSTOMIZATION_GROUPS: `styling`, `styling.sidebar`,
 * `header`, `footer`, `ai`, ...): a group is merged field by field, any other value (a color, the
 * header's `links`, the favicon, the announcement) is replaced whole.
 */

type Settings = SiteCustomizationSettings;
type Override = SiteSpaceCustomizationOverride;
type Json = Record<string, unknown>;

const DEFAULTS: Settings = {
  styling: {
    theme: 'clean',
    primaryColor: { light: '#346DDB', dark: '#346DDB' },
    infoColor: { light: '#787878', dark: '#787878' },
    successColor: { light: '#00C950', dark: '#00C950' },
    warningColor: { light: '#FE9A00', dark: '#FE9A00' },
    dangerColor: { light: '#FB2C36', dark: '#FB2C36' },
    corners: 'rounded',
    depth: 'subtle',
    links: 'default',
    font: 'Inter',
    monospaceFont: 'IBMPlexMono',
    background: 'plain',
    icons: 'regular',
    codeTheme: { default: { light: 'default-light', dark: 'default-dark' }, openapi: { light: 'default-light', dark: 'default-dark' } },
    sidebar: { background: 'default', list: 'default' },
    search: 'subtle',
  },
  internationalization: { locale: 'en' },
  favicon: {},
  header: { preset: 'default', links: [] },
  footer: { groups: [] },
  themes: { default: 'system', toggeable: true },
  pdf: { enabled: true },
  feedback: { enabled: false },
  // No AI answers here (GitBook's ask operations are not served): with `search` or `assistant`, GitBook's
  // renderer would ask this API for recommended questions and answers on every search.
  ai: { mode: 'none' },
  advancedCustomization: { enabled: true },
  git: { showEditLink: false },
  pageActions: { items: ['assistant', 'markdown', 'external-ai', 'mcp'], externalAI: true, markdown: true, mcp: true },
  externalLinks: { target: 'self' },
  pagination: { enabled: true },
  trademark: { enabled: true },
  privacyPolicy: {},
  socialPreview: {},
  socialAccounts: [],
  insights: { trackingCookie: true },
};

/** The settings of a site never customized. A fresh copy: callers may change it. */
export function defaultCustomization(): Settings {
  return structuredClone(DEFAULTS);
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `top` over `base`: groups merged field by field, other values replaced; absent and null values of `top` change nothing. */
function overlay(base: Json, top: Json, tree: GroupTree): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(top)) {
    if (value === undefined || value === null) continue;
    const sub = tree[key];
    out[key] = sub && isObject(value) ? overlay(isObject(base[key]) ? base[key] : {}, value, sub) : value;
  }
  return out;
}

type PageActionsInput = { items?: PageAction[] | null; externalAI?: boolean | null; markdown?: boolean | null; mcp?: boolean | null };
const SWITCHES = [
  ['externalAI', 'external-ai'],
  ['markdown', 'markdown'],
  ['mcp', 'mcp'],
] as const;

/**
 * The page menu after a change: `items` (if given) replaces the list, then each switch given adds its
 * action at the end or removes it; the switches answered are read back from the list, so both forms
 * always agree.
 */
function resolvePageActions(base: Settings['pageActions'], change: PageActionsInput | null | undefined): Settings['pageActions'] {
  let items = change?.items ?? base.items;
  for (const [name, action] of SWITCHES) {
    const on = change?.[name];
    if (on === true && !items.includes(action)) items = [...items, action];
    if (on === false) items = items.filter((item) => item !== action);
  }
  return { items, externalAI: items.includes('external-ai'), markdown: items.includes('markdown'), mcp: items.includes('mcp') };
}

function overlaySettings(base: Settings, top: SiteCustomizationInput | Override): Settings {
  const merged = overlay(base, top, CUSTOMIZATION_GROUPS) as Settings;
  return { ...merged, pageActions: resolvePageActions(base.pageActions, top.pageActions) };
}

/** The settings a PUT body stands for: what it gives, the defaults for what it leaves out. */
export function settingsFromInput(input: SiteCustomizationInput): Settings {
  const { updatedAt: _ignored, ...given } = input;
  return overlaySettings(defaultCustomization(), given);
}

/** A site space's settings: its override over the site's. */
export function applyOverride(site: Settings, override: Override | null): Settings {
  return override ? overlaySettings(site, override) : site;
}

/** `patch` over a group of an override: omitted unchanged, null removed, groups patched field by field. */
function patchGroup(current: Json, patch: Json, tree: GroupTree): Json {
  const out: Json = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const sub = tree[key];
    if (value === null) delete out[key];
    else if (sub && isObject(value)) out[key] = patchGroup(isObject(out[key]) ? out[key] : {}, value, sub);
    else out[key] = value;
    if (isObject(out[key]) && sub && Object.keys(out[key]).length === 0) delete out[key];
  }
  return out;
}

/**
 * A site space's override after a PATCH: a field omitted is unchanged, a field set to null is no longer
 * overridden (the site's value shows again). Null when nothing is overridden any more.
 */
export function mergeOverridePatch(current: Override | null, patch: Override): Override | null {
  const next = patchGroup(current ?? {}, patch, CUSTOMIZATION_GROUPS);
  return Object.keys(next).length ? (next as Override) : null;
}
