import { describe, expect, it } from 'vitest';
import { cleanPath, rewriteIncludes } from '../../src/services/git-sync/layout';

/**
 * The import planning's fast paths (layout.ts): a clean path is kept as it is, and a page without an include tag is not
 * scanned by the tag's regex. Both answer what the full resolution answers, on every kind of segment and on a long page.
 */

function resolved(path: string): string {
  const out: string[] = [];
  for (const part of path.replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return out.join('/');
}

const SEGMENTS = ['a', '.', '..', '', '...', '.gitbook', '..x', 'x.', 'b\\c', 'page.md', ' '];

describe('cleanPath', () => {
  it('answers the split and join on every path of up to four segments', () => {
    const paths = [''];
    for (let n = 0; n < 4; n++) for (const path of [...paths]) for (const segment of SEGMENTS) paths.push(path === '' && n === 0 ? segment : `${path}/${segment}`);
    for (const path of new Set([...paths, ...paths.map((p) => `/${p}`), ...paths.map((p) => `./${p}/`)])) expect(cleanPath(path), JSON.stringify(path)).toBe(resolved(path));
  });

  it('keeps a long clean path as it is', () => {
    const path = `${'section/'.repeat(5000)}page.md`;
    expect(cleanPath(path)).toBe(path);
  });
});

describe('rewriteIncludes', () => {
  const ids = new Map([['.gitbook/includes/note.md', 'inc1'], ['.gitbook/includes/warn.md', 'inc2']]);
  const replace = (path: string) => ids.get(path) ?? null;

  it('rewrites the tags of a long page, relative and from the root, and leaves a page without one as it is', () => {
    const block = '{% hint style="info" %}\nSome **text** with "quotes" and {% tab title="x" %}.\n{% endhint %}\n\n';
    const page = `# Long\n\n${block.repeat(3000)}{% include "../.gitbook/includes/note.md" %}\n\n${block.repeat(3000)}{%include "/.gitbook/includes/warn.md"%}\n{% include "../.gitbook/includes/none.md" %}\n`;
    const out = rewriteIncludes(page, 'guide/page.md', replace);
    expect(out).toBe(page.replace('{% include "../.gitbook/includes/note.md" %}', '{% include "inc1" %}').replace('{%include "/.gitbook/includes/warn.md"%}', '{%include "inc2"%}'));
    // Spelled without a space after `{%`, or with several: the tag all the same.
    for (const tag of ['{%include "/.gitbook/includes/warn.md"%}', '{%   include   "/.gitbook/includes/warn.md" %}']) {
      expect(rewriteIncludes(`${block.repeat(100)}${tag}\n`, 'page.md', replace)).toBe(`${block.repeat(100)}${tag.replace('/.gitbook/includes/warn.md', 'inc2')}\n`);
    }
    const plain = `# Plain\n\n${block.repeat(6000)}`;
    expect(rewriteIncludes(plain, 'guide/page.md', replace)).toBe(plain);
  });
});
