/**
 * CPU cost of the content engine's pure steps, in Node (run by `npm run bench` after the route
 * benchmark): Markdown parsing of a page, and a three-way merge of large manifests held in memory
 * (conversion to content trees included). A benchmark, not a test: it prints numbers.
 */
import { documentToMarkdown, markdownToDocument } from '../../src/services/markdown';
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

/**
 * A GitBook page of `lines` lines using its blocks as GitBook's export writes them: headings with
 * paragraphs and marks, lists, code with a title, a table, a hint, tabs, a stepper, an expandable,
 * an embed, math, a figure and HTML marks. About 40 bytes a line, as the reference guide's pages.
 */
function gitbookPage(lines: number): string {
  const section = (i: number) =>
    [
      `## Section ${i} <a href="#s${i}" id="s${i}"></a>`,
      '',
      `Some **bold**, _italic_, \`code\` and [a link](page-${i}.md) in a paragraph of section ${i}.`,
      'A second line with <mark style="color:red;">color</mark> and $$x^2$$ in it.',
      '',
      '* first item',
      '  * nested item',
      '* second item',
      '',
      '{% code title="example.js" lineNumbers="true" %}',
      '```javascript',
      `const value = ${i};`,
      'console.log(value);',
      '```',
      '{% endcode %}',
      '',
      '| Name | Value |',
      '| ---- | :---: |',
      `| a    |   ${i}   |`,
      '',
      '{% hint style="info" %}',
      'A hint with **bold** text.',
      '{% endhint %}',
      '',
      '{% tabs %}',
      '{% tab title="One" %}',
      'First tab.',
      '{% endtab %}',
      '',
      '{% tab title="Two" %}',
      'Second tab.',
      '{% endtab %}',
      '{% endtabs %}',
      '',
      '{% stepper %}',
      '{% step %}',
      '#### A step',
      '',
      'Do it.',
      '{% endstep %}',
      '{% endstepper %}',
      '',
      '<details>',
      '',
      '<summary>More</summary>',
      '',
      'Hidden text.',
      '',
      '</details>',
      '',
      '{% embed url="https://www.youtube.com/watch?v=x" %}',
      '',
      '<figure><img src=".gitbook/assets/x.png" alt="X"><figcaption><p>Caption</p></figcaption></figure>',
      '',
    ].join('\n');
  const parts: string[] = [];
  let count = 0;
  for (let i = 0; count < lines; i++) {
    const text = section(i);
    parts.push(text);
    count += text.split('\n').length;
  }
  return parts.join('\n').split('\n').slice(0, lines).join('\n');
}

/** CPU time (user + system) of `fn`, the median of `runs` runs after one warm-up. */
function cpuMs(runs: number, fn: () => unknown): number {
  fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.cpuUsage();
    fn();
    const used = process.cpuUsage(start);
    samples.push((used.user + used.system) / 1000);
  }
  return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)];
}

{
  const page = gitbookPage(5000);
  const { document } = markdownToDocument(page);
  const read = cpuMs(5, () => markdownToDocument(page));
  const written = cpuMs(5, () => documentToMarkdown(document));
  console.log(`${'GitBook page, 5,000 lines, ' + (page.length / 1024).toFixed(0) + ' KiB: Markdown -> document'.padEnd(48)} ${read.toFixed(0).padStart(8)} ms CPU`);
  console.log(`${'GitBook page, 5,000 lines: document -> Markdown'.padEnd(48)} ${written.toFixed(0).padStart(8)} ms CPU`);
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
