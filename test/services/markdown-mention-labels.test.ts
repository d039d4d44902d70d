import { describe, expect, it } from 'vitest';
import { documentToMarkdown, markdownToDocument, withoutSourcePatch } from '../../src/services/markdown/index';

/**
 * GitBook's mention holds no label (its `data.ref` only): GitBook's Markdown labels it with its target's file name, a
 * folder's name for a folder or its README. A label read that is that name is the target's, so it is not stored (a
 * renamed target relabels the mention wherever it is read or written); a label of the author's, or one of a mention
 * of an anchor, stays the mention's text. Either way the page reads back as it was written.
 */

const mentionsOf = (markdown: string) =>
  (withoutSourcePatch(markdownToDocument(markdown).document).nodes[0] as any).nodes
    .filter((node: any) => node.type === 'mention')
    .map((node: any) => [node.data.ref.url, node.nodes?.map((text: any) => text.leaves.map((leaf: any) => leaf.text).join('')).join('') ?? null]);

describe("a mention's label", () => {
  const PAGE = 'See [setup.md](setup.md "mention"), [guides](../guides/ "mention"), [guides](../guides/README.md "mention"), [the steps](setup.md "mention") and [setup.md](setup.md#step "mention").\n';

  it('is not stored where it is the name GitBook derives from the target, and is otherwise', () => {
    expect(mentionsOf(PAGE)).toEqual([
      ['setup.md', null],
      ['../guides/', null],
      ['../guides/README.md', null],
      ['setup.md', 'the steps'],
      ['setup.md#step', 'setup.md'],
    ]);
  });

  it('is written back as it was read, and reads back the same', () => {
    const document = withoutSourcePatch(markdownToDocument(PAGE).document);
    const written = documentToMarkdown(document, { frontmatter: {} });
    expect(written).toBe(PAGE);
    expect(withoutSourcePatch(markdownToDocument(written).document)).toEqual(document);
  });

  it("is written from the target's href where it has none (GitBook's JSON)", () => {
    const mention = { object: 'inline', type: 'mention', isVoid: true, data: { ref: { kind: 'url', url: '../guides/install.md' } } };
    const paragraph = { object: 'block', type: 'paragraph', isVoid: false, data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'See ', marks: [] }] }, mention] };
    expect(documentToMarkdown({ object: 'document', data: {}, nodes: [paragraph] } as any, { frontmatter: {} })).toBe('See [install.md](../guides/install.md "mention")\n');
  });
});
