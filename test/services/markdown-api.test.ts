/**
 * GitBook's blocks through the API: a content batch that sends a GitBook JSON document holding every block
 * type is validated, stored and read back unchanged; one that sends GitBook Markdown reads back as the same
 * Markdown; and hostile Markdown is a 400 naming the problem, never a 500.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { markdownToDocument } from '../../src/services/markdown';
import { applyChanges, createSpace, openChangeRequest, postChanges } from '../helpers/content';
import { GITBOOK_0202, gitbookValidator } from '../helpers/gitbook-schema';
import { api, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';

/** A page using every block of GitBook's model, in GitBook's own Markdown. */
const EVERY_BLOCK_PAGE = `Intro with **bold**, _italic_, \`code\`, ~~struck~~, <mark style="color:red;">red</mark>, <kbd>K</kbd>, x<sup>2</sup>, $$e=mc^2$$ and <code class="expression">space.vars.v</code>.

## Heading one

### Heading two <a href="#two" id="two"></a>

#### Heading three

* bullet
  1. ordered

Tasks:

* [ ] task

---

> quote

{% hint style="warning" %}
A hint.
{% endhint %}

<figure><img src="https://cdn.example/a.png" alt="alt"><figcaption></figcaption></figure>

<img src="/files/drawing" alt="" class="gitbook-drawing">

{% embed url="https://www.youtube.com/watch?v=x" %}

{% code title="a.js" lineNumbers="true" %}
\`\`\`js
a()
\`\`\`
{% endcode %}

$$
(a = b) / 2
$$

<details>

<summary>More</summary>

Hidden.

</details>

{% tabs %}
{% tab title="One" %}
First.
{% endtab %}

{% tab title="Two" %}
Second.
{% endtab %}
{% endtabs %}

| A | B |
| - | - |
| 1 | 2 |

{% openapi src="https://api.example/openapi.yaml" path="/pets" method="get" %}
[https://api.example/openapi.yaml](https://api.example/openapi.yaml)
{% endopenapi %}

{% openapi-operation spec="petstore" path="/pets" method="post" %}
[OpenAPI petstore](/openapi/petstore)
{% endopenapi-operation %}

{% openapi-schemas spec="petstore" schemas="Pet" grouped="true" %}
[OpenAPI petstore](/openapi/petstore)
{% endopenapi-schemas %}

{% openapi-webhook spec="petstore" name="newPet" method="post" %}
[OpenAPI petstore](/openapi/petstore)
{% endopenapi-webhook %}

{% content-ref url="https://example.com/guide" %}
[https://example.com/guide](https://example.com/guide)
{% endcontent-ref %}

{% include "rc-1" %}

{% stepper %}
{% step %}
Step one.
{% endstep %}
{% endstepper %}

{% if visitor.claims.pro %}
Gated.
{% endif %}

{% columns %}
{% column %}
Left.
{% endcolumn %}

{% column %}
Right.
{% endcolumn %}
{% endcolumns %}

{% updates format="full" %}
{% update date="2025-01-02" %}
Shipped.
{% endupdate %}
{% endupdates %}

{% prompt description="Ask" %}
\`\`\`
Summarize
\`\`\`
{% endprompt %}
`;

const BLOCK_TYPES = [
  'paragraph', 'heading-1', 'heading-2', 'heading-3', 'list-unordered', 'paragraph', 'list-tasks', 'divider', 'blockquote', 'hint', 'images', 'drawing',
  'embed', 'code', 'math', 'expandable', 'tabs', 'table', 'swagger', 'openapi-operation', 'openapi-schemas', 'openapi-webhook', 'content-ref',
  'reusable-content', 'stepper', 'if', 'columns', 'updates', 'prompt',
];

let org: TestOrg;
let owner: string;

beforeAll(async () => {
  org = await seedOrg();
  owner = org.owner.token;
});

const get = async (path: string) => expectStatus(await api('GET', path, { token: owner }), 200).body;

describe("GitBook's blocks through the content API", () => {
  it('a JSON document with every top-level block type is valid for GitBook, stored, and read back unchanged', async () => {
    const { document } = markdownToDocument(EVERY_BLOCK_PAGE);
    expect(document.nodes.map((node) => node.type)).toEqual(BLOCK_TYPES);
    const validation = gitbookValidator('JSONDocument', GITBOOK_0202.components).validate(document);
    expect(validation.valid ? 'valid' : validation.errors.slice(-3)).toBe('valid');
    const space = await createSpace(org.id, owner, 'Blocks');
    const cr = await openChangeRequest(space.id, owner, 'Every block');
    const result = await applyChanges(space.id, cr.number, owner, [{ operation: 'insert_page', title: 'Blocks', document: { document } }]);
    const pageId = result.changes[0].page.id as string;
    const read = await get(`/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${pageId}`);
    expect(read.document).toEqual(document);
    // Its Markdown is the page it was read from.
    const asMarkdown = await get(`/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${pageId}?format=markdown`);
    expect(asMarkdown.markdown).toBe(`# Blocks\n\n${EVERY_BLOCK_PAGE}`);
  });

  it('GitBook Markdown posted as Markdown reads back as the same Markdown', async () => {
    const space = await createSpace(org.id, owner, 'Markdown');
    const cr = await openChangeRequest(space.id, owner, 'Markdown');
    const result = await applyChanges(space.id, cr.number, owner, [{ operation: 'insert_page', title: 'Blocks', document: { markdown: EVERY_BLOCK_PAGE } }]);
    const pageId = result.changes[0].page.id as string;
    const read = await get(`/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${pageId}?format=markdown`);
    expect(read.markdown).toBe(`# Blocks\n\n${EVERY_BLOCK_PAGE}`);
  });

  it("a hand-written page comes back as the author wrote it, and a JSON edit of one block changes that block only", async () => {
    const body = [
      '- a dash bullet, [http://localhost:8024](http://localhost:8024)',
      '- a second one',
      '',
      '| Name | Value |',
      '|:-----|:------|',
      '| a    | b     |',
      '',
      'Escaped \\(parentheses\\) and *stars*.',
      '',
      '',
      'Last paragraph.',
      '',
    ].join('\n');
    const space = await createSpace(org.id, owner, 'Hand written');
    const cr = await openChangeRequest(space.id, owner, 'Hand written');
    const result = await applyChanges(space.id, cr.number, owner, [{ operation: 'insert_page', title: 'Notes', document: { markdown: body } }]);
    const pageId = result.changes[0].page.id as string;
    const path = `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${pageId}`;
    expect((await get(`${path}?format=markdown`)).markdown).toBe(`# Notes\n\n${body}`);

    // A client edits the document as JSON: the patch it read is not taken from it, and the lines of
    // the blocks it did not touch are no longer the author's (the JSON it sent is all that is kept).
    const { document } = await get(path);
    expect(document.data.markdownSource.hunks.length).toBeGreaterThan(0);
    await applyChanges(space.id, cr.number, owner, [{ operation: 'update_page', page: pageId, document: { document } }]);
    const again = await get(path);
    expect(again.document.data).not.toHaveProperty('markdownSource');
    expect(again.document.nodes).toEqual(document.nodes);
  });

  it("front matter sets the page's fields, layout included, and a page read back as Markdown has its head as written", async () => {
    const source = [
      '---',
      "description: 'Quoted: as an editor wrote it'",
      'icon: rocket',
      'cover: .gitbook/assets/cover.png',
      'if: visitor.claims.plan == "pro"',
      'layout:',
      '  width: wide',
      '  description:',
      '    visible: false',
      '  outline:',
      '    visible: false',
      '---',
      '',
      '# Configured',
      '',
      'Body.',
      '',
    ].join('\n');
    const space = await createSpace(org.id, owner, 'Front matter');
    const cr = await openChangeRequest(space.id, owner, 'Front matter');
    const result = await applyChanges(space.id, cr.number, owner, [{ operation: 'insert_page', document: { markdown: source } }]);
    const pageId = result.changes[0].page.id as string;
    const path = `/v1/spaces/${space.id}/change-requests/${cr.number}/content/page/${pageId}`;
    const page = await get(path);
    expect(page).toMatchObject({ title: 'Configured', description: 'Quoted: as an editor wrote it', icon: 'rocket' });
    expect(page.layout).toMatchObject({ width: 'wide', description: false, outline: false, title: true, tableOfContents: true });
    expect((await get(`${path}?format=markdown`)).markdown).toBe(source);

    // A page field changed through the API: only that field changes in the head as written (its keys' order, `cover:` kept).
    await applyChanges(space.id, cr.number, owner, [{ operation: 'update_page', page: pageId, description: 'Changed' }]);
    const changed = (await get(`${path}?format=markdown`)).markdown as string;
    expect(changed.split('\n# Configured\n')[0]).toBe(source.split('\n# Configured\n')[0].replace("description: 'Quoted: as an editor wrote it'", 'description: Changed'));

    // An `if` that is no condition is refused, naming it.
    const bad = await postChanges(space.id, cr.number, owner, [{ operation: 'insert_page', document: { markdown: '---\nif: visitor.claims.(((\n---\n# Bad\n' } }]);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('Invalid if');
    expect(changed.endsWith('# Configured\n\nBody.\n')).toBe(true);
  });

  it('Markdown nested too deeply is a 400 naming the problem', async () => {
    const space = await createSpace(org.id, owner, 'Hostile');
    const cr = await openChangeRequest(space.id, owner, 'Hostile');
    const res = await postChanges(space.id, cr.number, owner, [{ operation: 'insert_page', title: 'Deep', document: { markdown: `${'>'.repeat(200)} deep` } }]);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('nested too deeply');
  });
});
