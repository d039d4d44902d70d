/**
 * The Git Sync benchmark's synthetic repositories, built once with `git fast-import` (one process, blobs written
 * straight into a pack: no work tree, no `git add`, no copy) into a cache under the system's temporary folder, and
 * reused by later runs (`--rebuild` makes them again; zlib level 1: the assets do not compress anyway). 200 Markdown pages in 10 sections with a SUMMARY.md, each
 * linking to its neighbours and showing a screenshot; `.gitbook/assets/` holds 200 screenshots of 50 KiB and, in
 * the large variant, 45 archives of 2 MiB and 10 videos of 20 MiB (GIT_SYNC_BENCH_SCALE scales those): about
 * 300 MiB, the size coming from the assets as in a real documentation repository. Asset bytes are AES-CTR output
 * (seeded, so the repository is the same on every machine; it does not compress, as images and videos do not).
 */
import { spawn } from 'node:child_process';
import { createCipheriv, createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const BENCH_PAGES = 200;
const SECTIONS = 10;

/** Seeded bytes that do not compress. */
function noise(size: number, seed: string): Buffer {
  const key = (createHash('sha256') as unknown as { update(s: string): { digest(): Buffer } }).update(seed).digest();
  // node:crypto typed loosely: the project's types are the Workers' (whose node:crypto types differ).
  const cipher = createCipheriv('aes-256-ctr', key, Buffer.alloc(16)) as unknown as { update(bytes: Buffer): Buffer };
  return cipher.update(Buffer.alloc(size));
}

function page(section: number, index: number): string {
  const n = section * (BENCH_PAGES / SECTIONS) + index;
  const paragraphs = Array.from({ length: 6 }, (_, p) => `Paragraph ${p + 1} of page ${n}: the **Git Sync** benchmark writes text that reads like documentation, with \`inline code\`, *emphasis* and a [link to the next page](page-${(n + 1) % BENCH_PAGES}.md).`);
  return [
    '---',
    `description: Page ${n} of the synthetic benchmark repository`,
    '---',
    '',
    `# Page ${n}`,
    '',
    ...paragraphs.flatMap((p) => [p, '']),
    '## Steps',
    '',
    ...Array.from({ length: 5 }, (_, i) => `${i + 1}. Step ${i + 1} of page ${n}`),
    '',
    `![Screenshot ${n}](../.gitbook/assets/screenshot-${n}.png)`,
    '',
    '```js',
    `export const page = ${n};`,
    '```',
    '',
    '| Option | Default |',
    '| ------ | ------- |',
    `| pages | ${n} |`,
    '',
    '{% hint style="info" %}',
    `A hint on page ${n}.`,
    '{% endhint %}',
    '',
  ].join('\n');
}

interface Entry {
  path: string;
  bytes: Buffer;
}

function* entries(large: boolean, scale: number): Generator<Entry> {
  const summary = ['# Table of contents', '', '* [Introduction](README.md)'];
  yield { path: 'README.md', bytes: Buffer.from('# Benchmark repository\n\nA synthetic repository for the Git Sync benchmark.\n') };
  const perSection = BENCH_PAGES / SECTIONS;
  for (let s = 0; s < SECTIONS; s++) {
    summary.push('', `## Section ${s}`, '');
    for (let i = 0; i < perSection; i++) {
      const n = s * perSection + i;
      summary.push(`* [Page ${n}](section-${s}/page-${n}.md)`);
      yield { path: `section-${s}/page-${n}.md`, bytes: Buffer.from(page(s, i).replaceAll('](page-', `](../section-${Math.floor(((n + 1) % BENCH_PAGES) / perSection)}/page-`)) };
      yield { path: `.gitbook/assets/screenshot-${n}.png`, bytes: noise(50 * 1024, `screenshot-${n}`) };
    }
  }
  yield { path: 'SUMMARY.md', bytes: Buffer.from(`${summary.join('\n')}\n`) };
  if (!large) return;
  const [archive, video] = largeAssetSizes(scale);
  for (let i = 0; i < 45; i++) yield { path: `.gitbook/assets/archive-${i}.zip`, bytes: noise(archive, `archive-${i}`) };
  for (let i = 0; i < 10; i++) yield { path: `.gitbook/assets/video-${i}.mp4`, bytes: noise(video, `video-${i}`) };
}

/**
 * The docs variant, shaped like GitBook's own documentation repository (GitbookIO/public-docs: many pages of
 * GitBook Markdown, many small assets): DOCS_SECTIONS groups in SUMMARY.md, each a folder of topics (a README.md and
 * its pages, nested), every page ~5 KB with front matter, hints, tabs, a code block, a table, figures and links to
 * other pages; one screenshot of 40 KiB per four pages. What grows with it is the number of pages, not the bytes of assets.
 */
/** GIT_SYNC_BENCH_DOCS_PAGES=800,2400,5000: several sizes imported one after the other in one run (the first is DOCS_PAGES). */
export const DOCS_PAGE_COUNTS = (process.env.GIT_SYNC_BENCH_DOCS_PAGES ?? '800').split(',').map((n) => Number(n) || 800);
export const DOCS_PAGES = DOCS_PAGE_COUNTS[0];
const DOCS_SECTIONS = 12;
const DOCS_TOPIC_PAGES = 8;

function docsPage(n: number, depth: number, next: string, title: string): string {
  const up = '../'.repeat(depth);
  const paragraph = (p: number) =>
    `Paragraph ${p} of ${title}: GitBook's **Git Sync** keeps this page in a repository, with \`inline code\`, *emphasis*, ` +
    `<mark style="color:orange;">a highlight</mark> and [a link to the next page](${next}). Each block below is one GitBook's editor makes.`;
  return [
    '---',
    'description: >-',
    `  ${title}: a page of the synthetic documentation repository, shaped like GitBook's`,
    '  own documentation (many pages, each with several kinds of blocks).',
    'icon: book',
    '---',
    '',
    `# ${title}`,
    '',
    paragraph(1),
    '',
    `<figure><img src="${up}.gitbook/assets/screenshot-${Math.floor(n / 4)}.png" alt="A screenshot for ${title}"><figcaption><p>Screenshot of ${title}</p></figcaption></figure>`,
    '',
    '## Before you start',
    '',
    paragraph(2),
    '',
    '{% hint style="info" %}',
    `**Info** for ${title}: hints draw the reader's attention.`,
    '{% endhint %}',
    '',
    '{% hint style="warning" %}',
    `**Warning** for ${title}: a second hint, with [a link](${next}).`,
    '{% endhint %}',
    '',
    '### Steps',
    '',
    ...Array.from({ length: 6 }, (_, i) => `${i + 1}. Step ${i + 1} of ${title}: open the **Options menu** and choose \`option-${i}\`.`),
    '',
    '{% tabs %}',
    '{% tab title="JavaScript" %}',
    '```javascript',
    `const page = await client.pages.get('${n}');`,
    `console.log(page.title); // ${title}`,
    '```',
    '{% endtab %}',
    '',
    '{% tab title="Python" %}',
    '```python',
    `page = client.pages.get("${n}")`,
    'print(page.title)',
    '```',
    '{% endtab %}',
    '{% endtabs %}',
    '',
    '## Reference',
    '',
    '| Option | Default | Description |',
    '| ------ | ------- | ----------- |',
    ...Array.from({ length: 6 }, (_, i) => `| \`option-${i}\` | ${i * n} | What option ${i} of ${title} changes, in one line of the table. |`),
    '',
    paragraph(3),
    '',
    '```yaml',
    `page: ${n}`,
    `title: ${title}`,
    'blocks: [hint, tabs, table, figure]',
    '```',
    '',
    '{% hint style="success" %}',
    `Done: ${title} is set up.`,
    '{% endhint %}',
    '',
    paragraph(4),
    '',
  ].join('\n');
}

/** The docs variant's files: pages in sections and topics, SUMMARY.md, and the screenshots. */
function* docsEntries(pages: number): Generator<Entry> {
  const summary = ['# Table of contents', '', '* [Documentation](README.md)'];
  yield { path: 'README.md', bytes: Buffer.from(docsPage(0, 0, 'section-0/README.md', 'Documentation')) };
  const paths: Array<{ path: string; depth: number; title: string; line: string }> = [];
  for (let n = 1; n < pages; ) {
    const s = (n - 1) % DOCS_SECTIONS;
    const section = `section-${s}`;
    if (!paths.some((p) => p.path === `${section}/README.md`)) paths.push({ path: `${section}/README.md`, depth: 1, title: `Section ${s}`, line: `* [Section ${s}](${section}/README.md)` });
    const topic = `${section}/topic-${n}`;
    paths.push({ path: `${topic}/README.md`, depth: 2, title: `Topic ${n}`, line: `  * [Topic ${n}](${topic}/README.md)` });
    n++;
    for (let i = 0; i < DOCS_TOPIC_PAGES && n < pages; i++, n++) paths.push({ path: `${topic}/page-${n}.md`, depth: 2, title: `Page ${n}`, line: `    * [Page ${n}](${topic}/page-${n}.md)` });
  }
  for (let s = 0; s < DOCS_SECTIONS; s++) {
    summary.push('', `## Group ${s}`, '');
    for (const p of paths) if (p.path.startsWith(`section-${s}/`)) summary.push(p.line);
  }
  for (const [i, p] of paths.entries()) {
    const next = paths[(i + 1) % paths.length].path;
    yield { path: p.path, bytes: Buffer.from(docsPage(i + 1, p.depth, `${'../'.repeat(p.depth)}${next}`, p.title)) };
  }
  yield { path: 'SUMMARY.md', bytes: Buffer.from(`${summary.join('\n')}\n`) };
  for (let i = 0; i <= Math.floor(pages / 4); i++) yield { path: `.gitbook/assets/screenshot-${i}.png`, bytes: noise(40 * 1024, `docs-screenshot-${i}`) };
}

/** The sizes of the large variant's archives and videos. */
function largeAssetSizes(scale: number): [number, number] {
  return [Math.round(2 * 1024 * 1024 * scale), Math.round(20 * 1024 * 1024 * scale)];
}

/** The sizes of the large variant's large assets (those an import streams), in the order the repository has them. */
export function streamedAssetSizes(scale: number): number[] {
  const [archive, video] = largeAssetSizes(scale);
  return [...Array<number>(45).fill(archive), ...Array<number>(10).fill(video)];
}

/** Writes to a child's stdin, waiting when its pipe is full (never more than one blob held). */
function writer(stream: NodeJS.WritableStream) {
  return (chunk: string | Buffer) => new Promise<void>((resolve, reject) => (stream.write(chunk, (error) => (error ? reject(error) : resolve()))));
}

/**
 * The bare repository (branch main, one commit) of the variant, from the cache or built now; its path and size
 * on disk. `large`: with the 2 MiB and 20 MiB assets.
 */
export async function benchRepository(large: boolean, scale: number, rebuild = false): Promise<{ path: string; bytes: number; built: boolean; ms: number }> {
  return cachedRepository(large ? `large-v1-scale-${scale}.git` : 'pages-v1.git', () => entries(large, scale), rebuild);
}

/** The docs variant (DOCS_PAGES pages, shaped like GitBook's documentation repository), from the cache or built now. */
export async function benchDocsRepository(rebuild = false, pages = DOCS_PAGES): Promise<{ path: string; bytes: number; built: boolean; ms: number; pages: number }> {
  return { ...(await cachedRepository(`docs-v1-${pages}.git`, () => docsEntries(pages), rebuild)), pages };
}

async function cachedRepository(name: string, entries: () => Generator<Entry>, rebuild: boolean): Promise<{ path: string; bytes: number; built: boolean; ms: number }> {
  const cache = path.join(tmpdir(), 'dpa-git-sync-bench');
  const target = path.join(cache, name);
  const began = performance.now();
  let bytes = 0;
  for (const entry of entries()) bytes += entry.bytes.byteLength;
  if (existsSync(path.join(target, 'bench-complete')) && !rebuild) return { path: target, bytes, built: false, ms: performance.now() - began };
  mkdirSync(cache, { recursive: true });
  const building = `${target}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  await run('git', ['init', '-q', '--bare', '-b', 'main', building]);
  const child = spawn('git', ['-c', 'pack.compression=1', 'fast-import', '--quiet'], { cwd: building, stdio: ['pipe', 'inherit', 'inherit'] });
  const done = new Promise<void>((resolve, reject) => child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git fast-import exited with ${code}`)))));
  const write = writer(child.stdin);
  const paths: string[] = [];
  for (const entry of entries()) {
    paths.push(entry.path);
    await write(`blob\nmark :${paths.length}\ndata ${entry.bytes.byteLength}\n`);
    await write(entry.bytes);
    await write('\n');
  }
  const message = 'Benchmark repository\n';
  await write(`commit refs/heads/main\nauthor Bench <bench@example.invalid> 1704067200 +0000\ncommitter Bench <bench@example.invalid> 1704067200 +0000\ndata ${Buffer.byteLength(message)}\n${message}`);
  for (const [i, p] of paths.entries()) await write(`M 100644 :${i + 1} ${p}\n`);
  await write('\n');
  child.stdin.end();
  await done;
  writeFileSync(path.join(building, 'bench-complete'), '');
  rmSync(target, { recursive: true, force: true });
  renameSync(building, target);
  return { path: target, bytes, built: true, ms: performance.now() - began };
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'inherit' });
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`))));
  });
}
