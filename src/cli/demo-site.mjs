// The demo docs sites of `npm run dev`: once the local server answers, makes sure the demo organization
// has, published through the API itself:
//   - a public site "Demo docs": a space "Getting started" with a few pages in a tree (headings, a code
//     block, a hint, a table, an image, links between pages, and an API reference computed from the demo
//     OpenAPI spec), customized (title, primary color, header links, footer, announcement banner, theme
//     toggle);
//   - a share-link site "Demo partner docs" (a space "Partner guide", two pages) and a share link, so that
//     it opens only with the link's key;
//   - a public site "Handbook": this API's own guides (src/templates/handbook/*.md, one page each, after a
//     home page that lists them), written again whenever the guides changed since the last publication;
// and prints where a visitor reads them: the HTML site the Worker serves at `/s/<siteId>/`, and the JSON
// published view. Idempotent: existing sites, spaces and pages (matched by title) are reused; a page
// missing from an older demo space is added (one change request), and the customization is set again.
// `npm run test:browser` runs the same function against its own Worker (other base URL, quiet).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { parseSummary, summaryGaps } from './handbook-summary.mjs';
import { DEV_URL, ROOT } from './seed.mjs';

export const DEMO_SITE_TITLE = 'Demo docs';
export const HANDBOOK_TITLE = 'Handbook';
const HANDBOOK_DIR = join(ROOT, 'src', 'templates', 'handbook');
export const SHARE_SITE_TITLE = 'Demo partner docs';
const TITLE = DEMO_SITE_TITLE;
const SPACE_TITLE = 'Getting started';
const SHARE_SPACE_TITLE = 'Partner guide';
const SHARE_LINK_NAME = 'Demo share link';
const SPEC_SLUG = 'demo-api';
const PRIMARY_COLOR = { light: '#0f766e', dark: '#2dd4bf' };

// ---------------------------------------------------------------------------------------------
// The demo content. Links between pages are written `page:<key>` and images `file:<key>`: they become
// a ref of the batch (`./<key>`) when the target is inserted with it, else `/pages/<id>`.

/** What `npm run test:browser` searches for, and the page whose result it expects. */
export const DEMO_SEARCH = { query: 'timeout', page: 'Configuration' };

const DIAGRAM = { ref: 'diagram', name: 'publishing-flow.png', contentType: 'image/png' };

/** The pages of the "Getting started" space, in order; `children` nest. The first is the site's home page. */
export const DEMO_PAGES = [
  {
    key: 'welcome',
    title: 'Welcome',
    files: [DIAGRAM],
    markdown: `# Welcome

This is the **Demo docs** site: a small documentation site that the Docs Platform API publishes, and that
the same Worker serves as HTML. Every page here was written through the API, in a change request, merged,
then published.

{% hint style="info" %}
\`npm run dev\` seeds this site. Change its space through the API, merge, and reload: the site follows the space's content.
{% endhint %}

![Write, merge, publish: how a page reaches this site](file:diagram)

## What's inside

- [Quickstart](page:quickstart): install the CLI and publish a first page.
- [Concepts](page:concepts): spaces, change requests and sites.
- The **API reference** pages are computed from an OpenAPI document.

## Finding your way

Use the sidebar to move between pages, the search box to find a word, and the links at the bottom of
each page to read on in order.
`,
  },
  {
    key: 'quickstart',
    title: 'Quickstart',
    markdown: `# Quickstart

Three steps take you from nothing to a published page.

1. [Install the CLI](page:install).
2. Write the [configuration](page:configure).
3. Open a change request, add a page, merge it, and publish the site.

{% hint style="success" %}
Everything runs locally: \`npm run dev\` needs no account and no network.
{% endhint %}
`,
    children: [
      {
        key: 'install',
        title: 'Install the CLI',
        markdown: `# Install the CLI

Install the command-line client with npm, then check that it answers:

\`\`\`bash
npm install --global docs-cli
docs-cli --version
\`\`\`

## Sign in

Give the CLI the API token that \`npm run dev\` printed:

\`\`\`bash
export DOCS_TOKEN=dpa_...
docs-cli whoami
\`\`\`

Next: [Configuration](page:configure).
`,
      },
      {
        key: 'configure',
        title: 'Configuration',
        markdown: `# Configuration

The CLI reads \`docs.config.json\` in the current folder. Every setting has a default:

| Setting | Default | What it does |
| --- | --- | --- |
| \`apiUrl\` | \`http://127.0.0.1:8787\` | Where the API answers |
| \`space\` | none | The space that \`docs-cli push\` writes to |
| \`timeout\` | \`30\` | Seconds to wait for an answer before giving up |

\`\`\`json
{
  "apiUrl": "http://127.0.0.1:8787",
  "space": "<space id>",
  "timeout": 30
}
\`\`\`

{% hint style="warning" %}
Never commit the API token: pass it in the \`DOCS_TOKEN\` environment variable.
{% endhint %}
`,
      },
    ],
  },
  {
    key: 'concepts',
    title: 'Concepts',
    markdown: `# Concepts

## Spaces

A space holds pages in a tree. Its content is a chain of immutable revisions.

## Change requests

Edits happen in a change request; merging it moves the space's head to a new revision. Read the
[Quickstart](page:quickstart) to make one.

## Sites

A site publishes one or more spaces to visitors: publicly, with a share link, or to signed-in visitors.
`,
  },
  {
    key: 'api-reference',
    title: 'API reference',
    // One page per tag of the demo spec, with its operations and models, computed by the Worker.
    computed: { type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: SPEC_SLUG } } }, props: { models: true } },
  },
];

/** The pages of the share-link site's space. */
export const SHARE_PAGES = [
  {
    key: 'partner-overview',
    title: 'Partner overview',
    markdown: `# Partner overview

This site opens only with its share link: without the key, it answers 404 like an unknown site.

Next: the [integration checklist](page:partner-checklist).
`,
  },
  {
    key: 'partner-checklist',
    title: 'Integration checklist',
    markdown: `# Integration checklist

- [x] Receive a share link
- [ ] Read the [overview](page:partner-overview)
- [ ] Build the integration
`,
  },
];

/** The demo OpenAPI spec, given as text (processed by the local queue consumer; no network needed). */
const DEMO_SPEC = `openapi: 3.1.0
info:
  title: Demo API
  version: 1.0.0
  description: A small API whose reference pages are computed from this document.
tags:
  - name: projects
    description: Projects group your work.
  - name: tasks
    description: Tasks belong to a project.
paths:
  /projects:
    get:
      tags: [projects]
      summary: List projects
      responses:
        '200':
          description: The projects
          content:
            application/json:
              schema:
                type: array
                items: { $ref: '#/components/schemas/Project' }
    post:
      tags: [projects]
      summary: Create a project
      requestBody:
        content:
          application/json:
            schema: { $ref: '#/components/schemas/Project' }
      responses:
        '201': { description: The project }
  /projects/{projectId}/tasks:
    get:
      tags: [tasks]
      summary: List the tasks of a project
      parameters:
        - { name: projectId, in: path, required: true, schema: { type: string } }
      responses:
        '200': { description: The tasks }
components:
  schemas:
    Project:
      type: object
      properties:
        id: { type: string }
        name: { type: string }
`;
const WAIT_MS = 90_000;

/** Support conversations about two problems: ingested (again, idempotently) at each start, analysed by the local queue consumer. */
export const DEMO_CONVERSATIONS = [
  ['demo-1', 'I never received the password reset email. I checked the spam folder too.'],
  ['demo-2', 'Why does the password reset link say it has expired? I clicked it right away.'],
  ['demo-3', 'The password reset email is not arriving, so I cannot log in.'],
  ['demo-4', 'Our custom domain still shows an SSL certificate error after two days.'],
  ['demo-5', 'How long does the SSL certificate for a custom domain take? It is still pending.'],
  ['demo-6', 'Thanks, the new search works great!'],
].map(([id, body]) => ({ id, subject: `Support ticket ${id}`, parts: [{ type: 'message', role: 'user', body }] }));

// ---------------------------------------------------------------------------------------------
// The API, as the demo admin

export function client(baseUrl, token) {
  const call = async (method, path, body) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body && { 'Content-Type': 'application/json' }) },
      body: body && JSON.stringify(body),
    });
    const json = await res.json().catch(() => null);
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
  return {
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body),
    put: (path, body) => call('PUT', path, body),
    patch: (path, body) => call('PATCH', path, body),
  };
}

/**
 * Waits until the Worker at `baseUrl` answers (true), or `waitMs` passed (false). Any answer counts (an
 * unauthenticated `/v1/user` is a 401): asking for `/openapi.json` would make its first answer build the document.
 */
export async function serverUp(baseUrl = DEV_URL, waitMs = WAIT_MS) {
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${baseUrl}/v1/user`)).status === 401) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

const childPages = (page) => page.pages ?? page.children ?? [];
const linkPattern = /\]\((page|file):([a-z0-9-]+)\)/g;

/** A small text file's content, '' when it does not exist. */
function readText(file) {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}

/**
 * The handbook's pages: a home page listing the groups and their guides, then a page per group of SUMMARY.md (its
 * intro and the list of its guides) with a child page per guide of src/templates/handbook (`NN-name.md`; its `# `
 * heading is the title), in SUMMARY.md's order: the site's menu groups. Links between guides (`NN-name.md#anchor`)
 * become links to their pages, and links to the README to the home page. `version` changes whenever a guide or the
 * summary does. A guide missing from SUMMARY.md, or a name there that is no guide, is an error (said, with the file).
 */
export function handbookPages(dir = HANDBOOK_DIR) {
  const files = readdirSync(dir).filter((file) => /^\d+-[a-z0-9-]+\.md$/.test(file)).sort();
  const groups = parseSummary(readFileSync(join(dir, 'SUMMARY.md'), 'utf8'));
  const { unlisted, unknown } = summaryGaps(groups, files);
  if (unlisted.length) throw new Error(`${join(dir, 'SUMMARY.md')} does not list ${unlisted.join(', ')}: add each under a group`);
  if (unknown.length) throw new Error(`${join(dir, 'SUMMARY.md')} lists ${unknown.join(', ')}, which ${unknown.length > 1 ? 'are not guides' : 'is not a guide'} of ${dir}`);
  const keyOf = (file) => file.replace(/^\d+-/, '').replace(/\.md$/, '');
  const guideOf = (file) => {
    const text = readFileSync(join(dir, file), 'utf8');
    const title = /^# (.+)$/m.exec(text)?.[1] ?? keyOf(file);
    const markdown = text
      .replace(/\]\(\d+-([a-z0-9-]+)\.md(?:#[a-z0-9-]*)?\)/g, '](page:$1)')
      .replace(/\]\((?:\.\.\/)*README\.md(?:#[a-z0-9-]*)?\)/g, '](page:home)');
    return { key: keyOf(file), title, markdown };
  };
  const listOf = (guides) => guides.map((guide) => `- [${guide.title}](page:${guide.key})`);
  const sections = groups.map((group, index) => {
    const children = group.files.map(guideOf);
    const key = `group-${index + 1}`;
    const markdown = [`# ${group.title}`, '', ...(group.intro ? [group.intro, ''] : []), ...listOf(children), ''].join('\n');
    return { key, title: group.title, intro: group.intro, markdown, children };
  });
  const home = {
    key: 'home',
    title: 'Docs Platform API',
    markdown: [
      '# Docs Platform API',
      '',
      'The handbook of this API, published by the API itself from the guides in `src/templates/handbook/`: how to run it,',
      'publish with it and deploy it, what each capability does, how to call it, and its limits. Start with the',
      '[Quick start](page:quick-start).',
      '',
      ...sections.flatMap((section) => [`## ${section.title}`, '', ...(section.intro ? [section.intro, ''] : []), ...listOf(section.children), '']),
    ].join('\n'),
  };
  const guides = [home, ...sections];
  const version = createHash('sha256').update(JSON.stringify(guides)).digest('hex').slice(0, 16);
  return { pages: guides, version };
}

/**
 * Makes the space hold `wanted` (pages matched by title under the same parent). Nothing is written when
 * every page is there and `rewrite` is not asked; otherwise one change request inserts the missing pages (at their place) and
 * writes the documents of the others again (with `rewrite` a Set of keys, only those: unless a page is inserted or
 * deleted, which may change the ids links point to), then is merged. With `rewrite`, pages `wanted` no longer has (a
 * guide renamed or moved to another group) are deleted in it too. Returns the page ids by key.
 */
async function syncPages(api, spaceId, wanted, subject, { rewrite = false } = {}) {
  const { pages } = await api.get(`/v1/spaces/${spaceId}/content/pages`);
  const ids = new Map();
  const inserted = new Set();
  const plan = [];
  const match = (list, existing, parent) =>
    list.forEach((page, index) => {
      const found = existing.find((p) => p.title === page.title && (p.type ?? p.kind ?? 'document') !== 'link');
      if (found) ids.set(page.key, found.id);
      else inserted.add(page.key);
      plan.push({ page, found, parent, index });
      match(page.children ?? [], found ? childPages(found) : [], found ? found.id : page.key);
    });
  match(wanted, pages ?? [], undefined);
  if (inserted.size === 0 && !rewrite) return ids;
  const kept = new Set(plan.filter((p) => p.found).map((p) => p.found.id));
  const unwanted = [];
  const prune = (list) => list.forEach((page) => (kept.has(page.id) ? prune(childPages(page)) : unwanted.push(page.id)));
  if (rewrite) prune(pages ?? []);
  const rewritten = (key) => rewrite === true || inserted.size > 0 || unwanted.length > 0 || (rewrite instanceof Set && rewrite.has(key));

  const files = [];
  const markdownOf = (page) =>
    page.markdown.replace(linkPattern, (_, kind, key) => `](${kind === 'file' || inserted.has(key) ? `./${key}` : `/pages/${ids.get(key)}`})`);
  const changes = [];
  for (const { page, found, parent, index } of plan) {
    if (found && !rewritten(page.key)) continue;
    if (page.computed) {
      if (!found) changes.push({ operation: 'insert_page', ref: page.key, title: page.title, ...(parent && { into: parent }), at: index, computed: page.computed });
      continue;
    }
    for (const file of page.files ?? []) files.push({ ...file, base64: demoDiagramPng({ color: PRIMARY_COLOR.light }).toString('base64') });
    const document = { markdown: markdownOf(page) };
    if (found && rewritten(page.key)) changes.push({ operation: 'update_page', page: found.id, title: page.title, document });
    else changes.push({ operation: 'insert_page', ref: page.key, title: page.title, ...(parent && { into: parent }), at: index, document });
  }
  if (files.length) changes.unshift({ operation: 'insert_files', files });
  changes.push(...unwanted.map((page) => ({ operation: 'delete_page', page })));
  if (changes.length === 0) return ids;
  const cr = await api.post(`/v1/spaces/${spaceId}/change-requests`, { subject });
  const result = await api.post(`/v1/spaces/${spaceId}/change-requests/${cr.number}/content?compat=false`, { changes });
  for (const change of result.changes ?? []) if (change.object === 'created_page' && change.ref) ids.set(change.ref, change.page.id);
  await api.post(`/v1/spaces/${spaceId}/change-requests/${cr.number}/merge`);
  return ids;
}

/** The site titled `title` (published first), its space (the default site space's), created and published when missing. */
async function ensureSite(api, organizationId, { title, visibility, spaceTitle, pages, rewrite = false }) {
  const sites = `/v1/orgs/${organizationId}/sites`;
  const found = (await api.get(`${sites}?title=${encodeURIComponent(title)}&limit=100`)).items.filter((s) => s.title === title);
  let site = found.find((s) => s.published) ?? found[0];
  let spaceId;
  if (site) {
    const siteSpaces = (await api.get(`${sites}/${site.id}/site-spaces`)).items;
    spaceId = (siteSpaces.find((s) => s.default) ?? siteSpaces[0])?.space.id;
  }
  if (!spaceId) {
    spaceId = (await api.post(`/v1/orgs/${organizationId}/spaces`, { title: spaceTitle })).id;
    if (site) await api.post(`${sites}/${site.id}/site-spaces`, { spaceId });
  }
  const ids = await syncPages(api, spaceId, pages, `Demo pages: ${title}`, { rewrite });
  if (!site) site = await api.post(sites, { title, visibility, spaces: [spaceId] });
  if (!site.published) site = await api.post(`${sites}/${site.id}/publish`);
  return { site, spaceId, ids };
}

/** The site's customization: title, primary color, header links, footer, announcement, theme toggle. */
function demoCustomization(spaceId, ids) {
  const page = (key) => ({ kind: 'page', page: ids.get(key), space: spaceId });
  return {
    title: TITLE,
    favicon: { emoji: '1f4d8' },
    styling: { primaryColor: PRIMARY_COLOR, corners: 'rounded', search: 'prominent' },
    header: {
      links: [
        { title: 'Quickstart', to: page('quickstart') },
        { title: 'API reference', to: page('api-reference') },
        { title: 'Get help', style: 'button-primary', to: { kind: 'url', url: 'https://example.com/support' } },
      ],
    },
    footer: {
      groups: [
        { title: 'Documentation', links: [{ title: 'Welcome', to: page('welcome') }, { title: 'Concepts', to: page('concepts') }] },
        { title: 'Company', links: [{ title: 'Website', to: { kind: 'url', url: 'https://example.com/' } }] },
      ],
      copyright: '© Demo Organization. Seeded by npm run dev.',
    },
    announcement: {
      enabled: true,
      message: 'This is a demo site, seeded locally by npm run dev.',
      link: { title: 'Start with the quickstart', to: page('quickstart') },
      style: 'info',
    },
    themes: { default: 'system', toggeable: true },
    pagination: { enabled: true },
    // Readers rate each page and may say why (site insights: handbook guide 22).
    feedback: { enabled: true },
  };
}

/** An active share link of the site named SHARE_LINK_NAME (created when missing) and its key. */
async function ensureShareLink(api, organizationId, siteId) {
  const path = `/v1/orgs/${organizationId}/sites/${siteId}/share-links`;
  const links = (await api.get(`${path}?limit=100`)).items;
  const link = links.find((l) => l.name === SHARE_LINK_NAME && l.active) ?? (await api.post(path, { name: SHARE_LINK_NAME }));
  // The share link's published URL is `<site>/<key>/`: the key is its last segment.
  const key = link.urls.published ? decodeURIComponent(new URL(link.urls.published).pathname.split('/').filter(Boolean).at(-1) ?? '') || null : null;
  if (!key) throw new Error(`the share link of "${SHARE_SITE_TITLE}" has no key in its published URL`);
  return key;
}

/**
 * Publishes (or reuses) the demo spec and both demo sites through the API at `baseUrl`, throwing on any
 * failure. Returns what a visitor opens:
 * { organizationId, site: { id, spaceId, url, json, pages }, shareSite: { id, spaceId, key, url, linkUrl, keyedUrl, pages } },
 * `pages` mapping the keys of DEMO_PAGES / SHARE_PAGES to page ids.
 */
export async function publishDemoSites({ token, organizationId }, { baseUrl = DEV_URL, handbookVersionFile = null } = {}) {
  const api = client(baseUrl, token);
  // Create-or-update: the same text again adds no version. The API reference page is computed from it.
  await api.put(`/v1/orgs/${organizationId}/openapi/${SPEC_SLUG}`, { source: { text: DEMO_SPEC } });
  await api.patch(`/v1/orgs/${organizationId}/openapi/${SPEC_SLUG}`, { visibility: 'public' });

  const demo = await ensureSite(api, organizationId, { title: TITLE, visibility: 'public', spaceTitle: SPACE_TITLE, pages: DEMO_PAGES });
  await api.put(`/v1/orgs/${organizationId}/sites/${demo.site.id}/customization`, demoCustomization(demo.spaceId, demo.ids));

  const shared = await ensureSite(api, organizationId, {
    title: SHARE_SITE_TITLE,
    visibility: 'share-link',
    spaceTitle: SHARE_SPACE_TITLE,
    pages: SHARE_PAGES,
  });
  const key = await ensureShareLink(api, organizationId, shared.site.id);

  const handbook = await publishHandbook(api, organizationId, { baseUrl, handbookVersionFile });
  const html = (id) => `${baseUrl}/s/${id}/`;
  return {
    organizationId,
    handbook,
    site: { id: demo.site.id, spaceId: demo.spaceId, url: html(demo.site.id), json: `${baseUrl}/v1/orgs/${organizationId}/sites/${demo.site.id}/published`, pages: demo.ids },
    shareSite: {
      id: shared.site.id,
      spaceId: shared.spaceId,
      key,
      url: html(shared.site.id),
      // The share link's own form, the key as a path segment: it opens here and in GitBook's renderer, which drops
      // query strings. `keyedUrl` (`?share=`) opens here only: the key moves into a cookie.
      linkUrl: `${html(shared.site.id)}${encodeURIComponent(key)}/`,
      keyedUrl: `${html(shared.site.id)}?share=${encodeURIComponent(key)}`,
      pages: shared.ids,
    },
  };
}

/**
 * The Handbook site, published (or reused): its space holds the guides, written again (and pages no longer in the
 * guides removed) when they changed since `handbookVersionFile` last recorded them. Answers { id, spaceId, url, changed }.
 */
async function publishHandbook(api, organizationId, { baseUrl = DEV_URL, handbookVersionFile = null } = {}) {
  const guides = handbookPages();
  const hashes = pageHashes(guides.pages);
  // What was published last: `{version, pages: {key: hash}}` (an older plain version, or none, rewrites every page).
  const published = handbookVersionFile ? parseJson(readText(handbookVersionFile)) : null;
  const changed = handbookVersionFile !== null && published?.version !== guides.version;
  const rewrite = !changed ? false : published?.pages ? new Set(Object.keys(hashes).filter((key) => published.pages[key] !== hashes[key])) : true;
  const handbook = await ensureSite(api, organizationId, {
    title: HANDBOOK_TITLE,
    visibility: 'public',
    spaceTitle: HANDBOOK_TITLE,
    pages: guides.pages,
    rewrite,
  });
  if (handbookVersionFile) writeFileSync(handbookVersionFile, `${JSON.stringify({ version: guides.version, pages: hashes })}\n`);
  return { id: handbook.site.id, spaceId: handbook.spaceId, url: `${baseUrl}/s/${handbook.site.id}/`, changed };
}

/** A hash of each page's title and text, by key (children included). */
function pageHashes(pages, out = {}) {
  for (const page of pages) {
    out[page.key] = createHash('sha256').update(JSON.stringify([page.title, page.markdown])).digest('hex').slice(0, 16);
    pageHashes(page.children ?? [], out);
  }
  return out;
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const HANDBOOK_VERSION_FILE = join(ROOT, '.wrangler', 'handbook-version');
const WATCH_SETTLE_MS = 300;

/**
 * `npm run dev`, once the sites are published: watches src/templates/handbook and publishes the Handbook again
 * after a guide is saved (one change request for all the guides changed at once), saying so in the log, so that an
 * edited guide shows on a reload of its page without restarting the server.
 */
export function watchHandbook(seeded, { baseUrl = DEV_URL, dir = HANDBOOK_DIR, log = console.log } = {}) {
  let timer = null;
  let running = false;
  let again = false;
  const republish = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      const handbook = await publishHandbook(client(baseUrl, seeded.token), seeded.organizationId, { baseUrl, handbookVersionFile: HANDBOOK_VERSION_FILE });
      if (handbook.changed) log(`dev: a guide changed: the Handbook is published again (${handbook.url})`);
    } catch (error) {
      log(`dev: a guide changed, but the Handbook could not be published again: ${error instanceof Error ? error.message : error}`);
    } finally {
      running = false;
      if (again) {
        again = false;
        void republish();
      }
    }
  };
  const watcher = watch(dir, () => {
    clearTimeout(timer);
    timer = setTimeout(republish, WATCH_SETTLE_MS);
  });
  watcher.on('error', (error) => log(`dev: stopped watching ${dir} (${error.message}): restart npm run dev to see edited guides`));
  return watcher;
}

/** `npm run dev`: publishes the demo sites, spec and conversations, prints where to read them, and answers what publishDemoSites did (null on a failure, said). */
export async function ensureDemoSite(seeded, { baseUrl = DEV_URL } = {}) {
  try {
    const { organizationId, site, shareSite, handbook } = await publishDemoSites(seeded, { baseUrl, handbookVersionFile: HANDBOOK_VERSION_FILE });
    console.log(`\nThe handbook (this API's guides, published by it; public): open it in a browser`);
    console.log(`  ${handbook.url}`);
    await client(baseUrl, seeded.token).post(`/v1/orgs/${organizationId}/conversations`, DEMO_CONVERSATIONS);
    console.log(`\nDemo site "${TITLE}" (public, published; no token needed): open it in a browser`);
    console.log(`  ${site.url}`);
    console.log(`Its published view as JSON:`);
    console.log(`  curl ${site.json}`);
    console.log(`Share-link site "${SHARE_SITE_TITLE}": opens only with its share link's key (${shareSite.url} alone is a 404)`);
    console.log(`  ${shareSite.linkUrl}`);
    console.log(`Demo OpenAPI spec "${SPEC_SLUG}" (public; its raw document without a token, once processed):`);
    console.log(`  curl ${baseUrl}/public/openapi/${organizationId}/${SPEC_SLUG}`);
    console.log(`Demo support conversations (${DEMO_CONVERSATIONS.length}, analysed in the background): their issue clusters with the token above:`);
    console.log(`  curl -H "Authorization: Bearer <token>" ${baseUrl}/v1/orgs/${organizationId}/conversations-clusters\n`);
    return { organizationId, site, shareSite, handbook };
  } catch (error) {
    console.error(`demo site: ${error instanceof Error ? error.message : error}`);
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// The demo image: a small PNG drawn here (no binary file in the repository), three boxes joined by
// arrows ("write -> merge -> publish") in the site's primary color.

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

const hex = (color) => [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16));

/** The PNG bytes: `width` x `height`, RGB, boxes in `color` (hex) on a pale background. */
export function demoDiagramPng({ width = 480, height = 160, color = '#0f766e' } = {}) {
  const [r, g, b] = hex(color);
  const pale = [r + (255 - r) * 0.88, g + (255 - g) * 0.88, b + (255 - b) * 0.88].map(Math.round);
  const pixels = Array.from({ length: height }, () => Array.from({ length: width }, () => [255, 255, 255]));
  const fill = (x0, y0, x1, y1, rgb) => {
    for (let y = Math.max(0, y0); y < Math.min(height, y1); y++) for (let x = Math.max(0, x0); x < Math.min(width, x1); x++) pixels[y][x] = rgb;
  };
  const boxWidth = 112;
  const gap = (width - 3 * boxWidth) / 4;
  const top = 40;
  const bottom = height - 40;
  for (let i = 0; i < 3; i++) {
    const x = Math.round(gap + i * (boxWidth + gap));
    fill(x, top, x + boxWidth, bottom, [r, g, b]);
    fill(x + 6, top + 6, x + boxWidth - 6, bottom - 6, pale);
    fill(x + 20, top + 24, x + boxWidth - 20, top + 32, [r, g, b]);
    fill(x + 20, top + 44, x + boxWidth - 40, top + 50, [r, g, b]);
    if (i < 2) {
      // An arrow to the next box: a shaft and a head.
      const from = x + boxWidth + 8;
      const to = Math.round(x + boxWidth + gap - 8);
      const mid = Math.round(height / 2);
      fill(from, mid - 2, to - 8, mid + 2, [r, g, b]);
      for (let d = 0; d < 9; d++) fill(to - 9 + d, mid - 9 + d, to - 8 + d, mid + 10 - d, [r, g, b]);
    }
  }
  const raw = Buffer.alloc(height * (1 + width * 3));
  let offset = 0;
  for (const row of pixels) {
    raw[offset++] = 0; // filter: none
    for (const [pr, pg, pb] of row) {
      raw[offset++] = pr;
      raw[offset++] = pg;
      raw[offset++] = pb;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
