/**
 * GitBook's filesystem list of a bundle (services/openapi/filesystem): which descriptions get their HTML (every
 * object of the documents, whatever its name), which values are example data kept as written, and the bounds
 * on rendering. GitBook's renderer injects `x-gitbook-description-html`, or else the raw `description`, as HTML:
 * a description of the documents left without its HTML is a script in every visitor's browser.
 */
import { describe, expect, it } from 'vitest';
import { DESCRIPTION_HTML, MAX_RENDERED_DESCRIPTION, MAX_RENDERED_TOTAL, toGitbookFilesystem } from '../../../src/services/openapi/filesystem';

const XSS = '<img src=x onerror=alert(1)><script>alert(2)</script>**bold**';
const SAFE = '<p><img src="x"><strong>bold</strong></p>';
const entryOf = (document: unknown) => toGitbookFilesystem({ 'openapi.json': document }, 'openapi.json')[0].specification as any;

describe('descriptions of the documents', () => {
  it('are rendered and sanitized on objects whose name is a keyword elsewhere (example, examples, default, value, description)', () => {
    const names = ['example', 'examples', 'default', 'enum', 'value', 'description', 'x-gitbook-description-html', '__proto__'];
    // Own properties, `__proto__` included, as JSON.parse makes them from a spec.
    const properties = Object.fromEntries(names.map((name) => [name, { type: 'string', description: XSS }]));
    const document = JSON.parse(
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 'T', version: '1' },
        paths: { '/example': { get: { description: XSS, responses: { default: { description: XSS } } } } },
        components: { schemas: { example: { description: XSS, type: 'object', properties } } },
      }),
    );
    expect(Object.hasOwn(document.components.schemas.example.properties, '__proto__')).toBe(true);
    const out = entryOf(document);
    expect(out.paths['/example'].get[DESCRIPTION_HTML]).toBe(SAFE);
    expect(out.paths['/example'].get.responses.default[DESCRIPTION_HTML]).toBe(SAFE);
    const example = out.components.schemas.example;
    expect(example[DESCRIPTION_HTML]).toBe(SAFE);
    for (const name of names) {
      expect(Object.hasOwn(example.properties, name), name).toBe(true);
      expect(example.properties[name][DESCRIPTION_HTML], name).toBe(SAFE);
    }
    expect(Object.getPrototypeOf(example.properties)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(out)).components.schemas.example.properties.__proto__[DESCRIPTION_HTML]).toBe(SAFE);
    const html = JSON.stringify(out).match(/"x-gitbook-description-html":"(?:[^"\\]|\\.)*"/g)!;
    expect(html.length).toBe(3 + names.length);
    for (const value of html) expect(value).not.toMatch(/onerror|<script/);
  });

  it("drop an author's own x-gitbook-description-html, with or without a description", () => {
    const out = entryOf({ info: { title: 'T', [DESCRIPTION_HTML]: '<script>1</script>' }, paths: { '/a': { get: { description: ' ', [DESCRIPTION_HTML]: '<b onclick=x>' } } } });
    expect(out.info).toEqual({ title: 'T' });
    expect(out.paths['/a'].get).toEqual({ description: ' ' });
  });

  it('render in Example Objects (their description), never inside example data', () => {
    const data = { description: '*as is*', nested: [{ description: '<i>kept</i>' }], [DESCRIPTION_HTML]: 'data' };
    const media = {
      schema: { type: 'object', example: data, examples: [data], default: data, enum: [data], const: data, 'x-examples': { a: data } },
      example: data,
      examples: { first: { summary: 'S', description: XSS, value: data } },
    };
    const out = entryOf({ paths: { '/a': { post: { requestBody: { content: { 'application/json': media } } } } } });
    const got = out.paths['/a'].post.requestBody.content['application/json'];
    for (const key of ['example', 'examples', 'default', 'const'] as const) expect(got.schema[key], key).toEqual(media.schema[key]);
    expect(got.schema.enum).toEqual([data]);
    expect(got.schema['x-examples']).toEqual({ a: data });
    expect(got.example).toEqual(data);
    expect(got.examples.first).toEqual({ summary: 'S', description: XSS, value: data, [DESCRIPTION_HTML]: SAFE });
  });

  it('keep the documents and their key order otherwise', () => {
    const document = { openapi: '3.0.0', info: { version: '1', title: 'T' }, paths: { '/b': {}, '/a': { $ref: 'other.json#/x' } } };
    const [entry, other] = toGitbookFilesystem({ 'other.json': { x: { description: 'D' } }, 'openapi.json': document }, 'openapi.json');
    expect(JSON.stringify(entry.specification)).toBe(JSON.stringify(document));
    expect(entry).toMatchObject({ dir: './', isEntrypoint: true, references: [], filename: 'openapi.json' });
    expect(other).toMatchObject({ isEntrypoint: false, filename: 'other.json', specification: { x: { description: 'D', [DESCRIPTION_HTML]: '<p>D</p>' } } });
  });
});

describe('rendering is bounded', () => {
  it('a description the parser cannot take (nesting past the stack) is escaped text, not a failure', () => {
    const deep = '> '.repeat(5000) + '<script>x</script>';
    const out = entryOf({ info: { description: deep } });
    expect(out.info[DESCRIPTION_HTML].startsWith('<p>&gt; &gt; ')).toBe(true);
    expect(out.info[DESCRIPTION_HTML]).not.toContain('<script>');
  });

  it(`a description over ${MAX_RENDERED_DESCRIPTION} characters, and those past ${MAX_RENDERED_TOTAL} in all, are escaped text`, () => {
    const long = `**x** ${'a'.repeat(MAX_RENDERED_DESCRIPTION)}`;
    expect(entryOf({ info: { description: long } }).info[DESCRIPTION_HTML]).toBe(`<p>${long}</p>`);
    const each = MAX_RENDERED_DESCRIPTION - 10;
    const schemas = Object.fromEntries(Array.from({ length: Math.ceil(MAX_RENDERED_TOTAL / each) + 2 }, (_, i) => [`S${i}`, { description: `**${i}** ${'b'.repeat(each - 10)}` }]));
    const rendered = Object.values(entryOf({ components: { schemas } }).components.schemas).map((s: any) => s[DESCRIPTION_HTML] as string);
    expect(rendered[0].startsWith('<p><strong>0</strong>')).toBe(true);
    expect(rendered.at(-1)!.startsWith(`<p>**${rendered.length - 1}**`)).toBe(true);
  });
});
