/**
 * Markdown -> document, keeping what the author wrote where our writing of it differs
 * (source-patch.ts explains why): the conversion of from-markdown.ts, then the document written back
 * once and compared with the source, line by line.
 */
import { codeRangesOf } from './code-ranges';
import type { Nodes, Root } from 'mdast';
import { defaultResolveLink, pageFrontmatter, readMarkdown, type LinkResolver, type MarkdownConversion, type MarkdownRead, type MarkdownToDocumentOptions } from './from-markdown';
import { layoutFrontmatter, type PageLayoutFrontmatter } from './page-layout';
import type { ContentRef, JSONDocument } from './document';
import { applySourceHunks, frontmatterKey, PAGE_FIELD_FRONTMATTER_KEYS, SOURCE_PATCH_KEY, sourceHunks, sourcePatchOf, type SourceHunk, type SourcePatch } from './source-patch';
import { defaultHrefFor, patchBaseOf, patchedWriting, writeBody, writeHead, writePatchBase } from './to-markdown';

export function markdownToDocument(markdown: string, options: MarkdownToDocumentOptions = {}): MarkdownConversion {
  const read = readMarkdown(markdown, options);
  const { conversion } = read;
  const patch = sourcePatch(read, options, markdown);
  if (patch) conversion.document.data[SOURCE_PATCH_KEY] = patch;
  return conversion;
}

/**
 * The hunks whose lines hold no link to the space's content (a page, an anchor, a file...): such a
 * line is always written with the link's current target, for the source's relative path would go
 * stale when a page moves. Found by writing the document again with those targets marked, unless no
 * hunk can hold one (`mayHoldContentLink`): then the marked writing has the hunks' lines as ours.
 */
function withoutContentLinks(hunks: SourceHunk[], document: JSONDocument, ours: string, contentHrefs: ReadonlySet<string>, linksById?: (group: SourceHunk[]) => SourceHunk[] | null, referenced: (group: SourceHunk[]) => string[] = () => []): SourceHunk[] {
  if (hunks.length === 0) return hunks;
  const mayHold = contentLinkTest(contentHrefs);
  if (!hunks.some((hunk) => hunk.remove.some(mayHold))) return hunks;
  const marked = writePatchBase(document, (ref) => (goesStale(ref) ? `${defaultHrefFor(ref)}\u0001` : ref.kind === 'url' ? ref.url : defaultHrefFor(ref))).split('\n');
  const lines = ours.split('\n');
  if (marked.length !== lines.length) return [];
  const kept = (group: SourceHunk[]) => group.every((hunk) => hunk.remove.every((line, i) => marked[hunk.at + i] === line)) || keepsItsLinksById(group, marked, referenced(group));
  return hunksByBlankLines(hunks, lines).flatMap((group) => {
    if (kept(group)) return withDefinitionsById(group, linksById);
    const byId = linksById?.(group);
    // A line that, by id, is ours again (`/pages/<slug path>` written `/pages/<id>`) needs no hunk.
    // (Compared line by line: an inserted blank line joins as nothing, as no line does.)
    return byId && keepsItsLinksById(byId, marked, referenced(group)) ? byId.filter((hunk) => hunk.add.length !== hunk.remove.length || hunk.add.some((line, i) => line !== hunk.remove[i])) : [];
  });
}

/** A reference definition's line (`[label]: target`). */
const DEFINITION_LINE = /^\s{0,3}\[[^\]]+\]:/;

/**
 * A group kept, with its reference definitions' lines as `linksById` writes them (`[label]: /pages/<id>`): kept with
 * the relative path, a reference to it read (by the default resolver, a JSON edit's check) as a link to a URL, and
 * the page, no longer its document, was written whole our way. Other lines stay as they are.
 */
function withDefinitionsById(group: SourceHunk[], linksById: ((group: SourceHunk[]) => SourceHunk[] | null) | undefined): SourceHunk[] {
  if (!linksById || !group.some((hunk) => hunk.add.some((line) => DEFINITION_LINE.test(line)))) return group;
  const byId = linksById(group);
  if (!byId) return group;
  return group.map((hunk, h) => ({ ...hunk, add: hunk.add.map((line, i) => (DEFINITION_LINE.test(line) ? byId[h].add[i] : line)) }));
}

/** Hunks of table lines only (`|` on every line they remove and add). */
function onlyTableLines(hunks: readonly SourceHunk[]): boolean {
  return hunks.length > 0 && hunks.every((hunk) => hunk.remove.every((line) => line.includes('|')) && hunk.add.every((line) => line.includes('|')));
}

/**
 * Link targets as a source line writes them: inline (in angle brackets with them: `](<a (1).png>)`), GitBook tags'
 * attributes, HTML `src`/`srcset`/`href`, reference definitions.
 */
const LINK_TARGETS = [/(\]\(\s*)(<[^<>\n]*>|(?:\\[!-/:-@[-`{-~]|\([^()\s<>\\]*\)|[^)\s<>\\]|\\)+)/g, /(\b(?:src|srcset|href|url|page)\s*=\s*")([^"]+)/g, /(^\s{0,3}\[[^\]]+\]:\s*<?)(\S+?)(?=>?(?:\s|$))/gm];

/**
 * A group of hunks with the links of their source lines that resolve to a page or file of the space (a relative path,
 * a batch ref) written by id, as our writing names them (`../guide.md` -> `/pages/<id>`), or null when none does: the
 * author's lines are kept with ids, which the export writes back as the targets' current paths, where a relative path
 * would go stale when a page moves. Resolved here, by the conversion's own resolver, the content batch no longer
 * rewrites refs in the Markdown before converting it. A link written in code (a block or a span) is text and stays.
 */
function linksByIdIn(body: string, hunks: readonly SourceHunk[], resolveLink: LinkResolver, codeRanges: () => CodeRanges, swaps: Swap[], destinationAt: (at: number) => boolean): (group: SourceHunk[]) => SourceHunk[] | null {
  // Each hunk's first line in the source, and the source's line starts and code, found when first asked for.
  const sourceLine = sourceLinesOf(hunks);
  let starts: number[] | undefined;
  let code: CodeRanges | undefined;
  const lineStart = (line: number) => (starts ??= lineStarts(body))[line] ?? body.length;
  const inCode = (at: number) => (code ??= codeRanges()).some(([start, end]) => at >= start && at < end);
  const byId = (line: string, offset: number) => {
    // Targets found on the line as written (its offsets are the source's), replaced from the last.
    const edits: Array<[number, number, string, RegExp]> = [];
    for (const pattern of LINK_TARGETS) {
      for (const match of line.matchAll(pattern)) {
        const start = (match.index ?? 0) + match[1].length;
        const end = start + match[2].length;
        if (edits.some(([from, to]) => start < to && end > from)) continue;
        // A destination's backslash escapes are no part of its target (`#enable\_pruning` is `#enable_pruning`): resolved
        // with them, the anchor named none, the hunk was dropped and the line written ours (its label's `\_` as `_`).
        const written = match[2].startsWith('<') && match[2].endsWith('>') ? match[2].slice(1, -1) : match[2];
        const unescaped = pattern === LINK_TARGETS[1] ? written : written.replace(/\\([!-/:-@[-`{-~])/g, '$1');
        const ref = resolveLink(unescaped);
        // `](path)` that the converter read as no link's destination (`](a.md#- how to)`, with a space; in an HTML block) is text.
        if (pattern !== LINK_TARGETS[1] && !destinationAt(offset + start)) continue;
        if (ref && namedById(ref) && !inCode(offset + start)) edits.push([start, end, hrefKeepingAnchor(defaultHrefFor(ref), written, unescaped), pattern]);
      }
    }
    for (const [from, to, href, pattern] of edits) swaps.push({ at: offset + from, target: line.slice(from, to), href, attribute: pattern === LINK_TARGETS[1] });
    return edits.sort((a, b) => b[0] - a[0]).reduce((out, [from, to, href]) => out.slice(0, from) + href + out.slice(to), line);
  };
  return (group) => {
    let changed = false;
    const rewritten = group.map((hunk) => {
      const first = sourceLine.get(hunk) ?? 0;
      const add = hunk.add.map((line, i) => {
        const out = line.includes('](') || line.includes('=') || line.includes(']:') ? byId(line, lineStart(first + i)) : line;
        if (out !== line) changed = true;
        return out;
      });
      return { ...hunk, add };
    });
    return changed ? rewritten : null;
  };
}

/**
 * The href by id of a target, with the target's anchor as the author wrote it where it is the href's own once its
 * escapes are undone (`#write-\\(create\\)`): the export writes a kept line's `/pages/<id>#anchor` back with the anchor
 * as it stands, so written unescaped, a line nobody edited came back with `(` for the author's `\\(`.
 */
function hrefKeepingAnchor(href: string, written: string, unescaped: string): string {
  const [hrefHash, writtenHash] = [href.indexOf('#'), written.indexOf('#')];
  if (hrefHash < 0 || writtenHash < 0 || written === unescaped) return href;
  return href.slice(hrefHash) === unescaped.slice(unescaped.indexOf('#')) ? href.slice(0, hrefHash) + written.slice(writtenHash) : href;
}

/** Each hunk's first line in the source (the body the hunks give back). */
function sourceLinesOf(hunks: readonly SourceHunk[]): Map<SourceHunk, number> {
  const sourceLine = new Map<SourceHunk, number>();
  let shift = 0;
  for (const hunk of hunks) {
    sourceLine.set(hunk, hunk.at + shift);
    shift += hunk.add.length - hunk.remove.length;
  }
  return sourceLine;
}

/**
 * For a group of hunks, the hrefs by id (`/pages/<id>`) that the reference links on their source lines name through
 * their definitions (`[text][label]` and `[label]: ./other.md`, a page of the space): the definition's line is kept
 * with the id (`linksByIdIn`), so a line holding the reference keeps its link as an inline link with that id would.
 * Counted as no link, the author's line was dropped, the definitions left unused, and the page, no longer reading as
 * the document, was written whole our way: references inline, definitions gone (talus-docs, found-gitprobe15c 4).
 */
function referencedHrefsIn(read: MarkdownRead, body: string, hunks: readonly SourceHunk[], resolveLink: LinkResolver): (group: SourceHunk[]) => string[] {
  // The first definition of a label is the one its references name; only one standing at the top level is written by
  // id (`DEFINITION_LINE`: one in a list item, `- [g]: x.md`, keeps its path, so its references are no links by id).
  const definitions = new Map<string, string>();
  const references: Array<{ at: number; identifier: string }> = [];
  const visit = (node: Nodes, top: boolean) => {
    if (node.type === 'definition') {
      const ref = top ? resolveLink(node.url) : null;
      if (!definitions.has(node.identifier)) definitions.set(node.identifier, ref && namedById(ref) ? defaultHrefFor(ref) : '');
    } else if ((node.type === 'linkReference' || node.type === 'imageReference') && node.position?.start.offset !== undefined) {
      references.push({ at: node.position.start.offset - read.bodyStart, identifier: node.identifier });
    }
    if ('children' in node) for (const child of node.children) visit(child as Nodes, node.type === 'root');
  };
  visit(read.tree, false);
  if (definitions.size === 0 || references.length === 0) return () => [];
  const starts = lineStarts(body);
  const sourceLine = sourceLinesOf(hunks);
  return (group) =>
    group.flatMap((hunk) => {
      const first = sourceLine.get(hunk) ?? 0;
      const [from, to] = [starts[first] ?? body.length, starts[first + hunk.add.length] ?? body.length];
      return references.filter(({ at }) => at >= from && at < to).flatMap(({ identifier }) => definitions.get(identifier) || []);
    });
}

/** A page, a page's anchor or a file of this space: what `/pages/<id>` and `/files/<id>` name. */
function namedById(ref: ContentRef): boolean {
  return ref.kind === 'file' || ((ref.kind === 'page' || ref.kind === 'anchor') && !!ref.page && !ref.space);
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}

/**
 * Hunks in runs apart only by blank lines of ours, each run judged as one: the diff may align a blank line of ours
 * with one of the source further on, splitting one change in two (`text\` over a `<figure>` the source has on the
 * next line, ours after a blank line: the image's line in one hunk, the figure's in the other). Judged apart, the
 * hunk removing the image line added no link and was dropped, and the page rewritten.
 */
function hunksByBlankLines(hunks: SourceHunk[], ours: string[]): SourceHunk[][] {
  const groups: SourceHunk[][] = [];
  for (const hunk of hunks) {
    const group = groups.at(-1);
    const previous = group?.at(-1);
    const between = previous ? ours.slice(previous.at + previous.remove.length, hunk.at) : null;
    if (group && between && between.every((line) => line.trim() === '')) group.push(hunk);
    else groups.push([hunk]);
  }
  return groups;
}

/**
 * Whether a line of our writing may differ in the marked writing. Only the lines of a content link
 * do, and those of a table holding one (its cells are padded to the widest, marked or not). A link's
 * line holds its href's longest run of letters and digits as written: no escaping of Markdown, HTML or
 * tag attributes changes or splits such a run. An href without one makes every line suspect.
 */
function contentLinkTest(contentHrefs: ReadonlySet<string>): (line: string) => boolean {
  if (contentHrefs.size === 0) return () => false;
  const runs = new Set<string>();
  for (const href of contentHrefs) {
    const run = (href.match(/[A-Za-z0-9]+/g) ?? []).reduce((longest, candidate) => (candidate.length > longest.length ? candidate : longest), '');
    if (run === '') return () => true;
    runs.add(run);
  }
  return (line) => line.includes('|') || [...runs].some((run) => line.includes(run));
}

/**
 * Hunks whose only content links are pages and files the source names by id (`/pages/<id>`, `/pages/<id>#anchor`,
 * `/files/<id>`, as Git Sync's import writes them and as our Markdown reads): an id does not go stale as a relative
 * path does, so the author's lines are kept (GitBook's `<figure><img src=...>` for a block image, written back as
 * it was rather than as `![](...)`; a line linking to another page keeps its trailing spaces, escapes and autolinks,
 * which an export of the page edited elsewhere otherwise rewrote).
 */
function keepsItsLinksById(group: SourceHunk[], marked: string[], referenced: readonly string[] = []): boolean {
  // A kept anchor's escapes are no part of its href (`hrefKeepingAnchor`).
  const added = group.flatMap((hunk) => hunk.add).join('\n').replace(/\\([!-/:-@[-`{-~])/g, '$1');
  // A reference's href stands for one link (an inline link to the same page on the line is the added text's).
  const byReference = [...referenced];
  const found = (href: string) => added.includes(href) || (byReference.includes(href) && !!byReference.splice(byReference.indexOf(href), 1));
  return group.every((hunk) =>
    hunk.remove.every((_, i) => {
      // A link's href alone: not the `[` of a label that is its href (`[/pages/<id>](/pages/<id>)` in a content-ref).
      // In angle brackets, as the marker makes a destination written, with what they hold (an anchor's parentheses).
      const links = (marked[hunk.at + i]?.match(/(?<=<)[^<>\n]*\u0001(?=>)|[^\s("'<>[\]]*\u0001/g) ?? []);
      return links.every((link) => /^\/(?:files\/[^/?#\s]+|pages\/[^/?#\s]+(?:#[^\s]*)?)\u0001$/.test(link) && found(link.slice(0, -1)));
    }),
  );
}

/**
 * Whether a link's written target may go stale: a link to a page or file of the space. An anchor of the page
 * itself (`#install`, no page) is written the same wherever the page moves, so the author's line holding it is
 * kept like any other (a reference definition `[x]: #install` counted as a content link dropped its hunk, and a
 * partial patch that no longer reads as the document is dropped whole: the page was rewritten on every edit).
 */
function goesStale(ref: ContentRef): boolean {
  // An OpenAPI block names its spec in its tag (`spec="petstore"`); the link in its body (GitBook writes the spec's
  // URL) names nothing the block reads, so the author's line is kept: counted, it was written `/openapi/<spec>`.
  if (ref.kind === 'openapi') return false;
  return ref.kind !== 'url' && !(ref.kind === 'anchor' && !ref.page && !ref.space);
}

/**
 * The page fields of a front matter as a page's writers pass them (`frontmatterOf` in content/reads): read into the
 * page, the default layout left out and any other in GitBook's full form. A source whose head differs from the one
 * written from them keeps its own (a `layout:` holding GitBook's defaults, or some of its parts only): compared with
 * the source's own values, such a head was taken for ours, not recorded, and the page, once edited, lost that layout
 * or had every default written out.
 */
function pageFieldsOf(frontmatter: Record<string, unknown>): Record<string, unknown> {
  const page = pageFrontmatter(frontmatter) as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  for (const key of PAGE_FIELD_FRONTMATTER_KEYS) {
    const value = key === 'layout' ? layoutFrontmatter(page.layout as PageLayoutFrontmatter | undefined) : page[key];
    if (value !== undefined && value !== '') fields[key] = value;
  }
  return fields;
}

/** A link target of the source (`target`, at `at` in the body) written by id (`href`) in a hunk (`linksByIdIn`). */
interface Swap {
  at: number;
  target: string;
  href: string;
  /** Found as an attribute's value (`src="..."`), not a destination. */
  attribute: boolean;
}

/** Characters a target and its href may hold for a swap to be read as the source is: none that ends, escapes or encodes a destination. */
const PLAIN_DESTINATION = /^[A-Za-z0-9_\-./#%~+]+$/;

/** A destination in angle brackets that is its URL as written (`<a (1).png>`): no escape or character reference in it. */
const ANGLED_DESTINATION = /^<([^<>\\&\n]+)>$/;

/**
 * An attribute's value that is what the HTML parser reads (no character reference) and that no tag, quote or tag
 * syntax of ours ends or splits (`{% %}`, `<`, `>`): replaced by a plain href, the element reads as it did.
 */
const PLAIN_ATTRIBUTE = /^[^"'<>&\\`{}\n]+$/;

/**
 * Whether the patched body is the source's body with link targets written by id only, each one the destination of a
 * link, an image or a definition (`[x](target)`, `[x]: target`, `[x](<target>)`) of the source's own tree, or an
 * attribute's value that the document holds nowhere as text (an image's `src`, GitBook's `<figure><img>`: read, it is
 * only resolved), that `href` names the same content as: such a body reads as the source does, which is the
 * document, so the read-back check would say yes (what it guards against is another difference: a hunk dropped, a
 * definition's line written our way, whose links the kept lines still name). Anything else (HTML or a tag the document
 * keeps as text, an href with characters a destination escapes, a title heading naming a definition) leaves the check
 * to be done. Read-back costs a parse of the page; this costs a walk of its tree (issue 40: GitBook's figures sent a
 * fifth of vngcloud/docs' pages to the read-back).
 */
function onlyLinksWrittenById(patched: string, body: string, swaps: readonly Swap[], read: { tree: Root; bodyStart: number; headingTitle: string | null }, resolveLink: LinkResolver, document: JSONDocument): boolean {
  const [first] = read.tree.children.filter((node) => node.type !== 'yaml');
  // The source's title heading is not in the body the check reads: a reference in it marks a definition as used.
  if (read.headingTitle !== null && first && holdsReference(first)) return false;
  if (swaps.length === 0) return patched === body;
  const readAs = swapReading(read, document);
  const byAt = new Map<number, Swap>();
  for (const swap of swaps) byAt.set(swap.at, swap);
  let expected = body;
  for (const swap of [...byAt.values()].sort((a, b) => b.at - a.at)) {
    const resolved = PLAIN_DESTINATION.test(swap.href) ? readAs(swap) : null;
    if (resolved === null || JSON.stringify(resolveLink(swap.href)) !== JSON.stringify(resolveLink(resolved))) continue;
    expected = expected.slice(0, swap.at) + swap.href + expected.slice(swap.at + swap.target.length);
  }
  return expected === patched;
}

/**
 * What the conversion resolved where a swap's target stands (the link's URL, the attribute's value), or null where
 * written otherwise it may not read as it did: no destination of the tree there, or an attribute the document holds
 * as text (unknown HTML kept as code, a drawing's `src` naming no file).
 */
function swapReading(read: { tree: Root; bodyStart: number }, document: JSONDocument): (swap: Swap) => string | null {
  let destinations: Map<string, ReturnType<typeof destinationsOf>> | undefined;
  let text: string | undefined;
  return (swap) => {
    if (swap.attribute) {
      if (!PLAIN_ATTRIBUTE.test(swap.target)) return null;
      text ??= JSON.stringify(document.nodes);
      return text.includes(JSON.stringify(swap.target).slice(1, -1)) ? null : swap.target;
    }
    const url = PLAIN_DESTINATION.test(swap.target) ? swap.target : ANGLED_DESTINATION.exec(swap.target)?.[1];
    if (url === undefined) return null;
    destinations ??= byUrl(destinationsOf(read.tree));
    const at = read.bodyStart + swap.at;
    const isDestination = (destinations.get(url) ?? []).some((node) => node.start <= at && at < node.end && !node.children.some(([from, to]) => from <= at && at < to));
    return isDestination ? url : null;
  };
}

function byUrl<T extends { url: string }>(nodes: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const node of nodes) {
    const list = out.get(node.url);
    if (list) list.push(node);
    else out.set(node.url, [node]);
  }
  return out;
}

function holdsReference(node: Nodes): boolean {
  if (node.type === 'linkReference' || node.type === 'imageReference') return true;
  return 'children' in node && node.children.some((child) => holdsReference(child as Nodes));
}

/** The links, images and definitions of a tree, with their source ranges and their children's (a label's text is no destination). */
function destinationsOf(tree: Root): Array<{ url: string; start: number; end: number; children: Array<[number, number]> }> {
  const out: Array<{ url: string; start: number; end: number; children: Array<[number, number]> }> = [];
  const visit = (node: Nodes) => {
    if ((node.type === 'link' || node.type === 'image' || node.type === 'definition') && node.position) {
      const children = 'children' in node ? node.children.flatMap((child): Array<[number, number]> => (child.position ? [[child.position.start.offset ?? 0, child.position.end.offset ?? Infinity]] : [[-Infinity, Infinity]])) : [];
      out.push({ url: node.url, start: node.position.start.offset ?? Infinity, end: node.position.end.offset ?? -Infinity, children });
    }
    if ('children' in node) for (const child of node.children) visit(child as Nodes);
  };
  visit(tree);
  return out;
}

function readsAsSameDocument(markdown: string, document: JSONDocument, options: MarkdownToDocumentOptions): boolean {
  const again = readMarkdown(`---\ntitle: body\n---\n${markdown}`, options).conversion.document;
  return JSON.stringify(again.nodes) === JSON.stringify(document.nodes);
}

type CodeRanges = ReturnType<typeof codeRangesOf>;

/**
 * The source as the patch gives it back: its line breaks read as `\n`, but a lone `\r` (a progress bar's carriage
 * return in a notebook's output) kept where it was. Read as a line break, it was written back as `\n` however the page
 * was edited; kept, the hunks of its lines hold it (one character for one: offsets stay those of `source`).
 */
function withLoneCarriageReturns(markdown: string, source: string): string {
  if (!markdown.includes('\r')) return source;
  const kept = markdown.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  return kept.length === source.length ? kept : source;
}

/**
 * The source the patch gives back, its body (a missing final newline compared as one, and recorded: the page is
 * written without it, as a file edited in GitBook keeps its own ending) and the hunks turning our writing into it.
 * A file's lone carriage returns are kept in the hunks (a progress bar's in a notebook's output) unless they are its
 * line breaks (old-Mac `\r`, `\r\r\n`): then every line of it differed from ours, and an edit anywhere rewrote the file
 * whole. Read as `\n` they need no hunk, and the export gives each line its own ending back (line-endings.ts). Told
 * apart by which gives fewer hunks' lines.
 */
function comparedSource(markdown: string, normalized: string, bodyStart: number, ours: string): { source: string; body: string; noFinalNewline: boolean; hunks: SourceHunk[] } {
  const compared = (source: string) => {
    const noFinalNewline = !source.endsWith('\n') && bodyStart < source.length;
    const body = noFinalNewline ? `${source.slice(bodyStart)}\n` : source.slice(bodyStart);
    const hunks = sourceHunks(ours, body);
    return { source, body, noFinalNewline, hunks: hunks ?? [], size: hunks === null && ours !== body ? Infinity : hunkLines(hunks ?? []) };
  };
  const kept = withLoneCarriageReturns(markdown, normalized);
  const withReturns = compared(kept);
  if (kept === normalized || withReturns.size === 0) return withReturns;
  const plain = compared(normalized);
  return plain.size < withReturns.size ? plain : withReturns;
}

function hunkLines(hunks: readonly SourceHunk[]): number {
  return hunks.reduce((sum, hunk) => sum + hunk.remove.length + hunk.add.length, 0);
}

/** `codeRanges`: where the body's code is (offsets in the body), read from the conversion's own tree when first asked. */
function sourcePatch(read: MarkdownRead, options: MarkdownToDocumentOptions, markdown: string): SourcePatch | null {
  const { conversion, bodyStart, headingTitle } = read;
  const codeRanges = () => codeRangesOf(read.tree, bodyStart);
  // Our writing, with the hrefs it gives to the space's content (those the marked writing marks).
  const contentHrefs = new Set<string>();
  const recordHref = (ref: ContentRef) => {
    const href = defaultHrefFor(ref);
    if (goesStale(ref)) contentHrefs.add(href);
    return href;
  };
  // (recordHref gives the default hrefs: the hunks left are applied to this writing, not to the page written again.)
  const base = patchBaseOf(conversion.document, recordHref);
  const ours = base.text;
  const { source, body, noFinalNewline, hunks: found } = comparedSource(markdown, read.source, bodyStart, ours);
  // Our tables' rows are matched written alone (writePatchBase); a page written as GitBook writes it, its tables
  // padded, needs no patch (looked at only where every hunk is a table's: our padded writing costs a stringify).
  let padded: string | undefined;
  const paddedWriting = () => (padded ??= writeBody(conversion.document, recordHref));
  const all = onlyTableLines(found) && paddedWriting() === body ? [] : found;
  const swaps: Swap[] = [];
  let destinations: ReturnType<typeof destinationsOf> | undefined;
  const destinationAt = (at: number) => (destinations ??= destinationsOf(read.tree)).some((node) => node.start <= bodyStart + at && bodyStart + at < node.end && !node.children.some(([from, to]) => from <= bodyStart + at && bodyStart + at < to));
  const resolveLink = options.resolveLink;
  let hunks = withoutContentLinks(all, conversion.document, ours, contentHrefs, resolveLink && linksByIdIn(body, all, resolveLink, codeRanges, swaps, destinationAt), resolveLink && referencedHrefsIn(read, body, all, resolveLink));
  // All hunks give the source back, which reads as this document; some of them may not (a link
  // definition whose link is written inline): read what they give, and keep none if it differs.
  if (hunks.length > 0 && hunks.length < all.length) {
    const patched = applySourceHunks(ours, hunks);
    const same = (options.resolveLink && onlyLinksWrittenById(patched, body, swaps, read, options.resolveLink, conversion.document)) || readsAsSameDocument(patched, conversion.document, options);
    if (!same) hunks = [];
  }
  // The hunks left (the others were links written by id) may only pad our tables as GitBook pads them: no patch either,
  // or the page's own writing, read again, made another document (one without a patch).
  // (The hunks applied to our writing over `recordHref`, which gives the default hrefs: as writeBody applies them.)
  if (hunks.length > 0 && hunks.length < all.length && onlyTableLines(hunks) && patchedWriting(base, hunks) === paddedWriting()) hunks = [];
  const sourceHead = source.slice(0, bodyStart);
  const hasFrontmatter = Object.keys(conversion.frontmatter).length > 0;
  // Our head as the page's writers give it: its fields only (`frontmatterOf`). Another key of the source's front
  // matter (`tags:`) is kept only with the source's head: compared with the whole front matter, such a head was
  // taken for ours, not recorded, and the key lost when the page was written.
  const ourHead = writeHead(headingTitle ?? undefined, hasFrontmatter ? pageFieldsOf(conversion.frontmatter) : undefined);
  // A front matter `title:` beside a heading 1 of other text (which stays in the body): written our way, the title
  // would become a heading 1 and the front matter lose it; the source's head is kept to write both back.
  const titleBesideHeading = headingTitle === null && conversion.title !== undefined && /^#(?:[ \t]|$)/.test(source.slice(bodyStart));
  const sameHead = !titleBesideHeading && sourceHead === (ourHead && bodyStart < source.length ? `${ourHead}\n` : ourHead);
  if (hunks.length === 0 && sameHead && !noFinalNewline) return null;
  // The title the head gives: its heading 1's, or its front matter's beside another heading 1 (both are written back
  // while the page keeps that title).
  const title = headingTitle ?? (titleBesideHeading ? conversion.title! : null);
  const head = sameHead ? undefined : { text: sourceHead, title, frontmatter: hasFrontmatter ? frontmatterKey(conversion.frontmatter) : null };
  return { hunks, tableRows: true, starRules: true, ...(head ? { head } : {}), ...(noFinalNewline ? { noFinalNewline: true as const } : {}) };
}

/**
 * Whether a page's Markdown begins (after its front matter and blank lines) with a heading 1, ATX (`# Title`) or
 * setext (`Title` over `===`): the title line our writing puts there. A file without one has its title elsewhere
 * (SUMMARY.md), and Git Sync's export writes it back without one (git_sync_entries.title_heading). Read from the
 * lines, not parsed again: the import converts each page once. Only the lines it needs are cut out of the text
 * (`linesOf`): it split every page whole into lines to read its first few.
 */
export function beginsWithTitleHeading(markdown: string): boolean {
  const line = linesOf(markdown.replace(/^\uFEFF/, ''));
  let at = 0;
  if (/^---[ \t]*$/.test(line(0) ?? '')) {
    let end = -1;
    for (let i = 1; line(i) !== undefined && end < 0; i++) if (/^(?:---|\.\.\.)[ \t]*$/.test(line(i)!)) end = i;
    if (end > 0) at = end + 1;
  }
  while (line(at) !== undefined && line(at)!.trim() === '') at++;
  const first = line(at) ?? '';
  const atx = /^ {0,3}#[ \t]+(.*)$/.exec(first);
  if (atx) return atx[1].replace(/(?:^|[ \t]+)#+[ \t]*$/, '').trim() !== '';
  return /^ {0,3}\S/.test(first) && !/^ {0,3}(?:[-*+>#|]|\d+[.)]|```|~~~|<|\{%)/.test(first) && /^ {0,3}=+[ \t]*$/.test(line(at + 1) ?? '');
}

/**
 * The lines of `text` as `text.split(/\r\n?|\n/)` gives them (undefined past the last), each cut out when first
 * asked for, in order.
 */
function linesOf(text: string): (index: number) => string | undefined {
  const lines: string[] = [];
  const breaks = /\r\n?|\n/g;
  let from = 0;
  return (index) => {
    while (lines.length <= index && from >= 0) {
      const found = breaks.exec(text);
      lines.push(text.slice(from, found ? found.index : text.length));
      from = found ? breaks.lastIndex : -1;
    }
    return lines[index];
  };
}

/**
 * A document a client sent as JSON in place of one read from Markdown, with the source patch (and Markdown style) of
 * the document it replaces: the author's lines are kept wherever the page's blocks still write as they did, as an
 * edit sent as Markdown keeps them (a page of a Git Sync import edited as JSON was otherwise written whole our way
 * on its next export). The hunks are checked to give back Markdown that reads as the sent document (written our way,
 * they are its own writing), else none is kept; the head applies only while the title and front matter are the
 * ones it was read with (`documentToMarkdown`). The patch is never the client's: parseDocument drops theirs.
 */
export function withSourcePatchOf(previous: JSONDocument | undefined, next: JSONDocument): JSONDocument {
  const patch = sourcePatchOf(previous?.data);
  if (!patch || SOURCE_PATCH_KEY in (next.data ?? {})) return next;
  const style = next.data?.markdownStyle ?? previous?.data?.markdownStyle;
  const data: JSONDocument['data'] = { ...next.data, ...(style ? { markdownStyle: style } : {}) };
  const styled: JSONDocument = { ...next, data };
  const tableRows = patch.tableRows === true;
  const base = patchBaseOf(styled, undefined, tableRows);
  const ours = base.text;
  // The hunks placed beside the edit too (source-patch.ts `place`); where that reads otherwise, only where they fit
  // whole (as before hunks were placed beside an edit), else none.
  const { strict: _previous, ...kept } = patch;
  const fits = (hunks: SourceHunk[], strict: boolean) => {
    // As the page is written (our rows left in a table restyled as the author's, an edited row merged without padding).
    const patched = hunks.length === 0 ? ours : patchedWriting(base, hunks, strict);
    return patched === ours || writesAs(patched, styled, ours, tableRows);
  };
  const relaxed = fits(patch.hunks, false);
  const whole = relaxed || fits(patch.hunks, true);
  // Else the hunks that still fit, where they fit whole: one that reads otherwise no longer costs the page all the others.
  const hunks = whole ? patch.hunks : hunksThatFit(patch.hunks, (some) => fits(some, true));
  const strict = !relaxed && hunks.length > 0;
  if (hunks.length === 0 && !patch.head && !patch.noFinalNewline) return styled;
  return { ...styled, data: { ...data, [SOURCE_PATCH_KEY]: { ...kept, hunks, ...(strict ? { strict: true as const } : {}) } } };
}

/** The most times hunksThatFit writes and reads a page again: beyond it, a page keeps none of its hunks (as before). */
const MAX_FIT_CHECKS = 24;

/**
 * The hunks of a patch that together read as the document, found by halves (a patch whose whole no longer reads so):
 * a page whose tag written as text in a paragraph (`{% content-ref url="x.md" %} [x](x.md) ...`, its hunk saying the
 * `url` by id, the text not) was written whole our way for a one-line edit (probe22, devportal-docs-translations). The
 * halves that fit are checked again together; none where they do not, or past MAX_FIT_CHECKS. Hunks that open and
 * close one fence (sameBlockHunks) are never cut apart: each fits only with the other.
 */
function hunksThatFit(hunks: SourceHunk[], fits: (hunks: SourceHunk[]) => boolean): SourceHunk[] {
  let checks = 0;
  const check = (some: SourceHunk[][]) => ++checks <= MAX_FIT_CHECKS && fits(some.flat());
  const search = (some: SourceHunk[][]): SourceHunk[][] => {
    if (some.length <= 1 || checks >= MAX_FIT_CHECKS) return [];
    const halves = [some.slice(0, Math.ceil(some.length / 2)), some.slice(Math.ceil(some.length / 2))];
    return halves.flatMap((half) => (check(half) ? half : search(half)));
  };
  const found = search(sameBlockHunks(hunks)).flat();
  return found.length > 0 && checks < MAX_FIT_CHECKS && fits(found) ? found : [];
}

/**
 * The hunks grouped so that none leaves a code fence open: a hunk that changes an odd number of fence lines is joined
 * by the hunks after it up to the one that closes the count. A tag GitBook reads as code (`<div align="center">` on its
 * own line, written by us inside a fence) is kept as written by two hunks, the fence's opening line and its closing one
 * removed; either alone reads as another document, so a half holding one of them failed and both were dropped: the tag
 * was exported fenced (probe23b, secoda/gitbook). A list item's marker line (`1.  text \`, `*   text`: the author's
 * spacing) is joined by the hunks of its indented lines just after it (its `<figure>` continuation, indented to that
 * spacing): either alone reads as another document (the figure leaves the item, or a lazy line joins it), so halves
 * that cut them apart dropped both, and the item came back `1. ` (patchkeep23, secoda/gitbook). Only those are
 * joined: a unit that does not fit loses all its hunks.
 */
function sameBlockHunks(hunks: readonly SourceHunk[]): SourceHunk[][] {
  const units: SourceHunk[][] = [];
  let open = false;
  // The line after the list item a unit holds (its marker's, then its continuation's), or null.
  let itemEnd: number | null = null;
  for (const hunk of hunks) {
    const continuation: boolean = itemEnd !== null && continuesItem(hunk, itemEnd);
    if (open || continuation) units[units.length - 1].push(hunk);
    else units.push([hunk]);
    if (fenceLinesIn(hunk) % 2 === 1) open = !open;
    itemEnd = continuation || opensListItem(hunk) ? hunk.at + hunk.remove.length : null;
  }
  return units;
}

const LIST_MARKER_LINE = /^ {0,3}(?:[*+-]|\d{1,9}[.)])[ \t]/;

function opensListItem(hunk: SourceHunk): boolean {
  return hunk.remove.some((line) => LIST_MARKER_LINE.test(line)) && hunk.add.some((line) => LIST_MARKER_LINE.test(line));
}

/** A hunk of an item's own lines (indented or blank) beginning at most two lines after the item's hunks end. */
function continuesItem(hunk: SourceHunk, itemEnd: number): boolean {
  return hunk.at <= itemEnd + 2 && [...hunk.remove, ...hunk.add].every((line) => line === '' || /^[ \t]/.test(line));
}

const FENCE_LINE = /^ {0,3}(?:`{3,}|~{3,})/;

function fenceLinesIn(hunk: SourceHunk): number {
  return [...hunk.remove, ...hunk.add].filter((line) => FENCE_LINE.test(line)).length;
}

/** Whether Markdown (a page's body) reads as a document whose writing, in `document`'s style, is `ours`. */
function writesAs(markdown: string, document: JSONDocument, ours: string, tableRows: boolean): boolean {
  const again = readMarkdown(`---\ntitle: body\n---\n${markdown}`, { resolveLink: defaultResolveLink }).conversion.document;
  return writePatchBase({ ...again, data: document.data }, undefined, tableRows) === ours;
}
