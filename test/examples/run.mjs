#!/usr/bin/env node
// `npm run test:examples`: every shell example of the README and of the handbook's guides
// (src/templates/handbook/*.md) runs as written against a freshly seeded Worker, and the handbook is published.
//
//   1. starts `wrangler dev` with its own state (test/helpers/dev-server.mjs), migrates and seeds it, publishes
//      the demo sites and writes the examples' variables, as `npm run dev` does (`.wrangler/dev.env`);
//   2. runs each document's examples in order in one bash session that has sourced those variables: a fenced
//      ```sh block that uses `$API` is an example (other blocks, such as `npm install`, are not run);
//   3. checks that the handbook site `npm run dev` publishes has every guide, as HTML and as Markdown;
//   4. checks each `curl` of an example against the `# -> <status>` comment that follows it in the text, and
//      that the block ran without error; the README's examples run a second time at the end, and must answer the
//      same (a reader may run them again on the same state). A block marked `# needs network` is skipped, saying so, when the
//      machine has no network (this project's machines have none).
// Exits non-zero on any failure; the Worker is always stopped.
import { spawnSync } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { client, handbookPages, publishDemoSites, serverUp, DEMO_CONVERSATIONS } from '../../src/cli/demo-site.mjs';
import { writeDevEnv } from '../../src/cli/dev-env.mjs';
import { prepareDocsAssets } from '../../src/cli/docs-assets.mjs';
import { ROOT, assertToolchain, migrateAndSeed } from '../../src/cli/seed.mjs';
import { startDevServer, stopDevServer } from '../helpers/dev-server.mjs';

const HANDBOOK = join(ROOT, 'src', 'templates', 'handbook');
const log = (line) => console.log(`examples: ${line}`);

/** The documents whose examples run, in order: the README, then the handbook's pages by file name. */
export function documents() {
  const guides = existsSync(HANDBOOK) ? readdirSync(HANDBOOK).filter((f) => f.endsWith('.md')).sort().map((f) => join(HANDBOOK, f)) : [];
  return [join(ROOT, 'README.md'), ...guides];
}

/** The fenced shell blocks of a Markdown text, with the line each starts on. */
function shellBlocks(markdown) {
  const fence = /^```(sh|bash|shell)\n([\s\S]*?)^```$/gm;
  return [...markdown.matchAll(fence)].map((match) => ({ line: markdown.slice(0, match.index).split('\n').length, code: match[2] }));
}

const usesApi = (code) => /\$\{?API\b/.test(code);

/** Lines of fenced shell blocks that call curl without `$API`: examples not written for dev.env (a failure). */
export function unconvertedOf(markdown) {
  return shellBlocks(markdown)
    .filter(({ code }) => /\bcurl\b/.test(code) && !usesApi(code))
    .map(({ line }) => line);
}

/** The examples of a Markdown text: fenced shell blocks that use `$API`, with their line and expected statuses. */
export function examplesOf(markdown) {
  return shellBlocks(markdown)
    .filter(({ code }) => usesApi(code))
    .map(({ line, code }) => ({
      line,
      code,
      expected: [...code.matchAll(/^\s*# -> (\d{3})\b/gm)].map((m) => Number(m[1])),
      needsNetwork: /^\s*# needs network\b/m.test(code),
    }));
}

async function online() {
  try {
    await lookup('example.com');
    return true;
  } catch {
    return false;
  }
}

/**
 * The bash script of one document: the variables, a `curl` that records each status, then each example
 * between markers. A block that fails stops only itself (a subshell would lose its variables: errors are
 * recorded instead of exiting).
 */
function scriptOf(envFile, statusFile, examples) {
  const parts = [
    `source ${JSON.stringify(envFile)}`,
    // The status format goes last, so that it wins over an example's own `-w`.
    `curl() { local out code; out=$(command curl -sS "$@" -w '\\n%{http_code}'); code=\${out##*$'\\n'}; printf '%s\\n' "\${out%$'\\n'*}"; echo "status $code" >> ${JSON.stringify(statusFile)}; }`,
    `trap 'echo "error $? at: $BASH_COMMAND" >> ${JSON.stringify(statusFile)}' ERR`,
  ];
  examples.forEach((example, i) => {
    parts.push(`echo "block ${i}" >> ${JSON.stringify(statusFile)}`);
    parts.push(example.code);
  });
  return parts.join('\n');
}

function parseStatuses(text, count) {
  const blocks = Array.from({ length: count }, () => ({ statuses: [], errors: [] }));
  let current = null;
  for (const line of text.split('\n')) {
    const block = /^block (\d+)$/.exec(line);
    if (block) current = blocks[Number(block[1])];
    else if (current && line.startsWith('status ')) current.statuses.push(Number(line.slice(7)));
    else if (current && line.startsWith('error ')) current.errors.push(line.slice(6));
  }
  return blocks;
}

/** A page tree as a flat list, each page with its path of slugs (`group/guide`). */
function flatten(pages, parent = '') {
  return pages.flatMap((page) => {
    const path = page.slug ? (parent ? `${parent}/${page.slug}` : page.slug) : parent;
    return [{ ...page, path }, ...flatten(page.children ?? page.pages ?? [], path)];
  });
}

/**
 * The handbook site: each page (found by its title in the space, groups and their guides) answers with its title, as
 * HTML and as Markdown; `deploy` finds the deployment guide in the site's search, and llms.txt opens with one heading.
 */
async function checkHandbook(api, handbook) {
  let failed = 0;
  const pages = flatten(handbookPages().pages);
  const published = new Map(flatten((await api.get(`/v1/spaces/${handbook.spaceId}/content/pages`)).pages).map((p) => [p.title, p.path]));
  const search = await (await fetch(`${handbook.url}~search?q=deploy`)).text();
  if (!search.includes('Deploying to Cloudflare</a>')) {
    failed++;
    log('FAILED handbook search: "deploy" does not find the page "Deploying to Cloudflare"');
  }
  const llms = await (await fetch(`${handbook.url}llms.txt`)).text();
  if (llms.split('\n').filter((line) => /^#{1,2} /.test(line))[1] === `## ${llms.split('\n')[0].slice(2)}`) {
    failed++;
    log('FAILED handbook llms.txt: its first section repeats its title');
  }
  const full = await fetch(`${handbook.url}llms-full.txt`);
  if (full.status !== 200 || !(await full.text()).includes('# Quick start')) {
    failed++;
    log(`FAILED handbook llms-full.txt: ${full.status}, or without the Quick start`);
  }
  for (const page of pages) {
    const slug = published.get(page.title);
    const [html, md] = slug ? await Promise.all([fetch(`${handbook.url}${slug}`), fetch(`${handbook.url}${slug}.md`)]) : [];
    const [raw, markdown] = slug ? await Promise.all([html.text(), md.text()]) : ['', ''];
    const text = raw.replace(/&#x27;|&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&');
    if (!slug || html.status !== 200 || !text.includes(page.title) || md.status !== 200 || !markdown.includes(page.title)) {
      failed++;
      log(`FAILED handbook page "${page.title}": ${slug ? `HTML ${html.status}, Markdown ${md.status}` : 'not in the space'}`);
    }
  }
  log(`${pages.length - failed}/${pages.length} handbook pages published (${handbook.url})`);
  return failed;
}

async function main() {
  assertToolchain();
  const stateDir = mkdtempSync(join(tmpdir(), 'dpa-examples-'));
  let server = null;
  let failures = 0;
  try {
    // wrangler.toml's [assets] directory (the API reference's script) must exist before wrangler dev starts.
    prepareDocsAssets();
    server = await startDevServer(join(stateDir, 'state'));
    const seeded = await migrateAndSeed({ persistTo: join(stateDir, 'state'), tokenFile: null });
    if (!(await serverUp(server.baseUrl))) throw new Error('wrangler dev did not answer');
    const published = await publishDemoSites(seeded, { baseUrl: server.baseUrl });
    await client(server.baseUrl, seeded.token).post(`/v1/orgs/${seeded.organizationId}/conversations`, DEMO_CONVERSATIONS);
    // Where `npm run dev` writes it, relative to the directory the examples run in: `source .wrangler/dev.env`.
    const envFile = join(stateDir, '.wrangler', 'dev.env');
    await writeDevEnv({ baseUrl: server.baseUrl, adminToken: server.adminToken, seeded, published, file: envFile, reviewerFile: join(stateDir, 'reviewer.json') });
    const handbookFailures = await checkHandbook(client(server.baseUrl, seeded.token), published.handbook);
    const networked = await online();
    let ran = 0;
    const unconverted = documents().flatMap((file) => unconvertedOf(readFileSync(file, 'utf8')).map((line) => `${relative(ROOT, file)}:${line}`));
    // A curl that does not use dev.env's $API would not be run, so nothing would notice it drifting: a failure.
    for (const where of unconverted) {
      failures++;
      log(`FAILED ${where}: a shell block calls curl without $API: write it with the variables of .wrangler/dev.env`);
    }
    // The README once more at the end, on the state all the examples left: a reader runs its examples again and
    // gets the same answers (nothing made twice under a fixed name, no 409).
    const runs = [...documents().map((file) => ({ file, again: false })), { file: join(ROOT, 'README.md'), again: true }];
    for (const { file, again } of runs) {
      const all = examplesOf(readFileSync(file, 'utf8'));
      const examples = all.filter((e) => networked || !e.needsNetwork);
      for (const skipped of all.filter((e) => !examples.includes(e))) log(`skipped ${relative(ROOT, file)}:${skipped.line}: it needs the network, and this machine has none`);
      if (examples.length === 0) continue;
      const statusFile = join(stateDir, 'statuses');
      writeFileSync(statusFile, '');
      const run = spawnSync('bash', ['-c', scriptOf(envFile, statusFile, examples)], { cwd: stateDir, encoding: 'utf8', timeout: 120_000, env: { ...process.env, PATH: process.env.PATH } });
      const blocks = parseStatuses(readFileSync(statusFile, 'utf8'), examples.length);
      examples.forEach((example, i) => {
        ran++;
        const { statuses, errors } = blocks[i];
        const where = `${relative(ROOT, file)}:${example.line}${again ? ' (run again)' : ''}`;
        const problems = [];
        if (errors.length) problems.push(`failed: ${errors.join('; ')}`);
        if (statuses.length !== example.expected.length || statuses.some((s, k) => s !== example.expected[k])) {
          problems.push(`curl answered ${JSON.stringify(statuses)}, the text says ${JSON.stringify(example.expected)} (a \`# -> <status>\` after each curl)`);
        }
        if (problems.length) {
          failures++;
          log(`FAILED ${where}: ${problems.join('; ')}`);
        } else log(`ok     ${where} (${statuses.join(', ')})`);
      });
      if (run.status !== 0 && run.stderr) log(`bash said: ${run.stderr.slice(-2000)}`);
    }
    log(`${ran - failures}/${ran} examples ran as written`);
    failures += handbookFailures;
  } catch (error) {
    failures++;
    log(`FAILED: ${error instanceof Error ? error.message : error}`);
    if (server) console.error(server.output().slice(-3000));
  } finally {
    if (server) await stopDevServer(server);
    rmSync(stateDir, { recursive: true, force: true });
  }
  process.exit(failures ? 1 : 0);
}

if (process.argv[1] && process.argv[1].endsWith('run.mjs')) main();
