import { expect } from 'vitest';
import { withoutSourcePatch, type JSONDocument } from '../../src/services/markdown/index';

/**
 * `document` without its source patch, its first leaf holding `from` edited to hold `to`: a page edited as JSON, as
 * GitBook's editor sends it (what withSourcePatchOf is given as the next document). Fails the test when no leaf holds `from`.
 */
export function leafEditedAsJson(document: JSONDocument, from: string, to: string): JSONDocument {
  const next = structuredClone(withoutSourcePatch(document));
  let found = false;
  const visit = (node: any): void => {
    if (found || !node || typeof node !== 'object') return;
    if (node.object === 'leaf' && node.text.includes(from)) return void ((node.text = node.text.replace(from, to)), (found = true));
    for (const key of ['nodes', 'leaves', 'fragments']) for (const child of node[key] ?? []) visit(child);
  };
  visit(next);
  expect(found, from).toBe(true);
  return next;
}
