/**
 * The Handbook's table of contents (src/cli/handbook-summary.mjs): SUMMARY.md's `## ` groups, the text under each
 * heading as its intro, its `* [Title](file.md)` guides; a guide missing from it, or named but absent, is found.
 */
import { describe, expect, it } from 'vitest';
import { parseSummary, summaryGaps } from '../../src/cli/handbook-summary.mjs';

const SUMMARY = `# Table of contents

## Get started

Install it and publish a page.

* [Quick start](00-quick-start.md)
* [Deploying](22-deploying.md)

## Project internals
- [Benchmark](17-benchmark.md)
`;

describe('parseSummary', () => {
  it('reads the groups in order, with their intro and guides', () => {
    expect(parseSummary(SUMMARY)).toEqual([
      { title: 'Get started', intro: 'Install it and publish a page.', files: ['00-quick-start.md', '22-deploying.md'] },
      { title: 'Project internals', intro: '', files: ['17-benchmark.md'] },
    ]);
  });

  it('refuses a guide before any group, and a guide listed twice', () => {
    expect(() => parseSummary('* [A](01-a.md)\n')).toThrow(/line 1: a guide before the first/);
    expect(() => parseSummary('## G\n* [A](01-a.md)\n* [A again](01-a.md)\n')).toThrow(/line 3: 01-a.md is listed twice/);
  });
});

describe('summaryGaps', () => {
  it('names the guides no group lists and the listed files that are not guides', () => {
    const groups = parseSummary(SUMMARY);
    expect(summaryGaps(groups, ['00-quick-start.md', '17-benchmark.md', '18-project-layout.md'])).toEqual({
      unlisted: ['18-project-layout.md'],
      unknown: ['22-deploying.md'],
    });
    expect(summaryGaps(groups, ['00-quick-start.md', '17-benchmark.md', '22-deploying.md'])).toEqual({ unlisted: [], unknown: [] });
  });
});

describe("the Handbook's own SUMMARY.md", () => {
  // Read by Vite when the test is bundled: workerd has no file system.
  const FILES = import.meta.glob<string>('../../src/templates/handbook/*.md', { query: '?raw', import: 'default', eager: true });

  it('lists every guide of the folder once, and nothing else', () => {
    const names = Object.keys(FILES).map((path) => path.split('/').pop()!);
    const guides = names.filter((name) => name !== 'SUMMARY.md');
    const summary = FILES[Object.keys(FILES).find((path) => path.endsWith('/SUMMARY.md'))!];
    expect(guides.length).toBeGreaterThan(20);
    expect(summaryGaps(parseSummary(summary), guides)).toEqual({ unlisted: [], unknown: [] });
  });
});
