/**
 * Site customization: the schemas (GitBook 0.202's shape, our limits), the defaults, a PUT body made
 * whole, a site space's override and its PATCHes, and the checks of conditions and references.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../../src/db/client';
import { ApiError } from '../../../src/lib/errors';
import {
  SiteCustomizationInputSchema,
  SiteCustomizationSettingsSchema,
  SiteSpaceCustomizationOverrideSchema,
  type SiteCustomizationSettings,
  type SiteSpaceCustomizationOverride,
} from '../../../src/schemas/site-customization';
import { applyOverride, defaultCustomization, mergeOverridePatch, settingsFromInput } from '../../../src/services/sites/customization';
import {
  checkCustomizationReferences,
  contentReferencesOf,
  validateConditions,
  validateCustomization,
  type LocatedRef,
} from '../../../src/services/sites/customization-references';
import { PNG_1x1, applyChanges, createSpace, merge, openChangeRequest } from '../../helpers/content';
import { countingD1 } from '../../helpers/counting-d1';
import { GITBOOK_0202, gitbookErrors, gitbookValidator } from '../../helpers/gitbook-schema';
import { api, expectStatus, seedOrg } from '../../helpers/harness';

// ---------------------------------------------------------------------------------------------
// Helpers

const gitbookSettings = gitbookValidator('SiteCustomizationSettings', GITBOOK_0202.components);

function expectGitbookValid(settings: unknown) {
  expect(gitbookErrors(gitbookSettings, settings)).toBe('valid');
  expect(SiteCustomizationSettingsSchema.safeParse(settings).error?.issues).toBeUndefined();
}

function parseInput(body: unknown): SiteCustomizationSettings {
  const parsed = SiteCustomizationInputSchema.safeParse(body);
  expect(parsed.error?.issues).toBeUndefined();
  return settingsFromInput(parsed.data!);
}

/** The paths of the issues a refused body has. */
function refusedAt(schema: { safeParse(v: unknown): { success: boolean; error?: { issues: Array<{ path: PropertyKey[] }> } } }, body: unknown): string[] {
  const parsed = schema.safeParse(body);
  expect(parsed.success, `accepted ${JSON.stringify(body).slice(0, 200)}`).toBe(false);
  return parsed.error!.issues.map((issue) => issue.path.join('.'));
}

const url = (n: number) => ({ kind: 'url' as const, url: `https://example.com/${n}` });
const link = (n: number) => ({ title: `Link ${n}`, to: url(n) });

/** Every field of our specification, with values other than the defaults. */
const FULL_INPUT = {
  title: 'Acme Docs',
  styling: {
    theme: 'bold',
    primaryColor: { light: '#112233', dark: '#445566' },
    tint: { color: { light: '#abc', dark: '#DEF' } },
    infoColor: { light: '#000001', dark: '#000002' },
    successColor: { light: '#000003', dark: '#000004' },
    warningColor: { light: '#000005', dark: '#000006' },
    dangerColor: { light: '#000007', dark: '#000008' },
    corners: 'circular',
    depth: 'flat',
    links: 'accent',
    font: 'Roboto',
    monospaceFont: 'FiraCode',
    icons: 'duotone',
    sidebar: { background: 'filled', list: 'pill' },
    search: 'prominent',
  },
  favicon: { emoji: '📘' },
  header: {
    logo: { light: 'https://cdn.example.com/logo.png', dark: 'https://cdn.example.com/logo-dark.png' },
    primaryLink: { kind: 'url', url: 'https://acme.example.com' },
    links: [
      { title: 'Home', style: 'link', to: url(1), links: [], condition: 'visitor.claims.isBetaUser' },
      { title: 'Products', to: null, links: [link(2), link(3)] },
      { title: 'Sign up', style: 'button-primary', to: url(4), links: [] },
    ],
  },
  footer: {
    logo: { light: 'https://cdn.example.com/f.png', dark: 'https://cdn.example.com/f-dark.png' },
    groups: [{ title: 'Company', links: [link(5), link(6)] }],
    copyright: '© Acme',
  },
  announcement: { enabled: true, message: 'We have a new look', link: link(7), style: 'warning' },
  themes: { default: 'dark', toggeable: false },
  pdf: { enabled: false },
  feedback: { enabled: true },
  ai: { mode: 'assistant', suggestions: ['How do I start?', 'What is Acme?'] },
  advancedCustomization: { enabled: false },
  git: { showEditLink: true },
  pageActions: { externalAI: false, markdown: true, mcp: false },
  externalLinks: { target: 'blank' },
  pagination: { enabled: false },
  trademark: { enabled: false },
  privacyPolicy: { url: 'https://acme.example.com/privacy' },
  socialPreview: { url: 'https://acme.example.com/preview.png' },
  insights: { trackingCookie: false },
};

// ---------------------------------------------------------------------------------------------

describe('defaults', () => {
  it('are valid against GitBook 0.202 and our schema, with every field it requires', () => {
    const settings = defaultCustomization();
    expectGitbookValid(settings);
    expect(settings.updatedAt).toBeUndefined();
    // The validator does refuse: without a required group, or with a color GitBook would not take.
    const { styling: _, ...withoutStyling } = settings;
    expect(gitbookErrors(gitbookSettings, withoutStyling)).not.toBe('valid');
    expect(gitbookErrors(gitbookSettings, { ...settings, styling: { ...settings.styling, primaryColor: { light: 'red', dark: 'red' } } })).not.toBe('valid');
    expect(settings.pageActions).toEqual({ items: ['assistant', 'markdown', 'external-ai', 'mcp'], externalAI: true, markdown: true, mcp: true });
    // No AI search or assistant by default: this API answers none of GitBook's ask operations.
    expect(settings.ai).toEqual({ mode: 'none' });
  });

  it('are a fresh copy each time', () => {
    const a = defaultCustomization();
    a.styling.primaryColor.light = '#000000';
    expect(defaultCustomization().styling.primaryColor.light).not.toBe('#000000');
  });
});

describe('the PUT body', () => {
  it('takes every field of the specification and gives settings valid against GitBook 0.202', () => {
    const settings = parseInput(FULL_INPUT);
    expectGitbookValid(settings);
    expect(settings.title).toBe('Acme Docs');
    expect(settings.styling.tint).toEqual({ color: { light: '#abc', dark: '#DEF' } });
    expect(settings.styling.sidebar).toEqual({ background: 'filled', list: 'pill' });
    // Left out: defaults, also inside a group that was given.
    expect(settings.styling.codeTheme).toEqual(defaultCustomization().styling.codeTheme);
    expect(settings.styling.background).toBe('plain');
    expect(settings.header.preset).toBe('default');
    expect(settings.header.links[0]).toMatchObject({ title: 'Home', condition: 'visitor.claims.isBetaUser' });
    expect(settings.footer.groups[0].links).toHaveLength(2);
    expect(settings.announcement).toMatchObject({ enabled: true, style: 'warning' });
    expect(settings.pageActions).toEqual({ items: ['assistant', 'markdown'], externalAI: false, markdown: true, mcp: false });
    expect(settings.insights.trackingCookie).toBe(false);
    expect(settings.internationalization).toEqual({ locale: 'en' });
  });

  it('made of nothing is the defaults', () => {
    expect(parseInput({})).toEqual(defaultCustomization());
  });

  it('fills what a header item or announcement may leave out', () => {
    const settings = parseInput({ header: { links: [{ title: 'Docs' }] }, announcement: { enabled: false, message: 'Hi there' } });
    expect(settings.header.links).toEqual([{ title: 'Docs', to: null, links: [] }]);
    expect(settings.announcement).toEqual({ enabled: false, message: 'Hi there', style: 'info' });
    expectGitbookValid(settings);
  });

  it('accepts settings as read (with updatedAt) and writes them back unchanged', () => {
    const read = { ...parseInput(FULL_INPUT), updatedAt: '2026-01-01T00:00:00.000Z' };
    const { updatedAt: _, ...written } = read;
    expect(parseInput(read)).toEqual(written);
  });

  it('takes custom fonts, a heading font, an icon favicon and social accounts', () => {
    const font = {
      id: 'brand',
      custom: true,
      fontFamily: 'Brand Sans',
      fontFaces: [{ weight: 400, sources: [{ url: 'https://cdn.example.com/brand.woff2', format: 'woff2' }] }],
    };
    const settings = parseInput({
      styling: { font, headingFont: 'Lato', monospaceFont: font },
      favicon: { icon: { light: 'https://cdn.example.com/i.png', dark: 'https://cdn.example.com/i-dark.png' } },
      socialAccounts: [{ platform: 'github', handle: 'acme', display: { footer: true, header: false } }],
    });
    expectGitbookValid(settings);
  });

  it('sets the page menu from items, switches added at the end or removed', () => {
    expect(parseInput({ pageActions: { items: ['pdf', 'markdown'] } }).pageActions).toEqual({ items: ['pdf', 'markdown'], externalAI: false, markdown: true, mcp: false });
    expect(parseInput({ pageActions: { items: ['pdf'], mcp: true, markdown: false } }).pageActions.items).toEqual(['pdf', 'mcp']);
    expect(parseInput({ pageActions: { items: [] } }).pageActions).toEqual({ items: [], externalAI: false, markdown: false, mcp: false });
    expect(refusedAt(SiteCustomizationInputSchema, { pageActions: { items: ['pdf', 'pdf'] } })).toEqual(['pageActions.items']);
  });

  it.each([
    ['a color that is not hex', { styling: { primaryColor: { light: 'red', dark: '#000000' } } }, 'styling.primaryColor.light'],
    ['a color of 4 digits', { styling: { tint: { color: { light: '#1234', dark: '#000' } } } }, 'styling.tint.color.light'],
    ['a color without its dark value', { styling: { infoColor: { light: '#000000' } } }, 'styling.infoColor.dark'],
    ['an unknown top-level key', { colour: 'red' }, ''],
    ['an unknown key in a group', { styling: { shadow: true } }, 'styling'],
    ['an unknown key in a nested group', { styling: { sidebar: { width: 3 } } }, 'styling.sidebar'],
    ['an unknown key in a header item', { header: { links: [{ title: 'A', to: null, links: [], color: 'red' }] } }, 'header.links.0'],
    ['an unknown key in a color', { styling: { dangerColor: { light: '#000', dark: '#000', auto: '#000' } } }, 'styling.dangerColor'],
    ['an unknown theme', { styling: { theme: 'neon' } }, 'styling.theme'],
    ['a title of 129 characters', { title: 'x'.repeat(129) }, 'title'],
    ['a title of 1 character', { title: 'x' }, 'title'],
    ['a header item title of 129 characters', { header: { links: [{ title: 'x'.repeat(129) }] } }, 'header.links.0.title'],
    ['a sub-link title of 65 characters', { header: { links: [{ title: 'A', links: [{ title: 'x'.repeat(65), to: url(1) }] }] } }, 'header.links.0.links.0.title'],
    ['a copyright of 513 characters', { footer: { copyright: 'x'.repeat(513) } }, 'footer.copyright'],
    ['an announcement of 129 characters', { announcement: { enabled: true, message: 'x'.repeat(129) } }, 'announcement.message'],
    ['a condition of 1025 characters', { header: { links: [{ title: 'A', condition: 'x'.repeat(1025) }] } }, 'header.links.0.condition'],
    ['a javascript: link', { header: { links: [{ title: 'A', to: { kind: 'url', url: 'javascript:alert(1)' } }] } }, 'header.links.0.to.url'],
    ['an ftp logo', { header: { logo: { light: 'ftp://example.com/a.png', dark: 'https://example.com/a.png' } } }, 'header.logo.light'],
    ['a relative privacy policy URL', { privacyPolicy: { url: '/privacy' } }, 'privacyPolicy.url'],
    ['a URL of 2049 characters', { socialPreview: { url: `https://example.com/${'x'.repeat(2029)}` } }, 'socialPreview.url'],
    ['21 header links', { header: { links: Array.from({ length: 21 }, (_, i) => ({ title: `L${i}` })) } }, 'header.links'],
    ['21 sub-links', { header: { links: [{ title: 'A', links: Array.from({ length: 21 }, (_, i) => link(i)) }] } }, 'header.links.0.links'],
    ['11 footer groups', { footer: { groups: Array.from({ length: 11 }, (_, i) => ({ title: `G${i}` })) } }, 'footer.groups'],
    ['21 links in a footer group', { footer: { groups: [{ title: 'G', links: Array.from({ length: 21 }, (_, i) => link(i)) }] } }, 'footer.groups.0.links'],
    ['6 AI suggestions', { ai: { suggestions: ['one?', 'two?', 'three', 'four', 'five', 'six'] } }, 'ai.suggestions'],
    ['an unsupported reference kind', { header: { primaryLink: { kind: 'user', user: 'u1' } } }, 'header.primaryLink.kind'],
    ['a page reference without its page', { header: { primaryLink: { kind: 'page', space: 's1' } } }, 'header.primaryLink.page'],
    ['an unknown key in a reference', { header: { primaryLink: { kind: 'space', space: 's1', page: 'p' } } }, 'header.primaryLink'],
    ['null for a field', { feedback: null }, 'feedback'],
  ])('refuses %s', (_what, body, path) => {
    expect(refusedAt(SiteCustomizationInputSchema, body)).toContain(path);
  });
});

// ---------------------------------------------------------------------------------------------

function siteSettings(): SiteCustomizationSettings {
  return { ...parseInput(FULL_INPUT), updatedAt: '2026-01-01T00:00:00.000Z' };
}

function patch(current: SiteSpaceCustomizationOverride | null, body: unknown) {
  const parsed = SiteSpaceCustomizationOverrideSchema.safeParse(body);
  expect(parsed.error?.issues).toBeUndefined();
  return mergeOverridePatch(current, parsed.data!);
}

describe('a site space override', () => {
  it('shows the site value where nothing is overridden', () => {
    const site = siteSettings();
    expect(applyOverride(site, null)).toEqual(site);
    expect(applyOverride(site, {})).toEqual(site);
  });

  it('replaces the fields it gives, field by field inside groups, and stays valid against GitBook 0.202', () => {
    const site = siteSettings();
    const override = patch(null, {
      title: 'Acme API',
      styling: { primaryColor: { light: '#FF0000', dark: '#00FF00' }, sidebar: { list: 'line' } },
      header: { links: [{ title: 'Only', to: url(9), links: [] }] },
      ai: { mode: 'none' },
    });
    const merged = applyOverride(site, override);
    expectGitbookValid(merged);
    expect(merged.title).toBe('Acme API');
    expect(merged.styling.primaryColor).toEqual({ light: '#FF0000', dark: '#00FF00' });
    expect(merged.styling.sidebar).toEqual({ background: 'filled', list: 'line' });
    expect(merged.styling.theme).toBe('bold');
    expect(merged.header.links).toEqual([{ title: 'Only', to: url(9), links: [] }]);
    expect(merged.header.logo).toEqual(site.header.logo);
    expect(merged.ai).toEqual({ mode: 'none', suggestions: site.ai.suggestions });
    expect(merged.footer).toEqual(site.footer);
    expect(merged.updatedAt).toBe(site.updatedAt);
  });

  it('keeps what a later PATCH leaves out and drops what it sets to null', () => {
    const site = siteSettings();
    let override = patch(null, { title: 'Acme API', styling: { theme: 'muted', corners: 'straight' }, footer: { copyright: 'API' } });
    override = patch(override, { styling: { corners: null }, trademark: { enabled: true } });
    expect(override).toEqual({ title: 'Acme API', styling: { theme: 'muted' }, footer: { copyright: 'API' }, trademark: { enabled: true } });
    const merged = applyOverride(site, override);
    expect(merged.styling.corners).toBe(site.styling.corners);
    expect(merged.styling.theme).toBe('muted');
    expect(merged.trademark.enabled).toBe(true);

    override = patch(override, { title: null });
    expect(applyOverride(site, override).title).toBe(site.title);
  });

  it('drops a whole group with null, and a group left empty', () => {
    let override = patch(null, { styling: { theme: 'muted', sidebar: { list: 'line' } }, header: { preset: 'bold' } });
    override = patch(override, { styling: { sidebar: { list: null } }, header: null });
    expect(override).toEqual({ styling: { theme: 'muted' } });
  });

  it('is null when nothing is overridden any more', () => {
    const override = patch(null, { title: 'Acme API', styling: { theme: 'muted' } });
    expect(patch(override, { title: null, styling: { theme: null } })).toBeNull();
    expect(patch(null, {})).toBeNull();
    expect(patch(null, { title: null })).toBeNull();
  });

  it('switches page actions over the site menu', () => {
    const site = siteSettings(); // items: assistant, markdown
    expect(applyOverride(site, patch(null, { pageActions: { mcp: true } })).pageActions).toEqual({
      items: ['assistant', 'markdown', 'mcp'],
      externalAI: false,
      markdown: true,
      mcp: true,
    });
    expect(applyOverride(site, patch(null, { pageActions: { items: ['pdf'] } })).pageActions.items).toEqual(['pdf']);
  });

  it('refuses unknown keys and bad values, at every level', () => {
    expect(refusedAt(SiteSpaceCustomizationOverrideSchema, { colour: 'red' })).toContain('');
    expect(refusedAt(SiteSpaceCustomizationOverrideSchema, { styling: { sidebar: { width: 1 } } })).toContain('styling.sidebar');
    expect(refusedAt(SiteSpaceCustomizationOverrideSchema, { styling: { primaryColor: { light: '#xyz', dark: '#000' } } })).toContain('styling.primaryColor.light');
    expect(refusedAt(SiteSpaceCustomizationOverrideSchema, { header: { links: Array.from({ length: 21 }, (_, i) => ({ title: `L${i}` })) } })).toContain(
      'header.links',
    );
  });
});

// ---------------------------------------------------------------------------------------------

describe('contentReferencesOf', () => {
  it('finds every reference of settings, with where it is', () => {
    const refs = contentReferencesOf(parseInput(FULL_INPUT));
    expect(refs.map((r) => r.path)).toEqual([
      'header.primaryLink',
      'header.links[0].to',
      'header.links[1].links[0].to',
      'header.links[1].links[1].to',
      'header.links[2].to',
      'footer.groups[0].links[0].to',
      'footer.groups[0].links[1].to',
      'announcement.link.to',
    ]);
    expect(refs[2].ref).toEqual(url(2));
  });

  it('reads an override, with its nulls', () => {
    const override = SiteSpaceCustomizationOverrideSchema.parse({ header: { primaryLink: null, links: [{ title: 'A', to: { kind: 'space', space: 's1' } }] }, footer: null });
    expect(contentReferencesOf(override)).toEqual([{ path: 'header.links[0].to', ref: { kind: 'space', space: 's1' } }]);
  });
});

describe('validateConditions', () => {
  it('checks each header item condition with its field name', () => {
    const seen: string[] = [];
    validateConditions(parseInput(FULL_INPUT), (expression, field) => seen.push(`${field}=${expression}`));
    expect(seen).toEqual(['header.links[0].condition=visitor.claims.isBetaUser']);
  });

  it('refuses an expression that is not a condition (with the real checker)', () => {
    const settings = parseInput({ header: { links: [{ title: 'A' }, { title: 'B', condition: 'alert(1)' }] } });
    expect(() => validateConditions(settings)).toThrowError(/header\.links\[1\]\.condition/);
    expect(() => validateConditions(parseInput(FULL_INPUT))).not.toThrow();
  });
});

// ---------------------------------------------------------------------------------------------

describe('checkCustomizationReferences', () => {
  const db = () => createDb(env.DB);
  let orgId: string;
  let spaceId: string;
  let pageId: string;
  let fileId: string;
  let collectionId: string;
  let otherOrgSpace: string;
  let deletedSpace: string;

  beforeAll(async () => {
    const org = await seedOrg();
    const token = org.owner.token;
    orgId = org.id;
    const space = await createSpace(org.id, token);
    spaceId = space.id;
    const cr = await openChangeRequest(space.id, token, 'Seed');
    const result = await applyChanges(space.id, cr.number, token, [
      { operation: 'insert_files', files: [{ ref: 'logo.png', name: 'logo.png', contentType: 'image/png', base64: PNG_1x1 }] },
      { operation: 'insert_page', ref: 'intro', title: 'Intro', document: { markdown: 'Hello.\n' } },
    ]);
    pageId = result.changes[0].page.id;
    fileId = result.insertedFiles[0].id;
    expectStatus(await merge(space.id, cr.number, token), 200);
    const collection = await api('POST', `/v1/orgs/${org.id}/collections`, { token, body: { title: 'Guides' } });
    collectionId = expectStatus(collection, 201).body.id;
    const gone = await createSpace(org.id, token, 'Gone');
    deletedSpace = gone.id;
    expectStatus(await api('DELETE', `/v1/spaces/${gone.id}`, { token }), 204);
    const other = await seedOrg();
    otherOrgSpace = (await createSpace(other.id, other.owner.token)).id;
  });

  const at = (...refs: LocatedRef['ref'][]): LocatedRef[] => refs.map((ref, i) => ({ path: `header.links[${i}].to`, ref }));

  async function refusal(refs: LocatedRef[], currentSpace?: string): Promise<string> {
    const error = await checkCustomizationReferences(db(), orgId, refs, currentSpace).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    return (error as ApiError).message;
  }

  it('accepts references to what exists, in one round trip', async () => {
    const counter = countingD1(env.DB);
    await checkCustomizationReferences(
      createDb(counter.db),
      orgId,
      at(
        { kind: 'space', space: spaceId },
        { kind: 'page', page: pageId, space: spaceId },
        { kind: 'file', file: fileId, space: spaceId },
        { kind: 'anchor', anchor: 'install', page: pageId, space: spaceId },
        { kind: 'collection', collection: collectionId },
        url(1),
      ),
    );
    expect(counter.count).toBe(1);
  });

  it('reads nothing for URLs only', async () => {
    const counter = countingD1(env.DB);
    await checkCustomizationReferences(createDb(counter.db), orgId, at(url(1), url(2)));
    expect(counter.count).toBe(0);
  });

  it('refuses an unknown space, naming the reference', async () => {
    expect(await refusal([{ path: 'header.links[1].to', ref: { kind: 'space', space: 'abc' } }])).toBe('header.links[1].to: space "abc" not found');
  });

  it("refuses another organization's space and a deleted one", async () => {
    expect(await refusal(at({ kind: 'space', space: otherOrgSpace }))).toContain(`space "${otherOrgSpace}" not found`);
    expect(await refusal(at({ kind: 'page', page: pageId, space: otherOrgSpace }))).toContain(`space "${otherOrgSpace}" not found`);
    expect(await refusal(at({ kind: 'space', space: deletedSpace }))).toContain(`space "${deletedSpace}" not found`);
  });

  it('refuses a page or file that is not in the space', async () => {
    expect(await refusal(at({ kind: 'page', page: 'nope', space: spaceId }))).toBe(`header.links[0].to: page "nope" not found in space "${spaceId}"`);
    expect(await refusal(at({ kind: 'file', file: pageId, space: spaceId }))).toContain(`file "${pageId}" not found`);
    expect(await refusal(at({ kind: 'anchor', anchor: 'x', page: 'nope', space: spaceId }))).toContain('page "nope" not found');
    expect(await refusal(at({ kind: 'page', page: "it's", space: spaceId }))).toContain('not found');
  });

  it('refuses an unknown collection', async () => {
    expect(await refusal(at({ kind: 'collection', collection: 'nope' }))).toBe('header.links[0].to: collection "nope" not found');
  });

  it('reads a page without a space in the current space, and refuses it without one', async () => {
    await checkCustomizationReferences(db(), orgId, at({ kind: 'page', page: pageId }), spaceId);
    expect(await refusal(at({ kind: 'page', page: pageId }))).toBe('header.links[0].to: page reference needs a space');
  });

  it('names each problem (up to five)', async () => {
    const message = await refusal(at({ kind: 'space', space: 'a' }, url(1), { kind: 'collection', collection: 'b' }));
    expect(message).toBe('header.links[0].to: space "a" not found; header.links[2].to: collection "b" not found');
  });

  it('validateCustomization checks conditions and references of a body', async () => {
    const body = SiteCustomizationInputSchema.parse({
      header: { links: [{ title: 'Docs', to: { kind: 'page', page: pageId, space: spaceId }, condition: 'visitor.claims.beta == true' }] },
      footer: { groups: [{ title: 'More', links: [{ title: 'Guides', to: { kind: 'collection', collection: collectionId } }] }] },
    });
    await validateCustomization(db(), orgId, body);
    const bad = SiteCustomizationInputSchema.parse({ footer: { groups: [{ title: 'More', links: [{ title: 'X', to: { kind: 'space', space: 'zz' } }] }] } });
    await expect(validateCustomization(db(), orgId, bad)).rejects.toThrow('footer.groups[0].links[0].to: space "zz" not found');
  });
});
