import { describe, expect, it } from 'vitest';
import { countWords, rewriteSpaceRefs, segmentDocument, segmentFields } from '../../src/services/translations/segments';
import { NO_TRANSLATOR_MESSAGE, WORKERS_AI_TRANSLATION_MODEL, createWorkersAITranslator, m2m100Code, translatorFor } from '../../src/services/translations/translator';

const leaf = (text: string, ...marks: string[]) => ({ object: 'leaf', text, marks: marks.map((type) => ({ object: 'mark', type })) });

describe('the translator seam', () => {
  it('is Workers AI when AI is bound, and none otherwise', () => {
    const ai = { run: async () => ({ translated_text: '' }) };
    expect(translatorFor({ AI: undefined })).toBeNull();
    expect(translatorFor({ AI: {} })).toBeNull();
    expect(translatorFor({ AI: { run: 'no' } })).toBeNull();
    expect(translatorFor({ AI: ai })?.name).toBe(`workers-ai:${WORKERS_AI_TRANSLATION_MODEL}`);
    expect(translatorFor({ AI: ai, TRANSLATIONS_AI_MODEL: '@cf/other/model' })?.name).toBe('workers-ai:@cf/other/model');
    expect(NO_TRANSLATOR_MESSAGE).toMatch(/No translator is configured/);
  });

  it("calls the model once per text with m2m100's language codes, in order", async () => {
    const calls: any[] = [];
    const translator = createWorkersAITranslator({
      async run(model, input: any) {
        calls.push({ model, ...input });
        await new Promise((resolve) => setTimeout(resolve, input.text.length % 3));
        return { translated_text: ` ${input.text}!` };
      },
    });
    const texts = Array.from({ length: 10 }, (_, i) => `text ${i}${'x'.repeat(i)}`);
    expect(await translator.translate(texts, { source: 'pt-br', target: 'zh-tw', instructions: 'Formal.' })).toEqual(texts.map((t) => `${t}!`));
    expect(calls).toHaveLength(10);
    expect(calls[0]).toEqual({ model: WORKERS_AI_TRANSLATION_MODEL, text: texts[0], source_lang: 'pt', target_lang: 'zh' });
    expect([m2m100Code('yue'), m2m100Code('fr'), m2m100Code('no')]).toEqual(['zh', 'fr', 'no']);
  });

  it('refuses an answer without translated_text', async () => {
    const translator = createWorkersAITranslator({ run: async () => ({ response: 'x' }) });
    await expect(translator.translate(['a'], { source: 'en', target: 'fr' })).rejects.toThrow(/translated_text/);
  });
});

describe('segments', () => {
  it('sends text leaves, alt texts and column titles; never code, inline code, expressions or blank text; keeps whitespace', () => {
    const document = {
      object: 'document' as const,
      data: {},
      nodes: [
        {
          object: 'block',
          type: 'paragraph',
          nodes: [
            { object: 'text', leaves: [leaf('  Hello '), leaf('x()', 'code'), leaf(' — '), leaf('world', 'bold', 'italic')] },
            { object: 'inline', type: 'expression', isVoid: true, data: { expression: 'space.vars.a' } },
            { object: 'inline', type: 'inline-image', isVoid: true, data: { ref: { kind: 'url', url: 'https://x.test/a.png' }, alt: 'An icon', caption: 'Caption' } },
          ],
        },
        { object: 'block', type: 'code', data: { syntax: 'sh' }, nodes: [{ object: 'block', type: 'code-line', data: {}, nodes: [{ object: 'text', leaves: [leaf('echo hi')] }] }] },
        {
          object: 'block',
          type: 'table',
          isVoid: true,
          data: { view: { type: 'grid', columns: ['c1'] }, records: { r1: { orderIndex: 'a', values: { c1: 'f1' } } }, definition: { c1: { id: 'c1', title: 'Name', type: 'text' } } },
          fragments: [{ object: 'fragment', fragment: 'f1', nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [leaf('Cell')] }] }] }],
        },
      ],
    } as any;
    const { copy, segments } = segmentDocument(document);
    expect(segments.texts).toEqual(['Hello', 'world', 'An icon', 'Caption', 'Name', 'Cell']);
    segments.apply(segments.texts.map((t) => t.toUpperCase()));
    const json = JSON.stringify(copy);
    expect((copy.nodes[0] as any).nodes[0].leaves).toMatchObject([{ text: '  HELLO ' }, { text: 'x()' }, { text: ' — ' }, { text: 'WORLD', marks: [{ type: 'bold' }, { type: 'italic' }] }]);
    expect(json).toContain('echo hi');
    expect(json).toContain('space.vars.a');
    expect(json).toContain('"title":"NAME"');
    expect(json).toContain('CELL');
    // The original is untouched.
    expect(JSON.stringify(document)).toContain('"text":"  Hello "');
    expect(() => segments.apply(['one'])).toThrow(/answered 1 texts for 6/);
  });

  it("segments a page's title and description", () => {
    const fields = { title: 'Intro', description: ' ' };
    const segments = segmentFields(fields);
    expect(segments.texts).toEqual(['Intro']);
    segments.apply(['INTRO']);
    expect(fields).toEqual({ title: 'INTRO', description: ' ' });
  });

  it('re-points references naming the source space only', () => {
    const value = { a: { kind: 'page', page: 'p', space: 'S' }, b: [{ kind: 'file', file: 'f', space: 'S' }, { kind: 'page', page: 'q', space: 'T' }], c: { kind: 'url', url: 'S' } };
    rewriteSpaceRefs(value, 'S', 'R');
    expect(value).toEqual({ a: { kind: 'page', page: 'p', space: 'R' }, b: [{ kind: 'file', file: 'f', space: 'R' }, { kind: 'page', page: 'q', space: 'T' }], c: { kind: 'url', url: 'S' } });
  });

  it('counts words', () => {
    expect(countWords(['one two', ' three ', ''])).toBe(3);
  });
});
