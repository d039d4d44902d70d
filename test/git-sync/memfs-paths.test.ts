import { describe, expect, it } from 'vitest';
import { normalize } from '../../src/services/git-sync/memfs';

/**
 * The in-memory file system's paths (services/git-sync/memfs): a clean absolute path is kept as it is (one pass, what
 * isomorphic-git asks for under `/.git/`), any other is resolved; both give what the split-and-join resolution gives.
 */

function resolved(path: string): string {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `/${out.join('/')}`;
}

const PATHS = [
  '/',
  '/repo/.git/objects/pack/pack-0123.idx',
  '/repo/.git/shallow',
  '/.gitbook/assets/a.png',
  '/a/.hidden/..b/...c/d.',
  '//',
  '/a//b',
  '/a/b/',
  '/a/./b',
  '/a/../b',
  '/a/b/..',
  '/a/b/.',
  '/..',
  '/.',
  '/../a',
  'a/b',
  '.git/HEAD',
  '',
  '/a/..',
  '/a/.../b',
  '/a/..x/b',
];

describe('memfs paths', () => {
  it('resolve as the split and join does, a clean one kept as it is', () => {
    for (const path of PATHS) expect(normalize(path), path).toBe(resolved(path));
  });

  it('a long clean path under /.git is kept (the same string)', () => {
    const path = `/repo/.git/${'objects/'.repeat(2000)}pack`;
    expect(normalize(path)).toBe(path);
  });
});
