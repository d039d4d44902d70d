#!/usr/bin/env node
// `npm run test:browser`: the published HTML site in a real browser.
//
//   1. starts the Worker with `wrangler dev` on a free port, with its OWN local state (a temporary
//      `--persist-to` directory: the developer's `.wrangler/state` is never touched), migrated and
//      seeded like `npm run dev` does (seed.mjs), and publishes the demo sites of `npm run dev`
//      (demo-site.mjs) through the API;
//   2. drives Debian's Chromium (`CHROMIUM_PATH`, else /usr/bin/chromium or /usr/bin/chromium-browser)
//      headless through puppeteer-core (no browser download) and checks the site: home page and
//      customization, sidebar navigation, previous/next, search, the theme toggle, the image, a
//      share-link site (404 without its key, opens with `?share=<key>`, then by cookie); and the API
//      reference (/docs) renders its operations from our origin alone (the machine has no network);
//   3. fails on any console error, page error, failed request or unexpected HTTP status >= 400;
//   4. writes screenshots to test/browser/screenshots/ (git-ignored), prints a report, and exits
//      non-zero on any failure. The Worker and the browser are always stopped (also on a failure, on
//      Ctrl+C and at the global timeout).
//
// Options: --if-chromium  skip (exit 0, with a message) when no Chromium is installed; without it, a
//                         missing Chromium is a failure (as is a CHROMIUM_PATH that names no executable).
//          --headful      show the browser window (needs a display), for debugging.
import { accessSync, constants as fsConstants, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEMO_PAGES, DEMO_SEARCH, DEMO_SITE_TITLE, SHARE_PAGES, publishDemoSites, serverUp } from '../../src/cli/demo-site.mjs';
import { prepareDocsAssets } from '../../src/cli/docs-assets.mjs';
import { ROOT, assertToolchain, migrateAndSeed } from '../../src/cli/seed.mjs';
import { startDevServer, stopDevServer } from '../helpers/dev-server.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const SCREENSHOTS = join(HERE, 'screenshots');
const GLOBAL_TIMEOUT_MS = 240_000;
const STEP_TIMEOUT_MS = 20_000;
const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
/** The flags that work on this project's machines (closed network, root, no GPU). */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

const args = new Set(process.argv.slice(2));
const started = Date.now();
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const log = (line) => console.log(`browser: ${line}`);

// ---------------------------------------------------------------------------------------------
// Resources, always released

let worker = null;
let browser = null;
let stateDir = null;
let cleaning = null;

function cleanup() {
  cleaning ??= (async () => {
    if (browser) {
      const process_ = browser.process();
      await Promise.race([browser.close().catch(() => {}), new Promise((r) => setTimeout(r, 5000))]);
      if (process_ && process_.exitCode === null && process_.signalCode === null) process_.kill('SIGKILL');
      browser = null;
    }
    if (worker) await stopDevServer(worker);
    worker = null;
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
    stateDir = null;
  })();
  return cleaning;
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    console.error(`browser: ${signal}: stopping the worker and the browser`);
    cleanup().finally(() => process.exit(130));
  });
}
const globalTimer = setTimeout(() => {
  console.error(`browser: FAILED: the run took more than ${seconds(GLOBAL_TIMEOUT_MS)} (global timeout)`);
  if (worker?.output()) console.error(`--- wrangler dev output (last 3000 characters) ---\n${worker.output().slice(-3000)}`);
  cleanup().finally(() => process.exit(1));
}, GLOBAL_TIMEOUT_MS);
globalTimer.unref();

// ---------------------------------------------------------------------------------------------
// Chromium, the Worker

function findChromium() {
  const fromEnv = process.env.CHROMIUM_PATH;
  const candidates = fromEnv ? [fromEnv] : CHROMIUM_CANDIDATES;
  for (const path of candidates) {
    try {
      accessSync(path, fsConstants.X_OK);
      return { path };
    } catch {
      // not there
    }
  }
  return { missing: fromEnv ? `CHROMIUM_PATH=${fromEnv} is not an executable file` : `no Chromium at ${CHROMIUM_CANDIDATES.join(' or ')}` };
}

// ---------------------------------------------------------------------------------------------
// Checks

const results = [];
const problems = [];
let expectedSeen = [];

async function check(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    results.push({ name, ok: true, ms: Date.now() - t0 });
    log(`ok    ${name} (${seconds(Date.now() - t0)})`);
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    results.push({ name, ok: false, ms: Date.now() - t0, message });
    log(`FAIL  ${name}: ${message}`);
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/**
 * Records console errors, page errors, failed requests and HTTP errors, except the responses a step
 * expects (`expected`: "<status> <url>"), and the console's report of those responses.
 */
function watch(page, expected) {
  expectedSeen = [];
  const expectedUrls = new Set([...expected].map((key) => key.slice(key.indexOf(' ') + 1)));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    if (/^Failed to load resource/.test(message.text()) && expectedUrls.has(message.location()?.url)) return;
    problems.push(`console error on ${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error on ${page.url()}: ${error.message}`));
  page.on('requestfailed', (request) => {
    // The reader's insights events go with keepalive: leaving the page cuts them off as DevTools sees them (the
    // browser still delivers them), which is not a failure of the site.
    if (request.url().includes('/~gitbook/insights') && request.failure()?.errorText === 'net::ERR_ABORTED') return;
    problems.push(`request failed: ${request.method()} ${request.url()}: ${request.failure()?.errorText ?? 'unknown error'}`);
  });
  page.on('response', (response) => {
    if (response.status() < 400) return;
    const key = `${response.status()} ${response.url()}`;
    if (expected.has(key)) {
      expectedSeen.push(key);
      return;
    }
    problems.push(`HTTP ${key} (${response.request().resourceType()})`);
  });
}

const text = (page, selector) => page.$eval(selector, (el) => el.textContent.replace(/\s+/g, ' ').trim());
const heading = (page) => text(page, 'main h1, h1');

async function shot(page, name) {
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return relative(ROOT, path);
}

/** Clicks the element and waits for the navigation it starts; answers the main response. */
async function clickAndWait(page, element) {
  const [response] = await Promise.all([page.waitForNavigation({ waitUntil: 'load', timeout: STEP_TIMEOUT_MS }), element.click()]);
  return response;
}

/** The first link whose text (whitespace-normalized) is `label`, inside `scope` (a selector list). */
async function linkByText(page, scope, label) {
  const handle = await page.evaluateHandle(
    (scopeSelector, wanted) => {
      const norm = (s) => s.replace(/\s+/g, ' ').trim();
      for (const root of document.querySelectorAll(scopeSelector)) {
        for (const a of root.querySelectorAll('a[href]')) if (norm(a.textContent) === wanted) return a;
      }
      return null;
    },
    scope,
    label,
  );
  const element = handle.asElement();
  if (!element) {
    await handle.dispose();
    return null;
  }
  return element;
}

/** The page tree (src/site/layout.ts). */
const SIDEBAR = 'nav.sidebar, nav[aria-label="Pages"]';

async function runChecks(page, demo, baseUrl) {
  const { site, shareSite } = demo;
  const welcome = DEMO_PAGES[0];
  const titles = Object.fromEntries([...DEMO_PAGES, ...DEMO_PAGES.flatMap((p) => p.children ?? []), ...SHARE_PAGES].map((p) => [p.key, p.title]));

  await check('home page: the default space\'s first page, with the site\'s customization', async () => {
    const response = await page.goto(site.url, { waitUntil: 'load', timeout: STEP_TIMEOUT_MS });
    assert(response?.status() === 200, `GET ${site.url} answered ${response?.status()}`);
    const h1 = await heading(page);
    assert(h1 === welcome.title, `the heading is "${h1}", not "${welcome.title}"`);
    const title = await page.title();
    assert(title.includes(welcome.title) && title.includes(DEMO_SITE_TITLE), `the document title "${title}" names neither the page and the site`);
    // The site tracks with a cookie (insights.trackingCookie): a first visit is asked, as a visitor answers it; the
    // banner, fixed at the bottom, would otherwise cover what later steps click there (previous / next).
    const consent = await page.waitForSelector('#cookie-consent:not([hidden]) [data-consent="no"]', { timeout: STEP_TIMEOUT_MS }).catch(() => null);
    assert(consent, 'the cookie consent banner is missing (the demo site tracks with a cookie)');
    await consent.click();
    assert(await page.$eval('#cookie-consent', (banner) => banner.hidden), 'declining did not hide the cookie banner');
    const body = await text(page, 'body');
    assert(body.includes('This is a demo site, seeded locally by npm run dev.'), 'the announcement banner is missing');
    assert(body.includes('© Demo Organization'), 'the footer copyright is missing');
    assert(await linkByText(page, 'header', 'Get help'), 'the header link "Get help" is missing');
    assert(await page.$('aside.doc-hint, .doc-hint'), 'the hint is missing');
    const image = await page.$('main img, img');
    assert(image, 'the image is missing');
    // Document images load lazily (loading="lazy"): brought into view, it must load.
    await image.scrollIntoView();
    const loaded = await page
      .waitForFunction((img) => img.complete && img.naturalWidth > 0, { timeout: 10_000 }, image)
      .then(() => true, () => false);
    assert(loaded, `the image did not load (${await image.evaluate((img) => img.currentSrc || img.src)})`);
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, '1-home');
  });

  await check('a link between pages, in the page body', async () => {
    const link = await linkByText(page, 'main .doc', titles.quickstart);
    assert(link, `no link "${titles.quickstart}" in the page body`);
    await clickAndWait(page, link);
    const h1 = await heading(page);
    assert(h1 === titles.quickstart, `the link opened "${h1}", not "${titles.quickstart}"`);
  });

  await check('a header link of the customization', async () => {
    const link = await linkByText(page, 'header', titles['api-reference']);
    assert(link, `no header link "${titles['api-reference']}"`);
    const response = await clickAndWait(page, link);
    assert(response?.status() === 200, `the page answered ${response?.status()}`);
    const h1 = await heading(page);
    assert(h1 === titles['api-reference'], `the link opened "${h1}", not "${titles['api-reference']}"`);
  });

  await check('sidebar: a link opens another page', async () => {
    const link = await linkByText(page, SIDEBAR, titles.concepts);
    assert(link, `no sidebar link "${titles.concepts}"`);
    const response = await clickAndWait(page, link);
    assert(response?.status() === 200, `the page answered ${response?.status()}`);
    const h1 = await heading(page);
    assert(h1 === titles.concepts, `the heading is "${h1}", not "${titles.concepts}"`);
    const path = new URL(page.url()).pathname;
    assert(path.startsWith(`/s/${site.id}/`) && path.endsWith('/concepts'), `the page's URL is ${page.url()}`);
  });

  await check('sidebar: a nested page (table, code block)', async () => {
    const link = await linkByText(page, SIDEBAR, titles.configure);
    assert(link, `no sidebar link "${titles.configure}"`);
    await clickAndWait(page, link);
    const h1 = await heading(page);
    assert(h1 === titles.configure, `the heading is "${h1}", not "${titles.configure}"`);
    assert(await page.$('main table, table'), 'the table is missing');
    assert(await page.$('main pre code, pre code'), 'the code block is missing');
    await shot(page, '2-nested-page');
  });

  await check('previous / next links follow the page order', async () => {
    const start = page.url();
    const next = await page.$('a[rel="next"]');
    assert(next, 'no next link (a[rel=next])');
    await clickAndWait(page, next);
    const h1 = await heading(page);
    assert(h1 === titles.concepts, `next from "${titles.configure}" opened "${h1}", not "${titles.concepts}"`);
    const previous = await page.$('a[rel="prev"]');
    assert(previous, 'no previous link (a[rel=prev])');
    await clickAndWait(page, previous);
    assert(page.url() === start, `previous opened ${page.url()}, not ${start}`);
  });

  await check(`search: "${DEMO_SEARCH.query}" finds "${DEMO_SEARCH.page}"`, async () => {
    const box = await page.$('form[role="search"] input[name="q"], input[type="search"], input[name="q"]');
    assert(box, 'no search box');
    await box.click({ count: 3 });
    await box.type(DEMO_SEARCH.query);
    const [response] = await Promise.all([page.waitForNavigation({ waitUntil: 'load', timeout: STEP_TIMEOUT_MS }), box.press('Enter')]);
    assert(response?.status() === 200, `the search page answered ${response?.status()}`);
    const url = new URL(page.url());
    assert(url.pathname === `/s/${site.id}/~search` && url.searchParams.get('q') === DEMO_SEARCH.query, `the search opened ${page.url()}`);
    await shot(page, '3-search');
    const result = await linkByText(page, 'main .results', DEMO_SEARCH.page);
    assert(result, `no result links to "${DEMO_SEARCH.page}"`);
    await clickAndWait(page, result);
    const h1 = await heading(page);
    assert(h1 === DEMO_SEARCH.page, `the result opened "${h1}"`);
  });

  await check('theme toggle (the demo customization makes it toggeable)', async () => {
    const toggle = await page.$('#theme-toggle');
    assert(toggle, 'no theme toggle (#theme-toggle)');
    assert(await toggle.isVisible(), 'the theme toggle stayed hidden: the site script did not run');
    const state = () =>
      page.evaluate(() => ({
        theme: document.documentElement.getAttribute('data-theme'),
        pressed: document.getElementById('theme-toggle').getAttribute('aria-pressed'),
        background: getComputedStyle(document.body).backgroundColor,
      }));
    const before = await state();
    await toggle.click();
    const after = await state();
    assert(after.pressed !== before.pressed && after.theme === (before.pressed === 'true' ? 'light' : 'dark'), `the toggle did not switch the theme: ${JSON.stringify({ before, after })}`);
    assert(after.background !== before.background, `the background stayed ${after.background}`);
    await shot(page, '4-theme-toggled');
    await toggle.click();
    assert((await state()).background === before.background, 'toggling back did not restore the background');
  });

  await check('share-link site: 404 without its key', async () => {
    const response = await page.goto(shareSite.url, { waitUntil: 'load', timeout: STEP_TIMEOUT_MS });
    assert(response?.status() === 404, `GET ${shareSite.url} without the key answered ${response?.status()}`);
    const body = await text(page, 'body');
    assert(!body.includes(titles['partner-overview']), 'the 404 page shows the site\'s content');
  });

  await check('share-link site: opens with ?share=<key>, then other pages by cookie', async () => {
    const response = await page.goto(shareSite.keyedUrl, { waitUntil: 'load', timeout: STEP_TIMEOUT_MS });
    assert(response?.status() === 200, `GET ${shareSite.keyedUrl} answered ${response?.status()}`);
    assert(!page.url().includes('share='), `the key stayed in the URL (${page.url()}) instead of a cookie`);
    let h1 = await heading(page);
    assert(h1 === titles['partner-overview'], `the heading is "${h1}"`);
    await shot(page, '5-share-link-site');
    const link = await linkByText(page, SIDEBAR, titles['partner-checklist']);
    assert(link, `no sidebar link "${titles['partner-checklist']}"`);
    const next = await clickAndWait(page, link);
    assert(next?.status() === 200, `the second page answered ${next?.status()}`);
    assert(!page.url().includes('share='), `the second page's URL carries the key: ${page.url()}`);
    h1 = await heading(page);
    assert(h1 === titles['partner-checklist'], `the heading is "${h1}"`);
  });

  await check('llms.txt lists the pages', async () => {
    const response = await fetch(`${site.url}llms.txt`);
    const body = await response.text();
    assert(response.status === 200, `GET ${site.url}llms.txt answered ${response.status}`);
    for (const key of ['welcome', 'configure', 'concepts']) assert(body.includes(titles[key]), `llms.txt does not name "${titles[key]}"`);
  });

  await check('API reference (/docs): renders the operations, asking nothing of another origin', async () => {
    const elsewhere = [];
    const onRequest = (request) => {
      if (!request.url().startsWith(`${baseUrl}/`)) elsewhere.push(request.url());
    };
    page.on('request', onRequest);
    try {
      const response = await page.goto(`${baseUrl}/docs`, { waitUntil: 'load', timeout: 60_000 });
      assert(response?.status() === 200, `GET /docs answered ${response?.status()}`);
      assert(/script-src 'self'/.test(response.headers()['content-security-policy'] ?? ''), 'GET /docs has no Content-Security-Policy');
      // Scalar gives each operation an element id `<document>/tag/<tag>/<METHOD>/<path>`.
      await page.waitForFunction(() => document.querySelectorAll('[id*="/GET/"], [id*="/POST/"]').length >= 5, { timeout: 60_000 });
      assert(elsewhere.length === 0, `requests to another origin: ${elsewhere.slice(0, 3).join(', ')}`);
      // The viewport only: the whole reference is some 24,000 pixels high.
      await page.screenshot({ path: join(SCREENSHOTS, 'api-reference.png') });
    } finally {
      page.off('request', onRequest);
    }
  });

  await check('no console errors, page errors, failed requests or unexpected HTTP errors', async () => {
    assert(problems.length === 0, `${problems.length}: ${problems.slice(0, 5).join('; ')}`);
  });
}

// ---------------------------------------------------------------------------------------------

async function main() {
  assertToolchain();
  const chromium = findChromium();
  if (chromium.missing) {
    // A CHROMIUM_PATH that names no browser is a mistake to report, never a reason to skip.
    if (args.has('--if-chromium') && !process.env.CHROMIUM_PATH) {
      log(`SKIPPED: ${chromium.missing} (install Debian's chromium package, or set CHROMIUM_PATH)`);
      return 0;
    }
    console.error(`browser: FAILED: ${chromium.missing}. Install it (apt-get install chromium) or set CHROMIUM_PATH; --if-chromium skips instead.`);
    return 1;
  }
  const { default: puppeteer } = await import('puppeteer-core');
  // The folder shows the last run only.
  rmSync(SCREENSHOTS, { recursive: true, force: true });
  mkdirSync(SCREENSHOTS, { recursive: true });

  // The Worker starts (bundling takes a while) while the new local database is migrated and seeded:
  // the migrations (seed.mjs, through local-d1.mjs) and `wrangler dev` share the state directory as they do `.wrangler/state`.
  prepareDocsAssets();
  stateDir = mkdtempSync(join(tmpdir(), 'dpa-browser-'));
  const persistTo = join(stateDir, 'state');
  let t0 = Date.now();
  worker = await startDevServer(persistTo);
  const { baseUrl } = worker;
  const seeding = (async () => {
    const seeded = await migrateAndSeed({ persistTo, tokenFile: null });
    log(`migrated and seeded a new local state in ${persistTo} (${seconds(Date.now() - t0)})`);
    return seeded;
  })();
  const starting = (async () => {
    const exitedEarly = worker.child.exited.then((code) => `wrangler dev exited (code ${code}) before answering`);
    const up = await Promise.race([serverUp(baseUrl, 90_000).then((ok) => (ok ? null : 'wrangler dev did not answer within 90 s')), exitedEarly]);
    if (up) throw new Error(up);
    log(`wrangler dev answers on ${baseUrl} (${seconds(Date.now() - t0)})`);
  })();
  const [seeded] = await Promise.all([seeding, starting]);

  t0 = Date.now();
  const demo = await publishDemoSites(seeded, { baseUrl });
  log(`published the demo sites: ${demo.site.url} and ${demo.shareSite.url} (${seconds(Date.now() - t0)})`);

  t0 = Date.now();
  browser = await puppeteer.launch({
    executablePath: chromium.path,
    headless: !args.has('--headful'),
    args: [...CHROMIUM_FLAGS.filter((flag) => flag !== '--headless' || !args.has('--headful')), `--user-data-dir=${join(stateDir, 'chromium-profile')}`],
    defaultViewport: { width: 1280, height: 900 },
    timeout: 30_000,
  });
  log(`launched ${await browser.version()} from ${chromium.path} (${seconds(Date.now() - t0)})`);
  const page = await browser.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  // Expected: the share-link site without its key, and /favicon.ico, which Chromium asks for on pages
  // that name no icon (the 404 page; sites without a favicon in their customization): the Worker has none.
  watch(page, new Set([`404 ${demo.shareSite.url}`, `404 ${baseUrl}/favicon.ico`]));

  await runChecks(page, demo, baseUrl);

  const failed = results.filter((r) => !r.ok);
  console.log('');
  log(`${results.length - failed.length}/${results.length} checks passed in ${seconds(Date.now() - started)}; screenshots in ${relative(ROOT, SCREENSHOTS)}/`);
  if (expectedSeen.length) log(`expected HTTP errors seen: ${[...new Set(expectedSeen)].join(', ')}`);
  if (problems.length) for (const problem of problems) log(`  ${problem}`);
  if (failed.length) {
    for (const r of failed) log(`FAILED: ${r.name}: ${r.message}`);
    writeFileSync(join(SCREENSHOTS, 'wrangler-dev.log'), worker?.output() ?? '');
    await shot(page, 'failure').catch(() => {});
    log(`the Worker's output is in ${relative(ROOT, join(SCREENSHOTS, 'wrangler-dev.log'))}`);
    return 1;
  }
  return 0;
}

main()
  .catch((error) => {
    console.error(`browser: FAILED: ${error instanceof Error ? error.message : error}`);
    if (worker?.output()) console.error(`--- wrangler dev output (last 3000 characters) ---\n${worker.output().slice(-3000)}`);
    return 1;
  })
  .then(async (code) => {
    await cleanup();
    clearTimeout(globalTimer);
    process.exit(code);
  });
