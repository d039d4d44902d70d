import type { Element, ElementContent, Properties, Root, RootContent } from 'hast';

/**
 * hastscript's `h` and hast-util-to-html's `toHtml` for what the document renderer builds (./document): HTML elements
 * whose properties the sanitizer (./document `RENDER_SCHEMA`) lets through, and text. Both libraries read every
 * property through property-information, whose tables of every HTML and SVG attribute (a thousand `Info` objects,
 * built when its module is evaluated) were 7-11% of a cold isolate's first published page (test/bench/cold.ts, issue 42
 * item 7); what these properties need of them is the few lines below. Same trees, same bytes, with no option of
 * either library's (double quotes, hexadecimal character references, no optional tag left out): the kinds and
 * attribute names below are checked against property-information's for every property the sanitizer allows, and
 * documents rendered both ways (test/site/html-tree.test.ts).
 */

/** Properties whose value is a boolean (the attribute alone, or nothing), as property-information marks them. */
const BOOLEAN = new Set(['checked', 'compact', 'disabled', 'isMap', 'itemScope', 'multiple', 'noHref', 'noShade', 'noWrap', 'open', 'readOnly', 'selected']);
/** Properties whose string value `h` reads as a number. */
const NUMBER = new Set(['border', 'colSpan', 'cols', 'coords', 'hSpace', 'height', 'maxLength', 'rowSpan', 'rows', 'size', 'span', 'start', 'tabIndex', 'width']);
/** Lists of space-separated tokens (`className` above all). */
const SPACE_SEPARATED = new Set(['acceptCharset', 'accessKey', 'ariaDescribedBy', 'ariaLabelledBy', 'className', 'headers', 'htmlFor', 'itemProp', 'itemType', 'rel']);
/** Lists of comma-separated tokens. */
const COMMA_SEPARATED = new Set(['accept', 'coords']);
/** Attribute names that are not the property's in lower case (`aria-*` and `data-*` below). */
const ATTRIBUTE_NAMES: Record<string, string> = { className: 'class', htmlFor: 'for', acceptCharset: 'accept-charset' };

/** The attribute a property is written as. */
export function attributeOf(property: string): string {
  const named = ATTRIBUTE_NAMES[property];
  if (named) return named;
  // `ariaDescribedBy` is `aria-describedby`, `dataFootnoteRef` is `data-footnote-ref`.
  if (/^aria[A-Z]/.test(property)) return `aria-${property.slice(4).toLowerCase()}`;
  if (/^data[A-Z]/.test(property)) return property.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  return property.toLowerCase();
}

/** How a property's value is read and written, by what property-information says of it. */
export function kindOf(property: string): { boolean: boolean; number: boolean; spaceSeparated: boolean; commaSeparated: boolean } {
  return { boolean: BOOLEAN.has(property), number: NUMBER.has(property), spaceSeparated: SPACE_SEPARATED.has(property), commaSeparated: COMMA_SEPARATED.has(property) };
}

// ---------------------------------------------------------------------------------------------
// Building (hastscript's `h`)

type Child = ElementContent | Root | string | number | null | undefined | Child[];
type PropertyValue = string | number | boolean | null | undefined | Array<string | number>;

/** Whether `h`'s second argument is a child rather than properties (hastscript's `isChild`). */
function isChild(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return true;
  const record = value as Record<string, unknown>;
  if (typeof record.type !== 'string') return false;
  for (const field of Object.values(record)) {
    if (field && typeof field === 'object') {
      if (!Array.isArray(field)) return true;
      for (const item of field) if (typeof item !== 'number' && typeof item !== 'string') return true;
    }
  }
  return 'children' in record && Array.isArray(record.children);
}

const splitSpaces = (value: string) => {
  const input = value.trim();
  return input ? input.split(/[ \t\n\r\f]+/g) : [];
};

function splitCommas(value: string): string[] {
  const values: string[] = [];
  const input = value;
  let start = 0;
  let end = input.indexOf(',');
  let done = false;
  while (!done) {
    if (end === -1) {
      end = input.length;
      done = true;
    }
    const token = input.slice(start, end).trim();
    if (token || !done) values.push(token);
    start = end + 1;
    end = input.indexOf(',', start);
  }
  return values;
}

/** A string value as `h` keeps it: a number for a numeric property, true for a boolean one named by itself or empty. */
function primitive(property: string, value: string | number): string | number | boolean {
  if (typeof value !== 'string') return value;
  if (NUMBER.has(property) && value && !Number.isNaN(Number(value))) return Number(value);
  if (BOOLEAN.has(property) && (value === '' || value.toLowerCase() === property.toLowerCase())) return true;
  return value;
}

function propertyValue(property: string, value: PropertyValue): Properties[string] | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return Number.isNaN(value) ? undefined : value;
  if (typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map((item) => primitive(property, item)) as Array<string | number>;
  if (SPACE_SEPARATED.has(property)) return splitSpaces(value).map((item) => primitive(property, item)) as string[];
  if (COMMA_SEPARATED.has(property)) return splitCommas(value).map((item) => primitive(property, item)) as Array<string | number>;
  return primitive(property, String(value));
}

function addChild(nodes: ElementContent[], value: Child): void {
  if (value === null || value === undefined) return;
  if (typeof value === 'number' || typeof value === 'string') nodes.push({ type: 'text', value: String(value) });
  else if (Array.isArray(value)) for (const child of value) addChild(nodes, child);
  else if (value.type === 'root') addChild(nodes, value.children as Child[]);
  else nodes.push(value);
}

/** An HTML element: `h(tagName, properties?, ...children)`, the properties named as hast names them (`className`, `ariaLabel`). */
export function h(tagName: string, properties?: Record<string, PropertyValue> | Child, ...children: Child[]): Element {
  const node: Element = { type: 'element', tagName: tagName.toLowerCase(), properties: {}, children: [] };
  if (isChild(properties)) children.unshift(properties as Child);
  else {
    for (const [key, value] of Object.entries(properties as Record<string, PropertyValue>)) {
      const result = propertyValue(key, value);
      if (result !== undefined) node.properties[key] = result;
    }
  }
  for (const child of children) addChild(node.children, child);
  return node;
}

// ---------------------------------------------------------------------------------------------
// Writing (hast-util-to-html's `toHtml`)

/** html-void-elements: elements without a closing tag. */
const VOIDS = new Set(['area', 'base', 'basefont', 'bgsound', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'image', 'img', 'input', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr']);

const reference = (character: string) => `&#x${character.charCodeAt(0).toString(16).toUpperCase()};`;
const escapeText = (value: string) => value.replace(/[<&]/g, reference);
const escapeAttribute = (value: string) => value.replace(/[\0"&'`]/g, reference);
const escapeName = (value: string) => value.replace(/[\0\t\n\f\r "&'/<=>`]/g, reference);

function attribute(property: string, value: unknown): string {
  let written = value;
  if (BOOLEAN.has(property) && (typeof written !== 'string' || written === '' || written === attributeOf(property))) written = Boolean(written);
  if (written === null || written === undefined || written === false || (typeof written === 'number' && Number.isNaN(written))) return '';
  const name = escapeName(attributeOf(property));
  if (written === true) return name;
  const text = Array.isArray(written)
    ? COMMA_SEPARATED.has(property)
      ? (written[written.length - 1] === '' ? [...written, ''] : written).join(', ').trim()
      : written.join(' ').trim()
    : String(written);
  return `${name}="${escapeAttribute(text)}"`;
}

function attributes(properties: Properties | undefined): string {
  const values: string[] = [];
  for (const key in properties ?? {}) {
    const value = properties![key];
    if (value === null || value === undefined) continue;
    const written = attribute(key, value);
    if (written) values.push(written);
  }
  return values.join(' ');
}

function write(node: Root | RootContent): string {
  switch (node.type) {
    case 'root':
      return node.children.map(write).join('');
    case 'text':
      return escapeText(node.value);
    case 'element': {
      const content = node.children.map(write).join('');
      const attrs = attributes(node.properties);
      const open = `<${node.tagName}${attrs ? ` ${attrs}` : ''}>`;
      return VOIDS.has(node.tagName.toLowerCase()) && !content ? open : `${open}${content}</${node.tagName}>`;
    }
    default:
      // The sanitizer lets no comment, doctype or raw node through (RENDER_SCHEMA allows none).
      throw new Error(`html-tree: cannot write a ${node.type} node`);
  }
}

/** A sanitized tree as HTML. */
export function toHtml(tree: Root): string {
  return write(tree);
}
