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
  const cache = path.join(tmpdir(), 'dpa-git-sync-bench');
  const name = large ? `large-v1-scale-${scale}.git` : 'pages-v1.git';
  const target = path.join(cache, name);
  const began = performance.now();
  let bytes = 0;
  for (const entry of entries(large, scale)) bytes += entry.bytes.byteLength;
  if (existsSync(path.join(target, 'bench-complete')) && !rebuild) return { path: target, bytes, built: false, ms: performance.now() - began };
  mkdirSync(cache, { recursive: true });
  const building = `${target}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  await run('git', ['init', '-q', '--bare', '-b', 'main', building]);
  const child = spawn('git', ['-c', 'pack.compression=1', 'fast-import', '--quiet'], { cwd: building, stdio: ['pipe', 'inherit', 'inherit'] });
  const done = new Promise<void>((resolve, reject) => child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git fast-import exited with ${code}`)))));
  const write = writer(child.stdin);
  const paths: string[] = [];
  for (const entry of entries(large, scale)) {
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
