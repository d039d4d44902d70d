/**
 * CPU cost of the content engine's pure steps, in Node (run by `npm run bench` after the route
 * benchmark): Markdown parsing of a page, and a three-way merge of large manifests held in memory
 * (conversion to content trees included). A benchmark, not a test: it prints numbers.
 */
import { markdownToDocument } from '../../src/services/markdown';
import { mergeManifests } from '../../src/services/content/merge';
import type { Manifest, PageEntry } from '../../src/services/content/revisions';

function typicalMarkdown(chars: number): string {
  const section = [
    '## Installing the tool',
    '',
    'Run the **installer** and follow the [guide](/pages/abc). Use `--force` only when ~~asked~~ needed.',
    '',
    '- first step with *emphasis*',
    '- second step',
    '  - nested detail',
    '',
    '```bash',
    'npm install --save-exact example',
    '```',
    '',
    '| Option | Meaning |',
    '| --- | --- |',
    '| a | first |',
    '',
    '{% hint style="info" %}',
    'A hint about the step.',
    '{% endhint %}',
    '',
  ].join('\n');
  return section.repeat(Math.ceil(chars / section.length)).slice(0, chars);
}

async function time(label: string, runs: number, fn: () => unknown) {
  await fn();
  const start = performance.now();
  for (let i = 0; i < runs; i++) await fn();
  const ms = (performance.now() - start) / runs;
  console.log(`${label.padEnd(48)} ${ms.toFixed(1).padStart(8)} ms`);
  return ms;
}

for (const kib of [16, 128, 512]) {
  const markdown = typicalMarkdown(kib * 1024);
  const ms = await time(`markdownToDocument ${kib} KiB`, kib > 128 ? 2 : 5, () => markdownToDocument(markdown));
  console.log(`${''.padEnd(48)} ${(ms / kib).toFixed(2).padStart(8)} ms/KiB`);
}

function manifest(count: number, edit: (page: PageEntry, i: number) => PageEntry = (p) => p): Manifest {
  const now = '2026-01-01T00:00:00.000Z';
  const pages = Array.from({ length: count }, (_, i) =>
    edit({ id: `p${i}`, type: 'document', title: `Page ${i}`, slug: `page-${i}`, document: `doc-${i}`, createdAt: now, updatedAt: now, pages: [] }, i),
  );
  return { pages, files: [], variables: {}, reusableContents: [] };
}

for (const count of [500, 2000]) {
  const base = manifest(count);
  const main = manifest(count, (p, i) => (i % 10 === 0 ? { ...p, document: `main-${i}` } : p));
  const theirs = manifest(count, (p, i) => (i % 10 === 5 ? { ...p, document: `cr-${i}` } : p));
  await time(`mergeManifests ${count} sibling pages, 20% edited`, 5, () => mergeManifests(base, main, theirs));
  const reordered = { ...theirs, pages: [theirs.pages[count - 1], ...theirs.pages.slice(0, -1)] };
  await time(`mergeManifests ${count} sibling pages, one moved`, 5, () => mergeManifests(base, main, reordered));
}
